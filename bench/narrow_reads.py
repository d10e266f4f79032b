"""What GET /messages narrowed by `dm-including`, by a topic without a channel, by
`has:image` or by `is:resolved` reads on realms where the matching messages are few and
old and the other messages many (requests, read units, results).

Three direct conversations of the member with the owner are sent through the API (and
delivered: their recent-conversation items written as the fan-out writes them), and five
messages to a topic of a channel; then the realm gets N channel messages in another
topic, written straight into moto's tables as bench/search.py does. The member asks for
the 100 newest messages including the owner, then for the 100 newest of the topic, then
for the 100 newest with an image, and in a resolved topic (one each, sent before the
others): before, as the realm's message list answered them (the has: index switched
off), and after, from the has: index.

Run: .venv/bin/python -m bench.narrow_reads [channel messages...]   (default: 1000 10000)
"""
from __future__ import annotations

import sys
from typing import Any

from bench.common import (
    MEMBER_EMAIL,
    OWNER_EMAIL,
    RequestCounter,
    api_caller,
    bench_member,
    bench_realm,
    form_headers,
    moto_backend,
)

CONVERSATIONS = 3
MESSAGES_PER_CONVERSATION = 5
IMAGE = "the plan [plan.png](/user_uploads/1/ab/plan.png)"
NARROWS: list[tuple[str, dict[str, Any], bool]] = [
    ("dm-including", {"operator": "dm-including", "operand": 0}, True),
    ("topic alone", {"operator": "topic", "operand": "rare topic"}, True),
    ("has:image old", {"operator": "has", "operand": "image"}, False),
    ("has:image new", {"operator": "has", "operand": "image"}, True),
    ("resolved old", {"operator": "is", "operand": "resolved"}, False),
    ("resolved new", {"operator": "is", "operand": "resolved"}, True),
]


def build(size: int) -> tuple[Any, dict[str, str], int, list[int]]:
    from chalice.test import Client
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    from app import app
    from chalicelib.models.channels import stream_key, user_key
    from chalicelib.models.conversations import RecentConversation, conversation_key
    from chalicelib.models.ids import allocate_ids, realm_scope
    from chalicelib.models.messages import Message, topic_key
    from chalicelib.models.pending_deliveries import PendingDelivery

    realm, owner_id, owner_key = bench_realm()
    member, member_key = bench_member(realm.realm_id)
    client = Client(app)
    call = api_caller(client)
    owner = form_headers(OWNER_EMAIL, owner_key)
    member_headers = form_headers(MEMBER_EMAIL, member_key)
    stream = call("POST", "/users/me/subscriptions", owner,
                  subscriptions=[{"name": "noise"}], principals=[member.user_id])
    assert stream["result"] == "success"
    others = [bench_member_n(realm.realm_id, n) for n in range(CONVERSATIONS - 1)]
    sent: list[int] = []
    for group in [[member.user_id]] + [[member.user_id, o] for o in others]:
        for n in range(MESSAGES_PER_CONVERSATION):
            sent.append(call("POST", "/messages", owner, type="private", to=group,
                             content=f"direct {n}")["id"])
        for user_id in {owner_id, *group}:   # delivered, as the fan-out records it
            RecentConversation(user_key(realm.realm_id, user_id),
                               conversation_key({owner_id, *group}),
                               max_message_id=sent[-1]).save()
    for n in range(5):
        sent.append(call("POST", "/messages", owner, type="stream", to="noise",
                         topic="rare topic", content=f"rare {n}")["id"])
    sent.append(call("POST", "/messages", owner, type="stream", to="noise",
                     topic="\u2714 fixed", content="resolved it")["id"])
    sent.append(call("POST", "/messages", owner, type="stream", to="noise",
                     topic="pictures", content=IMAGE)["id"])
    for pending in PendingDelivery.query(realm.realm_id):
        pending.delete()
    noise = Message.get(realm.realm_id, call(
        "POST", "/messages", owner, type="stream", to="noise", topic="t",
        content="channel words")["id"])
    backend = dynamodb_backends[DEFAULT_ACCOUNT_ID]["us-east-1"]
    for message_id in allocate_ids(realm_scope(realm.realm_id), "message", size):
        copy = Message(realm.realm_id, message_id, **{
            k: v for k, v in noise.attribute_values.items()
            if k not in ("realm_id", "message_id")})
        copy.stream_key = stream_key(realm.realm_id, int(noise.stream_id))
        copy.topic_key = topic_key(realm.realm_id, int(noise.stream_id), "t")
        backend.put_item(Message.Meta.table_name, copy.serialize())
    return call, member_headers, owner_id, sent


def bench_member_n(realm_id: int, n: int) -> int:
    from chalicelib.actions.users.users import NewUser, do_create_user

    user, _ = do_create_user(realm_id, NewUser(email=f"u{n}@bench.example.com",
                                               full_name=f"User {n}"))
    return int(user.user_id)


def has_index(enabled: bool) -> None:
    """Switches the has: index on, or off (the realm's message list answers, as before)."""
    from chalicelib.actions.messages.reads import properties

    properties.RARE = ("image", "attachment") if enabled else ()
    properties.COMMON = ("resolved", "reaction", "link") if enabled else ()


def main(sizes: list[int]) -> None:
    counter = RequestCounter()
    counter.install()
    print(f"{'narrow':<13} {'channel messages':>16} {'results':>7} {'found_oldest':>12} "
          f"{'requests':>8} {'Query':>5} {'BatchGet':>8} {'read units':>10}")
    for size in sizes:
        with moto_backend():
            call, member, owner_id, sent = build(size)
            for label, narrow, indexed in NARROWS:
                if narrow["operator"] == "dm-including":
                    narrow = {**narrow, "operand": owner_id}
                has_index(indexed)
                before_units = counter.units.copy()
                with counter.measure() as calls:
                    answer = call("GET", "/messages", member, anchor="newest",
                                  num_before=100, num_after=0, narrow=[narrow])
                units = counter.units - before_units
                found = [m["id"] for m in answer["messages"]]
                queries = sum(n for (_, op), n in calls.items() if op == "Query")
                gets = sum(n for (_, op), n in calls.items() if op == "BatchGetItem")
                print(f"{label:<13} {size:>16,} {len(found):>7} "
                      f"{answer['found_oldest']!s:>12} {sum(calls.values()):>8} "
                      f"{queries:>5} {gets:>8} {units['read']:>10.1f}")
                assert found == sorted(found) and set(found) <= set(sent)
                if label == "has:image new":
                    assert found == [sent[-1]] and answer["found_oldest"]
                if label == "resolved new":
                    assert found == [sent[-2]] and answer["found_oldest"]
            has_index(True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1_000, 10_000])
