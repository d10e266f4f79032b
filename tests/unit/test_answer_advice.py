"""What an answer too large to return advises (http/answer_advice.py): its largest parts
and what would leave them out, never what the request already did."""
from __future__ import annotations

import json

from chalicelib.actions.users.reads.access import INACCESSIBLE_AVATAR_URL
from chalicelib.http.answer_advice import advice
from chalicelib.rules.avatars import GRAVATAR_PREFIX


def _body(**parts: object) -> str:
    return json.dumps({"result": "success", "msg": "", **parts})


def test_subscriber_lists_are_advised_away_only_when_present():
    with_lists = _body(subscriptions=[{"stream_id": 1, "subscribers": list(range(500))}])
    without = _body(subscriptions=[{"stream_id": 1, "name": "x" * 3000}])
    assert "include_subscribers=false" in advice(with_lists)
    assert "include_subscribers" not in advice(without)
    assert "fetch_event_types without subscription" in advice(without)


def test_user_lists_name_gravatar_and_the_avatar_capability():
    urls = _body(realm_users=[{"user_id": n, "avatar_url": GRAVATAR_PREFIX + "a" * 40}
                              for n in range(50)])
    # Pictures the server generates or hosts stay whatever client_gravatar says
    generated = _body(realm_users=[{"user_id": n, "avatar_url": "/user_avatars/1/generated/"
                                    + "a" * 40 + ".svg?version=1"} for n in range(50)])
    unknown = _body(realm_users=[{"user_id": n, "avatar_url": INACCESSIBLE_AVATAR_URL}
                                 for n in range(50)])
    nulls = _body(realm_users=[{"user_id": n, "avatar_url": None} for n in range(50)])
    absent = _body(realm_users=[{"user_id": n} for n in range(50)])
    assert "client_gravatar=true" in advice(urls)
    assert "client_gravatar" not in advice(nulls)
    assert "client_gravatar" not in advice(generated) + advice(unknown)
    assert "user_avatar_url_field_optional" in advice(generated)
    assert "user_avatar_url_field_optional" in advice(nulls)
    assert "user_avatar_url_field_optional" not in advice(absent)
    assert "without realm_user" in advice(absent)


def test_legacy_presence_is_advised_slim():
    legacy = _body(presences={f"u{n}@x": {"aggregated": {"status": "active"}}
                              for n in range(50)})
    slim = _body(presences={str(n): {"active_timestamp": 1} for n in range(50)})
    assert "slim_presence=true" in advice(legacy)
    assert "slim_presence" not in advice(slim)


def test_the_largest_parts_are_named_with_their_sizes_and_odd_bodies_get_nothing():
    said = advice(_body(streams=[{"name": "s" * 200_000}], realm_emoji={}))
    assert said.startswith("Its largest parts: streams 0.2 MB")
    assert advice("not json") == "" and advice("[1, 2]") == ""
