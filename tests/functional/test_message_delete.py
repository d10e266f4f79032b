"""DELETE /messages/{id}: permissions, time limit, events in both forms, and what follows."""
from __future__ import annotations

from chalicelib.actions.messages.delete import check_delete_message
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.channels import Stream
from chalicelib.models.messages import Message
from chalicelib.models.uploads import Attachment
from chalicelib.rules.realm_settings import system_group_id
from tests.functional.conftest import Account
from tests.functional.edit_helpers import channel, make_old, send
from tests.functional.race import race
from tests.functional.test_uploads import upload

NO_PERMISSION = "You are not allowed to delete this message"


def topics(account, stream_id):
    response = account.get(f"/users/me/{stream_id}/topics", {"allow_empty_topic_name": True})
    assert response.ok, response.json
    return {t["name"]: t["max_id"] for t in response.json["topics"]}


def delete_events(account, queue_id, fetch_events):
    return [{k: v for k, v in e.items() if k != "id"}
            for e in fetch_events(account, queue_id) if e["type"] == "delete_message"]


def test_sender_deletes_own_message_and_readers_hear_in_both_forms(
        realm, register_queue, fetch_events, drain_events):
    # GIVEN two messages in a topic, and queues with and without bulk_message_deletion
    stream_id = channel(realm.owner, "general", [realm.owner, realm.member])
    first = send(realm.member, "general", "lunch", "first")
    second = send(realm.member, "general", "lunch", "second")
    drain_events()
    bulk = register_queue(realm.owner, event_types=["delete_message"],
                          client_capabilities={"bulk_message_deletion": True})["queue_id"]
    legacy = register_queue(realm.owner, event_types=["delete_message"])["queue_id"]
    outsider = register_queue(realm.guest, event_types=["delete_message"])["queue_id"]
    # WHEN the sender deletes the newest one
    response = realm.member.delete(f"/messages/{second}")
    assert response.ok, response.json
    drain_events()
    # THEN it is gone and the topic's latest message is the one before
    assert realm.owner.get(f"/messages/{second}").json["msg"] == "Message not found, or you cannot see it."
    assert topics(realm.owner, stream_id) == {"lunch": first}
    # AND readers hear of it in the form their client asked for; others not at all
    where = {"message_type": "stream", "stream_id": stream_id, "topic": "lunch"}
    assert delete_events(realm.owner, bulk, fetch_events) == [
        {"type": "delete_message", "message_ids": [second], **where}]
    assert delete_events(realm.owner, legacy, fetch_events) == [
        {"type": "delete_message", "message_id": second, **where}]
    assert delete_events(realm.guest, outsider, fetch_events) == []
    # WHEN the topic's last message goes too, THEN the topic leaves the list
    assert realm.member.delete(f"/messages/{first}").ok
    assert topics(realm.owner, stream_id) == {}


def test_who_may_delete(realm):
    channel(realm.owner, "general", [realm.owner, realm.member, realm.moderator])
    mine = send(realm.member, "general", "t")
    theirs = send(realm.owner, "general", "t")
    # Members delete only their own messages; administrators any
    assert realm.member.delete(f"/messages/{theirs}").json["msg"] == NO_PERMISSION
    assert realm.moderator.delete(f"/messages/{mine}").json["msg"] == NO_PERMISSION
    assert realm.admin.delete(f"/messages/{theirs}").ok
    # Within the time limit only: after it, the sender may not, an administrator may
    make_old(realm.realm_id, [mine], 601)
    late = realm.member.delete(f"/messages/{mine}")
    assert late.json["msg"] == "This message is too old for you to delete"
    assert realm.owner.patch("/realm", {"message_content_delete_limit_seconds": "unlimited"}).ok
    assert realm.member.delete(f"/messages/{mine}").ok


def test_organization_and_channel_group_settings_decide(realm):
    stream_id = channel(realm.owner, "general", [realm.owner, realm.member, realm.moderator])
    own = send(realm.member, "general", "t")
    other = send(realm.owner, "general", "t")
    # WHEN the organization lets only administrators delete their own messages
    admins = system_group_id("role:administrators")
    assert realm.owner.patch("/realm", {"can_delete_own_message_group": {"new": admins}}).ok
    assert realm.member.delete(f"/messages/{own}").json["msg"] == NO_PERMISSION
    # AND moderators may delete any message
    moderators = system_group_id("role:moderators")
    assert realm.owner.patch("/realm", {"can_delete_any_message_group": {"new": moderators}}).ok
    assert realm.moderator.delete(f"/messages/{other}").ok
    # WHEN the channel lets the member delete own messages, THEN the member may again
    assert realm.owner.patch(f"/streams/{stream_id}", {"can_delete_own_message_group": {
        "new": {"direct_members": [realm.member.user_id], "direct_subgroups": []}}}).ok
    assert realm.member.delete(f"/messages/{own}").ok


