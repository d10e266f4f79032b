"""Level 475: an account an administrator creates through the API joins (date_joined)
when its owner first logs in."""
from __future__ import annotations

from chalicelib.models.users import User
from chalicelib.rules.timeutil import iso_from_seconds
from tests.functional.test_account import fetch_key

PASSWORD = "a long enough password 475"


def _created(realm, email: str) -> int:
    created = realm.admin.post("/users", {"email": email, "password": PASSWORD,
                                          "full_name": "New Person"})
    assert created.ok, created.json
    user_id = created.json["user_id"]
    # As if created a day ago
    User(realm.realm_id, user_id).update(actions=[User.date_joined.set(User.get(
        realm.realm_id, user_id).date_joined - 86400)])
    return user_id


def _joined(realm, user_id: int) -> str:
    return realm.member.get(f"/users/{user_id}").json["user"]["date_joined"]


def test_an_api_created_account_joins_at_its_first_login(
        realm, advertise, anonymous, register_queue, fetch_events, drain_events):
    advertise(475)
    user_id = _created(realm, "new.person@example.com")
    created_at = _joined(realm, user_id)
    queue = register_queue(realm.member, event_types=["realm_user"])["queue_id"]
    drain_events()
    # WHEN its owner logs in for the first time
    assert fetch_key(anonymous, realm, "new.person@example.com", PASSWORD).ok
    drain_events()
    # THEN date_joined is now, and everyone who sees the user is told
    joined = _joined(realm, user_id)
    assert joined > created_at
    assert joined == iso_from_seconds(User.get(realm.realm_id, user_id).date_joined)
    updates = [e for e in fetch_events(realm.member, queue)
               if e["type"] == "realm_user" and e["op"] == "update"]
    assert [e["person"] for e in updates] == [{"user_id": user_id, "date_joined": joined}]
    # AND a second login changes nothing
    assert fetch_key(anonymous, realm, "new.person@example.com", PASSWORD).ok
    drain_events()
    assert _joined(realm, user_id) == joined
    assert fetch_events(realm.member, queue, updates[-1]["id"]) == []


def test_below_level_475_date_joined_stays_the_creation_time(realm, advertise, anonymous):
    advertise(474)
    user_id = _created(realm, "older.person@example.com")
    created_at = _joined(realm, user_id)
    assert fetch_key(anonymous, realm, "older.person@example.com", PASSWORD).ok
    assert _joined(realm, user_id) == created_at
