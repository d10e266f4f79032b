"""email_address_visibility (issue 47, finding 9): a person who hides their address is
known by the stand-in user{id}@{host}; their real address reaches only the roles the
setting allows, in answers, initial state and events; no lookup by email confirms it;
they still sign in with it. Each boundary is approached as the role that must be refused.
"""
from __future__ import annotations

import hashlib

import pytest

from tests.functional.conftest import make_realm
from tests.functional.read_state_helpers import dm

EVERYONE, MEMBERS, ADMINISTRATORS, NOBODY, MODERATORS = 1, 2, 3, 4, 5
ROLE_LABELS = ("owner", "admin", "moderator", "other_member", "guest")
# Who sees a member's real address under each value (the member themself always does).
SEES = {
    EVERYONE: set(ROLE_LABELS),
    MEMBERS: {"owner", "admin", "moderator", "other_member"},
    MODERATORS: {"owner", "admin", "moderator"},
    ADMINISTRATORS: {"owner", "admin"},
    NOBODY: set(),
}


def stand_in(realm, account) -> str:
    return f"user{account.user_id}@{realm.subdomain}.localhost"


def hide(account, value: int) -> None:
    response = account.patch("/settings", {"email_address_visibility": value})
    assert response.ok, response.json


def viewers(realm) -> dict:
    other = realm.extra[0] if realm.extra else realm.add_user("Olga Other")
    return {"owner": realm.owner, "admin": realm.admin, "moderator": realm.moderator,
            "other_member": other, "guest": realm.guest}


def gravatar(address: str) -> str:
    return hashlib.md5(address.lower().encode(), usedforsecurity=False).hexdigest()


@pytest.mark.parametrize("value", [MEMBERS, MODERATORS, ADMINISTRATORS, NOBODY])
def test_the_real_address_reaches_only_the_roles_allowed(realm, value):
    # GIVEN a member who shows their address to `value`'s roles only
    target = realm.member
    hide(target, value)
    for label, viewer in viewers(realm).items():
        allowed = label in SEES[value]
        # WHEN each role reads the member: alone, in the list, in its initial state
        one = viewer.get(f"/users/{target.user_id}", {"client_gravatar": "false"})
        assert one.ok, one.json
        listed = next(u for u in viewer.get("/users").json["members"]
                      if u["user_id"] == target.user_id)
        state = viewer.post("/register", {"fetch_event_types": ["realm_user"]}).json
        registered = next(u for u in state["realm_users"] if u["user_id"] == target.user_id)
        # THEN the real address only for the roles allowed, null for the others; the
        # API address is the stand-in for everyone, and so is the picture made from it
        for shown in (one.json["user"], listed, registered):
            assert shown["delivery_email"] == (target.email if allowed else None), label
            assert shown["email"] == stand_in(realm, target), label
        assert gravatar(stand_in(realm, target)) in one.json["user"]["avatar_url"]
        assert gravatar(target.email) not in str(one.json)
    # AND the member sees their own real address, and is known by the stand-in
    me = target.get("/users/me").json
    assert (me["email"], me["delivery_email"]) == (stand_in(realm, target), target.email)
    own = target.post("/register", {"fetch_event_types": ["realm_user"]}).json
    assert (own["email"], own["delivery_email"]) == (stand_in(realm, target), target.email)
    assert gravatar(stand_in(realm, target)) in own["avatar_url"]


