"""Runs one action from several threads at once, for tests of concurrent writers."""
from __future__ import annotations

import threading
from collections.abc import Callable

from chalicelib.core.errors import ApiError


def race(count: int, action: Callable[[], object]) -> list[object]:
    """Each thread's result, or the ApiError it raised; all released together."""
    start = threading.Barrier(count, timeout=10)
    results: list[object] = []
    lock = threading.Lock()

    def run() -> None:
        start.wait()
        try:
            result = action()
        except ApiError as error:
            result = error
        with lock:
            results.append(result)

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
