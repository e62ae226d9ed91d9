"""The agent-sandbox controller as deployed (DESIGN §12, AGENT-SANDBOX §8):
which version a run assumes and why, and the findings that come with it.

The version comes from, in order: ``--controller-version``; the
declaration's ``agentSandbox.version``; the image tag of the controller
Deployment in the manifests; else the newest column of §8. A version that
matches no column is a warning, and the newest column is used.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

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
)
from lint.declarations import Declarations, DeclaredSandbox
from lint.declarations.errors import DeclarationError
from lint.inventory import Inventory, KubeObject
from lint.kinds import CONTROLLER_DEPLOYMENT, CONTROLLER_IMAGE_NAME, SANDBOX_TEMPLATE
from lint.report.model import ControllerReport, Finding, Location
from lint.sandboxes import Path, implied_paths

CONTROLLER_IMAGE = CONTROLLER_IMAGE_NAME


@dataclass(frozen=True)
class ControllerSetting:
    """The controller one run assumes, its report entry, and a warning when
    the version given matched no §8 column."""

    facts: ControllerFacts
    report: ControllerReport
    findings: tuple[Finding, ...] = ()


def controller_setting(
    flag: str | None, declarations: Declarations, inventory: Inventory
) -> ControllerSetting:
    """The version from the first source that gives one (module docstring)."""
    if flag:
        return _setting(flag, "flag", None)
    if declarations.controller_version and declarations.file is not None:
        line = declarations.line_of("agentSandbox.version")
        return _setting(
            declarations.controller_version,
            "declaration",
            Location(declarations.file, line),
        )
    tags = image_tags(inventory)
    if len({tag for tag, _ in tags}) > 1:
        return _several_tags(tags)
    if tags:
        tag, location = tags[0]
        return _setting(tag, "image-tag", location)
    return ControllerSetting(DEFAULT_FACTS, _report(DEFAULT_FACTS, "default", None))


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


def _several_tags(tags: Sequence[tuple[str, Location]]) -> ControllerSetting:
    """Controller images of different tags: which one runs cannot be told,
    so no older column may excuse anything; the newest is assumed."""
    listed = ", ".join(f"{tag} at {where.file}:{where.line}" for tag, where in tags)
    message = (
        f"the manifests hold agent-sandbox controller images of different versions ({listed}); "
        f"which one runs cannot be told, so the newest known version ({NEWEST.title}) is assumed"
    )
    finding = rule_finding("controller-version-unknown", message, tags[0][1])
    report = _report(DEFAULT_FACTS, "default", None)
    return ControllerSetting(DEFAULT_FACTS, report, (finding,))


def _report(facts: ControllerFacts, source: str, location: Location | None) -> ControllerReport:
    return ControllerReport(facts.version, facts.column.title, source, location)


def image_tags(inventory: Inventory) -> list[tuple[str, Location]]:
    """The tags of every ``agent-sandbox-controller`` container image in the
    manifests' Deployments, by file and line (so the first never depends on
    the order files were read)."""
    found = []
    for deployment in inventory.all_of_kind(CONTROLLER_DEPLOYMENT.name):
        for index, image in _container_images(deployment):
            tag = _controller_tag(image)
            if tag is not None:
                path = ("spec", "template", "spec", "containers", index, "image")
                found.append((tag, precise_location(deployment, path)))
    return sorted(found, key=lambda item: (item[1].file, item[1].line, item[0]))


def _container_images(deployment: KubeObject) -> Iterable[tuple[int, str]]:
    value = deployment.value
    for key in ("spec", "template", "spec", "containers"):
        value = value.get(key) if isinstance(value, dict) else None
    if not isinstance(value, list):
        return []
    return [
        (index, container["image"])
        for index, container in enumerate(value)
        if isinstance(container, dict) and isinstance(container.get("image"), str)
    ]


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
