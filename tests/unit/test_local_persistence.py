"""The local stack's journal and snapshots: state written before a crash comes back whole.

Each step runs in its own process (tests/unit/journal_scenario.py), as a restarted stack
would: the writer exits without saving, as under `kill -9`.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from infra.local import journal
from infra.local.environment import REPO_ROOT


def scenario(*args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "tests.unit.journal_scenario", *args],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else {}


def test_every_write_survives_a_crash_through_snapshot_and_journal(tmp_path: Path):
    # GIVEN a stack that wrote items, stream records, queue messages and objects, took a
    # checkpoint midway, and died without saving
    written = scenario("write", str(tmp_path))
    assert written["objects"] == {"f/1.txt": "first upload"}
    assert len(written["stream"]) == 9 and written["queues"]["jobs"]
    assert written["queues"]["dlq"] and written["dead_letters_linked"]
    assert (tmp_path / "moto-backends.pickle").exists()
    # WHEN a new process restores the snapshot and replays the journal after it
    # THEN it finds exactly what was written, stream sequence numbers included
    assert scenario("read", str(tmp_path)) == written


def test_a_torn_last_record_is_dropped_and_a_checkpoint_folds_the_journals(tmp_path: Path):
    written = scenario("write", str(tmp_path))
    last = journal.journal_path(tmp_path, journal.generations(tmp_path)[-1])
    with open(last, "ab") as file:   # a record the crash cut short (never acknowledged)
        file.write(b"\x40\x00\x00\x00\x00\x00\x00\x00partial")
    assert scenario("read", str(tmp_path)) == written
    # A checkpoint process folds every closed journal into the snapshot and removes them
    scenario("compact", str(tmp_path), str(journal.generations(tmp_path)[-1] + 1))
    assert journal.generations(tmp_path) == []
    assert scenario("read", str(tmp_path)) == written