def test_owner_of_a_bot_deletes_its_messages(realm):
    created = realm.member.post("/bots", {"full_name": "Helper", "short_name": "helper",
                                          "bot_type": 1})
    assert created.ok, created.json
    bot = Account(realm.client, realm.realm_id, created.json["user_id"],
                  realm.member.get("/bots").json["bots"][0]["email"], created.json["api_key"],
                  "Helper", 400)
    channel(realm.owner, "general", [realm.owner, realm.member, bot])
    by_bot = send(bot, "general", "t")
    assert realm.moderator.delete(f"/messages/{by_bot}").json["msg"] == NO_PERMISSION
    assert realm.member.delete(f"/messages/{by_bot}").ok


def test_direct_message_deletion_reaches_its_participants(realm, register_queue, fetch_events,
                                                          drain_events):
    dm = realm.member.post("/messages", {"type": "direct", "to": [realm.admin.user_id],
                                         "content": "oops"}).json["id"]
    drain_events()
    caps = {"bulk_message_deletion": True}
    queues = {a.user_id: register_queue(a, event_types=["delete_message"],
                                        client_capabilities=caps)["queue_id"]
              for a in (realm.member, realm.admin, realm.owner)}
    assert realm.member.delete(f"/messages/{dm}").ok
    drain_events()
    expected = [{"type": "delete_message", "message_ids": [dm], "message_type": "private"}]
    assert delete_events(realm.admin, queues[realm.admin.user_id], fetch_events) == expected
    assert delete_events(realm.member, queues[realm.member.user_id], fetch_events) == expected
    assert delete_events(realm.owner, queues[realm.owner.user_id], fetch_events) == []


def test_messages_the_caller_cannot_read_or_change_are_invalid(realm):
    channel(realm.owner, "secret", [realm.owner], invite_only=True)
    secret = send(realm.owner, "secret", "t")
    dm = realm.owner.post("/messages", {"type": "direct", "to": [realm.admin.user_id],
                                        "content": "x"}).json["id"]
    for account, message_id in ((realm.member, secret), (realm.member, dm),
                                (realm.owner, 999999)):
        response = account.delete(f"/messages/{message_id}")
        assert (response.status, response.json["msg"]) == (400, "Message not found, or you cannot see it.")
    # An archived channel's messages stay as they are
    stream_id = channel(realm.owner, "old", [realm.owner])
    archived = send(realm.owner, "old", "t")
    assert realm.owner.delete(f"/streams/{stream_id}").ok
    assert realm.owner.delete(f"/messages/{archived}").json["msg"] == \
        "Message not found, or you cannot see it."
    assert realm.owner.get(f"/messages/{archived}").ok


def test_deleted_message_no_longer_shares_its_uploads(realm):
    channel(realm.owner, "general", [realm.owner, realm.member])
    path = upload(realm.member)["uri"]
    path_id = path.removeprefix("/user_uploads/")
    message_id = send(realm.member, "general", "t", f"see [notes]({path})")
    assert Attachment.get(realm.realm_id, path_id).message_ids == {message_id}
    assert realm.owner.call("GET", path).status == 200   # a reader of the message
    # WHEN the message is deleted
    assert realm.member.delete(f"/messages/{message_id}").ok
    # THEN the upload is detached: linked by nothing, readable by its owner alone
    assert not Attachment.get(realm.realm_id, path_id).message_ids
    assert realm.owner.call("GET", path).status == 404
    assert realm.member.call("GET", path).status == 200


def test_deleting_the_first_message_moves_first_message_id(realm, register_queue,
                                                          fetch_events, drain_events):
    stream_id = channel(realm.owner, "general", [realm.owner, realm.member])
    first = send(realm.owner, "general", "a")
    second = send(realm.owner, "general", "b")
    drain_events()
    queue_id = register_queue(realm.member, event_types=["stream"])["queue_id"]
    assert Stream.get(realm.realm_id, stream_id).first_message_id == first
    assert realm.owner.delete(f"/messages/{first}").ok
    drain_events()
    assert realm.member.get(f"/streams/{stream_id}").json["stream"][
        "first_message_id"] == second
    events = [e for e in fetch_events(realm.member, queue_id) if e["type"] == "stream"]
    assert [(e["op"], e["property"], e["value"], e["stream_id"]) for e in events] == [
        ("update", "first_message_id", second, stream_id)]
    assert realm.owner.delete(f"/messages/{second}").ok
    assert realm.member.get(f"/streams/{stream_id}").json["stream"][
        "first_message_id"] is None


def test_concurrent_deletions_delete_once(realm, drain_events):
    channel(realm.owner, "general", [realm.owner])
    message_id = send(realm.owner, "general", "t")
    drain_events()
    caller = Principal(realm.realm_id, realm.owner.user_id, realm.owner.email, 100, False)
    results = race(4, lambda: check_delete_message(caller, message_id))
    results = [r.msg if isinstance(r, ApiError) else r for r in results]
    assert sorted(map(str, results)) == ["Message not found, or you cannot see it."] * 3 + ["{}"]
    assert Message.get_or_none(realm.realm_id, message_id) is None
    records = drain_events.read()
    assert sum(1 for r in records if "delete_message" in str(r)) == 1
