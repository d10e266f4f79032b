"""DynamoDB requests of POST /register with every fetch type, for organizations of 10 and
200 users (same channels, groups and bots), as an administrator, a member and a guest,
with and without include_subscribers.

The figure to watch: the count must not grow with the number of users (the user list
is one Query, paged by DynamoDB at 1 MB, i.e. thousands of users a page).

Run: .venv/bin/python -m bench.register   (part of `make bench`)
"""
from __future__ import annotations

import json
from urllib.parse import urlencode

from bench.common import RequestCounter, form_headers, moto_backend

FETCH_TYPES = [
    "realm_user", "user_settings", "realm", "subscription", "message", "update_message_flags",
    "presence", "recent_private_conversations", "muted_users", "realm_user_groups",
    "realm_emoji", "realm_playgrounds", "saved_snippets", "user_status", "user_topic",
    "alert_words", "custom_profile_fields", "default_streams", "realm_bot", "stream",
    "starred_messages",
]
CHANNELS = 5
BOTS = 3
SIZES = (10, 200)


def _organization(size: int) -> dict[str, dict[str, str]]:
    """A realm of `size` users (owner and guest included) in CHANNELS channels, with
    BOTS bots and one user group; returns the headers of an owner, member and guest."""
    from chalicelib.actions.channels.add_subscribers import do_add_subscribers
    from chalicelib.actions.channels.subscriptions import check_subscribe
    from chalicelib.actions.groups.user_groups import do_create_user_group
    from chalicelib.actions.users.bots import do_create_bot
    from chalicelib.actions.users.users import NewUser, do_create_user
    from chalicelib.actions.workflows.realms import do_create_realm
    from chalicelib.core.principal import Principal
    from chalicelib.models.channels import Stream
    from chalicelib.models.users import User

    sub = f"r{size}"
    realm, owner_id, owner_key = do_create_realm(f"Bench {size}", sub, NewUser(
        email=f"owner@{sub}.example.com", full_name="Owner", role=100))
    owner = Principal(realm.realm_id, owner_id, f"owner@{sub}.example.com", 100, False)
    keys = {"owner": (owner.email, owner_key)}
    for n in range(size - 2):
        email = f"user{n}@{sub}.example.com"
        _, key = do_create_user(realm.realm_id, NewUser(email=email, full_name=f"User {n}"))
        if n == 0:
            keys["member"] = (email, key)
    guest, guest_key = do_create_user(realm.realm_id, NewUser(
        email=f"guest@{sub}.example.com", full_name="Guest", role=600))
    keys["guest"] = (guest.email, guest_key)
    check_subscribe(owner, [{"name": f"channel {c}"} for c in range(CHANNELS)], None,
                    False, None, True)
    users = list(User.query(realm.realm_id))
    for stream in Stream.query(realm.realm_id):
        do_add_subscribers(realm.realm_id, stream, users)
    owner_user = User.get(realm.realm_id, owner_id)
    for b in range(BOTS):
        do_create_bot(realm.realm_id, owner_user, f"Bot {b}", f"bot{b}")
    do_create_user_group(owner, "Leads", "", [owner_id], [], {})
    return {role: form_headers(*creds) for role, creds in keys.items()}


def main() -> None:
    counter = RequestCounter()
    counter.install()
    with moto_backend():
        from chalice.test import Client

        from app import app

        print(f"POST /register, {len(FETCH_TYPES)} fetch types, {CHANNELS} channels, "
              f"{BOTS} bots")
        print(f"{'users':<6} {'caller':<7} {'subscribers':<12} {'requests':<9} operations")
        rows: dict[tuple[int, str, bool], int] = {}
        with Client(app) as client:
            for size in SIZES:
                accounts = _organization(size)
                for role, auth in accounts.items():
                    for subscribers in (False, True):
                        params = {"fetch_event_types": json.dumps(FETCH_TYPES),
                                  "event_types": json.dumps(["message"]),
                                  "include_subscribers": json.dumps(subscribers)}
                        with counter.measure() as delta:
                            response = client.http.request(
                                "POST", "/api/v1/register", headers=auth,
                                body=urlencode(params).encode())
                        assert response.status_code == 200, response.body[:300]
                        body = json.loads(response.body)
                        assert len(body["realm_users"]) + len(body["cross_realm_bots"]) >= size
                        ops = {op: n for (svc, op), n in sorted(delta.items())
                               if svc == "dynamodb"}
                        rows[(size, role, subscribers)] = sum(ops.values())
                        print(f"{size:<6} {role:<7} {subscribers!s:<12} "
                              f"{sum(ops.values()):<9} {ops}")
        small, large = SIZES
        for role in ("owner", "member", "guest"):
            for subscribers in (False, True):
                ratio = rows[(large, role, subscribers)] / rows[(small, role, subscribers)]
                print(f"ratio {large}/{small} users, {role}, subscribers={subscribers}: "
                      f"{ratio:.2f}")


if __name__ == "__main__":
    main()
