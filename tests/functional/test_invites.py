"""POST /invites (§4.8), POST /invites/multiuse (§4.11), GET /invites, revoking and
resending: every rule and error, the emails (moto's SES) and the invites_changed events."""
from __future__ import annotations

import time

from chalicelib.rules.realm_settings import system_group_id
from tests.functional.conftest import sent_emails
from tests.functional.edit_helpers import channel
from tests.functional.invite_helpers import emailed_key, error, invite, listed, public

ADMINS = system_group_id("role:administrators")
MEMBERS = system_group_id("role:members")


def addr(realm, name: str) -> str:
    return f"{name}@{realm.subdomain}.example.org"


def set_realm_group(realm, setting: str, group_id: int) -> None:
    response = realm.owner.patch("/realm", {setting: {"new": group_id}})
    assert response.ok, response.json


# ---- sending ----------------------------------------------------------------------------

def test_invitations_are_emailed_listed_and_announced(realm, register_queue, fetch_events,
                                                      drain_events):
    # GIVEN queues of an admin, the inviting member and another member
    queues = {name: register_queue(getattr(realm, name), event_types=["invites_changed"])[
        "queue_id"] for name in ("admin", "member", "moderator")}
    a, b, c = addr(realm, "ann"), addr(realm, "bob"), addr(realm, "cy")
    # WHEN a member invites three addresses, split on commas and newlines, one with a name
    before = int(time.time())
    response = invite(realm.member, f" {a} ,\n Bob Builder <{b}>\n\n{c}, {a.upper()}")
    assert response.ok, response.json
    # THEN each address gets one email with its own accept link
    keys = {emailed_key(x) for x in (a, b, c)}
    assert len(keys) == 3 and all(len(sent_emails(x)) == 1 for x in (a, b, c))
    [email] = sent_emails(b)
    assert email["subject"].startswith("Max Member invited you to join Test org ")
    assert f"https://{realm.subdomain}.localhost/accounts/do_confirm/" in email["body"]
    # AND the invitations are listed in the reference's shape, expiring after 10 days
    invites = sorted(listed(realm.member), key=lambda i: i["email"])
    assert [i["email"] for i in invites] == sorted([a, b, c])
    first = invites[0]
    assert set(first) == {"id", "invited_by_user_id", "invited", "expiry_date", "invited_as",
                          "notify_referrer_on_join", "is_multiuse", "email"}
    assert (first["invited_by_user_id"], first["invited_as"], first["is_multiuse"],
            first["notify_referrer_on_join"]) == (realm.member.user_id, 400, False, True)
    assert before <= first["invited"] <= before + 5
    assert first["expiry_date"] - first["invited"] in range(14400 * 60 - 2, 14400 * 60 + 2)
    # AND administrators and the inviter are told to refetch; other members are not
    drain_events()
    for name, expected in (("admin", True), ("member", True), ("moderator", False)):
        events = fetch_events(getattr(realm, name), queues[name])
        assert ({"type": "invites_changed"} in [{"type": e["type"]} for e in events]) \
            == expected, name


def test_bad_or_missing_addresses_send_nothing(realm):
    good = addr(realm, "good")
    msg = error(invite(realm.admin, f"{good}, not-an-address"))
    assert "'not-an-address'" in msg and "No invitations were sent" in msg
    assert sent_emails(good) == [] and listed(realm.admin) == []
    for empty in ("", " , \n ,"):
        assert error(invite(realm.admin, empty)) == \
            "Give at least one email address to invite."
    missing = realm.admin.post("/invites", {"invitee_emails": good})
    assert error(missing, "REQUEST_VARIABLE_MISSING") == "The 'stream_ids' parameter is required"
    missing = realm.admin.post("/invites", {"stream_ids": []})
    assert error(missing, "REQUEST_VARIABLE_MISSING") == "The 'invitee_emails' parameter is required"


