"""Snapshots of moto's backends plus the write-ahead journal: the local stack's database.

State on disk is the last snapshot (`moto-backends.pickle`, which says from which journal
generation on it must be completed) and the journal files of that generation and later
(`infra/local/journal.py`). Starting restores the snapshot and replays the journals.

A checkpoint folds journals into a new snapshot without stalling requests: the running
stack only closes its journal file and opens the next one (a few microseconds under the
locks); a separate process (`python -m infra.local.snapshot STATE_DIR GENERATION`)
loads the old snapshot, replays the closed journals and writes the new snapshot
atomically, so nothing in the serving process waits for pickling, whatever the data's
size. moto has no persistence of its own; its backends pickle once locks have a reducer,
and the files are tied to the pinned moto version (requirements-dev.txt).
"""
from __future__ import annotations

import gc
import os
import pickle
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infra import moto_items, moto_patches
from infra.local import effects, journal

SNAPSHOT = "moto-backends.pickle"
# When the running stack starts a checkpoint: its journal has grown this much, or it
# holds anything at all and this long has passed since the last one.
CHECKPOINT_BYTES = 64 * 2**20
CHECKPOINT_SECONDS = 300.0


def _backends() -> dict[str, Any]:
    from moto.dynamodb.models import dynamodb_backends
    from moto.s3.models import s3_backends
    from moto.sqs.models import sqs_backends

    return {"dynamodb": dynamodb_backends, "sqs": sqs_backends, "s3": s3_backends}


def _fsync() -> bool:
    """A process crash loses nothing the kernel has; an fsync per write is for power loss."""
    return os.environ.get("LOCAL_STATE_FSYNC") == "1"


def _write_snapshot(state_dir: Path, generation: int) -> Path:
    """Pickles the live backends as the state before journal `generation` (atomically)."""
    from moto.s3.models import s3_backends

    effects.register_lock_reducers()
    moto_items.register_pickle_reducer()   # items' attributes unpickle whole, not per key
    data = {"generation": generation,
            "backends": {name: dict(backend) for name, backend in _backends().items()},
            "s3_bucket_accounts": dict(s3_backends.bucket_accounts)}
    target = state_dir / SNAPSHOT
    temporary = target.with_suffix(".tmp")
    with open(temporary, "wb") as file:
        pickle.dump(data, file, protocol=pickle.HIGHEST_PROTOCOL)
        if _fsync():   # as the journal: only when asked to survive power loss too
            file.flush()
            os.fsync(file.fileno())
    os.replace(temporary, target)
    return target


def save_as_new_state(state_dir: Path) -> Path:
    """Saves this process's moto backends as the whole state of a state directory with
    no journal yet (a stack started on it restores them): how a database built outside
    a running stack (bench/org_snapshot.py) becomes one."""
    return _write_snapshot(state_dir, 1)


def _load_snapshot(state_dir: Path) -> int | None:
    """Loads the snapshot into moto's backends; its generation, or None when there is none."""
    from moto.s3.models import s3_backends

    source = state_dir / SNAPSHOT
    if not source.exists():
        return None
    effects.register_lock_reducers()
    # Unpickling makes millions of objects (moto's items), none of them garbage: the
    # collector, run again and again as they are made, would walk them for nothing
    # (a third of the load's time); they are frozen out of its sight at once instead.
    gc.disable()
    try:
        data = pickle.loads(source.read_bytes())
    finally:
        gc.enable()
    gc.freeze()
    if "generation" not in data:          # a snapshot from before the journal
        data = {"generation": 0, "backends": data}
    for name, backend in _backends().items():
        backend.clear()
        backend.update(data["backends"].get(name, {}))
    s3_backends.bucket_accounts.update(data.get("s3_bucket_accounts", {}))
    return int(data["generation"])


def _forget_journals(state_dir: Path, before: int) -> None:
    for generation in journal.generations(state_dir):
        if generation < before:
            journal.journal_path(state_dir, generation).unlink(missing_ok=True)


@dataclass
class Restored:
    saved: bool             # whether there was any saved state
    replayed: int           # journal records applied over the snapshot
    next_generation: int    # where the running stack's journal continues


