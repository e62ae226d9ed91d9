"""Settings every test shares."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_forced_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    """A FORCE_COLOR in the environment (some CI systems set it) would paint
    every text report a test reads; the tests that want it set it."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)
