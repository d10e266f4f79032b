"""Shared steps of the read-state tests: flags as a client sees them, and their events."""
from __future__ import annotations

import json
from typing import Any


def dm(account, recipients: list, content: str = "hi") -> int:
    response = account.post("/messages", {"type": "private",
                                          "to": json.dumps([r.user_id for r in recipients]),
                                          "content": content})
    assert response.ok, response.json
    return response.json["id"]


def flags_of(account, message_id: int) -> list[str]:
    response = account.get(f"/messages/{message_id}")
    assert response.ok, response.json
    return response.json["message"]["flags"]


def set_flags(account, ids: list[int], op: str, flag: str) -> Any:
    return account.post("/messages/flags", {"messages": ids, "op": op, "flag": flag})


def register_state(account, *fetch_types: str, **params: Any) -> dict[str, Any]:
    response = account.post("/register", {"fetch_event_types": list(fetch_types),
                                          "event_types": ["update_message_flags", "message"],
                                          **params})
    assert response.ok, response.json
    return response.json


def unread(account, **params: Any) -> dict[str, Any]:
    return register_state(account, "message", "update_message_flags", **params)["unread_msgs"]


def unread_ids(account) -> list[int]:
    state = unread(account)
    return sorted(i for group in ("pms", "streams", "huddles") for entry in state[group]
                  for i in entry["unread_message_ids"])


def flag_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "update_message_flags"]


def narrow_ids(account, narrow: list[dict[str, Any]], anchor: str = "newest",
               num_before: int = 50, num_after: int = 0) -> list[int]:
    response = account.get("/messages", {"anchor": anchor, "num_before": num_before,
                                         "num_after": num_after, "narrow": narrow})
    assert response.ok, response.json
    return [m["id"] for m in response.json["messages"]]
