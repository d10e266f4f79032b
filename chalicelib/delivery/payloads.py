"""Large event forms stored once and referred to from every queue that gets them.

A message with its rendered content is several kilobytes; written into each of a
thousand queues it would cost several write units per queue. A form over INLINE_LIMIT
bytes is stored once per distinct form (content-addressed: queues whose options give
the same form share it), and the queues hold `{"_payload": key}` plus what differs per
recipient (flags). Readers resolve references with one BatchGetItem.
"""
from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from datetime import UTC, datetime
from typing import Any

from chalicelib.delivery.append import EVENT_RETENTION
from chalicelib.models.events import QueueEvent
from chalicelib.models.side_by_side import read_all

INLINE_LIMIT = 600                # bytes of JSON kept inside a queue chunk
PER_RECIPIENT_KEYS = ("flags",)   # stay inline: they differ from queue to queue
PAYLOAD_SK = "p"


def _partition(key: str) -> str:
    return f"payload:{key}"


class PayloadStore:
    """Collects the payloads of one fan-out batch, to be written before any append."""

    def __init__(self) -> None:
        self.pending: dict[str, dict[str, Any]] = {}
        # Forms of one event for many queues are new dicts of the same values (only the
        # flags differ): encoded once per distinct set of values, not once per queue
        # (the encoding was a third of the fan-out's CPU under load). Each entry keeps
        # its form alive, so the value ids in its key cannot be reused meanwhile.
        self._keys: dict[tuple[Any, ...], tuple[dict[str, Any], str | None]] = {}

    def stored_form(self, outbox_id: str, form: dict[str, Any]) -> dict[str, Any]:
        """What a queue stores for `form`: the form itself if small, else a reference."""
        shared = {k: v for k, v in form.items() if k not in PER_RECIPIENT_KEYS}
        identity = (outbox_id, *_value_ids(shared))
        known = self._keys.get(identity)
        if known is None:
            known = self._keys[identity] = (shared, self._key(outbox_id, shared))
        key = known[1]
        if key is None:
            return form
        self.pending.setdefault(key, shared)
        return {"_payload": key, **{k: form[k] for k in PER_RECIPIENT_KEYS if k in form}}

    @staticmethod
    def _key(outbox_id: str, shared: dict[str, Any]) -> str | None:
        """The payload key of a form stored apart; None for a form kept inline."""
        encoded = json.dumps(shared, sort_keys=True, separators=(",", ":"))
        if len(encoded) <= INLINE_LIMIT:
            return None
        return f"{outbox_id}:{hashlib.sha256(encoded.encode()).hexdigest()[:16]}"

    def write(self) -> int:
        """Writes the collected payloads (idempotent: same key, same content)."""
        pending, self.pending = self.pending, {}
        self._keys = {}
        expires = datetime.now(UTC) + EVENT_RETENTION
        with QueueEvent.batch_write() as batch:
            for key, payload in pending.items():
                batch.save(QueueEvent(_partition(key), PAYLOAD_SK, payload=payload,
                                      expires_at=expires))
        return len(pending)


def _value_ids(form: dict[str, Any]) -> list[tuple[str, int]]:
    """The form's keys with the identity of their values, a level deep into dicts (a
    form's message is a new dict per queue whose values are the event's own)."""
    ids: list[tuple[str, int]] = []
    for name, value in form.items():
        if isinstance(value, dict):
            ids.append((name, -1))
            ids.extend((f"{name}.{inner}", id(v)) for inner, v in value.items())
        else:
            ids.append((name, id(value)))
    return ids


class _RecentPayloads:
    """Payloads read lately, by key. A payload never changes once written (its key names
    its record and the hash of its content), so a copy is as good as a read: the
    waiting clients of one channel all read the same payloads after each message."""

    LIMIT = 512   # a few KB each

    def __init__(self) -> None:
        # Kept as JSON text: every answer gets a fresh copy no caller can share or alter.
        self._items: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        with self._lock:
            found = {k: self._items[k] for k in keys if k in self._items}
            for key in found:
                self._items.move_to_end(key)
        return {k: json.loads(text) for k, text in found.items()}

    def add(self, payloads: dict[str, dict[str, Any]]) -> None:
        encoded = {k: json.dumps(v) for k, v in payloads.items()}
        with self._lock:
            self._items.update(encoded)
            while len(self._items) > self.LIMIT:
                self._items.popitem(last=False)


recent_payloads = _RecentPayloads()


def resolve(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Replaces payload references with the stored forms (strongly consistent reads of
    those not read lately by this process)."""
    keys = sorted({e["_payload"] for e in events if "_payload" in e})
    if not keys:
        return events
    payloads = recent_payloads.get(keys)
    missing = [k for k in keys if k not in payloads]
    if missing:
        read: dict[str, dict[str, Any]] = {}
        for item in read_all(QueueEvent, [(_partition(k), PAYLOAD_SK) for k in missing],
                             consistent_read=True):
            read[item.queue_id.removeprefix("payload:")] = item.payload or {}
        recent_payloads.add(read)
        payloads.update(read)
    resolved = []
    for event in events:
        if "_payload" not in event:
            resolved.append(event)
            continue
        extra = {k: v for k, v in event.items() if k != "_payload"}
        # A payload gone (expired with its queue's old events) reads as a heartbeat,
        # so ids stay consecutive and the client moves on.
        payload = payloads.get(event["_payload"])
        resolved.append({**payload, **extra} if payload is not None
                        else {"type": "heartbeat", "id": event["id"]})
    return resolved
