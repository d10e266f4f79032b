"""can_access_all_users_group: what a guest reads of users they cannot access, and hears."""
from __future__ import annotations

import pytest

from chalicelib.actions.users.reads.access import INACCESSIBLE_AVATAR_URL
from chalicelib.rules.realm_settings import system_group_id

PLACEHOLDER_NAME = "Unknown user"


def restrict(realm) -> None:
    assert realm.owner.patch("/realm", {"can_access_all_users_group": {
        "new": system_group_id("role:members")}}).ok


def share_channel(realm, name: str, *accounts) -> None:
    response = realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": name}], "principals": [a.user_id for a in accounts]})
    assert response.ok, response.json


def by_id(users: list[dict]) -> dict[int, dict]:
    return {u["user_id"]: u for u in users}


def is_placeholder(record: dict, account) -> bool:
    """The "Unknown user" record: only the id comes from the user."""
    from chalicelib import config

    realm_host = f"{account.email.split('@')[1].split('.')[0]}.{config.root_domain()}"
    # profile_data: {} where shown (registration), absent where not asked for (GET /users)
    shown = {**record, "profile_data": record.get("profile_data", {}),
             # is_active: absent in registration's lists, which say it
             "is_active": record.get("is_active", True)}
    # Never an imported stub (level 433: is_imported_stub, is_imported in registration)
    if shown.pop("is_imported_stub", False) or shown.pop("is_imported", False):
        return False
    return shown == {
        "user_id": account.user_id, "email": f"user{account.user_id}@{realm_host}",
        "delivery_email": None, "full_name": PLACEHOLDER_NAME,
        "date_joined": "1970-01-01T00:00:00+00:00", "is_active": True, "is_owner": False,
        "is_admin": False, "is_guest": False, "is_bot": False,
        "role": 400, "timezone": "", "avatar_url": INACCESSIBLE_AVATAR_URL,
        "avatar_version": 1, "profile_data": {}}


def limit_guests(realm):
    """The realm limiting guests, where the guest shares a channel with the member only."""
    restrict(realm)
    share_channel(realm, "shared", realm.guest, realm.member)
    share_channel(realm, "staff", realm.moderator, realm.admin)
    return realm


@pytest.fixture
def limited(realm):
    return limit_guests(realm)


def test_a_limited_guest_lists_only_whom_they_can_access(limited, advertise):
    realm = limited
    bot = realm.add_user("Helper Bot", is_bot=True)
    advertise(436)   # from level 437, GET /users leaves the placeholders out (below)
    members = by_id(realm.guest.get("/users").json["members"])
    # Themself, the channel peer and bots as they are; everyone else as a placeholder
    for account in (realm.guest, realm.member, bot):
        assert members[account.user_id]["full_name"] == account.full_name
        assert members[account.user_id]["email"] == account.email
    for account in (realm.owner, realm.admin, realm.moderator):
        assert is_placeholder(members[account.user_id], account), members[account.user_id]
    # A placeholder has every field a real record has, and none of its values
    assert set(members[realm.moderator.user_id]) == set(members[realm.member.user_id])
    # Members and above still see everyone
    seen = by_id(realm.moderator.get("/users").json["members"])
    assert seen[realm.owner.user_id]["full_name"] == "Olivia Owner"
    assert seen[realm.guest.user_id]["full_name"] == "Gus Guest"
    # From level 437, the guest lists only whom they can access: no fake users
    advertise(437)
    assert set(by_id(realm.guest.get("/users").json["members"])) == {
        realm.guest.user_id, realm.member.user_id, bot.user_id}


def test_a_deactivated_channel_peer_is_no_longer_accessible(limited, advertise):
    realm = limited
    advertise(436)
    assert realm.admin.delete(f"/users/{realm.member.user_id}").ok
    members = by_id(realm.guest.get("/users").json["members"])
    assert is_placeholder(members[realm.member.user_id], realm.member)
    assert realm.guest.get(f"/users/{realm.member.user_id}").json["msg"] == \
        "No such person in this organization."


def test_an_inaccessible_user_reads_like_a_missing_one(limited):
    realm = limited
    bot = realm.add_user("Helper Bot", is_bot=True)
    missing = realm.guest.get("/users/999999")
    missing_status = realm.guest.get("/users/999999/status")
    assert missing.status == 400 and missing.json["msg"] == "No such person in this organization."
    for path in (f"/users/{realm.moderator.user_id}", f"/users/{realm.owner.user_id}"):
        response = realm.guest.get(path)
        assert (response.status, response.json) == (missing.status, missing.json)
    status = realm.guest.get(f"/users/{realm.moderator.user_id}/status")
    assert (status.status, status.json) == (missing_status.status, missing_status.json)
    # Those the guest can access read as before
    for account in (realm.guest, realm.member, bot):
        assert realm.guest.get(f"/users/{account.user_id}").json["user"]["full_name"] == \
            account.full_name
        assert realm.guest.get(f"/users/{account.user_id}/status").ok
    assert realm.member.get(f"/users/{realm.moderator.user_id}").ok
    assert realm.member.get(f"/users/{realm.moderator.user_id}/status").ok


