"""Rendering a generated object through its Jinja template.

The templates hold layout and prose only. They run in a sandboxed
environment with ``StrictUndefined``, so a misspelt fact fails loudly, and
every value they print passes :func:`_finalize`: text is kept on one comment
line (a newline in a template name cannot end a comment and inject YAML),
while the manifest itself arrives already serialised, as :class:`YamlText`.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Final

import msgspec
import yaml
from jinja2 import FileSystemLoader, StrictUndefined, Undefined
from jinja2.sandbox import SandboxedEnvironment

import lint
from lint.decision.values import JSON
from lint.generate.model import GeneratedObject
from lint.generate.yaml_emit import dump_document
from lint.loading import load

# A wheel carries the templates inside the package (pyproject force-includes
# them); an editable install reads the repository's own folder.
PACKAGED_TEMPLATES: Final = Path(lint.__file__).resolve().parent / "_templates"
REPOSITORY_TEMPLATES: Final = Path(lint.__file__).resolve().parent.parent / "templates"


class YamlText(str):
    """Serialised YAML that a template places verbatim."""


class RenderError(RuntimeError):
    """A template or emitter bug: the rendered text would not read back as
    the manifest it was given. Nothing is written when this is raised."""


def templates_dir() -> Path:
    """The folder holding the templates, packaged or in the repository."""
    for candidate in (PACKAGED_TEMPLATES, REPOSITORY_TEMPLATES):
        if (candidate / "_header.j2").is_file():
            return candidate
    raise RenderError(
        f"the generate templates are missing (looked in {PACKAGED_TEMPLATES} "
        f"and {REPOSITORY_TEMPLATES}); reinstall egress-lint"
    )


def _one_line(text: str) -> str:
    """Text safe inside a ``#`` comment: every character that could end the
    line (or is not printable) is shown as an escape instead."""
    return "".join(char if char.isprintable() else _escape(char) for char in text)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _finalize(value: Any) -> Any:
    if isinstance(value, Undefined):
        # StrictUndefined raises as soon as it is turned into text.
        return str(value)
    if isinstance(value, YamlText):
        return str(value)
    if isinstance(value, str):
        return _one_line(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    raise RenderError(f"a template printed a {type(value).__name__}; print text only")


def _json_text(value: JSON) -> str:
    return json.dumps(value, ensure_ascii=False)


@functools.cache
def environment() -> SandboxedEnvironment:
    """The one sandboxed environment all templates share."""
    env = SandboxedEnvironment(
        loader=FileSystemLoader(str(templates_dir())),
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_finalize,
    )
    env.filters["json"] = _json_text
    return env


def render_object(obj: GeneratedObject) -> str:
    """The object's file: the template's comment header, then the manifest.
    The result is checked to read back as exactly the manifest."""
    body = dump_document(obj.manifest)
    template = environment().get_template(obj.template)
    text = template.render(
        kind=obj.kind,
        name=obj.name,
        namespace=obj.namespace,
        sources=[msgspec.structs.asdict(source) for source in obj.sources],
        facts=dict(obj.facts),
        body=YamlText(body.rstrip("\n")),
    )
    verify_round_trip(text, obj.manifest, obj.kind, f"{obj.kind} {obj.name}")
    return text


def verify_round_trip(text: str, manifest: JSON, kind: str, what: str) -> None:
    """Refuse output that does not read back, in key order and type, as the
    manifest it stands for: neither through egress-lint's own loader (the
    Kubernetes scalar rules) nor through a plain YAML 1.1 reader."""
    expected = json.dumps(manifest)
    loaded = load(["-"], stdin=text.encode("utf-8"), relevant_kinds=frozenset({kind}))
    values = [document.value for document in loaded.documents]
    if loaded.problems or len(values) != 1 or json.dumps(values[0]) != expected:
        raise RenderError(f"the rendered {what} does not read back as its manifest")
    try:
        parsed = yaml.load(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        raise RenderError(f"the rendered {what} is not valid YAML 1.1: {error}") from error
    if json.dumps(parsed) != expected:
        raise RenderError(f"the rendered {what} reads back differently under YAML 1.1")
