"""DELETE /users/{id} and POST /users/{id}/reactivate."""
from __future__ import annotations

from chalicelib.models.user_groups import UserGroup
from chalicelib.rules.realm_settings import system_group_id
from tests.functional.conftest import sent_emails
from tests.functional.user_group_helpers import create_ok, group_ids_of


def add_groups(realm, user_id: int, count: int) -> list[int]:
    """Test setup: user groups that contain the user (and the owner)."""
    return [create_ok(realm.owner, f"group {n} of {user_id}", [user_id, realm.owner.user_id])
            for n in range(count)]


def dynamodb_calls(monkeypatch) -> list[tuple[str, str | None]]:
    """Records each DynamoDB call made from now on: (operation, table)."""
    import botocore.client

    calls: list[tuple[str, str | None]] = []
    original = botocore.client.BaseClient._make_api_call

    def recording(client, operation, params):
        calls.append((operation, params.get("TableName")))
        return original(client, operation, params)
    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", recording)
    return calls


def test_deactivation_removes_access_groups_queues_and_bots(realm, register_queue,
                                                            fetch_events, drain_events,
                                                            monkeypatch):
    groups = add_groups(realm, realm.member.user_id, 3)
    add_groups(realm, realm.admin.user_id, 2)   # groups the member is not in
    bot = realm.add_user("Member Bot", is_bot=True)
    from chalicelib.models.users import User, bot_owner_key
    User(realm.realm_id, bot.user_id).update(actions=[
        User.bot_owner_id.set(realm.member.user_id),
        User.bot_owner_key.set(bot_owner_key(realm.realm_id, realm.member.user_id))])
    drain_events()   # the setup's own events are not this test's business
    member_queue = register_queue(realm.member)["queue_id"]
    watcher = register_queue(realm.admin, event_types=["realm_user", "user_group"])["queue_id"]
    # WHEN an administrator deactivates the member with a note
    calls = dynamodb_calls(monkeypatch)
    response = realm.admin.delete(f"/users/{realm.member.user_id}", {
        "deactivation_notification_comment": "Thanks for everything."})
    assert response.ok, response.json
    # THEN the groups came from the member's own item: no request named the groups' table
    # (no Query of the realm's groups); the groups were written in transactions
    assert [c for c in calls if c[1] == UserGroup.Meta.table_name] == []
    assert ("TransactWriteItems", None) in calls
    # THEN the member can no longer authenticate, nor can their bot
    refused = realm.member.get("/users/me")
    assert refused.status == 401 and refused.json["code"] == "USER_DEACTIVATED"
    assert bot.get("/users/me").json["code"] == "USER_DEACTIVATED"
    # AND their queue is gone
    assert realm.admin.get(f"/users/{realm.member.user_id}").json["user"]["is_active"] is False
    from chalicelib.models.events import EventQueue
    assert EventQueue.get_or_none(member_queue) is None
    # AND they left every group, and their reverse index is empty
    for group_id in groups:
        assert realm.member.user_id not in UserGroup.get(realm.realm_id, group_id).direct_members
    assert group_ids_of(realm, realm.member.user_id) == set()
    # AND the realm heard of it
    drain_events()
    events = fetch_events(realm.admin, watcher)
    people = [e["person"] for e in events if e["type"] == "realm_user"]
    assert {"user_id": realm.member.user_id, "is_active": False} in people
    assert {"user_id": bot.user_id, "is_active": False} in people
    removed = [(e["op"], e["group_id"], e["user_ids"]) for e in events
               if e["type"] == "user_group"]
    assert sorted(removed) == [("remove_members", g, [realm.member.user_id]) for g in groups]
    # AND the member got the email with the note
    [email] = sent_emails(realm.member.email)
    assert "Thanks for everything." in email["body"] and "deactivated" in email["subject"]


def test_a_group_joined_while_deactivating_is_left_too(realm, monkeypatch):
    """The deactivation is conditioned on the groups it read: a user added to a group
    between its read and its write makes it read the user again."""
    from chalicelib.actions.groups.members import do_update_members
    from chalicelib.actions.users import deactivation
    from chalicelib.core.principal import Principal

    first = add_groups(realm, realm.member.user_id, 1)[0]
    late = create_ok(realm.owner, "late group")
    owner = Principal(realm.realm_id, realm.owner.user_id, realm.owner.email, 100, False)
    real_read = deactivation._deactivation_target
    pending = [True]

    def read_then_added(caller, user_id, comment):
        target = real_read(caller, user_id, comment)
        if pending and pending.pop():   # the group's owner adds the member right now
            do_update_members(owner, late, [user_id], [], [], [])
        return target
    monkeypatch.setattr(deactivation, "_deactivation_target", read_then_added)
    assert realm.admin.delete(f"/users/{realm.member.user_id}").ok
    for group_id in (first, late):
        assert realm.member.user_id not in (
            UserGroup.get(realm.realm_id, group_id).direct_members or ())
    assert group_ids_of(realm, realm.member.user_id) == set()


