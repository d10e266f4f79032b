"""The local stack's workers: what Lambda's event source mappings and EventBridge do on
AWS (the pollers feeding the outbox stream, the SQS queues and the schedules to the
app's handlers). The TTL sweep moto lacks runs in the database process
(infra/local/ttl_sweep.py).

`make run` runs them in a process of their own (`python -m infra.local.workers`, started
by infra/local_stack.py with the stack's environment), so that the fan-out does not wait
for the interpreter lock behind the API's requests; `chalice local` runs them as threads
of its own process (`start_workers`).
"""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from infra.local import environment
from infra.local.child import report, serve_until_told


def start_workers(app: Any, prefix: str, state: Path, stop: threading.Event
                  ) -> list[threading.Thread]:
    """The pollers, as threads."""
    from infra.local.pollers import start_pollers

    return start_pollers(app, prefix, state, stop)


def serve() -> None:
    from infra.local import fast_headers, stage_meter

    fast_headers.install()
    stage_meter.install("workers", environment.state_dir())
    from app import app

    stop = threading.Event()
    threads = start_workers(app, os.environ["TABLE_PREFIX"], environment.state_dir(), stop)
    pollers = [t.name for t in threads]
    print(f"ready {len(pollers)} event pollers feeding {', '.join(pollers) or '-'}",
          flush=True)
    serve_until_told(stop)
    for thread in threads:
        thread.join(timeout=2)
    report("workers stopped")
    os._exit(0)


if __name__ == "__main__":
    serve()
