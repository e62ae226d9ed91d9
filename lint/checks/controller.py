"""The agent-sandbox controller as deployed (DESIGN §12, AGENT-SANDBOX §8):
which version a run assumes and why, and the findings that come with it.

The version comes from, in order: ``--controller-version``; the
controllers the manifests run (any workload kind whose pod has an
``agent-sandbox-controller`` container: the image tag when it is a version,
else the workload's ``app.kubernetes.io/version`` label); the declaration's
``agentSandbox.version``; a controller image tag that is no version
(``latest``); else the newest column of §8. The manifests come before the
declaration because they are what the cluster will run; when the two
disagree, or two controllers in the manifests do, a warning names both. A
version that matches no column is a warning, and the newest column is used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec

from lint.checks.candidates import location_of
from lint.checks.context import precise_location, rule_finding
from lint.decision.controller import controller_policy_name, is_unmanaged
from lint.decision.controller_versions import (
    COLUMNS,
    DEFAULT_FACTS,
    NEWEST,
    ControllerColumn,
    ControllerFacts,
    facts_for,
    parse_version,
)
from lint.declarations import Declarations, DeclaredSandbox
from lint.declarations.errors import DeclarationError
from lint.inventory import Inventory, KubeObject
from lint.kinds import (
    CONTROLLER_IMAGE_NAME,
    SANDBOX_TEMPLATE,
    WORKLOAD_KINDS,
    WORKLOAD_POD_TEMPLATE,
)
from lint.loading.lists import pod_images
from lint.report.model import ControllerReport, Finding, Location
from lint.sandboxes import Path, implied_paths

CONTROLLER_IMAGE = CONTROLLER_IMAGE_NAME
VERSION_LABEL: Final = "app.kubernetes.io/version"
"""The recommended Kubernetes label for an application's version, which
Helm charts set from the chart's appVersion."""


class ControllerSetting(msgspec.Struct, frozen=True):
    """The controller one run assumes, its report entry, and a warning when
    the version given matched no §8 column or the sources disagree."""

    facts: ControllerFacts
    report: ControllerReport
    findings: tuple[Finding, ...] = ()


class RunningController(msgspec.Struct, frozen=True):
    """One controller container in the manifests and the version read from
    it: ``source`` is ``image-tag`` or ``version-label``; ``versioned`` is
    whether that text is a version at all (``latest`` is not)."""

    version: str
    source: str
    location: Location
    workload: str
    """``StatefulSet agent-sandbox-system/agent-sandbox-controller``."""

    @property
    def versioned(self) -> bool:
        return parse_version(self.version) is not None

    @property
    def where(self) -> str:
        return f"{self.workload} at {self.location.file}:{self.location.line}"


def controller_setting(
    flag: str | None, declarations: Declarations, inventory: Inventory
) -> ControllerSetting:
    """The version from the first source that gives one (module docstring)."""
    if flag:
        return _setting(flag, "flag", None)
    running = running_controllers(inventory)
    versioned = [controller for controller in running if controller.versioned]
    if len({parse_version(controller.version) for controller in versioned}) > 1:
        return _disagreeing(versioned)
    declared = _declared(declarations)
    if versioned:
        first = versioned[0]
        setting = _setting(first.version, first.source, first.location)
        return _against_declared(setting, first, declared)
    if declared is not None:
        return _setting(declared[0], "declaration", declared[1])
    if running:
        first = running[0]
        return _setting(first.version, first.source, first.location)
    return ControllerSetting(DEFAULT_FACTS, _report(DEFAULT_FACTS, "default", None))


def _declared(declarations: Declarations) -> tuple[str, Location] | None:
    if not declarations.controller_version or declarations.file is None:
        return None
    line = declarations.line_of("agentSandbox.version")
    return declarations.controller_version, Location(declarations.file, line)


def _setting(version: str, source: str, location: Location | None) -> ControllerSetting:
    facts = facts_for(version)
    if facts is not None:
        return ControllerSetting(facts, _report(facts, source, location))
    message = (
        f"agent-sandbox controller version {version!r} is not a version egress-lint knows; "
        f"the newest known version ({NEWEST.title}) is assumed"
    )
    where = location or Location("--controller-version", 1)
    finding = rule_finding("controller-version-unknown", message, where)
    report = ControllerReport(version, NEWEST.title, source, location)
    return ControllerSetting(DEFAULT_FACTS, report, (finding,))


