"""ServiceAccounts are read only when a Calico policy reads their labels
(CLUSTER-POLICIES §2.3, §5.4): ``lint.intake`` reads them then in a second
pass, and no other run pays for parsing them."""

from __future__ import annotations

from pathlib import Path

import pytest

from lint.checks.runner import CheckOptions, run_check
from lint.intake import take_in
from lint.kinds import (
    CALICO_GLOBAL_NETWORK_POLICY,
    NETWORK_POLICY,
    SERVICE_ACCOUNT,
    Kind,
    reads_service_accounts,
)
from tests.checks.scenario_runner import SCENARIOS, run_cli

SCENARIO = SCENARIOS / "reach-calico-service-account"
MANIFESTS = (SCENARIO / "manifests.yaml").read_text(encoding="utf-8")


def _verdicts(report: dict[str, object]) -> dict[str, str]:
    [sandbox] = report["sandboxes"]  # type: ignore[misc]
    examined = sandbox["egress"]["reach"]["examined"]
    # Reach, the verdict without a declaration file (issue 25), lists the
    # namespace's NetworkPolicies too: only the Calico policies are asked.
    calico = [entry for entry in examined if entry["kind"] != "NetworkPolicy"]
    return {entry["name"]: entry["verdict"] for entry in calico}


def test_a_service_account_selector_is_judged_over_the_manifest_labels() -> None:
    outcome = run_cli(["check", ".", "--format", "json"], SCENARIO)
    # Without the ServiceAccount's labels both would be not-evaluable.
    assert _verdicts(outcome.report) == {
        "agents-out": "widens-egress",
        "builders-out": "does-not-select",
    }
    assert outcome.exit_code == 1


def test_standard_input_is_read_once_for_both_passes() -> None:
    outcome = run_cli(["check", "-", "--format", "json"], SCENARIO, MANIFESTS.encode())
    assert _verdicts(outcome.report)["agents-out"] == "widens-egress"
    assert _verdicts(outcome.report)["builders-out"] == "does-not-select"


def test_without_such_a_policy_service_accounts_are_counted_and_not_read(
    tmp_path: Path,
) -> None:
    plain = MANIFESTS.replace("serviceAccountSelector: role == 'builder'", "selector: all()")
    plain = plain.replace("serviceAccountSelector: role == 'agent'", "selector: all()")
    (tmp_path / "m.yaml").write_text(plain, encoding="utf-8")
    intake = take_in(CheckOptions(paths=(str(tmp_path),)))
    assert intake.inventory.namespace("sbx").of_kind(SERVICE_ACCOUNT.key) == []
    assert intake.loaded.skipped[SERVICE_ACCOUNT.name] == 1


def test_after_the_second_pass_they_are_no_longer_counted_as_skipped() -> None:
    intake = take_in(CheckOptions(paths=(str(SCENARIO),)))
    [account] = intake.inventory.namespace("sbx").of_kind(SERVICE_ACCOUNT.key)
    assert account.name == "agent"
    assert SERVICE_ACCOUNT.name not in intake.loaded.skipped


def test_a_pcsa_key_in_a_selector_also_reads_them(tmp_path: Path) -> None:
    text = MANIFESTS.replace(
        "serviceAccountSelector: role == 'agent'", "selector: pcsa.role == 'agent'"
    )
    (tmp_path / "m.yaml").write_text(text, encoding="utf-8")
    report = run_check(CheckOptions(paths=(str(tmp_path),)))
    [sandbox] = report.sandboxes
    assert sandbox.egress.reach is not None
    verdicts = {e.name: e.verdict for e in sandbox.egress.reach.decision.examined}
    assert verdicts["agents-out"] == "widens-egress"


@pytest.mark.parametrize(
    ("kind", "value", "reads"),
    [
        (CALICO_GLOBAL_NETWORK_POLICY, {"spec": {"serviceAccountSelector": ""}}, True),
        (
            CALICO_GLOBAL_NETWORK_POLICY,
            {"spec": {"egress": [{"source": {"selector": "pcsa.x == 'y'"}}]}},
            True,
        ),
        (CALICO_GLOBAL_NETWORK_POLICY, {"spec": {"selector": "all()"}}, False),
        (NETWORK_POLICY, {"spec": {"serviceAccountSelector": "a == 'b'"}}, False),
    ],
)
def test_which_objects_read_service_accounts(kind: Kind, value: object, reads: bool) -> None:
    assert reads_service_accounts(kind, value) is reads
