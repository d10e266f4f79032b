"""DynamoDB requests per call for per-user state: PATCH /settings (1 and 10 settings),
POST /users/me/status, DELETE /users/{id} for a user in 50 groups.

Run: .venv/bin/python -m bench.user_state   (part of `make bench`)
"""
from __future__ import annotations

import base64
from urllib.parse import urlencode

from bench.common import RequestCounter, bench_member, bench_realm, moto_backend

# Each differs from its default and from the one-setting case, so all ten change.
TEN_SETTINGS = {"twenty_four_hour_time": "true", "color_scheme": "2", "emojiset": "twitter",
                "enable_sounds": "false", "left_side_userlist": "true",
                "web_font_size_px": "18", "translate_emoticons": "true",
                "starred_message_counts": "false", "high_contrast_mode": "true",
                "demote_inactive_streams": "2"}


def main() -> None:
    counter = RequestCounter()
    counter.install()
    with moto_backend():
        from chalice.test import Client

        from app import app
        from chalicelib.models.ids import allocate_id
        from chalicelib.models.user_groups import UserGroup

        realm, owner_id, owner_key = bench_realm()
        member, member_key = bench_member(realm.realm_id)
        from chalicelib.models.users import User
        group_ids = {allocate_id(realm.realm_id, "group") for _ in range(50)}
        for n, group_id in enumerate(sorted(group_ids)):
            UserGroup(realm.realm_id, group_id, name=f"g{n}", date_created=0,
                      direct_members={member.user_id, owner_id}).save()
        # Written directly, so the members' reverse index (User.group_ids) is written too.
        for user_id in (member.user_id, owner_id):
            User(realm.realm_id, user_id).update(actions=[User.group_ids.set(group_ids)])

        def headers(email: str, key: str) -> dict[str, str]:
            token = base64.b64encode(f"{email}:{key}".encode()).decode()
            return {"Authorization": f"Basic {token}",
                    "Content-Type": "application/x-www-form-urlencoded"}

        owner = headers("o@bench.example.com", owner_key)
        me = headers("m@bench.example.com", member_key)
        cases = [
            ("PATCH /settings (1 setting)", "PATCH", "/api/v1/settings", me,
             {"color_scheme": "3"}),
            ("PATCH /settings (10 settings)", "PATCH", "/api/v1/settings", me, TEN_SETTINGS),
            ("POST /users/me/status", "POST", "/api/v1/users/me/status", me,
             {"status_text": "in a meeting", "emoji_name": "car"}),
            ("DELETE /users/{id} (50 groups)", "DELETE", f"/api/v1/users/{member.user_id}",
             owner, {}),
        ]
        print(f"{'call':<32} {'DynamoDB requests':<18} {'write/read units':<17} operations")
        with Client(app) as client:
            for name, method, path, auth, params in cases:
                units_before = counter.units.copy()
                with counter.measure() as delta:
                    response = client.http.request(method, path, headers=auth,
                                                   body=urlencode(params).encode())
                assert response.status_code == 200, (name, response.body[:300])
                units = counter.units - units_before
                ops = {op: n for (svc, op), n in delta.items() if svc == "dynamodb"}
                unit_text = f"{units['write']:g}/{units['read']:g}"
                print(f"{name:<32} {sum(ops.values()):<18} {unit_text:<17} {ops}")
        # What was measured did what it says: ten settings stored, fifty groups left.
        stored = User.get(realm.realm_id, member.user_id).settings.as_dict()
        assert all(str(stored[k]).lower() == v for k, v in TEN_SETTINGS.items()), stored
        assert not any(member.user_id in (g.direct_members or ())
                       for g in UserGroup.query(realm.realm_id))
        assert User.get(realm.realm_id, member.user_id).group_ids is None


if __name__ == "__main__":
    main()
