"""One answer (issue 25): on every fixture tree, for every sandbox path
``check`` reports and a fixed list of destinations, ``explain --to`` lets a
destination out beyond the allowance (exit 1) only on a path that ``check``
refuses, and its headline (the cluster's verdict) agrees with both: a
destination the cluster certainly allows beyond the allowance is let out
and refused, a denied one never is. Both go through the one judgement of
the path, so a destination explain counts as let out is always one check
has a refusal for."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.checks.scenario_runner import REPO, run_cli
from tests.checks.test_scenarios import EXTRA_ARGS

FIXTURES = REPO / "fixtures"
DESTINATIONS = (
    "8.8.8.8:443",
    "10.0.0.10:53/UDP",
    "169.254.169.254:80",
    "[2001:db8::1]:443",
    "1.1.1.1",
)
EVERY_ADDRESS = ("0.0.0.0/0", "::/0")
SCENARIOS = sorted(f"scenarios/{p.name}" for p in (FIXTURES / "scenarios").iterdir() if p.is_dir())
TREES = ["demo", "helm/rendered", *SCENARIOS]


def _refused(sandbox: dict[str, Any]) -> bool:
    """Whether check refuses the path's egress: the union's decision or
    reach's."""
    egress = sandbox["egress"]
    union, reach = egress.get("union"), egress.get("reach")
    return bool(
        (union is not None and union["refusal"] is not None)
        or (reach is not None and reach["refusal"] is not None)
    )


def _paths(report: dict[str, Any]) -> dict[tuple[str, str, str | None, str], bool]:
    """Each path check reports, refused or not. The claim-free entry of a
    path is the pod explain shows; a path with only claims' entries counts
    as refused when any of them is."""
    paths: dict[tuple[str, str, str | None, str], bool] = {}
    claimless: set[tuple[str, str, str | None, str]] = set()
    for sandbox in report["sandboxes"]:
        key = (sandbox["namespace"], sandbox["template"], sandbox["profile"], sandbox["path"])
        if "claim" not in sandbox:
            claimless.add(key)
            paths[key] = _refused(sandbox)
        elif key not in claimless:
            paths[key] = paths.get(key, False) or _refused(sandbox)
    return paths


@pytest.mark.parametrize("tree", TREES)
def test_explain_lets_out_only_what_check_refuses(tree: str) -> None:
    cwd = FIXTURES / tree
    extra = EXTRA_ARGS.get(Path(tree).name, ())
    check = run_cli(["check", ".", "--format", "json", *extra], cwd)
    assert check.exit_code in (0, 1), check.stderr
    disagreements = []
    for (namespace, template, profile, path), refused in _paths(check.report).items():
        args = ["explain", ".", "--template", template, "--namespace", namespace, "--path", path]
        args += ["--profile", profile] if profile else []
        for destination in DESTINATIONS:
            explained = run_cli([*args, *extra, "--to", destination, "--format", "json"], cwd)
            assert explained.exit_code in (0, 1), explained.stderr
            to = json.loads(explained.stdout)["to"]
            found = _headline_disagrees(to, explained.exit_code, refused)
            if found is not None:
                disagreements.append((template, path, destination, found, to["reason"]))
            if explained.exit_code == 1 and not refused:
                routes = to["allowance"]["routes"]
                disagreements.append((template, path, destination, "let out", routes))
    assert disagreements == []


def _headline_disagrees(to: dict[str, Any], exit_code: int, refused: bool) -> str | None:
    """How the headline (the cluster's verdict) contradicts the exit status
    or check, if it does. A denied destination is never let out; one let
    out is never denied; a destination the cluster certainly allows, not
    all of it inside the allowance, is let out, and check refuses the path.
    (Partly allowed or undecided, the allowed part may lie inside the
    allowance: then the exit status and check decide, as above.)"""
    verdict, inside = to["verdict"], to["allowance"]["inside"]
    if verdict == "denied" and exit_code != 0:
        return "denied, yet let out"
    if exit_code == 1 and verdict not in ("allowed", "partly-allowed", "unknown"):
        return f"let out, yet {verdict}"
    if verdict == "allowed" and not inside and not (exit_code == 1 and refused):
        return "allowed outside the allowance, yet not refused"
    return None


ADDRESS_PART = re.compile(
    r"\d+\.\d+\.\d+\.\d+/\d+|[0-9a-f]*:[0-9a-f:]*/\d+|every address|every point|IPv4|IPv6|ICMP"
)


def _reach_refusals(report: dict[str, Any]) -> dict[tuple[str, str, str | None, str], str]:
    """Each claim-free path whose reach refuses for some address (its
    summary names the part let out; a part of host names is left out)."""
    found = {}
    for sandbox in report["sandboxes"]:
        reach = sandbox["egress"].get("reach")
        if "claim" in sandbox or reach is None or reach["refusal"] is None:
            continue
        summary = reach["summary"] or ""
        if ADDRESS_PART.search(summary) and "names matching" not in summary:
            key = (sandbox["namespace"], sandbox["template"], sandbox["profile"], sandbox["path"])
            found[key] = summary
    return found


@pytest.mark.parametrize("tree", TREES)
def test_a_reach_refusal_is_let_out_by_explain_over_every_address(tree: str) -> None:
    """The other direction: when check's reach refuses a path for some
    address, ``explain --to`` every address of one family exits 1."""
    cwd = FIXTURES / tree
    extra = EXTRA_ARGS.get(Path(tree).name, ())
    check = run_cli(["check", ".", "--format", "json", *extra], cwd)
    missed = []
    for (namespace, template, profile, path), summary in _reach_refusals(check.report).items():
        args = ["explain", ".", "--template", template, "--namespace", namespace, "--path", path]
        args += ["--profile", profile] if profile else []
        codes = [run_cli([*args, *extra, "--to", each], cwd).exit_code for each in EVERY_ADDRESS]
        if 1 not in codes:
            missed.append((template, path, summary, codes))
    assert missed == []
