"""DynamoDB requests of user reads under can_access_all_users_group, default and limited.

Run: .venv/bin/python -m bench.user_access
"""
from __future__ import annotations

import base64

from bench.common import RequestCounter, bench_realm, moto_backend

USERS = 50   # an organization of some size: single-user figures must not depend on it


def main() -> None:
    counter = RequestCounter()
    counter.install()
    with moto_backend():
        from chalice.test import Client

        from app import app
        from chalicelib.actions.users.users import NewUser, do_create_user
        from chalicelib.rules.realm_settings import system_group_id

        realm, _owner_id, owner_key = bench_realm()
        accounts = {"owner": ("o@bench.example.com", owner_key)}
        ids = {}
        for name, role in (("member", 400), ("guest", 600), ("peer", 400)):
            user, key = do_create_user(realm.realm_id, NewUser(
                email=f"{name}@bench.example.com", full_name=name.title(), role=role))
            accounts[name], ids[name] = (f"{name}@bench.example.com", key), user.user_id
        for n in range(USERS):
            do_create_user(realm.realm_id, NewUser(email=f"u{n}@bench.example.com",
                                                   full_name=f"User {n}"))

        def headers(name: str, form: bool = False) -> dict[str, str]:
            email, key = accounts[name]
            auth = {"Authorization": "Basic " + base64.b64encode(
                f"{email}:{key}".encode()).decode()}
            return {**auth, "Content-Type": "application/x-www-form-urlencoded"} if form \
                else auth

        with Client(app) as client:
            client.http.post("/api/v1/users/me/subscriptions", headers=headers("owner", True),
                             body=(f'subscriptions=[{{"name":"shared"}}]&principals='
                                   f'[{ids["guest"]},{ids["peer"]}]').encode())
            print(f"{'call':<46} {'DynamoDB requests':<18} operations")
            for setting in ("role:everyone", "role:members"):
                response = client.http.patch(
                    "/api/v1/realm", headers=headers("owner", True),
                    body=f'can_access_all_users_group={{"new":{system_group_id(setting)}}}'
                    .encode())
                assert response.status_code == 200, response.body
                cases = {
                    "GET /users/{id} guest -> member": ("guest", f"/users/{ids['member']}"),
                    "GET /users/{id} guest -> channel peer": ("guest", f"/users/{ids['peer']}"),
                    "GET /users/{id}/status guest -> member": (
                        "guest", f"/users/{ids['member']}/status"),
                    "GET /users/{id} member -> guest": ("member", f"/users/{ids['guest']}"),
                    f"GET /users guest ({USERS + 4} users)": ("guest", "/users"),
                    f"GET /users member ({USERS + 4} users)": ("member", "/users"),
                }
                cases.update({"POST /register guest (every state)": ("guest", "/register"),
                              "POST /register member (every state)": ("member", "/register")})
                print(f"-- can_access_all_users_group = {setting}")
                for label, (name, path) in cases.items():
                    method = client.http.post if path == "/register" else client.http.get
                    with counter.measure() as delta:
                        response = method("/api/v1" + path, headers=headers(name))
                    assert response.status_code in (200, 400), (label, response.body[:200])
                    dynamodb = {op: n for (svc, op), n in delta.items() if svc == "dynamodb"}
                    print(f"{label:<46} {sum(dynamodb.values()):<18} {dynamodb}")


if __name__ == "__main__":
    main()
