"""No output can start a CI workflow command (issue 26, item 4).

GitHub Actions runs a log line that starts with ``::`` after blanks, or
that holds ``##[``, and it ends lines at a carriage return too. Every case
here wrote such a line before the command line made all it writes safe in
one place (``lint.report.escaping``, used by ``lint.cli.writing`` and
``lint.cli.exits``): a renderer's quoted error output, a quoted
declaration line, the text report's wrapping, a policy name, and the
Markdown summary's cells. The property tests then generate names, paths
and messages full of such text for every format and error message.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.cli import main
from lint.cli.exits import say
from lint.cli.writing import safe_chunks
from lint.report.escaping import Neutraliser, neutralise
from lint.report.model import (
    EgressReport,
    Finding,
    Location,
    NamedReport,
    ObjectRef,
    Report,
    SandboxRef,
    SandboxReport,
)
from lint.report.reporters import CHECK_REPORTERS, RenderOptions
from tests.minimal_tree import TEMPLATE

_BLANK_OR_INVISIBLE = "".join(chr(c) for c in range(0x110000) if chr(c).isspace())
_BLANK_OR_INVISIBLE += "\u200b\u200c\u200d\u2060\ufeff"
_ANNOTATION = re.compile(r"::(?:error|warning|notice) [^\r\n:]*::")
_RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def command_lines(text: str, *, annotations: bool = False) -> list[str]:
    """The lines of ``text`` a GitHub runner would take for a workflow
    command (it ends lines at CR, LF and CRLF, and trims blanks), but the
    annotation lines ``--format github`` writes on purpose."""
    found = []
    for line in re.split(r"\r\n|\r|\n", text):
        starts = line.strip(_BLANK_OR_INVISIBLE).startswith("::")
        if annotations and _ANNOTATION.match(line):
            starts = False
        if starts or "##[" in line:
            found.append(line)
    return found


def assert_safe(text: str, *, annotations: bool = False, colour: bool = False) -> None:
    """No command, and no raw control character (``colour``: but the
    colour sequences the text report paints with)."""
    assert command_lines(text, annotations=annotations) == []
    shown = re.sub("\x1b\\[[0-9;]*m", "", text) if colour else text
    assert _RAW_CONTROL.search(shown) is None, text


@pytest.fixture
def in_tmp(tmp_path: Path) -> Iterator[Path]:
    previous = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(previous)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _policy(name: str, cidr: str = "0.0.0.0/0") -> str:
    return f"""\
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {{name: {json.dumps(name)}, namespace: sbx}}
spec:
  podSelector: {{}}
  policyTypes: [Egress]
  egress:
    - to: [{{ipBlock: {{cidr: {json.dumps(cidr)}}}}}]
