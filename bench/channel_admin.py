"""DynamoDB requests per call for channel and group administration: PATCH /streams/{id}
(one property) and POST /user_groups/{id}/members adding 100 users, in a small and a
larger organization (the counts must not grow with the organization).

Run: .venv/bin/python -m bench.channel_admin   (part of `make bench`)
"""
from __future__ import annotations

import base64
import collections
import json
from urllib.parse import urlencode

from bench.common import RequestCounter, moto_backend

ORG_SIZES = (120, 600)   # users in the organization; every one subscribed to the channel


class ItemCounter:
    """Counts the items that Query and BatchGetItem calls return (what a request reads)."""

    def __init__(self) -> None:
        self.items: collections.Counter[str] = collections.Counter()

    def install(self) -> None:
        import botocore.client

        original = botocore.client.BaseClient._make_api_call
        counter = self

        def counting(client: object, operation: str, params: dict) -> object:
            result = original(client, operation, params)
            if operation == "Query":
                counter.items["Query"] += len(result.get("Items", []))
            elif operation == "BatchGetItem":
                counter.items["BatchGetItem"] += sum(
                    len(v) for v in result.get("Responses", {}).values())
            return result

        botocore.client.BaseClient._make_api_call = counting  # type: ignore[method-assign]


def _headers(email: str, key: str) -> dict[str, str]:
    token = base64.b64encode(f"{email}:{key}".encode()).decode()
    return {"Authorization": f"Basic {token}",
            "Content-Type": "application/x-www-form-urlencoded"}


def _organization(size: int, number: int) -> tuple[dict[str, str], list[int], int, int]:
    """A realm of `size` users all subscribed to one channel, and an empty group."""
    from chalicelib.actions.channels.add_subscribers import do_add_subscribers
    from chalicelib.actions.users.users import NewUser, do_create_user
    from chalicelib.actions.workflows.realms import do_create_realm
    from chalicelib.models.channels import Stream
    from chalicelib.models.users import User

    domain = f"org{number}.example.com"
    realm, _, owner_key = do_create_realm(f"Org {number}", f"org{number}", NewUser(
        email=f"o@{domain}", full_name="Owner", role=100))
    user_ids = [do_create_user(realm.realm_id, NewUser(
        email=f"u{n}@{domain}", full_name=f"User {n}"))[0].user_id for n in range(size - 1)]
    owner = _headers(f"o@{domain}", owner_key)
    from chalice.test import Client

    from app import app
    with Client(app) as client:
        body = urlencode({"subscriptions": json.dumps([{"name": "general"}])}).encode()
        assert client.http.post("/api/v1/users/me/subscriptions", headers=owner,
                                body=body).status_code == 200
        body = urlencode({"name": "crowd", "description": "", "members": "[]"}).encode()
        created = client.http.post("/api/v1/user_groups/create", headers=owner, body=body)
        assert created.status_code == 200, created.body
        group_id = json.loads(created.body)["group_id"]
    stream = next(s for s in Stream.query(realm.realm_id) if s.name == "general")
    users = list(User.batch_get([(realm.realm_id, u) for u in user_ids]))
    do_add_subscribers(realm.realm_id, stream, users)
    return owner, user_ids, stream.stream_id, group_id


def main() -> None:
    counter = RequestCounter()
    counter.install()
    items = ItemCounter()
    items.install()
    with moto_backend():
        from chalice.test import Client

        from app import app

        print(f"{'call':<52} {'requests':<9} {'items read':<11} {'write/read units':<17} "
              "operations")
        for number, size in enumerate(ORG_SIZES):
            owner, user_ids, stream_id, group_id = _organization(size, number)
            cases = [
                (f"PATCH /streams/{{id}} description ({size} users)", "PATCH",
                 f"/api/v1/streams/{stream_id}", {"description": "Where **everyone** talks"}),
                (f"POST /user_groups/{{id}}/members +100 ({size} users)", "POST",
                 f"/api/v1/user_groups/{group_id}/members",
                 {"add": json.dumps(user_ids[:100])}),
            ]
            with Client(app) as client:
                for name, method, path, params in cases:
                    before, units_before = items.items.copy(), counter.units.copy()
                    with counter.measure() as delta:
                        response = client.http.request(method, path, headers=owner,
                                                       body=urlencode(params).encode())
                    assert response.status_code == 200, (name, response.body[:300])
                    ops = {op: n for (svc, op), n in delta.items() if svc == "dynamodb"}
                    read = sum((items.items - before).values())
                    units = counter.units - units_before
                    unit_text = f"{units['write']:g}/{units['read']:g}"
                    print(f"{name:<52} {sum(ops.values()):<9} {read:<11} {unit_text:<17} {ops}")


if __name__ == "__main__":
    main()