def test_invite_as_cannot_exceed_the_inviters_role(realm):
    cases = [(realm.member, 300, False), (realm.member, 600, True),
             (realm.moderator, 300, True), (realm.moderator, 200, False),
             (realm.admin, 200, True), (realm.admin, 100, False), (realm.owner, 100, True)]
    for n, (account, role, allowed) in enumerate(cases):
        response = invite(account, addr(realm, f"role{n}"), invite_as=role)
        if allowed:
            assert response.ok, (role, response.json)
        else:   # acting above one's role has the reference's own code
            assert error(response, "UNAUTHORIZED_PRINCIPAL") == (
                "Only the organization's owners can do this." if role == 100
                else "Only the organization's administrators can do this."), role
    assert error(invite(realm.owner, addr(realm, "x"), invite_as=500)).startswith(
        "Invalid invite_as")
    assert {i["invited_as"] for i in listed(realm.owner)} == {600, 300, 200, 100}


def test_who_may_invite_follows_can_invite_users_group(realm):
    # Guests and bots never invite; members may by default
    assert error(invite(realm.guest, addr(realm, "g"))) == "Guests cannot do this"
    bot = realm.add_user("Helper Bot", is_bot=True)
    assert "Bots" in error(invite(bot, addr(realm, "b")))
    assert invite(realm.member, addr(realm, "m1")).ok
    # WHEN the organization lets only administrators invite
    set_realm_group(realm, "can_invite_users_group", ADMINS)
    # THEN members and moderators lack permission, administrators keep it
    for account in (realm.member, realm.moderator):
        assert error(invite(account, addr(realm, "m2"))) == "You are not allowed to do this."
    assert invite(realm.admin, addr(realm, "a1")).ok
    assert sent_emails(addr(realm, "m2")) == []


def test_channels_must_exist_be_accessible_and_allow_subscribing_others(realm):
    public_id = channel(realm.admin, "lobby")
    private_id = channel(realm.admin, "secret", invite_only=True)
    archived_id = channel(realm.admin, "old")
    assert realm.admin.delete(f"/streams/{archived_id}").ok
    # Nonexistent, inaccessible (private, not subscribed) and archived channels are invalid
    for stream_id in (987654, private_id, archived_id):
        target = addr(realm, f"s{stream_id}")
        msg = error(invite(realm.member, target, [public_id, stream_id]))
        assert msg == f"Channel {stream_id} does not exist or you cannot see it, so no invitations were sent."
        assert sent_emails(target) == []
    assert listed(realm.admin) == []
    # Administrators may invite to private channels they administer, members to public ones
    assert invite(realm.admin, addr(realm, "p1"), [private_id]).ok
    assert invite(realm.member, addr(realm, "p2"), [public_id]).ok


def test_channels_need_permission_to_subscribe_others(realm):
    public_id = channel(realm.admin, "lobby")
    default_id = channel(realm.admin, "welcome")
    assert realm.admin.patch(f"/streams/{default_id}", {"is_default_stream": True}).ok
    private_id = channel(realm.admin, "vault", invite_only=True)
    # GIVEN the organization lets members add subscribers (the default)
    # THEN a member invites to public and default channels, not to a private one it
    # cannot see
    assert invite(realm.member, addr(realm, "a"), [public_id, default_id]).ok
    assert error(invite(realm.member, addr(realm, "b"), [private_id])).startswith(
        f"Channel {private_id} does not exist or you cannot see it")
    # WHEN only administrators may add subscribers in the organization
    set_realm_group(realm, "can_add_subscribers_group", ADMINS)
    # THEN a member may still invite, but must name no channel, not even a default one
    for stream_ids in ([public_id], [default_id]):
        assert error(invite(realm.member, addr(realm, "c"), stream_ids)) == \
            "You are not allowed to add other people to channels."
    assert sent_emails(addr(realm, "c")) == []
    assert invite(realm.member, addr(realm, "d"), []).ok
    # AND an administrator still may
    assert invite(realm.admin, addr(realm, "e"), [public_id, private_id]).ok