def test_messages_reactions_typing_and_presence_show_the_stand_in(realm, register_queue,
                                                                   fetch_events, drain_events, advertise):
    advertise(483)  # reaction events with the user object (dropped at 484)
    target = realm.member
    # GIVEN a member who was present before hiding their address (presence keeps a copy)
    assert target.post("/users/me/presence", {"status": "active"}).ok
    hide(target, ADMINISTRATORS)
    queue = register_queue(realm.admin, event_types=["message", "reaction", "typing"])
    # WHEN the member writes, reacts and types
    message_id = dm(target, [realm.admin], "hello")
    assert target.post(f"/messages/{message_id}/reactions", {"emoji_name": "smile"}).ok
    assert target.post("/typing", {"op": "start", "to": [realm.admin.user_id]}).ok
    drain_events()
    # THEN everyone, administrators too, knows them by the stand-in there
    fetched = realm.admin.get(f"/messages/{message_id}").json["message"]
    assert fetched["sender_email"] == stand_in(realm, target)
    assert {r["email"] for r in fetched["display_recipient"]} == {
        stand_in(realm, target), realm.admin.email}
    events = fetch_events(realm.admin, queue["queue_id"])
    [new] = [e for e in events if e["type"] == "message"]
    assert new["message"]["sender_email"] == stand_in(realm, target)
    [reaction] = [e for e in events if e["type"] == "reaction"]
    assert reaction["user"]["email"] == stand_in(realm, target)
    [typing] = [e for e in events if e["type"] == "typing"]
    assert typing["sender"]["email"] == stand_in(realm, target)
    presences = realm.guest.get("/realm/presence").json["presences"]
    assert stand_in(realm, target) in presences and target.email not in presences
    assert target.email not in str(events)


def test_a_hidden_address_names_nobody_where_an_address_is_looked_up(realm):
    target = realm.member
    hide(target, ADMINISTRATORS)
    unknown = f"nobody@{realm.subdomain}.example.com"
    # GIVEN a member who may not see the address, and an address nobody has

    def same_answer(call) -> None:
        """The hidden address answers exactly as the unknown one (its text aside)."""
        hidden, missing = call(target.email), call(unknown)
        assert hidden.status == missing.status == 400, (hidden.json, missing.json)
        assert hidden.json["msg"].replace(target.email, unknown) == missing.json["msg"]
        assert hidden.json.get("code") == missing.json.get("code")

    asker = realm.moderator
    same_answer(lambda email: asker.get(f"/users/{email}"))
    same_answer(lambda email: asker.get(f"/users/{email}/presence"))
    same_answer(lambda email: asker.post("/messages", {"type": "direct", "to": [email],
                                                       "content": "hi"}))
    same_answer(lambda email: asker.get("/messages", {
        "anchor": "newest", "num_before": 5, "num_after": 0,
        "narrow": [{"operator": "dm", "operand": email}]}))
    same_answer(lambda email: asker.get("/messages", {
        "anchor": "newest", "num_before": 5, "num_after": 0,
        "narrow": [{"operator": "sender", "operand": email}]}))
    same_answer(lambda email: realm.admin.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "lookups"}], "principals": [email]}))
    # AND by API address only, as the reference: an administrator, who sees the real
    # address, still writes to the stand-in, not the real one
    same_answer(lambda email: realm.admin.post("/messages", {
        "type": "direct", "to": [email], "content": "hi"}))
    # WHILE the stand-in names the member everywhere
    address = stand_in(realm, target)
    assert asker.get(f"/users/{address}").json["user"]["user_id"] == target.user_id
    assert asker.post("/messages", {"type": "direct", "to": [address], "content": "hi"}).ok
    assert asker.get("/messages", {"anchor": "newest", "num_before": 5, "num_after": 0,
                                   "narrow": [{"operator": "dm", "operand": address}]}).ok
    # AND GET /users/{email} finds the real address for those who may see it
    found = realm.admin.get(f"/users/{target.email}").json["user"]
    assert (found["user_id"], found["delivery_email"]) == (target.user_id, target.email)
    # AND an address the member shows to everyone names them again
    hide(target, EVERYONE)
    assert asker.get(f"/users/{target.email}").json["user"]["user_id"] == target.user_id
    assert asker.post("/messages", {"type": "direct", "to": [target.email],
                                    "content": "hi"}).ok


def test_a_stranger_of_another_organization_finds_nobody(realm, chalice_client):
    target = realm.member
    hide(target, NOBODY)
    stranger = make_realm(chalice_client).member
    for address in (target.email, stand_in(realm, target)):
        response = stranger.get(f"/users/{address}")
        assert response.status == 400 and response.json["msg"] == "No such person in this organization."
    assert target.email not in str(stranger.get("/users").json)