"""


# Cases that failed before: each wrote a line that starts a command.


def test_a_renderers_quoted_error_output_starts_no_command(in_tmp: Path) -> None:
    """helm's error output, quoted on standard error, held lines that
    started ``::warning`` and ``::stop-commands::``."""
    if shutil.which("helm") is None:
        pytest.skip("helm is not on the PATH (bash ../shared/tools/k8s-tools.sh DIR installs it)")
    chart = in_tmp / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "templates" / "a.yaml").write_text(
        '{{ fail "x\\n::warning::pwned\\n  ::stop-commands::tok\\n##[error]owned" }}\n'
    )
    result = invoke("check", "--helm", "chart")
    assert result.exit_code in (1, 2)
    assert "pwned" in result.stderr + result.stdout  # the output is quoted...
    assert_safe(result.stderr)  # ...and starts no command
    assert_safe(result.stdout)


def test_a_quoted_declaration_line_starts_no_command(in_tmp: Path) -> None:
    (in_tmp / ".egress-lint.yaml").write_text(
        "version: 1\ndefaultNamespace: sbx\nsandboxes:\n  - template: task\n"
        "    egress: {policy: {kind: nonesuch}}  # ##[warning]pwned\n"
    )
    (in_tmp / "m.yaml").write_text(TEMPLATE)
    result = invoke("check", ".")
    assert result.exit_code == 2
    assert "pwned" in result.stderr
    assert_safe(result.stderr)


def test_the_text_reports_wrapping_starts_no_command(in_tmp: Path) -> None:
    """A quoted peer of many words: the wrap puts one of them at the start
    of a line."""
    words = " ".join(["::notice::pwned"] * 10)
    (in_tmp / "m.yaml").write_text(TEMPLATE + _policy("wide", words))
    result = invoke("check", ".", "--format", "text")
    assert result.stdout.count("notice::pwned") == 10
    assert_safe(result.stdout)


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "markdown"])
def test_a_policy_name_starts_no_command(in_tmp: Path, fmt: str) -> None:
    (in_tmp / "m.yaml").write_text(TEMPLATE + _policy("##[warning]pwned"))
    result = invoke("check", ".", "--format", fmt)
    assert result.exit_code == 1
    assert "pwned" in result.stdout
    assert_safe(result.stdout, annotations=fmt == "github")
    if fmt in ("json", "sarif"):
        assert "##\\u005bwarning]pwned" in result.stdout
        text = json.dumps(json.loads(result.stdout), ensure_ascii=False)
        assert "##[warning]pwned" in text  # the same value, escaped


def test_markdown_writes_no_image_or_link_from_a_name(in_tmp: Path) -> None:
    (in_tmp / "m.yaml").write_text(
        TEMPLATE
        + _policy("![x](https://evil.example/a.png)")
        + _policy("[click](https://evil.example/)")
    )
    result = invoke("check", ".", "--format", "markdown")
    assert "evil.example" in result.stdout
    assert "](" not in result.stdout  # what a link and an image need...
    assert result.stdout.count("]\\(") >= 2  # ...escaped, in both names
    assert "<img" not in result.stdout


def test_a_carriage_return_in_a_file_name_keeps_the_markdown_table(in_tmp: Path) -> None:
    (in_tmp / "a\rb\\|c.yaml").write_text(TEMPLATE + _policy("wide"))
    result = invoke("check", ".", "--format", "markdown")
    assert "\r" not in result.stdout
    rows = [line for line in result.stdout.split("\n") if line.startswith("| error")]
    assert rows
    assert all(len(re.findall(r"(?<!\\)\|", row)) == 7 for row in rows), rows


def test_a_usage_error_quoting_the_command_line_starts_no_command(in_tmp: Path) -> None:
    for args in (("check", "--format", "##[x"), ("::warning::x",), ("check", " ::error::x")):
        result = invoke(*args)
        assert result.exit_code == 2
        assert_safe(result.stderr)


def test_github_annotations_keep_their_own_lines_and_escape_the_input(in_tmp: Path) -> None:
    (in_tmp / "m.yaml").write_text(TEMPLATE + _policy("x\r::warning::pwned,y:z"))
    result = invoke("check", ".", "--format", "github")
    assert result.stdout.startswith("::")  # its own annotations pass
    assert_safe(result.stdout, annotations=True)
    assert "\\x0d" in result.stdout  # the carriage return, shown


# The property: whatever the input holds.

_NASTY = st.sampled_from(
    [
        *("::", "##[", "\r", "\n", "\r\n", " ", "\t", "\x1b[2J", "\x07", "\x85", "\u2028"),
        *("::warning::", "::stop-commands::t", "::error file=a,line=1::m", "%0A", ",", ":"),
        *("|", "![x](y)", "<b>", "#", "[", "\u202e", "\x9b", "\ufeff"),
    ]
)
NASTY_TEXT = st.lists(st.one_of(_NASTY, st.text(max_size=4)), max_size=12).map("".join)


def _report(name: str, path: str, message: str) -> Report:
    ref = SandboxRef("sbx", name, name or None, "direct")
    subject = ObjectRef("NetworkPolicy", name, "sbx")
    egress = EgressReport(
        "deny-all",
        "core",
        "union",
        "NetworkPolicy",
        name,
        NamedReport("match", None, None, None),
        None,
    )
    findings = (
        Finding(
            "egress-policy-widens",
            "error",
            message,
            Location(path, 3, path, 2),
            sandbox=ref,
            remedy=message,
            subject=subject,
            environment=name,
        ),
        Finding("parse-error", "error", message, Location(path, 1)),
        Finding("load-warning", "note", name, Location(f"<{path}>", 1)),
    )
    return Report(
        defaults_applied=False,
        sandboxes=(SandboxReport(ref, {name: message}, egress, None, None, environment=name),),
        findings=findings,
        parse_errors=(),
        declaration_file=path,
    )


@settings(max_examples=150, deadline=None)
@given(name=NASTY_TEXT, path=NASTY_TEXT, message=NASTY_TEXT)
def test_no_format_writes_a_command_whatever_the_input(name: str, path: str, message: str) -> None:
    report = _report(name, path, message)
    for fmt, reporter in CHECK_REPORTERS.items():
        for options in (RenderOptions(verbose=True), RenderOptions(colour=True)):
            chunks = reporter.chunks(report, options)
            text = "".join(safe_chunks(chunks, reporter.style, colour=options.colour))
            annotations = fmt == "github"
            assert_safe(text, annotations=annotations, colour=options.colour)
            if reporter.style == "json":
                json.loads(text)  # still JSON


@settings(max_examples=150, deadline=None)
@given(message=NASTY_TEXT)
def test_no_error_message_writes_a_command(message: str) -> None:
    written = io.StringIO()
    with contextlib.redirect_stderr(written):
        say(message)
    assert_safe(written.getvalue())


@settings(max_examples=300, deadline=None)
@given(
    text=NASTY_TEXT,
    cuts=st.lists(st.integers(min_value=0, max_value=64), max_size=4),
    style=st.sampled_from(["text", "json", "annotations"]),
)
def test_the_neutraliser_is_the_same_in_chunks_and_safe(
    text: str, cuts: list[int], style: str
) -> None:
    whole = neutralise(text, style)  # type: ignore[arg-type]
    assert command_lines(whole, annotations=style == "annotations") == []
    neutraliser = Neutraliser(style)  # type: ignore[arg-type]
    edges = sorted({min(cut, len(text)) for cut in cuts})
    pieces = [text[a:b] for a, b in zip([0, *edges], [*edges, len(text)], strict=True)]
    assert "".join(neutraliser.feed(piece) for piece in pieces) + neutraliser.end() == whole


def test_text_without_commands_is_unchanged() -> None:
    for text in ("fc00::/7 and ::/0 mid-line", '{"a":"b"}\n', "# comment\n  - item\n"):
        for style in ("text", "json", "annotations"):
            assert neutralise(text, style) == text


@pytest.mark.parametrize("style", ["text", "json", "annotations"])
def test_a_chunk_without_a_line_break_is_searched_only_where_a_line_starts(style: str) -> None:
    """A chunk with no line break starts a line only at its start: a ``::``
    there is escaped, one in the middle of a line is not; a ``##[`` after
    an earlier ``#`` is escaped anywhere."""
    colon = "\\u003a" if style == "json" else "\\x3a"
    neutraliser = Neutraliser(style)  # type: ignore[arg-type]
    written = [
        neutraliser.feed(chunk) for chunk in ("a\n", "::b ::c", "x::y # ##[z", "q\n::e", "\n")
    ]
    written.append(neutraliser.feed(" ::d") + neutraliser.end())
    bracket = colon.replace("3a", "5b")
    assert "".join(written) == f"a\n{colon}:b ::cx::y # ##{bracket}zq\n{colon}:e\n {colon}:d"


_WRITERS = re.compile(r"click\.(?:echo|secho)\(|sys\.std(?:out|err)\.(?:write|buffer)|\bprint\(")
_CHOKE_POINTS = {
    "lint/cli/writing.py": "every report, listing and manifest (safe_chunks)",
    "lint/cli/exits.py": "every message (say)",
    "lint/console.py": "the fixed --version line",
    "lint/cli/check.py": "--passthrough: the input itself, as the pipe's next command reads it",
    "lint/rules_doc.py": "a maintainer's script writing docs/rules.md",
    "lint/declarations/json_schema.py": "a maintainer's script writing the schema file",
}


def test_only_the_choke_points_write() -> None:
    """Nothing in the tool writes to a standard stream but the places that
    make the text safe first, so the guarantee holds by construction."""
    root = Path(__file__).resolve().parents[2]
    writers = {
        path.relative_to(root).as_posix()
        for path in (root / "lint").rglob("*.py")
        if _WRITERS.search(path.read_text(encoding="utf-8"))
    }
    assert writers <= set(_CHOKE_POINTS), writers - set(_CHOKE_POINTS)
