"""The declared sandboxes of one run, each resolved once.

With a declaration file they are its entries, resolved by
``load_declarations``. Without one, every SandboxTemplate in the manifests
is a declared sandbox checked as ``deny-all`` under ``core`` (SEMANTICS.md
§17.5) with ``host: none``: nothing says a namzu host creates its pods, so
the cluster's decision alone is the verdict, on the paths the manifests
make possible, and no host-only check applies (issue 25; DESIGN §13). This
module is the one place that default is written.
"""

from __future__ import annotations

from collections.abc import Mapping

from msgspec.structs import replace

from lint.decision.constants import UNKNOWN_LABEL_VALUE
from lint.decision.translation import translate, with_selector
from lint.decision.values import JSON
from lint.declarations.entries import Declarations, DeclaredSandbox
from lint.inventory import Inventory, KubeObject
from lint.kinds import SANDBOX_TEMPLATE
from lint.sandboxes import pod_labels, target_object

DEFAULT_EGRESS: Mapping[str, JSON] = {"policy": {"kind": "deny-all"}, "engine": "core"}
"""The egress every SandboxTemplate is held to when no file declares one."""


def declared_sandboxes(
    declarations: Declarations, inventory: Inventory
) -> tuple[DeclaredSandbox, ...]:
    """The file's entries in file order, or one default per SandboxTemplate.
    A later apply of the same template name in the same namespace (a
    kustomize overlay over its base) replaces the earlier one."""
    if not declarations.defaults_applied:
        return tuple(_selecting_own_pods(entry, inventory) for entry in declarations.entries)
    templates = {
        (t.namespace, t.name): t
        for t in inventory.all_of_kind(SANDBOX_TEMPLATE.name)
        if t.name is not None and t.namespace is not None
    }
    return tuple(
        _selecting_own_pods(_defaulted(template), inventory) for template in templates.values()
    )


def _selecting_own_pods(entry: DeclaredSandbox, inventory: Inventory) -> DeclaredSandbox:
    """Under ``host: none`` the translation selects the pods' own labels on
    the direct path (the target's pod template and ``podLabels``), which
    only the manifests tell (issue 17). ``generate`` writes that selector."""
    if entry.host != "none":
        return entry
    namespace = inventory.namespace(entry.namespace)
    labels = pod_labels(entry, target_object(entry, namespace), "direct")
    # A label whose value the controller picks per pod (sandbox-name-hash,
    # issue 14) cannot be selected on: it is left out of the selector.
    known = {key: value for key, value in labels.items() if value != UNKNOWN_LABEL_VALUE}
    return replace(entry, translation=with_selector(entry.translation, known))


def _defaulted(template: KubeObject) -> DeclaredSandbox:
    name = template.name or ""
    namespace = template.namespace or "default"
    document = template.document
    return DeclaredSandbox(
        index=None,
        template=name,
        namespace=namespace,
        external=False,
        pod_labels={},
        paths=None,
        egress=dict(DEFAULT_EGRESS),
        # No host connects to an agent port (as under a declared `host: none`).
        ingress=None,
        translation=translate(DEFAULT_EGRESS, name, namespace),
        file=document.file,
        line=document.line,
        source=document.source,
        host="none",
    )
