"""Notices to people subscribed by someone else (level 397): the notification bot tells
them, unless the request asks not to or subscribes more than
max_bulk_new_subscription_messages people; never for channels the request creates."""
from __future__ import annotations

from chalicelib.actions.workflows import subscription_notices
from tests.functional.edit_helpers import channel


def _notices(account) -> list[str]:
    messages = account.get("/messages", {"anchor": "newest", "num_before": 20, "num_after": 0,
                                         "apply_markdown": False}).json["messages"]
    return [m["content"] for m in messages if m["sender_full_name"] == "Notification Bot"]


def _subscribe(account, names: list[str], *others, **extra):
    response = account.post("/users/me/subscriptions", {
        "subscriptions": [{"name": n} for n in names],
        "principals": [o.user_id for o in others], **extra})
    assert response.ok, response.json
    return response.json


def test_people_subscribed_by_someone_else_are_told(realm, drain_events, advertise,
                                                   monkeypatch):
    advertise(397)
    channel(realm.owner, "general", [realm.owner])
    channel(realm.owner, "design", [realm.owner])
    # WHEN the owner subscribes the member to two channels and creates a third for them
    result = _subscribe(realm.owner, ["general", "design", "brand new"], realm.member,
                        realm.owner)
    assert result["new_subscription_messages_sent"] is True
    drain_events()
    # THEN the member is told of the existing channels only, in one message; the owner not
    assert _notices(realm.member) == [
        f"@_**Olivia Owner|{realm.owner.user_id}** added you to the channels **general** "
        "and **design**."]
    assert _notices(realm.owner) == []
    # WHEN the request asks not to tell, THEN nobody is told and the answer says nothing
    result = _subscribe(realm.owner, ["general"], realm.moderator,
                        send_new_subscription_messages=False)
    assert "new_subscription_messages_sent" not in result
    drain_events()
    assert _notices(realm.moderator) == []
    # WHEN more people are subscribed than the limit, THEN none is told, and it says so
    monkeypatch.setattr(subscription_notices, "MAX_BULK_NEW_SUBSCRIPTION_MESSAGES", 1)
    result = _subscribe(realm.owner, ["design"], realm.moderator, realm.guest)
    assert result["new_subscription_messages_sent"] is False
    drain_events()
    assert _notices(realm.guest) == [] and _notices(realm.moderator) == []
    # AND clients learn the limit from registration
    state = realm.member.post("/register", {"fetch_event_types": ["realm"]}).json
    assert state["max_bulk_new_subscription_messages"] == 100