def test_groups_must_be_ones_the_inviter_may_add_members_to(realm):
    created = realm.admin.post("/user_groups/create", {
        "name": "Crew", "description": "", "members": [realm.admin.user_id]})
    assert created.ok, created.json
    group_id = created.json["group_id"]
    assert invite(realm.admin, addr(realm, "a"), group_ids=[group_id]).ok
    msg = error(invite(realm.member, addr(realm, "b"), group_ids=[group_id]))
    assert msg.startswith("Insufficient permission to add members to user group 'Crew'")
    assert error(invite(realm.admin, addr(realm, "c"), group_ids=[98765])).startswith(
        "No user group with ID 98765 exists")
    assert "system group" in error(invite(realm.owner, addr(realm, "d"), group_ids=[MEMBERS]))
    assert realm.admin.post(f"/user_groups/{group_id}/deactivate").ok
    assert error(invite(realm.admin, addr(realm, "e"), group_ids=[group_id])).startswith(
        "No user group with ID")
    assert [sent_emails(addr(realm, x)) for x in "bcde"] == [[], [], [], []]


def test_welcome_text_limit_and_expiry_values(realm, monkeypatch):
    assert error(invite(realm.admin, addr(realm, "a"),
                        welcome_message_custom_text="x" * 8001)).startswith(
        "welcome_message_custom_text is over the limit")
    assert invite(realm.admin, addr(realm, "b"), welcome_message_custom_text="x" * 8000).ok
    assert invite(realm.admin, addr(realm, "never"), invite_expires_in_minutes=None).ok
    assert invite(realm.admin, addr(realm, "hour"), invite_expires_in_minutes=60).ok
    monkeypatch.setenv("INVITATION_LINK_VALIDITY_MINUTES", "30")
    assert invite(realm.admin, addr(realm, "half"), invite_expires_in_minutes=None).ok
    assert invite(realm.admin, addr(realm, "server")).ok
    for bad in (0, -5, 10**12):
        assert error(invite(realm.admin, addr(realm, "bad"), invite_expires_in_minutes=bad)
                     ).startswith("Invalid invite_expires_in_minutes")
    by_email = {i["email"].split("@")[0]: i for i in listed(realm.admin)}
    assert by_email["never"]["expiry_date"] is None and by_email["half"]["expiry_date"] is None

    def lasts(name: str) -> int:
        return by_email[name]["expiry_date"] - by_email[name]["invited"]
    assert abs(lasts("hour") - 3600) <= 2 and abs(lasts("server") - 1800) <= 2
    assert abs(lasts("b") - 14400 * 60) <= 2


def test_existing_accounts_are_skipped_and_the_others_invited(realm):
    gone = realm.add_user("Gone Soon")
    assert realm.admin.delete(f"/users/{gone.user_id}").ok
    new = addr(realm, "fresh")
    # WHEN some addresses already have (active or deactivated) accounts
    response = invite(realm.admin, f"{realm.member.email.upper()}, {new}, {gone.email}")
    # THEN the error lists them, and the new address was still invited
    assert error(response, "INVITATION_FAILED").startswith("Invitations went to every other address")
    body = response.json
    assert body["errors"] == [[realm.member.email.upper(), "This person has an account already.", False],
                              [gone.email, "This person's account is deactivated.", True]]
    assert (body["sent_invitations"], body["daily_limit_reached"],
            body["license_limit_reached"]) == (True, False, False)
    assert len(sent_emails(new)) == 1
    assert [i["email"] for i in listed(realm.admin)] == [new]
    # AND when every address has an account, nothing is sent
    response = invite(realm.admin, realm.guest.email)
    assert error(response, "INVITATION_FAILED") == "No invitations were sent."
    assert response.json["sent_invitations"] is False
    assert response.json["errors"] == [[realm.guest.email, "This person has an account already.", False]]


