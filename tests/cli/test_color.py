"""``--color auto|always|never``, ``NO_COLOR`` and ``FORCE_COLOR``: which
one wins, and that the text report keeps its colour codes off a terminal
when they were asked for."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from lint.cli import main
from lint.cli.options import ColorChoice, colour_wanted

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
PAINTED_FAIL = "\x1b[31mFAIL\x1b[0m"


@pytest.mark.parametrize(
    ("choice", "terminal", "env", "wanted"),
    [
        ("auto", True, {}, True),
        ("auto", False, {}, False),
        ("auto", True, {"NO_COLOR": "1"}, False),
        ("auto", True, {"NO_COLOR": ""}, True),  # empty counts as unset
        ("auto", False, {"FORCE_COLOR": "1"}, True),
        ("auto", False, {"FORCE_COLOR": ""}, False),
        ("auto", True, {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),
        ("always", False, {"NO_COLOR": "1"}, True),
        ("never", True, {"FORCE_COLOR": "1"}, False),
    ],
)
def test_colour_wanted(
    monkeypatch: pytest.MonkeyPatch,
    choice: ColorChoice,
    terminal: bool,
    env: dict[str, str],
    wanted: bool,
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert colour_wanted(choice, terminal) is wanted


def _check(*args: str, env: dict[str, str | None] | None = None) -> str:
    environment: dict[str, str | None] = {"NO_COLOR": None, "FORCE_COLOR": None, **(env or {})}
    result = CliRunner().invoke(main, ["check", str(DEMO), *args], env=environment)
    assert result.exit_code == 1, result.output
    return result.output


def test_the_text_report_is_plain_off_a_terminal_by_default() -> None:
    output = _check()
    assert "\x1b[" not in output
    assert "FAIL namzu-sandboxes/namzu-build" in output


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (("--color", "always"), {}),
        ((), {"FORCE_COLOR": "1"}),
        (("--color", "always"), {"NO_COLOR": "1"}),
    ],
)
def test_colour_asked_for_reaches_a_pipe(args: tuple[str, ...], env: dict[str, str | None]) -> None:
    output = _check(*args, env=env)
    assert PAINTED_FAIL in output
    # Only the colours: the text is the plain report's, painted.
    assert output.replace("\x1b[0m", "").count("\x1b[") >= 4
    plain = _check()
    assert len(output.splitlines()) == len(plain.splitlines())


@pytest.mark.parametrize(
    ("args", "env"),
    [(("--color", "never"), {"FORCE_COLOR": "1"}), ((), {"FORCE_COLOR": "1", "NO_COLOR": "1"})],
)
def test_colour_refused(args: tuple[str, ...], env: dict[str, str | None]) -> None:
    assert "\x1b[" not in _check(*args, env=env)


def test_colour_to_a_file_only_when_asked(tmp_path: Path) -> None:
    report = tmp_path / "report.txt"
    _check("--output", str(report))
    assert "\x1b[" not in report.read_text(encoding="utf-8")
    _check("--output", str(report), "--color", "always")
    assert PAINTED_FAIL in report.read_text(encoding="utf-8")


def test_other_formats_are_never_painted() -> None:
    assert "\x1b[" not in _check("--format", "json", "--color", "always")


def test_a_bad_choice_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["check", str(DEMO), "--color", "sometimes"])
    assert result.exit_code == 2
    assert "'sometimes' is not one of 'auto', 'always', 'never'" in result.output
