"""The one ``fail()`` of every command: one line per message line on
standard error, control characters escaped, then the exit code given."""

from __future__ import annotations

import pytest

from lint.cli.exits import FAILED, INTERNAL, OK, USAGE, fail


def test_the_exit_codes_are_those_documented() -> None:
    assert (OK, FAILED, USAGE, INTERNAL) == (0, 1, 2, 3)


@pytest.mark.parametrize("code", [FAILED, USAGE, INTERNAL])
def test_fail_says_why_escaped_and_exits_with_the_code(
    code: int, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as leaving:
        fail("bad \x1b[2Jname\nsecond line", code)
    assert leaving.value.code == code
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "egress-lint: bad \\x1b[2Jname\nsecond line\n"
