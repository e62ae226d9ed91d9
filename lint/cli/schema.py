"""``egress-lint schema``: the JSON Schema of the declaration file, as the
package ships it (``lint.declarations.json_schema``)."""

from __future__ import annotations

import click

from lint.cli.writing import write_standard
from lint.declarations.json_schema import shipped_schema_text


@click.command("schema")
def schema_command() -> None:
    """Print the JSON Schema of the declaration file (.egress-lint.yaml), for an
    editor's YAML language server or any JSON Schema validator."""
    write_standard((shipped_schema_text(),), to_stderr=False, style="json")