def test_reactivation(realm, register_queue, fetch_events, drain_events):
    assert realm.admin.delete(f"/users/{realm.member.user_id}").ok
    assert sent_emails(realm.member.email) == []   # no comment: no email
    queue_id = register_queue(realm.admin, event_types=["realm_user"])["queue_id"]
    assert realm.admin.post(f"/users/{realm.member.user_id}/reactivate").ok
    assert realm.member.get("/users/me").ok
    drain_events()
    assert {"user_id": realm.member.user_id, "is_active": True} in [
        e["person"] for e in fetch_events(realm.admin, queue_id)]
    again = realm.admin.post(f"/users/{realm.member.user_id}/reactivate")
    assert again.status == 400 and again.json["msg"] == "User is already active"


def test_rules(realm):
    assert realm.member.delete(f"/users/{realm.guest.user_id}").json["msg"] == \
        "You are not allowed to do this."
    assert realm.admin.delete(f"/users/{realm.owner.user_id}").json["msg"] == \
        "Only the organization's owners can do this."
    only = realm.owner.delete(f"/users/{realm.owner.user_id}")
    assert only.status == 400 and only.json["msg"] == \
        "The organization's only owner cannot be deactivated"
    assert realm.owner.get("/users/me").ok
    assert realm.admin.delete("/users/99999").json["msg"] == "No such person in this organization."
    too_long = realm.admin.delete(f"/users/{realm.guest.user_id}", {
        "deactivation_notification_comment": "x" * 2001})
    assert too_long.status == 400 and "over the limit" in too_long.json["msg"]
    assert realm.guest.get("/users/me").ok
    # a second owner can be deactivated by an owner
    second = realm.add_user("Second Owner", role=100)
    assert realm.owner.delete(f"/users/{second.user_id}").ok
    assert realm.owner.delete(f"/users/{second.user_id}").json["msg"] == \
        "User is already deactivated"


def test_guests_do_not_hear_when_access_is_limited(realm, register_queue, fetch_events,
                                                   drain_events):
    assert realm.owner.patch("/realm", {"can_access_all_users_group": {
        "new": system_group_id("role:members")}}).ok
    guest_queue = register_queue(realm.guest, event_types=["realm_user"])["queue_id"]
    member_queue = register_queue(realm.member, event_types=["realm_user"])["queue_id"]
    assert realm.admin.delete(f"/users/{realm.moderator.user_id}").ok
    drain_events()
    assert fetch_events(realm.guest, guest_queue) == []
    assert len(fetch_events(realm.member, member_queue)) == 1


def test_an_owner_may_leave_while_another_owner_stays(realm):
    second = realm.add_user("Second Owner", role=100)
    assert second.delete(f"/users/{second.user_id}").ok   # themselves: the first stays
    assert realm.owner.delete(f"/users/{realm.owner.user_id}").json["msg"] == \
        "The organization's only owner cannot be deactivated"
    assert realm.owner.post(f"/users/{second.user_id}/reactivate").ok
    assert realm.owner.delete(f"/users/{realm.owner.user_id}").ok
    assert second.delete(f"/users/{second.user_id}").json["msg"] == \
        "The organization's only owner cannot be deactivated"


def test_two_owners_deactivating_each_other_leave_one(realm, monkeypatch):
    """The other owner counted on is checked in the transaction: if they went meanwhile,
    the deactivation looks again, finds nobody, and is refused."""
    from chalicelib.actions.users import deactivation
    from chalicelib.models.users import User

    second = realm.add_user("Second Owner", role=100)
    real_lookup = deactivation._other_active_owner

    def lookup_then_the_other_goes(realm_id, user_id):
        found = real_lookup(realm_id, user_id)
        if found is not None:   # the other owner deactivates the first meanwhile
            User(realm_id, found).update(actions=[User.is_active.set(False)])
        return found

    monkeypatch.setattr(deactivation, "_other_active_owner", lookup_then_the_other_goes)
    response = second.delete(f"/users/{second.user_id}")
    assert response.status == 400 and response.json["msg"] == \
        "The organization's only owner cannot be deactivated"
    assert User.get(realm.realm_id, second.user_id).is_active is True
    assert second.get("/users/me").ok


