"""Finding .egress-lint.yaml upward, and naming files for reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from lint.declarations import DECLARATION_FILE_NAME, find_declaration_file
from lint.declarations.discovery import display_name


def test_the_nearest_file_upward_wins(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (tmp_path / DECLARATION_FILE_NAME).write_text("version: 1\n")
    (tmp_path / "a" / DECLARATION_FILE_NAME).write_text("version: 1\n")
    assert find_declaration_file(deep) == (tmp_path / "a" / DECLARATION_FILE_NAME).resolve()
    assert find_declaration_file(tmp_path) == (tmp_path / DECLARATION_FILE_NAME).resolve()


def test_a_file_as_start_searches_from_its_directory(tmp_path: Path) -> None:
    (tmp_path / DECLARATION_FILE_NAME).write_text("version: 1\n")
    manifest = tmp_path / "policies.yaml"
    manifest.write_text("")
    assert find_declaration_file(manifest) == (tmp_path / DECLARATION_FILE_NAME).resolve()


def test_a_directory_with_the_name_is_not_a_declaration_file(tmp_path: Path) -> None:
    (tmp_path / "x" / DECLARATION_FILE_NAME).mkdir(parents=True)
    (tmp_path / DECLARATION_FILE_NAME).write_text("version: 1\n")
    assert find_declaration_file(tmp_path / "x") == (tmp_path / DECLARATION_FILE_NAME).resolve()


def test_nothing_found_inside_a_tree_without_one(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    found = find_declaration_file(tmp_path / "a")
    # A file further up (outside the test's tree) is not ours to control.
    assert found is None or tmp_path.resolve() not in found.parents


def test_display_name_is_relative_with_slashes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert display_name(tmp_path / "sub" / "x" / "y.yaml") == "x/y.yaml"
    assert display_name(Path("y.yaml")) == "y.yaml"
    assert display_name(tmp_path / ".egress-lint.yaml") == "../.egress-lint.yaml"