def test_a_limited_guest_registers_with_placeholders_or_without_them(limited,
                                                                     register_queue):
    realm = limited
    for account, text in ((realm.member, "peer here"), (realm.moderator, "staff only")):
        assert account.post("/users/me/status", {"status_text": text}).ok
    types = ["realm_user", "user_status"]
    state = register_queue(realm.guest, fetch_event_types=types, event_types=types)
    users = by_id(state["realm_users"])
    assert users[realm.member.user_id]["full_name"] == "Max Member"
    assert is_placeholder(users[realm.moderator.user_id], realm.moderator)
    assert len(users) == 5 and state["realm_non_active_users"] == []
    # Statuses only of users the guest can access
    assert state["user_status"] == {str(realm.member.user_id): {"status_text": "peer here"}}
    # A client that declares user_list_incomplete gets no placeholders at all
    incomplete = register_queue(realm.guest, fetch_event_types=types, event_types=types,
                                client_capabilities={"user_list_incomplete": True})
    assert sorted(u["user_id"] for u in incomplete["realm_users"]) == sorted(
        [realm.guest.user_id, realm.member.user_id])
    # A member's registration is whole
    full = register_queue(realm.moderator, fetch_event_types=types, event_types=types,
                          client_capabilities={"user_list_incomplete": True})
    assert PLACEHOLDER_NAME not in {u["full_name"] for u in full["realm_users"]}
    assert set(full["user_status"]) == {str(realm.member.user_id),
                                        str(realm.moderator.user_id)}


def test_a_new_user_is_announced_to_those_who_can_access_them(limited, register_queue,
                                                              fetch_events, drain_events):
    realm = limited
    queues = {
        "guest": register_queue(realm.guest, event_types=["realm_user"])["queue_id"],
        "guest_incomplete": register_queue(realm.guest, event_types=["realm_user"],
                                           client_capabilities={"user_list_incomplete": True}
                                           )["queue_id"],
        "member": register_queue(realm.member, event_types=["realm_user"])["queue_id"],
    }
    created = realm.admin.post("/users", {"email": "newbie@example.com",
                                          "full_name": "New Person"})
    assert created.ok, created.json
    new_id = created.json["user_id"]
    bot = realm.add_user("Helper Bot", is_bot=True)
    drain_events()
    # Members get the user as they are
    assert [(e["op"], e["person"]["user_id"], e["person"]["full_name"])
            for e in fetch_events(realm.member, queues["member"])] == [
        ("add", new_id, "New Person"), ("add", bot.user_id, "Helper Bot")]
    # The guest's older client gets an "Unknown user", a user_list_incomplete one nothing
    events = fetch_events(realm.guest, queues["guest"])
    assert [(e["op"], e["person"]["user_id"], e["person"]["full_name"]) for e in events] == [
        ("add", new_id, PLACEHOLDER_NAME), ("add", bot.user_id, "Helper Bot")]
    assert "newbie@example.com" not in str(events)
    assert [e["person"]["user_id"] for e in fetch_events(
        realm.guest, queues["guest_incomplete"])] == [bot.user_id]


def test_a_limited_guest_hears_of_channel_peers_only(limited, register_queue, fetch_events,
                                                     drain_events):
    realm = limited
    queue = register_queue(realm.guest, event_types=["realm_user"])["queue_id"]
    assert realm.member.patch("/settings", {"full_name": "Peer Renamed"}).ok
    assert realm.moderator.patch("/settings", {"full_name": "Stranger Renamed"}).ok
    drain_events()
    assert [e["person"] for e in fetch_events(realm.guest, queue)] == [
        {"user_id": realm.member.user_id, "full_name": "Peer Renamed"}]


