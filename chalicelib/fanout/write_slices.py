"""The recipients' rows of a large audience, written in slices on parallel invocations.

A message to a channel writes a row or two per recipient (an unread marker, a flag row;
fanout/recipients.py): 10,000 recipients are 400 BatchWriteItem requests, which one
invocation's 8 writers take most of a second to send while the queue appends of the same
batch are spread over invocations (slices.py). Above `fanout_slice_items()` rows, the
rows are cut into slices of that many: this invocation writes the first, and each other
slice goes to another invocation of the same function as its items' DynamoDB JSON (a
few hundred bytes a row, far under the 6 MB request limit), all at once, through the
same runner as the queue slices (an invocation refused for want of concurrency writes
here; outside Lambda, slices run in this process).

The batch waits for every slice and fails if one did, as a failed write_all fails it: the
rows are idempotent puts, and the stream offers the records again.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from chalicelib import config
from chalicelib.fanout.slices import WRITES_KEY, SliceResponse, slice_pool, slice_runner
from chalicelib.models.base import BaseModel
from chalicelib.models.message_flags import MessageFlag, UnreadMessage
from chalicelib.models.side_by_side import write_all

# What a write slice may carry: the recipients' rows, nothing else.
_MODELS: dict[str, type[BaseModel]] = {model.__name__: model
                                       for model in (UnreadMessage, MessageFlag)}


def write_spread(rows: Sequence[BaseModel]) -> None:
    """Writes the rows (models of _MODELS), in slices beyond fanout_slice_items();
    raises if any part failed, once every part has ended."""
    size = config.fanout_slice_items()
    if len(rows) <= size:
        write_all(rows)
        return
    parts = [rows[i:i + size] for i in range(0, len(rows), size)]
    runner = slice_runner(here=write_in_process)
    elsewhere = [slice_pool.submit(runner, {WRITES_KEY: encode_items(part)})
                 for part in parts[1:]]
    error: Exception | None = None
    try:
        write_all(parts[0])
    except Exception as failed:  # noqa: BLE001 - raised below, after the other slices
        error = failed
    for part, future in zip(parts[1:], elsewhere, strict=True):
        try:
            written = future.result().get("written")
            if written != len(part):
                raise RuntimeError(f"write slice wrote {written!r} of {len(part)} rows")
        except Exception as failed:  # noqa: BLE001 - the first error is raised
            error = error or failed
    if error is not None:
        raise error


def encode_items(rows: Sequence[BaseModel]) -> list[list[Any]]:
    """[model name, the item's DynamoDB JSON] per row."""
    for row in rows:
        if type(row).__name__ not in _MODELS:
            raise TypeError(f"a write slice does not carry {type(row).__name__} rows")
    return [[type(row).__name__, row.serialize()] for row in rows]


def write_in_process(payload: dict[str, Any]) -> SliceResponse:
    """Outside Lambda (or without concurrency): the slice, through its JSON form, here."""
    return handle_write_slice(json.loads(json.dumps(payload)))


def handle_write_slice(payload: dict[str, Any]) -> SliceResponse:
    """An invocation carrying a write slice: its rows written."""
    return {"written": write_items(payload[WRITES_KEY])}


def write_items(encoded: list[list[Any]]) -> int:
    """An invocation's write slice: its rows written; how many."""
    rows = [_MODELS[name].from_raw_data(item) for name, item in encoded]
    write_all(rows)
    return len(rows)
