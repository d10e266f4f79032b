"""The reference's own error codes where it defines one, and the behaviour bugs fuzzing
found beside them (issue 15, item 5)."""
from __future__ import annotations

from chalicelib.rules.realm_settings import system_group_id
from tests.functional.edit_helpers import channel, send
from tests.functional.test_invites import set_realm_group


def test_topic_and_subject_together_are_confusing(realm):
    channel(realm.member, "talk")
    message_id = send(realm.member, "talk", "t")
    for response in (
            realm.member.post("/messages", {"type": "stream", "to": "talk", "topic": "a",
                                            "subject": "a", "content": "x"}),
            realm.member.patch(f"/messages/{message_id}", {"topic": "b", "subject": "c"})):
        assert response.status == 400 and response.json == {
            "result": "error", "code": "REQUEST_CONFUSING_VAR",
            "msg": "Send 'topic' or 'subject', not both",
            "var_name1": "topic", "var_name2": "subject"}


def test_get_events_with_registration_parameters_answers_as_get_events(realm):
    response = realm.member.get("/events", {"event_types": ["message"], "dont_block": True})
    assert response.ok, response.json
    assert set(response.json) == {"result", "msg", "events", "queue_id"}
    # The queue it registered is the caller's and works
    queue_id = response.json["queue_id"]
    assert realm.member.get("/events", {"queue_id": queue_id, "dont_block": True}).ok


def test_bots_do_not_change_settings(realm):
    bot = realm.add_user("Echo Bot", is_bot=True)
    response = bot.patch("/settings", {"twenty_four_hour_time": True})
    assert response.status == 400 and response.json["msg"] == \
        "Bots cannot use this endpoint."
    assert realm.member.patch("/settings", {"twenty_four_hour_time": True}).ok


def test_edit_typing_needs_permission_to_edit_the_message(realm):
    channel(realm.owner, "talk", [realm.owner, realm.member])
    mine = send(realm.member, "talk", "t")
    theirs = send(realm.owner, "talk", "t")
    assert realm.member.post(f"/messages/{mine}/typing", {"op": "start"}).ok
    refused = realm.member.post(f"/messages/{theirs}/typing", {"op": "start"})
    assert refused.status == 400 and refused.json["msg"] == \
        "You are not allowed to edit this message"
    # Nor when the organization turned editing off
    assert realm.owner.patch("/realm", {"allow_message_editing": False}).ok
    refused = realm.member.post(f"/messages/{mine}/typing", {"op": "start"})
    assert refused.status == 400 and "Message editing is turned off" in refused.json["msg"]


def test_only_administrators_choose_the_welcome_text(realm):
    set_realm_group(realm, "create_multiuse_invite_group", system_group_id("role:members"))
    for inviter, allowed in ((realm.member, False), (realm.moderator, False),
                             (realm.admin, True)):
        for path in ("/invites", "/invites/multiuse"):
            params = {"welcome_message_custom_text": "Hello!", "stream_ids": []}
            if path == "/invites":
                params["invitee_emails"] = f"w{inviter.user_id}@{realm.subdomain}.example.com"
            response = inviter.post(path, params)
            if allowed:
                assert response.ok, response.json
            else:
                assert response.status == 400 and (response.json["code"], response.json[
                    "msg"]) == ("UNAUTHORIZED_PRINCIPAL",
                                "Only the organization's administrators can do this."), response.json


def test_members_of_the_link_group_create_links(realm):
    # GIVEN the setting names the member through a user group inside another group,
    # while only administrators may send emailed invitations
    set_realm_group(realm, "can_invite_users_group", system_group_id("role:administrators"))
    inner = realm.owner.post("/user_groups/create", {
        "name": "inviters", "description": "", "members": [realm.member.user_id]})
    outer = realm.owner.post("/user_groups/create", {
        "name": "outer", "description": "", "members": [],
        "subgroups": [inner.json["group_id"]]})
    for value in (outer.json["group_id"], inner.json["group_id"],
                  {"direct_members": [realm.member.user_id], "direct_subgroups": []}):
        assert realm.owner.patch("/realm", {
            "create_multiuse_invite_group": {"new": value}}).ok
        # THEN the member creates links, and others outside it do not
        response = realm.member.post("/invites/multiuse")
        assert response.ok and "/join/" in response.json["invite_link"], response.json
        assert realm.moderator.post("/invites/multiuse").status == 400


def test_the_empty_topic_under_any_name_cannot_be_resolved(realm):
    channel(realm.owner, "talk", [realm.owner, realm.member])
    message_id = send(realm.member, "talk", "plans")
    for topic in ("✔ ", "✔ general chat", "✔ (no topic)", "✔   "):
        refused = realm.member.patch(f"/messages/{message_id}", {
            "topic": topic, "propagate_mode": "change_all"})
        assert refused.status == 400 and refused.json["msg"] == \
            "General chat cannot be marked as resolved", topic
    assert realm.member.patch(f"/messages/{message_id}", {
        "topic": "✔ plans", "propagate_mode": "change_all"}).ok


def test_user_objects_have_no_billing_admin_flag(realm):
    me = realm.member.get("/users/me").json
    members = realm.member.get("/users").json["members"]
    assert "is_billing_admin" not in me
    assert members and all("is_billing_admin" not in m for m in members)