def test_daily_limit_sends_nothing_over_it(realm, monkeypatch):
    monkeypatch.setenv("INVITES_DAILY_LIMIT", "3")
    assert invite(realm.admin, f"{addr(realm, 'a')}, {addr(realm, 'b')}").ok
    # Addresses with accounts do not count; the two new ones would exceed 3
    response = invite(realm.admin,
                      f"{addr(realm, 'c')}, {addr(realm, 'd')}, {realm.member.email}")
    assert "limit" in error(response, "INVITATION_FAILED")
    assert (response.json["daily_limit_reached"], response.json["sent_invitations"],
            response.json["errors"]) == (True, False, [])
    assert sent_emails(addr(realm, "c")) == [] and len(listed(realm.admin)) == 2
    assert invite(realm.admin, addr(realm, "e")).ok
    assert invite(realm.admin, addr(realm, "f")).json["daily_limit_reached"] is True
    # A request larger than the whole limit is refused too, before its addresses are
    # looked up (so even when some already have accounts)
    many = ", ".join(addr(realm, f"m{n}") for n in range(4))
    assert invite(realm.owner, many).json["daily_limit_reached"] is True
    monkeypatch.setenv("INVITES_DAILY_LIMIT", "10")   # 3 sent today: room for 7
    existing = [a.email for a in (realm.owner, realm.admin, realm.moderator, realm.member,
                                  realm.guest)]
    many = ", ".join(existing + [addr(realm, f"n{n}") for n in range(6)])
    response = invite(realm.owner, many)
    assert (response.json["daily_limit_reached"], response.json["sent_invitations"],
            response.json["errors"]) == (True, False, [])
    assert sent_emails(addr(realm, "n0")) == []
    monkeypatch.setenv("INVITES_DAILY_LIMIT", "3")
    # AND resending counts against the limit
    [first] = [i for i in listed(realm.admin) if i["email"] == addr(realm, "a")]
    assert realm.admin.post(f"/invites/{first['id']}/resend").json["daily_limit_reached"]


def test_an_email_ses_refuses_is_reported_and_can_be_resent(realm, monkeypatch):
    from botocore.exceptions import ClientError

    from chalicelib.actions.invitations import invites

    real_send = invites.send_email
    refused = addr(realm, "refused")

    def flaky_send(to: str, subject: str, body: str) -> None:
        if to == refused:
            raise ClientError({"Error": {"Code": "MessageRejected", "Message": "no"}},
                              "SendEmail")
        real_send(to, subject, body)

    monkeypatch.setattr(invites, "send_email", flaky_send)
    response = invite(realm.admin, f"{refused}, {addr(realm, 'ok')}")
    assert error(response, "INVITATION_FAILED").startswith("Invitations went to every other address")
    assert response.json["errors"] == [[refused, invites.EMAIL_NOT_SENT, False]]
    assert response.json["sent_invitations"] is True
    monkeypatch.setattr(invites, "send_email", real_send)
    [stored] = [i for i in listed(realm.admin) if i["email"] == refused]
    assert realm.admin.post(f"/invites/{stored['id']}/resend").ok
    assert len(sent_emails(refused)) == 1


# ---- reusable links --------------------------------------------------------------------

def test_multiuse_links_follow_their_own_permission(realm, register_queue, fetch_events,
                                                    drain_events):
    lobby = channel(realm.admin, "lobby")
    queue_id = register_queue(realm.admin, event_types=["invites_changed"])["queue_id"]
    response = realm.admin.post("/invites/multiuse", {"stream_ids": [lobby], "invite_as": 600})
    assert response.ok, response.json
    link = response.json["invite_link"]
    assert link.startswith(f"https://{realm.subdomain}.localhost/join/")
    assert public(realm, "GET", link.split("localhost", 1)[1]).json["invited_as"] == 600
    [shown] = listed(realm.admin)
    assert shown["is_multiuse"] and "email" not in shown and shown["invited_as"] == 600
    drain_events()
    assert [e["type"] for e in fetch_events(realm.admin, queue_id)] == ["invites_changed"]
    # Members need create_multiuse_invite_group (administrators by default); guests never
    assert error(realm.member.post("/invites/multiuse")) == "You are not allowed to do this."
    assert error(realm.guest.post("/invites/multiuse")) == "Guests cannot do this"
    set_realm_group(realm, "create_multiuse_invite_group", MEMBERS)
    assert realm.member.post("/invites/multiuse").ok
    # The same checks as for emailed invitations apply
    assert error(realm.member.post("/invites/multiuse", {"stream_ids": [4321]})) == \
        "Channel 4321 does not exist or you cannot see it, so no invitations were sent."
    assert error(realm.member.post("/invites/multiuse", {"invite_as": 200}),
                 "UNAUTHORIZED_PRINCIPAL") == "Only the organization's administrators can do this."
    set_realm_group(realm, "can_add_subscribers_group", ADMINS)
    assert error(realm.member.post("/invites/multiuse", {"stream_ids": [lobby]})) == \
        "You are not allowed to add other people to channels."


