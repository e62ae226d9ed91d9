"""``egress-lint schema``: the JSON Schema of the declaration file, as the
package ships it (``lint.declarations.json_schema``)."""

from __future__ import annotations

import click

from lint.declarations.json_schema import shipped_schema_text


@click.command("schema")
def schema_command() -> None:
    """Print the JSON Schema of the declaration file (.egress-lint.yaml), for an
    editor's YAML language server or any JSON Schema validator."""
    click.echo(shipped_schema_text(), nl=False)