def restore(state_dir: Path) -> Restored:
    """Loads the snapshot and replays the journals after it."""
    effects.install()
    generation = _load_snapshot(state_dir)
    pending = [g for g in journal.generations(state_dir)
               if generation is None or g >= generation]
    replayed = sum(journal.replay(journal.journal_path(state_dir, g)) for g in pending)
    # Never an existing file (its last record may be torn), never below the snapshot's.
    next_generation = max([generation or 1, *(g + 1 for g in pending)])
    return Restored(generation is not None or bool(pending), replayed, next_generation)


def compact(state_dir: Path, until: int) -> None:
    """Snapshot + journals before `until` -> a snapshot of generation `until` (the
    checkpoint process's work; it never touches the running stack's memory)."""
    effects.install()
    generation = _load_snapshot(state_dir)
    for g in journal.generations(state_dir):
        if (generation is None or g >= generation) and g < until:
            journal.replay(journal.journal_path(state_dir, g))
    _write_snapshot(state_dir, until)
    _forget_journals(state_dir, until)


def _freeze_heap(collect: bool = False) -> None:
    """Moves the objects alive now (moto's items, mostly: millions at 100,000 messages)
    out of the garbage collector's sight (a constant-time move). Without it a
    collection of the oldest generation walks them all and stops every thread for
    seconds; they are still freed by reference counting when overwritten. `collect`
    (at startup, before serving) first drops the garbage there is."""
    if collect:
        gc.collect()
    gc.freeze()


class Persistence:
    """The running stack's side: the open journal and the checkpoints that fold it in."""

    def __init__(self, state_dir: Path, restored: Restored) -> None:
        self.state_dir = state_dir
        self.journal = journal.Journal(state_dir, restored.next_generation, fsync=_fsync())
        self._checkpoint: subprocess.Popen | None = None
        self._last_checkpoint = time.monotonic()
        self.checkpoints = 0
        self.longest_rotation = 0.0
        effects.start(self.journal.append)
        _freeze_heap(collect=True)
        if restored.replayed:
            self.checkpoint()   # fold what was replayed into a snapshot, in the background

    def checkpoint(self) -> bool:
        """Starts a checkpoint process unless one is running; False if one was."""
        if self._checkpoint is not None and self._checkpoint.poll() is None:
            return False
        started = time.perf_counter()
        closed = self.journal.rotate()
        self.longest_rotation = max(self.longest_rotation, time.perf_counter() - started)
        self._checkpoint = subprocess.Popen(
            [sys.executable, "-m", "infra.local.snapshot", str(self.state_dir),
             str(closed + 1)], cwd=Path(__file__).resolve().parents[2])
        self._last_checkpoint = time.monotonic()
        self.checkpoints += 1
        _freeze_heap()
        return True

    def wait(self, timeout: float | None = None) -> None:
        """Waits for a running checkpoint process to finish."""
        if self._checkpoint is not None:
            self._checkpoint.wait(timeout)

    def maybe_checkpoint(self) -> None:
        size = self.journal.bytes_written
        if size >= CHECKPOINT_BYTES or (
                size and time.monotonic() - self._last_checkpoint >= CHECKPOINT_SECONDS):
            self.checkpoint()

    def run(self, stop: threading.Event, every_seconds: float = 5.0) -> threading.Thread:
        def loop() -> None:
            while not stop.wait(every_seconds):
                self.maybe_checkpoint()

        thread = threading.Thread(target=loop, name="checkpoints", daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        """On a clean stop: everything into one snapshot. Journaling goes on into a fresh
        file, so a write that was still in flight is not lost either."""
        if self._checkpoint is not None and self._checkpoint.poll() is None:
            # Its work is redone here from memory; what it leaves behind is ignored.
            self._checkpoint.terminate()
            self.wait()
        with moto_patches.every_lock():
            closed = self.journal.rotate()
            _write_snapshot(self.state_dir, closed + 1)
        _forget_journals(self.state_dir, closed + 1)


if __name__ == "__main__":   # the checkpoint process
    os.nice(19)   # the serving process comes first for the CPU
    compact(Path(sys.argv[1]), int(sys.argv[2]))