# ---- listing, revoking, resending ------------------------------------------------------

def test_listing_shows_administrators_all_and_others_their_own(realm):
    assert invite(realm.member, addr(realm, "by-member")).ok
    assert invite(realm.admin, addr(realm, "by-admin")).ok
    assert realm.admin.post("/invites/multiuse").ok
    assert [i["email"] for i in listed(realm.member)] == [addr(realm, "by-member")]
    assert len(listed(realm.admin)) == 3 and len(listed(realm.owner)) == 3
    assert listed(realm.moderator) == []
    assert error(realm.guest.get("/invites")) == "Guests cannot do this"


def test_revoking_follows_the_reference_rules(realm, register_queue, fetch_events,
                                              drain_events):
    assert invite(realm.member, addr(realm, "m")).ok
    assert invite(realm.owner, addr(realm, "o"), invite_as=100).ok
    assert invite(realm.admin, addr(realm, "a")).ok
    ids = {i["email"].split("@")[0]: i["id"] for i in listed(realm.owner)}
    drain_events()   # the creations' events go before the queue exists
    queue_id = register_queue(realm.member, event_types=["invites_changed"])["queue_id"]
    # Others' invitations need an administrator, owners' invitations an owner
    assert error(realm.member.delete(f"/invites/{ids['a']}")) == \
        "Only the organization's administrators can do this."
    assert error(realm.admin.delete(f"/invites/{ids['o']}")) == \
        "Only the organization's owners can do this."
    assert realm.owner.delete(f"/invites/{ids['o']}").ok
    # The inviter revokes their own; the creator hears of it when an admin revokes it
    assert realm.admin.delete(f"/invites/{ids['m']}").ok
    drain_events()
    assert [e["type"] for e in fetch_events(realm.member, queue_id)] == ["invites_changed"]
    assert [i["email"] for i in listed(realm.owner)] == [addr(realm, "a")]
    for invite_id in (ids["m"], 99999):
        assert error(realm.admin.delete(f"/invites/{invite_id}")) == "No invitation with that ID exists"
    # Reusable links are revoked at their own path, once
    assert realm.admin.post("/invites/multiuse").ok
    [link_id] = [i["id"] for i in listed(realm.admin) if i["is_multiuse"]]
    assert error(realm.admin.delete(f"/invites/{link_id}")) == "No invitation with that ID exists"
    assert error(realm.admin.delete(f"/invites/multiuse/{ids['a']}")) == "No invitation with that ID exists"
    assert error(realm.member.delete(f"/invites/multiuse/{link_id}")) == \
        "Only the organization's administrators can do this."
    assert realm.admin.delete(f"/invites/multiuse/{link_id}").ok
    assert error(realm.admin.delete(f"/invites/multiuse/{link_id}")) == \
        "That invitation was revoked already"
    assert [i["email"] for i in listed(realm.owner)] == [addr(realm, "a")]


def test_resend_emails_a_new_link_and_retires_the_old(realm):
    target = addr(realm, "again")
    assert invite(realm.member, target).ok
    old_key = emailed_key(target)
    [shown] = listed(realm.member)
    assert error(realm.moderator.post(f"/invites/{shown['id']}/resend")) == \
        "Only the organization's administrators can do this."
    assert realm.member.post(f"/invites/{shown['id']}/resend").ok
    assert len(sent_emails(target)) == 2
    new_key = emailed_key(target)
    assert new_key != old_key
    assert public(realm, "GET", f"/accounts/do_confirm/{new_key}").json["email"] == target
    assert error(public(realm, "GET", f"/accounts/do_confirm/{old_key}")) == \
        "This invitation link is invalid or has expired."
    assert error(realm.member.post("/invites/424242/resend")) == "No invitation with that ID exists"
