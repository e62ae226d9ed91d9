"""Fixtures for the YAML tests: the loading tests' temporary current directory."""

from __future__ import annotations

from tests.loading.conftest import tree

__all__ = ["tree"]
