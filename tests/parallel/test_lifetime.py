"""The garbage-collector and exit policy: the collector paused and given
back, the last run held, and a console script that leaves with its output
flushed, its exit code, and no interpreter teardown."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

from lint.parallel.lifetime import collector_paused, hold

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_paused_and_given_back_as_it_was(enabled: bool) -> None:
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        with pytest.raises(RuntimeError), collector_paused():
            assert not gc.isenabled()
            raise RuntimeError("the run breaks")
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


class _Run:
    pass


def test_the_last_run_is_held_until_the_next() -> None:
    first, second = _Run(), _Run()
    gone = weakref.ref(first)
    hold(first)
    del first
    assert gone() is not None
    hold(second)
    assert gone() is None


LEAVING = """
import atexit, gc, sys
from lint.parallel.lifetime import leave_after
atexit.register(lambda: print("torn down"))

def main():
    sys.stdout.write("written, not flushed")
    sys.stderr.write("collector on" if gc.isenabled() else "collector off")
    return 7

leave_after(main)
"""


def test_leaving_flushes_the_output_and_skips_the_teardown() -> None:
    run = subprocess.run(
        [sys.executable, "-c", LEAVING], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert run.returncode == 7
    assert run.stdout == "written, not flushed"
    assert run.stderr == "collector off"
