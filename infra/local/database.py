"""The local stack's database process: moto with the project's patches, the saved state,
the write-ahead journal and its checkpoints, served over HTTP on its own port.

`make run` starts it as a child (infra/local/backend.py, infra/local/child.py), so that
moto's request handling does not share one interpreter lock with the app: on two cores
they run side by side. The state on disk is the same as when moto ran inside the stack
(snapshot + journal, infra/local/snapshot.py).

    python -m infra.local.database STATE_DIR PORT

When told to stop it saves everything into one snapshot. A `kill -9` loses nothing
either: every acknowledged write is in the journal.
"""
from __future__ import annotations

import logging
import os
import sys
import threading
from pathlib import Path

from infra.local.child import report, serve_until_told


def serve(state: Path, port: int) -> None:
    from moto.server import ThreadedMotoServer

    from infra import moto_patches
    from infra.local import snapshot

    logging.getLogger("werkzeug").setLevel(logging.ERROR)   # moto's per-request lines
    moto_patches.apply()
    restored = snapshot.restore(state)
    print(f"restored saved state from {state} ({restored.replayed} journal records "
          "replayed)" if restored.saved else "fresh state", flush=True)
    persistence = snapshot.Persistence(state, restored)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    stop = threading.Event()
    persistence.run(stop)
    print(f"ready http://127.0.0.1:{port}", flush=True)
    serve_until_told(stop)
    persistence.close()
    report("database saved")
    # Skip the interpreter's teardown: its final collection of moto's objects takes
    # seconds with a large state, and everything is saved.
    os._exit(0)


if __name__ == "__main__":
    serve(Path(sys.argv[1]), int(sys.argv[2]))
