"""The declarations ``generate`` works from: the declaration file's entries,
or, with no file, the default ``deny-all`` under ``core`` for every
SandboxTemplate in the manifests (SEMANTICS §17.5), as ``check`` applies it."""

from __future__ import annotations

from collections.abc import Sequence

from lint.checks.candidates import location_of
from lint.checks.runner import DEFAULT_EGRESS, CheckOptions, read_declarations
from lint.decision.constants import DEFAULT_AGENT_PORT
from lint.decision.translation import translate
from lint.declarations import Declarations, SandboxDeclaration
from lint.generate.model import Intent, Source
from lint.inventory import build_inventory
from lint.kinds import RELEVANT_KINDS, SANDBOX_TEMPLATE
from lint.loading import DEFAULT_LIMITS, LoadLimits, load


def declared_intents(declarations: Declarations) -> list[Intent]:
    """One intent per declaration entry, in file order."""
    return [_entry_intent(entry) for entry in declarations.entries]


def _entry_intent(entry: SandboxDeclaration) -> Intent:
    source = Source(
        where=f"{entry.file}:{entry.line} ({entry.field_prefix})",
        template=entry.template,
        profile=entry.profile,
    )
    port = entry.ingress.agent_port if entry.ingress is not None else None
    return Intent(source, entry.namespace, entry.egress, entry.translation, port)


def default_intents(
    paths: Sequence[str],
    namespace: str,
    stdin: bytes | None,
    limits: LoadLimits = DEFAULT_LIMITS,
) -> list[Intent]:
    """With no declaration file: every SandboxTemplate found, as ``deny-all``
    under ``core`` with the default agent port."""
    loaded = load(list(paths), stdin=stdin, relevant_kinds=RELEVANT_KINDS, limits=limits)
    inventory = build_inventory(loaded.documents, namespace)
    intents = []
    for template in inventory.all_of_kind(SANDBOX_TEMPLATE.name):
        if template.name is None or template.namespace is None:
            continue
        location = location_of(template)
        source = Source(
            where=f"{location.file}:{location.line}",
            template=template.name,
            profile=None,
            defaulted=True,
        )
        translation = translate(DEFAULT_EGRESS, template.name, template.namespace)
        intents.append(
            Intent(source, template.namespace, DEFAULT_EGRESS, translation, DEFAULT_AGENT_PORT)
        )
    return intents


def gather_intents(options: CheckOptions, stdin: bytes | None = None) -> list[Intent]:
    """The intents for one run: declarations found the way ``check`` finds
    them (``--config``, else upward from the first PATH, else from the
    current directory). Raises DeclarationError (exit 2)."""
    declarations = read_declarations(options)
    if not declarations.defaults_applied:
        return declared_intents(declarations)
    return default_intents(options.paths, declarations.object_namespace, stdin, options.limits)
