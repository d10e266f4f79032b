"""A fan-out batch stores a large form once and encodes it once for all the queues whose
forms share its values (chalicelib/delivery/payloads.py)."""
from __future__ import annotations

import json
from typing import Any

import pytest

from chalicelib.delivery import payloads
from chalicelib.delivery.payloads import PayloadStore


@pytest.fixture
def encodings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real_dumps = json.dumps

    def counting(*args: Any, **kwargs: Any) -> str:
        calls.append(1)
        return real_dumps(*args, **kwargs)

    monkeypatch.setattr(payloads.json, "dumps", counting)
    return calls


def message_event(content: str) -> dict[str, Any]:
    return {"type": "message", "message": {"id": 7, "content": content,
                                           "display_recipient": [{"id": 1}, {"id": 2}]}}


def form_for(event: dict[str, Any], flags: list[str], **changed: Any) -> dict[str, Any]:
    """A queue's form as the filters build it: new dicts over the event's own values."""
    return {**event, "message": {**event["message"], **changed}, "flags": flags}


def test_forms_sharing_their_values_are_encoded_once_and_stored_once(encodings):
    store = PayloadStore()
    event = message_event("x" * 1000)
    stored = [store.stored_form("o1", form_for(event, flags))
              for flags in ([], ["read"], ["mentioned"], [])]
    # One encoding, one payload; each queue keeps its own flags beside the reference.
    assert len(encodings) == 1
    assert len({s["_payload"] for s in stored}) == 1 and len(store.pending) == 1
    assert [s["flags"] for s in stored] == [[], ["read"], ["mentioned"], []]


def test_a_form_with_a_value_of_its_own_gets_its_own_payload(encodings):
    store = PayloadStore()
    event = message_event("x" * 1000)
    plain = store.stored_form("o1", form_for(event, []))
    raw = store.stored_form("o1", form_for(event, [], content="y" * 1000))
    other_record = store.stored_form("o2", form_for(event, []))
    assert len(encodings) == 3
    assert len({plain["_payload"], raw["_payload"], other_record["_payload"]}) == 3
    assert store.pending[raw["_payload"]]["message"]["content"] == "y" * 1000


def test_small_forms_stay_inline_and_the_memory_ends_with_the_batch(encodings,
                                                                    monkeypatch):
    store = PayloadStore()
    event = message_event("short")
    form = form_for(event, ["read"])
    assert store.stored_form("o1", form) is form
    assert store.stored_form("o1", form_for(event, [])) == form_for(event, [])
    assert len(encodings) == 1
    monkeypatch.setattr(payloads.QueueEvent, "batch_write", _NoWrites)
    store.write()
    store.stored_form("o1", form_for(event, []))
    assert len(encodings) == 2


class _NoWrites:
    def __enter__(self) -> _NoWrites:
        return self

    def __exit__(self, *args: object) -> None:
        return None

    def save(self, item: object) -> None:
        raise AssertionError("nothing to write")


def test_payloads_read_once_are_resolved_again_without_a_read(monkeypatch):
    from types import SimpleNamespace

    reads: list[list[Any]] = []
    stored = {"payload:o9:a": {"type": "message", "message": {"id": 9, "content": "x"}}}

    def read_all(model: Any, keys: list[Any], consistent_read: bool = False) -> list[Any]:
        reads.append(keys)
        return [SimpleNamespace(queue_id=k, payload=stored[k]) for k, _ in keys if k in stored]

    monkeypatch.setattr(payloads, "read_all", read_all)
    monkeypatch.setattr(payloads, "recent_payloads", payloads._RecentPayloads())
    events = [{"id": 1, "_payload": "o9:a", "flags": []},
              {"id": 2, "_payload": "o9:gone", "flags": []}]
    first = payloads.resolve(events)
    # The second client's read of the same events costs no read for the known payload
    # (the expired one is read again: it may not have been written yet elsewhere).
    second = payloads.resolve(events)
    assert [k for k, _ in reads[0]] == ["payload:o9:a", "payload:o9:gone"]
    assert [k for k, _ in reads[1]] == ["payload:o9:gone"]
    assert first == second == [
        {"type": "message", "message": {"id": 9, "content": "x"}, "id": 1, "flags": []},
        {"type": "heartbeat", "id": 2}]
    # Each answer is a copy: changing one changes no other
    first[0]["message"]["content"] = "changed"
    assert payloads.resolve(events[:1])[0]["message"]["content"] == "x"
