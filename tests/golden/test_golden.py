"""Every output of every command, byte for byte as recorded in
``digests.json`` (see ``cases.py``). Cases on ``../shared/corpus`` skip when
it is absent; the bench tree is generated once per session."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.bench_tree import generate_tree
from tests.golden.cases import BENCH_SHAPE, CORPUS, DIGESTS, Case, run_case
from tests.golden.changed_outputs import (
    ISSUE_25_RECORDED_NEW,
    ISSUE_25_SCENARIOS,
    ISSUE_25_TIERS_CHANGED,
    ISSUE_27_NO_CITATIONS,
    RECORDED_NEW_SCENARIOS,
    in_issue_14_scenario,
    issue_14_changed,
    issue_25_changed,
)

RECORDED: dict[str, dict[str, Any]] = json.loads(DIGESTS.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def bench_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("golden-bench")
    generate_tree(root, **BENCH_SHAPE)
    return root


def _case(entry: dict[str, Any]) -> Case:
    root, cwd, *args = entry["case"]
    return Case(root, cwd, tuple(args))


def test_the_recorded_cases_cover_every_tree() -> None:
    roots = {entry["case"][0] for entry in RECORDED.values()}
    assert roots == {"fixtures", "corpus", "bench"}
    commands = {entry["case"][2] for entry in RECORDED.values()}
    assert commands == {"check", "explain", "generate", "rules"}


_EXPLAINED_IN_CORPUS = [
    f"corpus:. $ explain corpus --template {template} --namespace {namespace} --path {path}{to}"
    for template, namespace in (
        ("${SANDBOX_TEMPLATE_NAME}", "${SANDBOX_NAMESPACE}"),
        ("${TEMPLATE_NAME}", "${NAMESPACE}"),
        ("aider-browser-template", "default"),
    )
    for path in ("direct", "pooled")
    for to in (
        " --format json",
        " --format text",
        " --to 1.1.1.1:443 --format json",
        " --to 10.0.0.10:53/UDP --format json",
        " --to api.github.com:443 --format json",
    )
]
# Issue 16: kustomization and chart directories in the corpus are no longer
# read as manifests; the text report names the template line of a Helm
# finding (the bench tree and the Helm fixture carry `# Source:` comments).
_CHANGED_IN_ISSUE_16 = [
    "bench:. $ check . --format text",
    "corpus:. $ check corpus --format json",
    "corpus:. $ check corpus --format json --read-cilium always",
    "corpus:. $ check corpus --format sarif",
    "corpus:. $ check corpus --format text",
    *_EXPLAINED_IN_CORPUS,
    "corpus:. $ generate corpus --stdout",
    "fixtures:helm/rendered $ check . --format text",
    "fixtures:scenarios/allow-chart $ check . --format text",
]


ISSUE_12_SCENARIOS = (
    "duplicate-policy",
    "namespace-labels",
    "reach-anp-ingress-only",
    "reach-anp-other-namespace",
    "reach-antrea-cluster-policy",
    "reach-baseline-excused",
    "reach-calico-global-policy",
    "reach-calico-staged",
    "reach-cidr-group",
    "reach-cilium-policy-never",
    "reach-cilium-under-core",
    "reach-cluster-network-policy",
    "reach-egress-firewall",
    "reach-ingress-anp",
    "reach-kubeovn-subnet",
    "reach-secondary-network",
)
"""Scenarios issue 12 added: recorded new, so their entries carry no why."""
ISSUE_12_TEXT = {
    "corpus:. $ check corpus --format text",
    "fixtures:demo $ rules",
    "fixtures:scenarios/admin-network-policy $ check . --format text",
    "fixtures:scenarios/admin-network-policy $ explain . --template task --namespace sbx "
    "--path direct --format text",
    "fixtures:scenarios/read-cilium-always $ check . --format text",
    "fixtures:scenarios/read-cilium-always $ explain . --template task --namespace sbx "
    "--path direct --format text",
}
"""The text outputs issue 12 changes on purpose: trees with the kinds it moves or adds
(and the rules listing); every other text output stays byte-identical."""


def _issue_12_changed(key: str) -> bool:
    if any(f"scenarios/{name} $" in key for name in ISSUE_12_SCENARIOS):
        return False
    if in_issue_14_scenario(key):
        # Recorded on the controller branch with the older reach wiring,
        # which already reported check's reach; explain's JSON gains it here.
        return " $ explain " in key and "--format json" in key
    if key in ISSUE_12_TEXT:
        return True
    if key.startswith("corpus:. $ explain") and key.endswith("--format text"):
        return True
    return "--format json" in key or "--format sarif" in key


ISSUE_15_SCENARIOS = ("host-accepts-network-may-not",)
"""The scenario issue 15 added (its advisories): recorded new."""


def in_issue_15_scenario(key: str) -> bool:
    return any(f"scenarios/{name} $" in key for name in ISSUE_15_SCENARIOS)


def _issue_15_changed(key: str) -> bool:
    """Issue 15 (item 7) adds three warning rules, so the rule catalog of
    every SARIF report and the ``rules`` listing change; no other output
    does (the advisories fire on no earlier tree, and the caps on quoted
    values leave every recorded text whole)."""
    if in_issue_15_scenario(key):
        return False
    command = key.split(" $ ", 1)[1]
    return command.startswith("rules") or (
        command.startswith("check ") and "--format sarif" in command
    )


_ISSUE_13_HELM_LINES = {
    "bench:. $ check . --format sarif",
    "bench:. $ check . --format text",
    "fixtures:helm/rendered $ check . --format sarif",
    "fixtures:helm/rendered $ check . --format text",
}
"""Trees with Helm findings from templates that render several objects: each
finding moves to its own document's template line (issue 13, item 6)."""


