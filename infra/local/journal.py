"""A write-ahead journal of moto's mutations: an acknowledged write survives `kill -9`.

Every mutating call of moto's DynamoDB, SQS and S3 backends appends one record of its
effects before it returns, under its backend's lock (so the records of an object are in
the order its changes were made, and the HTTP answer that acknowledges a write is sent only after its
record is in the file): the touched items as they now are (or their absence) with the
stream records they emitted, the region's SQS queues, an S3 object's versions. Replaying
the records in order over the last snapshot rebuilds the state exactly (stream sequence
numbers included). A record is written with one `write()` on an O_APPEND file: once the
call returns the kernel holds it, which is what surviving the death of the process needs
(`LOCAL_STATE_FSYNC=1` adds an fsync per record, for power loss). Each record carries its
length and a CRC, so a record torn by a crash mid-write (never acknowledged) is dropped.
"""
from __future__ import annotations

import os
import pickle
import struct
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from infra import moto_patches
from infra.local import effects

_HEADER = struct.Struct("<II")          # payload length, CRC-32 of the payload
_PREFIX, _SUFFIX = "journal-", ".log"


def journal_path(directory: Path, generation: int) -> Path:
    return directory / f"{_PREFIX}{generation:08d}{_SUFFIX}"


def generations(directory: Path) -> list[int]:
    """The journal generations present in the directory, oldest first."""
    found = []
    for path in directory.glob(f"{_PREFIX}*{_SUFFIX}"):
        number = path.name[len(_PREFIX):-len(_SUFFIX)]
        if number.isdigit():
            found.append(int(number))
    return sorted(found)


class Journal:
    """The open journal file of the current generation; appends are made under the lock."""

    def __init__(self, directory: Path, generation: int, fsync: bool = False) -> None:
        self.directory, self.fsync = directory, fsync
        self.generation = generation
        self.bytes_written = 0
        self.records = 0
        self.longest_append = 0.0    # seconds: the most one append held the lock
        self.longest_write = 0.0     # ...of which in write() (and fsync)
        self.slow_appends = {0.001: 0, 0.01: 0, 0.1: 0}   # appends over 1 ms, 10, 100
        self._file_lock = threading.Lock()
        self._fd = self._open(generation)

    def _open(self, generation: int) -> int:
        return os.open(journal_path(self.directory, generation),
                       os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def append(self, record: list[tuple[Any, ...]]) -> None:
        """Called under the lock of the backend that changed (moto_patches): DynamoDB's
        and S3's, or SQS's. Records of different locks touch different objects, so their
        order between them does not matter; a record is written whole, under a lock of
        the file's own."""
        started = time.perf_counter()
        payload = pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL)
        framed = _HEADER.pack(len(payload), zlib.crc32(payload)) + payload
        pickled = time.perf_counter()
        with self._file_lock:
            written = os.write(self._fd, framed)
            while written < len(framed):   # regular files take it in one call; be sure
                written += os.write(self._fd, framed[written:])
            if self.fsync:
                os.fsync(self._fd)
            self.bytes_written += len(framed)
            self.records += 1
        self.longest_write = max(self.longest_write, time.perf_counter() - pickled)
        took = time.perf_counter() - started
        self.longest_append = max(self.longest_append, took)
        for threshold in self.slow_appends:
            if took > threshold:
                self.slow_appends[threshold] += 1

    def rotate(self) -> int:
        """Starts the next generation (under the lock); returns the one just closed."""
        closed = self.generation
        with moto_patches.every_lock():
            os.close(self._fd)
            self.generation += 1
            self._fd = self._open(self.generation)
            self.bytes_written = 0
        return closed

    def close(self) -> None:
        os.close(self._fd)


def read_records(path: Path) -> Iterator[list[tuple[Any, ...]]]:
    """The complete records of a journal file; stops at a torn or corrupt tail."""
    data = path.read_bytes()
    offset = 0
    while offset + _HEADER.size <= len(data):
        length, crc = _HEADER.unpack_from(data, offset)
        payload = data[offset + _HEADER.size: offset + _HEADER.size + length]
        if len(payload) < length or zlib.crc32(payload) != crc:
            return   # the write a crash interrupted: it was never acknowledged
        yield pickle.loads(payload)
        offset += _HEADER.size + length


def replay(path: Path) -> int:
    """Applies every complete record of a journal file; returns how many."""
    count = 0
    with moto_patches.every_lock():
        for record in read_records(path):
            for effect in record:
                effects.apply(effect)
            count += 1
        effects.relink_dead_letter_queues()
    return count

