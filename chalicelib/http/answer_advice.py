"""What to ask for instead when an answer cannot leave the function (http/compression.py).

Read only on that error path: the answer's largest parts (by their JSON size) are named
with what would leave each out or shrink it, judged from the answer itself, so the
advice never names a parameter the request already used (a registration that did not
ask for subscribers is not told to stop asking for them).
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from chalicelib.rules.avatars import GRAVATAR_PREFIX

# Of a registration's keys: the fetch type that brings each in (POST /register).
_FETCH_TYPES = {
    "realm_users": "realm_user", "realm_non_active_users": "realm_user",
    "subscriptions": "subscription", "unsubscribed": "subscription",
    "never_subscribed": "subscription", "streams": "stream", "presences": "presence",
    "unread_msgs": "update_message_flags", "realm_user_groups": "realm_user_groups",
    "recent_private_conversations": "recent_private_conversations",
    "user_status": "user_status", "user_topics": "user_topic", "realm_bots": "realm_bot",
    "starred_messages": "starred_messages", "realm_emoji": "realm_emoji",
}
_SUBSCRIBER_KEYS = ("subscriptions", "unsubscribed", "never_subscribed", "streams")
LARGEST_PARTS = 3


def _has_subscriber_lists(value: Any) -> bool:
    return isinstance(value, list) and any(
        isinstance(c, dict) and ("subscribers" in c or "partial_subscribers" in c)
        for c in value)


def _user_list_advice(users: Any) -> list[str]:
    if not isinstance(users, list):
        return []
    advice = []
    if any(isinstance(u, dict) and _is_gravatar(u.get("avatar_url")) for u in users):
        advice.append("client_gravatar=true")
    if any(isinstance(u, dict) and "avatar_url" in u for u in users):
        advice.append("the user_avatar_url_field_optional client capability")
    return advice


def _is_gravatar(url: Any) -> bool:
    """A person's own Gravatar, which client_gravatar leaves to the client (not a picture
    the server generates or hosts, nor the "Unknown user" picture, which it keeps)."""
    return isinstance(url, str) and url.startswith(GRAVATAR_PREFIX) \
        and not url.startswith(f"{GRAVATAR_PREFIX}?")


def _presence_advice(presences: Any) -> list[str]:
    # The legacy format is keyed by email, each entry holding "aggregated".
    if isinstance(presences, dict) and any(isinstance(v, dict) and "aggregated" in v
                                           for v in presences.values()):
        return ["slim_presence=true"]
    return []


_SHRINK: dict[str, Callable[[Any], list[str]]] = {
    "realm_users": _user_list_advice, "members": _user_list_advice,
    "presences": _presence_advice,
}


def readable_size(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.1f} KB"


def advice(body: str) -> str:
    """What would make this answer fit, or "" when nothing specific can be said."""
    try:
        answer = json.loads(body)
    except ValueError:
        return ""
    if not isinstance(answer, dict):
        return ""
    ways: list[str] = []
    if any(_has_subscriber_lists(answer.get(key)) for key in _SUBSCRIBER_KEYS):
        ways.append("include_subscribers=false")
    sizes = sorted(((len(json.dumps(value)), key) for key, value in answer.items()),
                   reverse=True)[:LARGEST_PARTS]
    for _, key in sizes:
        ways += [w for w in _SHRINK.get(key, lambda _: [])(answer[key]) if w not in ways]
    left_out = [_FETCH_TYPES[key] for _, key in sizes if key in _FETCH_TYPES]
    if left_out:
        names = ", ".join(dict.fromkeys(left_out))
        ways.append(f"fetch_event_types without {names}")
    largest = ", ".join(f"{key} {readable_size(size)}" for size, key in sizes)
    return f"Its largest parts: {largest}. Ask with " + "; or ".join(ways) + "." \
        if ways else f"Its largest parts: {largest}."
