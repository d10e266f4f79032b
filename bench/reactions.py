"""Reactions: DynamoDB requests and units of POST /messages/{id}/reactions (first reaction
on a message, a vote on an existing one, a custom emoji by name), next to the floor (one
conditional UpdateItem); and the cost of reading reactions with a page of messages
(GET /messages of 50 messages, each with reactions, against the same page without).

Run: .venv/bin/python -m bench.reactions   (part of `make bench`)
"""
from __future__ import annotations

from bench.common import (
    RequestCounter,
    api_caller,
    bench_member,
    bench_realm,
    form_headers,
    median_ms,
    moto_backend,
)

PAGE = 50


def main() -> None:
    counter = RequestCounter()
    counter.install()
    with moto_backend():
        from chalice.test import Client

        from app import app

        realm, _owner_id, owner_key = bench_realm()
        member, member_key = bench_member(realm.realm_id)


        owner = form_headers("o@bench.example.com", owner_key)
        me = form_headers("m@bench.example.com", member_key)
        with Client(app) as client:
            call = api_caller(client)

            call("POST", "/users/me/subscriptions", owner,
                 subscriptions=[{"name": "general"}], principals=[member.user_id])
            ids = [call("POST", "/messages", owner, type="stream", to="general", topic="t",
                        content=f"message {n}")["id"] for n in range(2 * PAGE + 1)]
            target, plain, reacted = ids[0], ids[1:PAGE + 1], ids[PAGE + 1:]
            for message_id in reacted:   # every message of one page has reactions
                call("POST", f"/messages/{message_id}/reactions", owner, emoji_name="tada")

            cases = [
                ("first reaction on a message", target, "octopus", owner),
                ("vote on an existing reaction", target, "octopus", me),
                ("another emoji on the message", target, "heart", me),
            ]
            print(f"{'POST /messages/{id}/reactions':<32} {'DynamoDB requests':<18} "
                  f"{'write/read units':<17} operations")
            for name, message_id, emoji, auth in cases:
                units_before = counter.units.copy()
                with counter.measure() as delta:
                    call("POST", f"/messages/{message_id}/reactions", auth, emoji_name=emoji)
                units = counter.units - units_before
                ops = {op: n for (svc, op), n in delta.items() if svc == "dynamodb"}
                print(f"{name:<32} {sum(ops.values()):<18} "
                      f"{units['write']:g}/{units['read']:g}{'':<12} {ops}")
            print("floor: the reaction as 1 conditional UpdateItem and its event in the same "
                  "TransactWriteItems (2 items, 4 write units); reads: the caller's key, "
                  "the message, its channel and subscription, the emoji's name, the user")

            def page(anchor: int) -> dict:
                return call("GET", "/messages", owner, anchor=str(anchor), num_before=PAGE - 1,
                            num_after=0, narrow=[["channel", "general"]])

            print(f"\nGET /messages of {PAGE} messages{'':<4} DynamoDB requests  ms (median of 5)")
            for name, anchor in (("without reactions", plain[-1]),
                                 ("each with reactions", reacted[-1])):
                with counter.measure() as delta:
                    fetched = page(anchor)["messages"]
                ops = {op: n for (svc, op), n in delta.items() if svc == "dynamodb"}
                with_reactions = sum(1 for m in fetched if m["reactions"])
                assert len(fetched) == PAGE
                print(f"{name:<28} {sum(ops.values()):<18} "
                      f"{median_ms(lambda a=anchor: page(a)):<17.1f} {ops} "
                      f"({with_reactions} with reactions)")


if __name__ == "__main__":
    main()