def _disagreeing(running: Sequence[RunningController]) -> ControllerSetting:
    """Controllers of different versions: which one acts on a template cannot
    be told, so no older column may excuse anything; the newest is assumed."""
    listed = ", ".join(f"{controller.version} ({controller.where})" for controller in running)
    message = (
        f"the manifests run agent-sandbox controllers of different versions: {listed}; "
        f"which one acts on a template cannot be told, so the newest known version "
        f"({NEWEST.title}) is assumed"
    )
    related = [controller.location for controller in running[1:]]
    finding = rule_finding(
        "controller-versions-disagree", message, running[0].location, related=related
    )
    report = _report(DEFAULT_FACTS, "default", None)
    return ControllerSetting(DEFAULT_FACTS, report, (finding,))


def _against_declared(
    setting: ControllerSetting,
    running: RunningController,
    declared: tuple[str, Location] | None,
) -> ControllerSetting:
    """A warning when ``agentSandbox.version`` names another version than
    the controller the manifests run; the manifests' version stands."""
    if declared is None or _same_version(declared[0], running.version):
        return setting
    version, location = declared
    message = (
        f"agentSandbox.version is {version}, but the manifests run agent-sandbox controller "
        f"{running.version} ({running.where}); the version the manifests run is assumed"
    )
    finding = rule_finding(
        "controller-versions-disagree", message, location, related=[running.location]
    )
    return ControllerSetting(setting.facts, setting.report, (*setting.findings, finding))


def _same_version(one: str, other: str) -> bool:
    parsed = parse_version(one)
    return parsed == parse_version(other) if parsed is not None else one == other


def _report(facts: ControllerFacts, source: str, location: Location | None) -> ControllerReport:
    return ControllerReport(facts.version, facts.column.title, source, location)


def running_controllers(inventory: Inventory) -> list[RunningController]:
    """Every ``agent-sandbox-controller`` container of every workload in the
    manifests, with its version, by file and line (so the first never
    depends on the order files were read)."""
    found = []
    for kind in WORKLOAD_KINDS:
        for workload in inventory.all_of_kind(kind.key):
            found.extend(_controllers_of(workload, kind.name))
    return sorted(found, key=lambda c: (c.location.file, c.location.line, c.version))


def _controllers_of(workload: KubeObject, kind: str) -> list[RunningController]:
    name = workload.display_name
    if workload.namespace is not None:
        name = f"{workload.namespace}/{name}"
    found = []
    pod = WORKLOAD_POD_TEMPLATE.get(kind, ())
    for index, image in pod_images(workload.value, kind):
        tag = _controller_tag(image)
        if tag is None and not _is_controller_image(image):
            continue
        path: tuple[str | int, ...] = (*pod, "spec", "containers", index, "image")
        at_image = precise_location(workload, path)
        if tag is not None and parse_version(tag) is not None:
            found.append(RunningController(tag, "image-tag", at_image, f"{kind} {name}"))
            continue
        label = _version_label(workload, pod)
        if label is not None:
            found.append(RunningController(label[0], "version-label", label[1], f"{kind} {name}"))
        elif tag is not None:
            found.append(RunningController(tag, "image-tag", at_image, f"{kind} {name}"))
    return found


def _version_label(workload: KubeObject, pod: tuple[str, ...]) -> tuple[str, Location] | None:
    """``app.kubernetes.io/version`` on the workload, else on its pod template."""
    for prefix in ((), pod):
        path = (*prefix, "metadata", "labels", VERSION_LABEL)
        value: object = workload.value
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, str) and value.strip():
            return value.strip(), precise_location(workload, path)
    return None


def _is_controller_image(image: str) -> bool:
    """``…/agent-sandbox-controller`` with no tag, or pinned by digest only."""
    reference = image.split("@", 1)[0]
    return reference.rsplit("/", 1)[-1] == CONTROLLER_IMAGE