def test_the_member_still_signs_in_with_the_real_address(realm, anonymous):
    from tests.functional.test_account import fetch_key, set_password

    target = realm.member
    hide(target, NOBODY)
    set_password(target, "a long enough password")
    # WHEN they log in with the real address
    fetched = fetch_key(anonymous, realm, target.email, "a long enough password")
    # THEN they get a key, answered with the real address (the one to authenticate with)
    assert fetched.ok, fetched.json
    assert fetched.json["email"] == target.email
    # AND HTTP Basic takes the real address, not the stand-in
    assert target.get("/users/me").ok
    import base64
    token = base64.b64encode(f"{stand_in(realm, target)}:{target.api_key}".encode()).decode()
    refused = anonymous("GET", "/users/me", None, {"Authorization": f"Basic {token}"})
    assert refused.status == 401
    assert fetch_key(anonymous, realm, stand_in(realm, target),
                     "a long enough password").status in (400, 401)
    # AND the new key acts under the stand-in (its record carries the API address)
    key = fetched.json["api_key"]
    with_new_key = {"Authorization": "Basic " + base64.b64encode(
        f"{target.email}:{key}".encode()).decode()}
    assert anonymous("POST", "/users/me/presence", {"status": "active"}, with_new_key).ok
    presences = realm.admin.get("/realm/presence").json["presences"]
    assert stand_in(realm, target) in presences and target.email not in presences


def test_changing_the_setting_tells_each_viewer_what_changed_for_them(
        realm, register_queue, fetch_events, drain_events):
    target = realm.member
    people = viewers(realm)
    drain_events()
    accounts = {**people, "self": target}
    queues = {label: register_queue(account, event_types=["realm_user"])["queue_id"]
              for label, account in accounts.items()}
    seen = dict.fromkeys(queues, -1)

    def heard() -> dict[str, list[dict]]:
        """The realm_user updates each queue got since the last call."""
        drain_events()
        found = {}
        for label, queue_id in queues.items():
            events = fetch_events(accounts[label], queue_id, seen[label])
            seen[label] = max([seen[label], *(e["id"] for e in events)])
            found[label] = [e["person"] for e in events
                            if e["type"] == "realm_user" and e["op"] == "update"]
        return found

    def keys(persons: list[dict]) -> list[tuple[str, object]]:
        return [(key, value) for person in persons for key, value in person.items()
                if key in ("delivery_email", "new_email")]

    # WHEN the member hides their address from all but administrators
    hide(target, ADMINISTRATORS)
    events = heard()
    # THEN those who lose it hear null; everyone hears of the new API address and picture
    address = stand_in(realm, target)
    for label in ("moderator", "other_member", "guest"):
        assert keys(events[label]) == [("delivery_email", None), ("new_email", address)]
    for label in ("owner", "admin", "self"):
        assert keys(events[label]) == [("new_email", address)]
    assert all(any(p.get("avatar_url", "").find(gravatar(address)) > 0 for p in persons)
               for persons in events.values())
    # WHEN they widen it to moderators (the API address stays the stand-in)
    hide(target, MODERATORS)
    events = heard()
    # THEN only the moderator hears, of the real address
    assert events["moderator"] == [{"user_id": target.user_id, "delivery_email": target.email}]
    assert all(events[label] == [] for label in events if label != "moderator")
    # WHEN they show it to everyone again
    hide(target, EVERYONE)
    events = heard()
    for label in ("other_member", "guest"):
        assert keys(events[label]) == [("delivery_email", target.email),
                                       ("new_email", target.email)]
    for label in ("owner", "admin", "moderator", "self"):
        assert keys(events[label]) == [("new_email", target.email)]


