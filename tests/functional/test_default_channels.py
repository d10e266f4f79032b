"""Default channels: POST/DELETE /default_streams, their events and state, and sign-up
joining them."""
from __future__ import annotations

from tests.functional.conftest import Account
from tests.functional.edit_helpers import channel
from tests.functional.invite_helpers import emailed_key, error, invite, register


def is_default(account, stream_id):
    """The channel's `is_default`, which GET /streams shows with include_default."""
    streams = account.get("/streams", {"include_default": "true"}).json["streams"]
    return next(s for s in streams if s["stream_id"] == stream_id)["is_default"]

def defaults(register_queue, account) -> list[int]:
    return register_queue(account, fetch_event_types=["default_streams"]
                          )["realm_default_streams"]


def test_add_and_remove_with_events_state_and_sign_up(realm, register_queue, fetch_events,
                                                      drain_events):
    lobby, welcome = channel(realm.admin, "lobby"), channel(realm.admin, "welcome")
    queues = {a.user_id: register_queue(a, event_types=["default_streams"])["queue_id"]
              for a in (realm.member, realm.guest)}
    # WHEN an administrator makes two channels default and removes one again
    assert realm.admin.post("/default_streams", {"stream_id": lobby}).ok
    assert realm.owner.post("/default_streams", {"stream_id": welcome}).ok
    assert realm.admin.post("/default_streams", {"stream_id": welcome}).ok   # no change
    assert realm.admin.delete("/default_streams", {"stream_id": lobby}).ok
    assert realm.admin.delete("/default_streams", {"stream_id": lobby}).ok   # no change
    # THEN the state lists the default one (members see it; guests get an empty list)
    assert defaults(register_queue, realm.member) == [welcome]
    assert defaults(register_queue, realm.guest) == []
    # AND members heard each change, guests nothing
    drain_events()
    events = [{k: v for k, v in e.items() if k != "id"}
              for e in fetch_events(realm.member, queues[realm.member.user_id])]
    assert events == [{"type": "default_streams", "default_streams": ds}
                      for ds in ([lobby], [lobby, welcome], [welcome])]
    assert fetch_events(realm.guest, queues[realm.guest.user_id]) == []
    # AND the channel shows it
    assert is_default(realm.member, welcome) is True
    assert is_default(realm.member, lobby) is False
    # AND a user who signs up with the realm's defaults joins the default channel only
    address = f"dana@{realm.subdomain}.example.net"
    assert invite(realm.admin, address, [], include_realm_default_subscriptions=True).ok
    response = register(realm, emailed_key(address))
    assert response.ok, response.json
    dana = Account(realm.client, realm.realm_id, response.json["user_id"],
                   response.json["email"], response.json["api_key"], "Dana", 400)
    subscribed = dana.get("/users/me/subscriptions").json["subscriptions"]
    assert [s["name"] for s in subscribed] == ["welcome"]


def test_refusals(realm):
    lobby = channel(realm.admin, "lobby")
    secret = channel(realm.admin, "secret", invite_only=True)
    archived = channel(realm.admin, "old")
    assert realm.admin.delete(f"/streams/{archived}").ok
    for account in (realm.moderator, realm.member, realm.guest):
        for method in ("POST", "DELETE"):
            response = account.call(method, "/default_streams", {"stream_id": lobby})
            assert error(response) == "Only the organization's administrators can do this."
    for method in ("POST", "DELETE"):
        for missing in (999999, 0, -3):
            response = realm.admin.call(method, "/default_streams", {"stream_id": missing})
            assert error(response) == "No channel you can see has that ID."
        response = realm.admin.call(method, "/default_streams", {"stream_id": "lobby"})
        assert response.status == 400 and response.json["code"] == "BAD_REQUEST"
    assert error(realm.admin.post("/default_streams", {"stream_id": secret})) == \
        "A private channel cannot become a default channel."
    assert error(realm.admin.post("/default_streams", {"stream_id": archived})) == \
        "An archived channel cannot be a default channel."
    missing = realm.admin.post("/default_streams", {})
    assert missing.json["code"] == "REQUEST_VARIABLE_MISSING"
    assert is_default(realm.admin, lobby) is False