def test_by_default_a_guest_accesses_everyone(realm, register_queue, fetch_events,
                                              drain_events):
    queue = register_queue(realm.guest, event_types=["realm_user"],
                           client_capabilities={"user_list_incomplete": True})["queue_id"]
    members = by_id(realm.guest.get("/users").json["members"])
    assert len(members) == 5 and PLACEHOLDER_NAME not in {
        u["full_name"] for u in members.values()}
    assert realm.guest.get(f"/users/{realm.moderator.user_id}").json["user"]["email"] == \
        realm.moderator.email
    assert realm.moderator.post("/users/me/status", {"status_text": "around"}).ok
    assert realm.guest.get(f"/users/{realm.moderator.user_id}/status").json["status"] == {
        "status_text": "around"}
    state = register_queue(realm.guest, fetch_event_types=["realm_user", "user_status"],
                           client_capabilities={"user_list_incomplete": True})
    assert len(state["realm_users"]) == 5
    assert state["user_status"] == {str(realm.moderator.user_id): {"status_text": "around"}}
    created = realm.admin.post("/users", {"email": "newbie@example.com",
                                          "full_name": "New Person"})
    drain_events()
    assert [e["person"]["full_name"] for e in fetch_events(realm.guest, queue)] == [
        "New Person"]
    assert created.json["user_id"] in by_id(realm.guest.get("/users").json["members"])


# ---- what a limited guest may say to, and learn of, people it cannot access ------------

def direct(sender, *to, content: str = "hello"):
    return sender.post("/messages", {"type": "direct", "to": list(to), "content": content})


def test_a_limited_guest_may_not_write_to_whom_it_cannot_access(limited, register_queue,
                                                                fetch_events, drain_events):
    realm = limited
    queue = register_queue(realm.moderator)["queue_id"]
    # By id, alone or beside someone it can access: refused as the reference refuses it
    for to in ([realm.moderator.user_id], [realm.member.user_id, realm.moderator.user_id]):
        refused = direct(realm.guest, *to)
        assert (refused.status, refused.json["code"]) == (400, "BAD_REQUEST"), refused.json
        assert "Mona" not in refused.json["msg"] and "@" not in refused.json["msg"]
    # By address: the same answer as an address nobody has (the address is not confirmed)
    hidden = direct(realm.guest, realm.moderator.email)
    missing = direct(realm.guest, "nobody@nowhere.example.com")
    assert (hidden.status, hidden.json["code"]) == (missing.status, missing.json["code"])
    assert hidden.json["msg"].replace(realm.moderator.email, "X") == \
        missing.json["msg"].replace("nobody@nowhere.example.com", "X")
    # Scheduling one is refused the same way
    scheduled = realm.guest.post("/scheduled_messages", {
        "type": "direct", "to": [realm.moderator.user_id], "content": "later",
        "scheduled_delivery_timestamp": 4102444800})
    assert (scheduled.status, scheduled.json["code"]) == (400, "BAD_REQUEST")
    # Typing to them too (the typing event would name them and their address)
    typing = realm.guest.post("/typing", {"op": "start", "to": [realm.moderator.user_id]})
    assert (typing.status, typing.json["code"]) == (400, "BAD_REQUEST")
    # Nothing was written: the recipient heard nothing, the guest has no conversation
    drain_events()
    assert fetch_events(realm.moderator, queue) == []
    mine = realm.guest.get("/messages", {"anchor": "newest", "num_before": 10,
                                         "num_after": 0, "narrow": [
                                             {"operator": "is", "operand": "dm"}]})
    assert mine.json["messages"] == []
    # Its channel peer it may write to, and reads back as it is
    assert direct(realm.guest, realm.member.user_id).ok
    [sent] = realm.guest.get("/messages", {"anchor": "newest", "num_before": 1,
                                           "num_after": 0}).json["messages"]
    assert {r["full_name"] for r in sent["display_recipient"]} == {"Gus Guest", "Max Member"}


def test_a_guest_may_answer_whoever_wrote_to_it(limited, drain_events):
    realm = limited
    assert realm.guest.get(f"/users/{realm.owner.user_id}").json["msg"] == \
        "No such person in this organization."
    # WHEN the owner, whom the guest cannot access, writes to it
    assert direct(realm.owner, realm.guest.user_id, content="welcome aboard").ok
    drain_events()
    # THEN, as in the reference, the guest can access them: answer and read them
    assert direct(realm.guest, realm.owner.user_id, content="thank you").ok
    assert realm.guest.get(f"/users/{realm.owner.user_id}").json["user"]["full_name"] == \
        "Olivia Owner"
    members = by_id(realm.guest.get("/users").json["members"])
    assert members[realm.owner.user_id]["full_name"] == "Olivia Owner"
    # the others stay out of reach (left out of GET /users since level 437)
    assert realm.moderator.user_id not in members