def test_a_new_person_arrives_with_the_address_each_viewer_may_see(
        realm, register_queue, fetch_events, drain_events):
    # GIVEN an organization whose new users show their address to administrators only
    assert realm.member.patch("/realm/user_settings_defaults",
                              {"email_address_visibility": ADMINISTRATORS}).status == 400
    assert realm.admin.patch("/realm/user_settings_defaults",
                             {"email_address_visibility": ADMINISTRATORS}).ok
    queues = {account.user_id: register_queue(account, event_types=["realm_user"])["queue_id"]
              for account in (realm.admin, realm.moderator, realm.guest)}
    # WHEN someone joins
    newcomer = realm.add_user("Nina New")
    drain_events()
    # THEN administrators get their real address, the others null; all the stand-in
    for account in (realm.admin, realm.moderator, realm.guest):
        [added] = [e["person"] for e in fetch_events(account, queues[account.user_id])
                   if e["type"] == "realm_user" and e["op"] == "add"]
        assert added["email"] == stand_in(realm, newcomer)
        assert added["delivery_email"] == (newcomer.email if account is realm.admin
                                           else None)
    # AND the newcomer's own record says so; a bot stays visible to everyone
    assert newcomer.get("/users/me").json["email"] == stand_in(realm, newcomer)
    bot = realm.add_user("Billy Bot", is_bot=True)
    shown = realm.guest.get(f"/users/{bot.user_id}").json["user"]
    assert (shown["email"], shown["delivery_email"]) == (bot.email, bot.email)


def test_a_role_change_changes_what_the_viewers_queues_receive(
        realm, register_queue, fetch_events, drain_events):
    # GIVEN new users hidden from all but administrators, and live queues of a member
    # about to be promoted and an administrator about to be demoted
    assert realm.admin.patch("/realm/user_settings_defaults",
                             {"email_address_visibility": ADMINISTRATORS}).ok
    promoted, demoted = realm.moderator, realm.admin
    queues = {account.user_id: register_queue(account, event_types=["realm_user"])["queue_id"]
              for account in (promoted, demoted)}
    # WHEN the owner swaps their roles
    assert realm.owner.patch(f"/users/{promoted.user_id}", {"role": 200}).ok
    assert realm.owner.patch(f"/users/{demoted.user_id}", {"role": 400}).ok
    newcomer = realm.add_user("Nina New")
    drain_events()
    # THEN each heard of the role changes, and the newcomer's real address reaches the
    # queue of the one promoted, not the queue of the one demoted
    for account, expected in ((promoted, newcomer.email), (demoted, None)):
        events = fetch_events(account, queues[account.user_id])
        roles = [e["person"] for e in events if e["op"] == "update" and "role" in e["person"]]
        assert {"user_id": promoted.user_id, "role": 200} in roles
        assert {"user_id": demoted.user_id, "role": 400} in roles
        [added] = [e["person"] for e in events if e["op"] == "add"]
        assert added["delivery_email"] == expected
    # AND reads follow the new roles at once
    assert promoted.get(f"/users/{newcomer.user_id}").json["user"]["delivery_email"] == \
        newcomer.email
    assert demoted.get(f"/users/{newcomer.user_id}").json["user"]["delivery_email"] is None


def test_an_address_change_reaches_only_those_who_may_see_it(
        realm, register_queue, fetch_events, drain_events):
    from tests.functional.test_user_admin import grant_email_changes

    target = realm.member
    hide(target, ADMINISTRATORS)
    drain_events()
    queues = {account.user_id: register_queue(account, event_types=["realm_user"])["queue_id"]
              for account in (realm.admin, realm.moderator, realm.guest)}
    grant_email_changes(realm, realm.owner)
    new = f"max.moved@{realm.subdomain}.example.com"
    assert realm.owner.patch(f"/users/{target.user_id}", {"new_email": new}).ok
    drain_events()
    # THEN administrators hear the new real address; nobody hears a new API address
    heard = {account.user_id: [e["person"] for e in fetch_events(account, queues[
        account.user_id]) if e["type"] == "realm_user"] for account in
             (realm.admin, realm.moderator, realm.guest)}
    assert heard[realm.admin.user_id] == [{"user_id": target.user_id, "delivery_email": new}]
    assert heard[realm.moderator.user_id] == heard[realm.guest.user_id] == []
    # AND the member signs in with the new real address, still known by the stand-in
    target.email = new
    assert target.get("/users/me").json["email"] == stand_in(realm, target)


def test_inviting_a_hidden_address_says_it_has_an_account_as_the_reference_does(realm):
    target = realm.member
    hide(target, NOBODY)
    response = realm.admin.post("/invites", {"invitee_emails": target.email,
                                             "stream_ids": "[]"})
    assert response.status == 400
    assert [target.email, "This person has an account already.", False] in response.json["errors"]
