"""Accepting invitations through their emailed links: the new account's role, channels,
groups, welcome message and referrer notice; reusable links; refused and reused links."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from chalicelib.actions.workflows.realms import do_deactivate_realm
from chalicelib.models.invitations import Invitation
from chalicelib.models.realms import Realm
from tests.functional.conftest import Account, sent_emails
from tests.functional.edit_helpers import channel
from tests.functional.invite_helpers import (
    emailed_key,
    error,
    invite,
    listed,
    public,
    register,
)
from tests.functional.user_group_helpers import create_ok, group_ids_of

PASSWORD = "correct horse battery"


def addr(realm, name: str) -> str:
    return f"{name}@{realm.subdomain}.example.net"


def as_account(realm, response, full_name: str = "Nina Newcomer") -> Account:
    assert response.ok, response.json
    body = response.json
    return Account(realm.client, realm.realm_id, body["user_id"], body["email"],
                   body["api_key"], full_name, 0)


def direct_messages(account: Account) -> list[dict[str, Any]]:
    response = account.get("/messages", {"anchor": "newest", "num_before": 20,
                                         "num_after": 0, "apply_markdown": False,
                                         "narrow": [{"operator": "is", "operand": "dm"}]})
    assert response.ok, response.json
    return response.json["messages"]


def test_accepting_an_invitation_creates_the_invited_account(realm, register_queue,
                                                             fetch_events, drain_events):
    # GIVEN channels (one private, one a realm default) and a group
    lobby = channel(realm.admin, "lobby")
    secret = channel(realm.admin, "secret", invite_only=True)
    default = channel(realm.admin, "welcome")
    assert realm.admin.patch(f"/streams/{default}", {"is_default_stream": True}).ok
    channel(realm.admin, "elsewhere")
    group_id = realm.admin.post("/user_groups/create", {
        "name": "Crew", "description": "", "members": [realm.admin.user_id]}).json["group_id"]
    target = addr(realm, "nina")
    assert invite(realm.admin, target, [lobby, secret], invite_as=300, group_ids=[group_id],
                  include_realm_default_subscriptions=True).ok
    drain_events()
    types = ["realm_user", "invites_changed", "user_group"]
    queues = {name: register_queue(getattr(realm, name), event_types=types)["queue_id"]
              for name in ("admin", "member")}
    # WHEN the invitee opens the emailed link and creates the account
    key = emailed_key(target)
    shown = public(realm, "GET", f"/accounts/do_confirm/{key}")
    assert shown.ok, shown.json
    assert (shown.json["email"], shown.json["invited_as"]) == (target, 300)
    assert shown.json["register_url"] == \
        f"https://{realm.subdomain}.localhost/accounts/register"
    nina = as_account(realm, register(realm, key))
    # THEN the API key in the response works, with the invited role
    me = nina.get("/users/me").json
    assert (me["email"], me["full_name"], me["role"]) == (target, "Nina Newcomer", 300)
    # AND the new user is subscribed to the invited and default channels only
    subscribed = {s["name"] for s in nina.get("/users/me/subscriptions").json["subscriptions"]}
    assert subscribed == {"lobby", "secret", "welcome"}
    # AND is in the invited group
    groups = {g["id"]: g for g in nina.get("/user_groups").json["user_groups"]}
    assert nina.user_id in groups[group_id]["members"]
    assert group_ids_of(realm, nina.user_id) == {group_id}
    # AND the welcome bot greeted them, and the notification bot told the inviter
    [welcome] = direct_messages(nina)
    assert welcome["sender_full_name"] == "Welcome Bot"
    assert "welcome to **Test org" in welcome["content"]
    notices = [m for m in direct_messages(realm.admin)
               if m["sender_full_name"] == "Notification Bot"]
    assert [m["content"] for m in notices] == [
        (f"@_**Nina Newcomer|{nina.user_id}** accepted your invitation to join "
         f"{shown.json['realm_name']}!")]
    # AND the realm heard of the new user; admins that the invitation was used
    drain_events()
    admin_events = fetch_events(realm.admin, queues["admin"])
    added = [e for e in admin_events if e["type"] == "realm_user" and e["op"] == "add"]
    assert nina.user_id in [e["person"]["user_id"] for e in added]
    assert "invites_changed" in [e["type"] for e in admin_events]
    member_events = fetch_events(realm.member, queues["member"])
    assert nina.user_id in [e["person"]["user_id"] for e in member_events
                            if e["type"] == "realm_user" and e["op"] == "add"]
    assert "invites_changed" not in [e["type"] for e in member_events]
    assert any(e["type"] == "user_group" and e["op"] == "add_members"
               and e["user_ids"] == [nina.user_id] for e in member_events)
    # AND the invitation is used up
    assert listed(realm.admin) == []
    assert error(register(realm, key, full_name="Someone Else")) == \
        "This invitation was already used; log in instead."


def test_welcome_message_text_and_referrer_notice_follow_the_invitation(realm, advertise):
    advertise(416)
    # The organization's custom message, for invitations that name none (level 416)
    assert realm.admin.patch("/realm", {"welcome_message_custom_text": "Read *the guide*."}).ok
    cases = {  # address: (inviter, parameters, custom message after the greeting)
        "custom": (realm.admin, {"welcome_message_custom_text": "Hi **there**!"},
                   "Hi **there**!"),
        "silent": (realm.admin, {"welcome_message_custom_text": "",
                                 "notify_referrer_on_join": False}, None),
        "member": (realm.member, {"welcome_message_custom_text": None}, "Read *the guide*."),
    }
    for name, (inviter, params, expected) in cases.items():
        assert invite(inviter, addr(realm, name), **params).ok
        account = as_account(realm, register(realm, emailed_key(addr(realm, name)),
                                             full_name=name.title()))
        welcome = [m["content"] for m in direct_messages(account)]
        # The greeting always; then the custom message, unless the invitation said ""
        assert "welcome to" in welcome[0], name
        assert welcome[1:] == ([] if expected is None else [expected]), name
    notices = [m["content"] for m in direct_messages(realm.admin)
               if m["sender_full_name"] == "Notification Bot"]
    assert len(notices) == 1 and notices[0].startswith("@_**Custom|")
    assert direct_messages(realm.member)[0]["content"].startswith("@_**Member|")


def test_expired_revoked_and_unknown_links_are_refused(realm):
    for name in ("late", "revoked", "fine"):
        assert invite(realm.admin, addr(realm, name), invite_expires_in_minutes=60).ok
    ids = {i["email"].split("@")[0]: i["id"] for i in listed(realm.admin)}
    # GIVEN one invitation past its expiry (time travel) and one revoked
    Invitation(realm.realm_id, ids["late"]).update(actions=[Invitation.expires_at.set(
        datetime.now(UTC) - timedelta(minutes=1))])
    assert realm.admin.delete(f"/invites/{ids['revoked']}").ok
    # THEN their links are refused with a clear error, and no account is created
    assert error(register(realm, emailed_key(addr(realm, "late")))) == \
        "This invitation has expired; ask for a new one."
    late_link = f"/accounts/do_confirm/{emailed_key(addr(realm, 'late'))}"
    assert error(public(realm, "GET", late_link)) == \
        "This invitation has expired; ask for a new one."
    assert error(register(realm, emailed_key(addr(realm, "revoked")))) == \
        "This invitation was revoked."
    assert error(register(realm, "NoSuchKey123")) == \
        "This invitation link is invalid or has expired."
    emails = {u["email"] for u in realm.admin.get("/users").json["members"]}
    assert addr(realm, "late") not in emails and addr(realm, "revoked") not in emails
    # AND bad input leaves the invitation usable
    key = emailed_key(addr(realm, "fine"))
    assert "password must be" in error(register(realm, key, password="short"))
    assert error(register(realm, key, full_name="  ")) == "Name cannot be empty."
    missing = public(realm, "POST", "/accounts/register", {"key": key, "full_name": "X"})
    assert error(missing, "REQUEST_VARIABLE_MISSING") == "The 'password' parameter is required"
    assert register(realm, key).ok
    # AND nobody joins a deactivated organization
    assert invite(realm.admin, addr(realm, "after")).ok
    do_deactivate_realm(Realm.get(realm.realm_id))
    assert error(register(realm, emailed_key(addr(realm, "after")))) == \
        "This organization is deactivated."


def test_email_taken_after_the_invitation_is_refused(realm):
    target = addr(realm, "taken")
    assert invite(realm.admin, target).ok
    assert realm.admin.post("/users", {"email": target, "full_name": "Early Bird",
                                       "password": PASSWORD}).ok
    assert error(register(realm, emailed_key(target))) == f"The email '{target}' belongs to another account"


def test_reusable_link_confirms_each_address_before_creating_its_account(realm):
    lobby = channel(realm.admin, "lobby")
    link = realm.admin.post("/invites/multiuse", {"stream_ids": [lobby], "invite_as": 600,
                                                  "welcome_message_custom_text": "Hey!"})
    path = link.json["invite_link"].split("localhost", 1)[1]
    key = path.rsplit("/", 1)[1]
    assert public(realm, "GET", path).json["invited_as"] == 600
    # The link itself does not create accounts
    assert "reusable invitation link" in error(register(realm, key))
    # WHEN two people give their addresses to the link
    for name in ("first", "second"):
        response = public(realm, "POST", path, {"email": addr(realm, name)})
        assert response.ok and response.json["email"] == addr(realm, name), response.json
    # THEN each gets a confirmation link that creates their guest account once
    first = as_account(realm, register(realm, emailed_key(addr(realm, "first")),
                                       full_name="First Guest"))
    me = first.get("/users/me").json
    assert (me["email"], me["role"]) == (addr(realm, "first"), 600)
    assert [s["name"] for s in first.get("/users/me/subscriptions").json["subscriptions"]] \
        == ["lobby"]
    assert [m["content"] for m in direct_messages(first)][1:] == ["Hey!"]   # after the greeting
    assert "already used" in error(register(realm, emailed_key(addr(realm, "first"))))
    # AND these confirmations are not listed as invitations; the link is
    assert [i["is_multiuse"] for i in listed(realm.admin)] == [True]
    # AND an address with an account is refused
    taken = public(realm, "POST", path, {"email": realm.member.email})
    assert "already has an account" in error(taken)
    assert error(public(realm, "POST", path, {"email": "nope"})) == \
        "Invalid email address 'nope'."
    # AND once the link is revoked, neither it nor its pending confirmations work
    [link_id] = [i["id"] for i in listed(realm.admin)]
    assert realm.admin.delete(f"/invites/multiuse/{link_id}").ok
    assert error(public(realm, "POST", path, {"email": addr(realm, "third")})) == \
        "This invitation was revoked."
    assert error(register(realm, emailed_key(addr(realm, "second")))) == \
        "The invitation link you used was revoked."
    assert sent_emails(addr(realm, "third")) == []


def crash_once(monkeypatch, step: str, after_calls: int = 0) -> None:
    """Makes the signup's function `step` die (as a Lambda timing out would) on its call
    number after_calls + 1, once."""
    from chalicelib.actions.invitations import signup

    real, calls = getattr(signup, step), []

    def dying(*args):
        calls.append(step)
        if len(calls) == after_calls + 1:
            raise RuntimeError("the function timed out")
        return real(*args)
    monkeypatch.setattr(signup, step, dying)


def test_a_signup_cut_short_resumes_when_the_request_is_retried(
        realm, monkeypatch, register_queue, fetch_events, drain_events):
    # GIVEN invitations to two channels and two groups, with a welcome and a referrer notice
    channels = [channel(realm.admin, "lobby"), channel(realm.admin, "secret", invite_only=True)]
    groups = [create_ok(realm.admin, name, [realm.admin.user_id]) for name in ("Crew", "Band")]
    drain_events()
    queue = register_queue(realm.admin, event_types=["user_group", "subscription"])["queue_id"]
    # WHEN one signup dies between its two groups, another after its welcome message
    for name, step, after_calls in (("first", "join_group", 1),
                                    ("second", "notify_referrer", 0)):
        assert invite(realm.admin, addr(realm, name), channels, group_ids=groups).ok
        key = emailed_key(addr(realm, name))
        with monkeypatch.context() as patch:
            crash_once(patch, step, after_calls)
            assert register(realm, key, full_name=name.title()).status == 500
        # THEN a retry with another password is refused as for a used invitation
        assert error(register(realm, key, password="not the password")) == \
            "This invitation was already used; log in instead."
        # AND the same request again answers like a first success, with a working key
        account = as_account(realm, register(realm, key, full_name=name.title()))
        assert account.get("/users/me").json["email"] == addr(realm, name)
        # AND once the onboarding is complete the invitation is used up
        assert error(register(realm, key)) == "This invitation was already used; log in instead."
        # AND every channel, group and message came exactly once
        subscribed = account.get("/users/me/subscriptions").json["subscriptions"]
        assert sorted(s["stream_id"] for s in subscribed) == sorted(channels)
        assert group_ids_of(realm, account.user_id) == set(groups)
        assert [m["sender_full_name"] for m in direct_messages(account)] == ["Welcome Bot"]
        notices = [m["content"] for m in direct_messages(realm.admin)
                   if f"|{account.user_id}**" in m["content"]]
        assert len(notices) == 1
        drain_events()
        events = fetch_events(realm.admin, queue)
        joined = [e["group_id"] for e in events if e["type"] == "user_group"
                  and e["op"] == "add_members" and e["user_ids"] == [account.user_id]]
        peers = [i for e in events if e["type"] == "subscription" and e["op"] == "peer_add"
                 and account.user_id in e["user_ids"] for i in e["stream_ids"]]
        assert (sorted(joined), sorted(peers)) == (sorted(groups), sorted(channels))


def test_a_reusable_link_causes_a_bounded_number_of_emails_a_day(realm, monkeypatch):
    # GIVEN a link anyone holding it can give addresses to, with a daily cap of two
    monkeypatch.setenv("JOIN_LINK_DAILY_LIMIT", "2")
    link = realm.admin.post("/invites/multiuse", {"stream_ids": []})
    path = link.json["invite_link"].split("localhost", 1)[1]
    # WHEN three addresses are given the same day
    responses = [public(realm, "POST", path, {"email": addr(realm, f"spam{n}")})
                 for n in range(3)]
    # THEN the third is refused and emails no one
    assert [r.ok for r in responses] == [True, True, False]
    assert "used too many times today" in error(responses[2])
    assert sent_emails(addr(realm, "spam2")) == []
    # AND the cap is the link's own: another link still works
    other = realm.admin.post("/invites/multiuse", {"stream_ids": []})
    other_path = other.json["invite_link"].split("localhost", 1)[1]
    assert public(realm, "POST", other_path, {"email": addr(realm, "spam3")}).ok
