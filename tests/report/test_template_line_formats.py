"""Which check formats show a Helm finding's template line.

The check skips the search for template lines (``lint.render.lines``) for
a reporter whose ``shows_template_lines`` is False, so such a format must
give the same bytes whatever ``Location.source_line`` holds; the others
must show it, or the search is work for nothing."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from lint.report.model import Finding, Location, ObjectRef, Report, SandboxRef
from lint.report.reporters import CHECK_REPORTERS, RenderOptions

_SANDBOX = SandboxRef("team", "coder", None, "direct")


def _report(source_line: int | None) -> Report:
    location = Location("<helm template chart>", 12, "chart/templates/policy.yaml", source_line)
    finding = Finding(
        "egress-policy-widens",
        "error",
        "NetworkPolicy team/open widens egress",
        location,
        sandbox=_SANDBOX,
        related=(replace(location, line=20),),
        subject=ObjectRef("NetworkPolicy", "open", "team"),
        affected=(_SANDBOX,),
    )
    return Report(defaults_applied=False, sandboxes=(), findings=(finding,), parse_errors=())


def _rendered(fmt: str, source_line: int | None) -> str:
    return CHECK_REPORTERS[fmt].render(_report(source_line), RenderOptions())


_SHOWN = sorted(name for name, r in CHECK_REPORTERS.items() if r.shows_template_lines)
_NOT_SHOWN = sorted(set(CHECK_REPORTERS) - set(_SHOWN))


def test_json_alone_never_shows_a_template_line() -> None:
    assert _NOT_SHOWN == ["json"]


@pytest.mark.parametrize("fmt", _NOT_SHOWN)
def test_a_format_left_out_never_shows_the_template_line(fmt: str) -> None:
    assert _rendered(fmt, None) == _rendered(fmt, 7) == _rendered(fmt, 31)


@pytest.mark.parametrize("fmt", _SHOWN)
def test_a_format_named_shows_the_template_line(fmt: str) -> None:
    assert _rendered(fmt, 7) != _rendered(fmt, 31)
