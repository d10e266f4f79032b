"""Saves and restores moto's in-memory backends, so local state survives a restart.

moto has no persistence of its own; its backends pickle once locks have a reducer.
The snapshot is tied to the pinned moto version (requirements-dev.txt).
"""
from __future__ import annotations

import _thread
import copyreg
import os
import pickle
import threading
from pathlib import Path
from typing import Any

_SNAPSHOT = "moto-backends.pickle"


def _register_lock_reducers() -> None:
    # A lock pickles as a fresh, unlocked lock of the same kind.
    copyreg.pickle(type(threading.RLock()), lambda _lock: (threading.RLock, ()))
    copyreg.pickle(_thread.LockType, lambda _lock: (threading.Lock, ()))


def _backends() -> dict[str, Any]:
    from moto.dynamodb.models import dynamodb_backends
    from moto.s3.models import s3_backends
    from moto.sqs.models import sqs_backends

    return {"dynamodb": dynamodb_backends, "sqs": sqs_backends, "s3": s3_backends}


def save(state_dir: Path) -> Path:
    """Writes the snapshot atomically (temp file + rename)."""
    from infra.moto_patches import write_lock

    _register_lock_reducers()
    state_dir.mkdir(parents=True, exist_ok=True)
    target = state_dir / _SNAPSHOT
    temporary = target.with_suffix(".tmp")
    with write_lock():
        data = {name: dict(backend) for name, backend in _backends().items()}
        payload = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
    temporary.write_bytes(payload)
    os.replace(temporary, target)
    return target


def restore(state_dir: Path) -> bool:
    """Loads a snapshot into moto's backends; False when there is none."""
    source = state_dir / _SNAPSHOT
    if not source.exists():
        return False
    _register_lock_reducers()
    data = pickle.loads(source.read_bytes())
    for name, backend in _backends().items():
        backend.clear()
        backend.update(data.get(name, {}))
    return True
