"""A Lambda function's cold start: its handler module's imports run with the cyclic
garbage collector paused, and the objects they built leave its sight afterwards.

An import builds ~100,000 long-lived objects (modules, classes, functions) and no
garbage cycles worth collecting; with the collector running, the young generations fill
and it walks them every few hundred allocations, about 6 % of the fan-out function's
import CPU. Frozen afterwards (`gc.freeze`), they are not walked again by the full
collections of the warm invocations that follow; they are still freed by reference
counting if dropped.
"""
from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def handler_imports() -> Iterator[None]:
    """Wrap the imports of a function's entry module (chalicelib/handlers/, app.py)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
