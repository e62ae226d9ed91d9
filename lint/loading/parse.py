"""Pausing the garbage collector while a load builds many objects.

(The parsing that lived here is in ``lint.yaml.parse``.)
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many objects.

    A load allocates millions of containers, none in a cycle; each collection
    would rescan all of them, which made loading several times slower.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