def test_deactivating_a_bot_or_a_deactivated_user(realm):
    bot = realm.add_user("Some Bot", is_bot=True)
    assert realm.admin.delete(f"/users/{bot.user_id}").json["msg"] == "No such person in this organization."
    assert bot.get("/users/me").ok


def test_an_empty_comment_still_sends_the_notice(realm):
    assert realm.admin.delete(f"/users/{realm.member.user_id}", {
        "deactivation_notification_comment": ""}).ok
    [email] = sent_emails(realm.member.email)
    assert "deactivated" in email["body"] and "message from the administrator" not in \
        email["body"]


def test_deactivating_again_finishes_what_a_failed_request_left(realm, register_queue,
                                                                monkeypatch):
    """The flag commits first; if the request dies before the groups, bots and queues are
    done, the user cannot be deactivated "again" to finish them unless that path does."""
    from chalicelib.actions.users import deactivation
    from chalicelib.models.events import EventQueue
    from chalicelib.models.users import User

    groups = add_groups(realm, realm.member.user_id, 2)
    bot = realm.member.post("/bots", {"full_name": "Helper Bot", "short_name": "helper"})
    assert bot.ok, bot.json
    queue_id = register_queue(realm.member)["queue_id"]
    real_leave = deactivation._leave_groups
    crashes = [RuntimeError("the Lambda timed out")]

    def leave_or_crash(user):
        if crashes:
            raise crashes.pop()
        real_leave(user)
    monkeypatch.setattr(deactivation, "_leave_groups", leave_or_crash)
    # GIVEN a deactivation that died right after the flag was written
    assert realm.admin.delete(f"/users/{realm.member.user_id}").status == 500
    assert User.get(realm.realm_id, realm.member.user_id).is_active is False
    assert group_ids_of(realm, realm.member.user_id) == set(groups)
    # WHEN the administrator tries again
    again = realm.admin.delete(f"/users/{realm.member.user_id}")
    # THEN it says the user is deactivated, and everything that follows is done
    assert again.status == 400 and again.json["msg"] == "User is already deactivated"
    for group_id in groups:
        assert realm.member.user_id not in (
            UserGroup.get(realm.realm_id, group_id).direct_members or ())
    assert group_ids_of(realm, realm.member.user_id) == set()
    assert User.get(realm.realm_id, bot.json["user_id"]).is_active is False
    assert EventQueue.get_or_none(queue_id) is None


def test_deactivation_tells_the_peers_of_every_channel(realm, register_queue, fetch_events,
                                                      drain_events):
    from tests.functional.edit_helpers import channel
    public = channel(realm.owner, "open", [realm.owner, realm.member])
    private = channel(realm.owner, "closed", [realm.owner, realm.member], invite_only=True)
    archived = channel(realm.owner, "old", [realm.owner, realm.member])
    assert realm.owner.delete(f"/streams/{archived}").ok
    drain_events()
    owner_queue = register_queue(realm.owner, event_types=["subscription"])["queue_id"]
    moderator_queue = register_queue(realm.moderator, event_types=["subscription"])["queue_id"]
    # WHEN the member is deactivated
    assert realm.admin.delete(f"/users/{realm.member.user_id}").ok
    drain_events()

    def peers(account, queue_id, op):
        return sorted((tuple(e["stream_ids"]), tuple(e["user_ids"]))
                      for e in fetch_events(account, queue_id) if e.get("op") == op)

    # THEN its channels' peers hear of it, archived channels included (levels 377, 428):
    # the public ones in one event to the organization, the private one to its subscribers
    member = (realm.member.user_id,)
    assert peers(realm.owner, owner_queue, "peer_remove") == sorted([
        ((private,), member), (tuple(sorted([public, archived])), member)])
    assert peers(realm.moderator, moderator_queue, "peer_remove") == [
        (tuple(sorted([public, archived])), member)]
    # AND reactivation tells them the other way
    assert realm.admin.post(f"/users/{realm.member.user_id}/reactivate").ok
    drain_events()
    assert len(peers(realm.owner, owner_queue, "peer_add")) == 2