def _issue_13_explain_sarif_changed(key: str) -> bool:
    """Issue 13 (explain/sarif part): every ``explain --to`` output (the exit
    status, ``to.allowance``, ports in ``reachAdmittedBy``), and the check
    outputs whose Helm findings changed line (``_ISSUE_13_HELM_LINES``)."""
    if " $ explain " in key and " --to " in key:
        return True
    return key in _ISSUE_13_HELM_LINES


ISSUE_13_SCENARIOS = (
    "controller-default-chart",
    "declaration-note",
    "suppression-malformed",
    "template-undeclared",
)
"""Scenarios issue 13 added: recorded new, so their entries carry no why."""
ISSUE_13_NO_FINDINGS = frozenset(
    f"fixtures:scenarios/{name} $ check . --format json{flag}"
    for name, flags in (
        ("allow-chart-unmanaged", ("", " --read-cilium always")),
        ("reach-anp-ingress-only", ("", " --read-cilium always")),
        ("reach-anp-other-namespace", ("", " --read-cilium always")),
        ("reach-baseline-excused", ("",)),
        ("reach-calico-staged", ("", " --read-cilium always")),
        ("reach-cilium-policy-never", ("",)),
    )
    for flag in flags
)
"""The check JSON outputs whose report has no findings: they keep their bytes."""


def _new_in_issue_13(key: str) -> bool:
    return any(f"scenarios/{name} $" in key for name in ISSUE_13_SCENARIOS)


def _issue_13_changed(key: str) -> bool:
    """Issue 13 changes every output that shows findings or the rule table:
    check's text (grouped by culprit, one line per path) and SARIF (its rule
    catalog gains three rules) everywhere; check's JSON wherever the report
    has findings (they gain `affected`, `culprit`, `remedyYaml` and merge per
    culprit); explain's text (wrapped within 80 columns, peers in words);
    the rules listing. Explain's JSON and generate are unchanged."""
    if _new_in_issue_13(key):
        return False
    command = key.split(" $ ")[1].split(maxsplit=1)[0]
    if command == "rules":
        return True
    if command == "explain":
        return "--format json" not in key
    if command != "check":
        return False
    return key not in ISSUE_13_NO_FINDINGS


ISSUE_25_EXPLAIN_SCENARIOS = (
    "calico-default-tier-pass",
    "cilium-egress-deny-all",
    "explain-cidr-group",
    "explain-renders",
    "explain-unisolated",
)
"""Scenarios issue 25 added: recorded new, so their entries carry no why."""
ISSUE_25_TEXT = frozenset(
    {
        "fixtures:scenarios/no-enforcing $ explain . --template task --namespace sbx "
        "--path direct --format text",
        "fixtures:scenarios/template-not-found $ explain . --template typo-task "
        "--namespace sbx --path direct --format text",
    }
)
"""The explain listings of a pod that no policy isolates: it reaches every
destination, where they said nothing."""


def _issue_25_changed(key: str) -> bool:
    """Issue 25 (one answer: explain presents check's judgement): every
    ``explain --to`` output (``to.verdict`` and ``to.reason`` are the
    cluster's verdict, ``to.hostVerdict`` and ``to.hostReason`` are added,
    and the Cilium policies reach reads under engine core count, so three
    trees whose check refuses now exit 1), and the listings of
    ``ISSUE_25_TEXT``. Check, generate and every other explain output keep
    their bytes."""
    if any(f"scenarios/{name} $" in key for name in ISSUE_25_EXPLAIN_SCENARIOS):
        return False
    return (" $ explain " in key and " --to " in key) or key in ISSUE_25_TEXT