def test_mentions_of_people_the_guest_cannot_access_do_not_resolve(limited, drain_events):
    realm = limited
    hidden, peer = realm.moderator, realm.member
    content = f"hi @**|{hidden.user_id}**, @**{hidden.full_name}** and @**{peer.full_name}**"
    preview = realm.guest.post("/messages/render", {"content": content}).json["rendered"]
    assert f'data-user-id="{hidden.user_id}"' not in preview
    assert f'data-user-id="{peer.user_id}"' in preview
    assert preview.count(hidden.full_name) == 1   # only as typed, by name, never resolved
    sent = realm.guest.post("/messages", {"type": "stream", "to": "shared", "topic": "t",
                                          "content": f"ping @**|{hidden.user_id}**"})
    assert sent.ok, sent.json
    drain_events()
    shown = realm.guest.get(f"/messages/{sent.json['id']}").json["message"]["content"]
    assert hidden.full_name not in shown and f'data-user-id="{hidden.user_id}"' not in shown
    # A member writing the same mention resolves it
    member_preview = realm.member.post("/messages/render", {"content": content}).json
    assert f'data-user-id="{hidden.user_id}"' in member_preview["rendered"]


def test_a_guest_sees_an_inaccessible_actor_as_unknown(limited, register_queue, fetch_events,
                                                       drain_events, advertise):
    advertise(483)  # reaction events with the user object (dropped at 484)
    realm = limited   # "shared" is public: the guest and the member are in it
    outsider = realm.moderator    # not subscribed, not accessible to the guest
    guest_queue = register_queue(realm.guest)["queue_id"]
    member_queue = register_queue(realm.member)["queue_id"]
    posted = realm.member.post("/messages", {"type": "stream", "to": "shared", "topic": "t",
                                             "content": "inside"}).json["id"]
    # WHEN the outsider, without subscribing, reacts and writes in the channel
    assert outsider.post(f"/messages/{posted}/reactions", {"emoji_name": "smile"}).ok
    from_outside = outsider.post("/messages", {"type": "stream", "to": "shared", "topic": "t",
                                               "content": "from outside"})
    assert from_outside.ok, from_outside.json
    drain_events()
    # THEN the guest hears of both with the outsider as "Unknown user"
    events = fetch_events(realm.guest, guest_queue)
    [reaction] = [e for e in events if e["type"] == "reaction"]
    assert reaction["user"]["full_name"] == PLACEHOLDER_NAME
    [message] = [e["message"] for e in events if e["type"] == "message"
                 and e["message"]["sender_id"] == outsider.user_id]
    assert (message["sender_full_name"], message["avatar_url"]) == (
        PLACEHOLDER_NAME, INACCESSIBLE_AVATAR_URL)
    assert outsider.email not in str(events) and outsider.full_name not in str(events)
    # ... and reads the message so too
    fetched = realm.guest.get(f"/messages/{from_outside.json['id']}").json["message"]
    assert (fetched["sender_full_name"], fetched["sender_id"]) == (PLACEHOLDER_NAME,
                                                                  outsider.user_id)
    assert outsider.email not in str(fetched)
    # A member hears and reads the outsider as they are
    member_events = fetch_events(realm.member, member_queue)
    assert outsider.full_name in str(member_events)
    assert realm.member.get(f"/messages/{from_outside.json['id']}").json["message"][
        "sender_full_name"] == outsider.full_name


def test_a_typer_outside_the_channel_is_unknown_to_the_guest(limited, register_queue,
                                                             fetch_events, drain_events):
    realm = limited   # "shared" is public: the guest and the member are in it
    outsider = realm.moderator    # not subscribed, not accessible to the guest
    caps = {"stream_typing_notifications": True}
    guest_queue = register_queue(realm.guest, event_types=["typing"],
                                 client_capabilities=caps)["queue_id"]
    member_queue = register_queue(realm.member, event_types=["typing"],
                                  client_capabilities=caps)["queue_id"]
    stream_id = realm.member.get("/get_stream_id", {"stream": "shared"}).json["stream_id"]
    # WHEN the outsider types in the channel without subscribing, and the peer does too
    for typist in (outsider, realm.member):
        assert typist.post("/typing", {"type": "channel", "op": "start", "stream_id": stream_id,
                                       "topic": "t"}).ok
    drain_events()
    # THEN the guest hears the outsider as their id and stand-in address only
    events = fetch_events(realm.guest, guest_queue)
    assert [e["sender"]["user_id"] for e in events] == [outsider.user_id, realm.member.user_id]
    from chalicelib import config

    host = f"{outsider.email.split('@')[1].split('.')[0]}.{config.root_domain()}"
    assert events[0]["sender"]["email"] == f"user{outsider.user_id}@{host}"
    assert events[1]["sender"]["email"] == realm.member.email
    assert outsider.email not in str(events)
    # A member hears the outsider as they are
    member_events = fetch_events(realm.member, member_queue)
    assert member_events[0]["sender"] == {"user_id": outsider.user_id, "email": outsider.email}