def _controller_tag(image: str) -> str | None:
    """``registry/…/agent-sandbox-controller:v0.5.0`` (a digest after ``@``
    ignored) gives ``v0.5.0``; any other image None."""
    reference = image.split("@", 1)[0]
    name, _, tag = reference.rpartition(":")
    if not name or "/" in tag:
        return None
    return tag if name.rsplit("/", 1)[-1] == CONTROLLER_IMAGE else None


def newer_columns(facts: ControllerFacts) -> tuple[ControllerColumn, ...]:
    """The §8 columns after the assumed one, oldest first."""
    index = COLUMNS.index(facts.column)
    return COLUMNS[index + 1 :]


def upgrade_facts(column: ControllerColumn) -> ControllerFacts:
    """A controller at the first version of a column."""
    version = "v" + ".".join(str(part) for part in column.first)
    return ControllerFacts(version, column.first, column)


def omitted_paths(declared: DeclaredSandbox, inventory: Inventory) -> list[Finding]:
    """``paths`` that leave out a path the manifests imply (DESIGN §2.3)."""
    if not declared.paths or declared.workload is not None:
        return []  # a workload's pods arrive by the direct path only
    namespace = inventory.namespace(declared.namespace)
    implied = implied_paths(namespace, declared.template, declared.host)
    findings = []
    path: Path
    for path, why in implied.items():
        if path in declared.paths:
            continue
        message = (
            f"paths of template {declared.template!r} leaves out the {path} path, which "
            f"exists because {why}; its pods are not checked"
        )
        location = Location(declared.file, declared.line_of("paths"), declared.source)
        findings.append(rule_finding("path-not-declared", message, location))
    return findings


def refuse_policy_name_collisions(
    declared: Sequence[DeclaredSandbox], inventory: Inventory, facts: ControllerFacts
) -> None:
    """A declared ``networkPolicyName`` that is the controller's own policy
    name for a Managed template is a declaration error (AGENT-SANDBOX §4.1):
    the host and the controller would write one object."""
    for entry in declared:
        name = entry.egress.get("networkPolicyName")
        if not isinstance(name, str) or name != controller_policy_name(entry.template):
            continue
        namespace = inventory.namespace(entry.namespace)
        template = namespace.named(SANDBOX_TEMPLATE.name, entry.template)
        if template is None or is_unmanaged(template.value, facts.column):
            continue
        refuses = (
            "refuses to update a policy it does not own, so the template's reconcile fails"
            if facts.refuses_overwrite
            else "overwrites it with its own policy on every reconcile"
        )
        raise DeclarationError(
            path=f"{entry.field_prefix}.egress.networkPolicyName",
            file=entry.file,
            line=entry.line_of("egress.networkPolicyName"),
            message=(
                f"{name!r} is the name the agent-sandbox controller gives the NetworkPolicy it "
                f"writes for Managed template {entry.template!r}; the host and the controller "
                f"would both write that one object, and the controller {refuses}. Choose "
                "another networkPolicyName, or set `networkPolicyManagement: Unmanaged` on "
                "the template so the controller writes no policy"
            ),
        )


def foreign_templates(inventory: Inventory) -> list[Finding]:
    """One note per API group of skipped SandboxTemplates of another vendor,
    at the first of them by file and line, counting them."""
    by_group: dict[str, list[KubeObject]] = {}
    for obj in inventory.foreign:
        group = (obj.api_version or "").rpartition("/")[0] or "(core)"
        by_group.setdefault(group, []).append(obj)
    findings = []
    for group, objects in sorted(by_group.items()):
        objects.sort(key=lambda obj: (obj.document.file, obj.document.line))
        count = len(objects)
        message = (
            f"{count} SandboxTemplate object{'s' if count != 1 else ''} of API group {group} "
            f"{'were' if count != 1 else 'was'} skipped: only {SANDBOX_TEMPLATE.group} "
            "SandboxTemplates are agent-sandbox templates"
        )
        findings.append(rule_finding("foreign-sandbox-template", message, location_of(objects[0])))
    return findings