_CHANGED_IN_ISSUE_26 = frozenset(
    [
        "bench:. $ check . --format json",
        "bench:. $ check . --format json --read-cilium always",
        "bench:. $ check . --format sarif",
        "corpus:. $ check corpus --format json",
        "corpus:. $ check corpus --format json --read-cilium always",
        "corpus:. $ check corpus --format sarif",
        "corpus:. $ check corpus --format text",
        "corpus:. $ explain corpus --template aider-browser-template --namespace default --path direct --format json",
        "corpus:. $ explain corpus --template aider-browser-template --namespace default --path direct --format text",
        "corpus:. $ explain corpus --template aider-browser-template --namespace default --path direct --to 1.1.1.1:443 --format json",
        "corpus:. $ explain corpus --template aider-browser-template --namespace default --path direct --to 10.0.0.10:53/UDP --format json",
        "corpus:. $ explain corpus --template aider-browser-template --namespace default --path direct --to api.github.com:443 --format json",
        "corpus:. $ explain corpus --template aider-browser-template --namespace default --path pooled --format json",
        "corpus:. $ explain corpus --template aider-browser-template --namespace default --path pooled --format text",
        "corpus:. $ explain corpus --template aider-browser-template --namespace default --path pooled --to 1.1.1.1:443 --format json",
        "corpus:. $ explain corpus --template aider-browser-template --namespace default --path pooled --to 10.0.0.10:53/UDP --format json",
        "corpus:. $ explain corpus --template aider-browser-template --namespace default --path pooled --to api.github.com:443 --format json",
        "fixtures:scenarios/allow-chart $ explain . --template runner --namespace agents --path pooled --format text",
        "fixtures:scenarios/controller-default-chart $ check . --format json",
        "fixtures:scenarios/controller-default-chart $ check . --format json --read-cilium always",
        "fixtures:scenarios/controller-default-chart $ check . --format sarif",
        "fixtures:scenarios/controller-default-chart $ explain . --template runner --namespace agents --path pooled --format text",
        "fixtures:scenarios/controller-v0.5.6 $ explain . --template task --namespace sbx --path pooled --format text",
        "fixtures:scenarios/controller-version-unknown $ explain . --template task --namespace sbx --path pooled --format text",
        "fixtures:scenarios/duplicate-template $ check . --format sarif",
        "fixtures:scenarios/duplicate-template $ explain . --template task --namespace sbx --path pooled --format text",
        "fixtures:scenarios/host-accepts-network-may-not $ explain . --template task --namespace sbx --path direct --format text",
        "fixtures:scenarios/not-evaluable $ check . --format json",
        "fixtures:scenarios/not-evaluable $ check . --format json --read-cilium always",
        "fixtures:scenarios/not-evaluable $ check . --format sarif",
        "fixtures:scenarios/pooled-controller $ explain . --template task --namespace sbx --path pooled --format text",
        "fixtures:scenarios/reach-cidr-group $ check . --format json",
        "fixtures:scenarios/reach-cidr-group $ check . --format json --read-cilium always",
        "fixtures:scenarios/reach-cidr-group $ check . --format sarif",
        "fixtures:scenarios/reach-cluster-network-policy $ check . --format json",
        "fixtures:scenarios/reach-cluster-network-policy $ check . --format json --read-cilium always",
        "fixtures:scenarios/reach-cluster-network-policy $ check . --format sarif",
    ]
)
"""Issue 26 (safe on an untrusted pull request): explain text lines that
began with an IPv6 CIDR (``::/0``) are escaped so none starts a workflow
command; copies of one name no longer isolate unless every copy does, and
each copy of a duplicated template or workload is judged (the corpus);
culprit content hashes cover every offending rule and what the rules name
(the bench, the corpus, and the scenarios whose culprits have several
offending rules or name a CIDR group or namespaces)."""


ISSUE_25_TIERS = "issue 25 (reach from the exact tier model)"
ISSUE_25_TIERS_SCENARIOS = ("anp-deny-shadows-allow", "banp-pass-deny", "calico-only-isolated")
"""Scenarios the tier model's branch added: recorded new."""

_ISSUE_RULES: dict[str, Callable[[str], bool]] = {
    "issue 26": lambda key: key in _CHANGED_IN_ISSUE_26,
    "issue 16": lambda key: key in _CHANGED_IN_ISSUE_16,
    "issue 12": _issue_12_changed,
    "issue 14": issue_14_changed,
    "issue 15": _issue_15_changed,
    "issue 13 (explain/sarif part)": _issue_13_explain_sarif_changed,
    "issue 13 (findings a person can act on)": _issue_13_changed,
    # Issue 25 was built on two branches: explain's wiring and the host defaults.
    "issue 25": lambda key: (
        key not in ISSUE_25_RECORDED_NEW and (_issue_25_changed(key) or issue_25_changed(key))
    ),
    # Issue 25's third branch: reach asks the exact tier model (listed by key).
    ISSUE_25_TIERS: lambda key: key in ISSUE_25_TIERS_CHANGED,
    "issue 27": lambda key: key in ISSUE_27_NO_CITATIONS,
}
"""Each issue's rule: which outputs it changed on purpose."""

_LATER_SCENARIOS: dict[str, frozenset[str]] = {
    **{
        name: frozenset(
            {
                "issue 13 (findings a person can act on)",
                "issue 13 (explain/sarif part)",
                "issue 25",
                "issue 26",
            }
        )
        for name in ISSUE_15_SCENARIOS
    },
    **{
        name: frozenset(
            {
                "issue 15",
                "issue 13 (findings a person can act on)",
                "issue 13 (explain/sarif part)",
                "issue 25",
                "issue 26",
            }
        )
        for name in RECORDED_NEW_SCENARIOS
    },
    **{
        name: frozenset({"issue 15", "issue 13 (explain/sarif part)", "issue 25", "issue 26"})
        for name in ISSUE_13_SCENARIOS
    },
}
# Issue 25 came after every scenario above: its rule applies to them all.
_LATER_SCENARIOS = {name: issues | {"issue 25"} for name, issues in _LATER_SCENARIOS.items()}
_LATER_SCENARIOS.update(
    {name: frozenset() for name in (*ISSUE_25_SCENARIOS, *ISSUE_25_EXPLAIN_SCENARIOS)}
)
# The tier model came after every scenario above; its own are recorded new.
_LATER_SCENARIOS = {name: issues | {ISSUE_25_TIERS} for name, issues in _LATER_SCENARIOS.items()}
# Explain's headline from the tier model came after them: listed by key.
_LATER_SCENARIOS.update({name: frozenset({ISSUE_25_TIERS}) for name in ISSUE_25_TIERS_SCENARIOS})
# Issue 27 came after every scenario: its rule applies to them all.
_LATER_SCENARIOS = {name: issues | {"issue 27"} for name, issues in _LATER_SCENARIOS.items()}
"""Scenarios added by a later branch, each with the issues whose changes
reached it only after it was recorded: only those issues' rules apply."""


def _changed_by(key: str) -> list[str]:
    """The issues that changed the output of ``key`` since it was recorded."""
    if key in ISSUE_25_RECORDED_NEW:
        # Recorded new by issue 25's earlier branches; the tier model's
        # branch came after them.
        return [ISSUE_25_TIERS] if key in ISSUE_25_TIERS_CHANGED else []
    scenario = next((name for name in _LATER_SCENARIOS if f"scenarios/{name} $" in key), None)
    applying = _LATER_SCENARIOS[scenario] if scenario else frozenset(_ISSUE_RULES)
    return [issue for issue, rule in _ISSUE_RULES.items() if issue in applying and rule(key)]


def test_every_output_changed_on_purpose_says_why() -> None:
    """The digests were taken before issue 11's layout; an entry changed
    since then carries its reason: one in issue 11 (generate on the corpus),
    those of issue 16 (listed), issue 12's (every JSON and SARIF output:
    reach, the rule catalog; the text of trees with the kinds it moves or
    adds) and issue 14's (``changed_outputs``: the controller object and
    header line, the ``sandbox-name-hash`` label; every output but
    ``generate`` and its own new scenarios) and issue 15's (the rule catalog
    of every SARIF report and the ``rules`` listing) and issue 25's
    (``changed_outputs.issue_25_changed``: every output of a tree without a
    declaration file, and the check formats of ``host: none`` trees it
    names; its new scenarios and explain cases are recorded new)."""
    changed = sorted(key for key, entry in RECORDED.items() if "why" in entry)
    expected = {key for key in RECORDED if _changed_by(key)}
    assert changed == sorted(expected)
    for key in expected:
        why = RECORDED[key]["why"]
        for issue in _changed_by(key):
            assert issue in why.lower(), (key, issue)
    assert all(len(RECORDED[key]["why"]) > 40 for key in changed)


# The cases on the 16 MB bench tree take 10 to 25 s each: `pytest -m slow`.
@pytest.mark.parametrize(
    "key",
    [
        pytest.param(key, marks=pytest.mark.slow) if key.startswith("bench:") else key
        for key in sorted(RECORDED)
    ],
)
def test_output_is_byte_identical(key: str, request: pytest.FixtureRequest) -> None:
    entry = RECORDED[key]
    case = _case(entry)
    roots: dict[str, Path] = {"fixtures": Path(__file__).resolve().parents[2] / "fixtures"}
    if case.root == "corpus":
        if not CORPUS.is_dir():
            pytest.skip("../shared/corpus is absent")
        roots["corpus"] = CORPUS.parent
    if case.root == "bench":
        roots["bench"] = request.getfixturevalue("bench_root")
    outcome = run_case(case, roots).digest()
    assert {k: entry[k] for k in outcome} == outcome, (
        f"{key}: output changed; if that is intended, run python -m tests.golden.regenerate"
    )
