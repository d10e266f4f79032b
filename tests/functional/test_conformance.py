"""Answering exactly as the reference does at the advertised level (issue 27): the rows of
docs/feature-levels.md that name this file, through the HTTP client."""
from __future__ import annotations

import base64
import json
from urllib.parse import quote

import pytest

from chalicelib.core.feature_levels import advertised_level
from chalicelib.rules.avatars import GRAVATAR_PREFIX
from tests.functional.edit_helpers import channel, send
from tests.reference_contract import (
    ReferenceShapeError,
    check_reference_response,
    strict_problems,
)
from tests.reference_schema import response_schema


def basic(email: str, key: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{email}:{key}".encode()).decode()}


# ---- the level and the extensions ----------------------------------------------------------

def test_advertised_level_is_the_tables(realm, anonymous):
    # GIVEN the table's level; WHEN a client asks the server settings and registers
    settings = anonymous("GET", "/server_settings").json
    registered = realm.member.post("/register", {"event_types": ["message"]}).json
    # THEN both advertise it
    assert settings["service_feature_level"] == registered["service_feature_level"] == \
        advertised_level()


def test_websocket_url_only_when_asked(realm, anonymous):
    # GIVEN a client that knows nothing of this server's extensions
    plain = realm.member.post("/register", {"event_types": ["message"]}).json
    assert "event_queue_websocket_url" not in plain
    assert "event_queue_websocket_url" not in anonymous("GET", "/server_settings").json
    # WHEN it asks for them, THEN the push channel's address is there (null: not served)
    asked = realm.member.post("/register", {"event_types": ["message"], "client_capabilities":
                                            {"teamchat_websocket": True}}).json
    assert "event_queue_websocket_url" in asked
    settings = anonymous("GET", "/server_settings", {"include_teamchat_extensions": True})
    assert settings.json["event_queue_websocket_url"] == asked["event_queue_websocket_url"]
    # AND GET /events registering a queue follows the same capability
    events = realm.member.get("/events", {"event_types": ["message"], "dont_block": True})
    assert "event_queue_websocket_url" not in events.json


def test_strict_checker_refuses_an_unlisted_key(realm):
    # GIVEN a real answer of GET /users/me, which matches the reference's schema
    body = realm.member.get("/users/me").json
    schema = response_schema("/users/me", "get")
    assert strict_problems(body, schema, "response") == []
    # WHEN a key the reference does not list is added (at the top, or nested), THEN refused
    assert strict_problems({**body, "surprise": 1}, schema, "response") == [
        "response.surprise: not in the reference"]
    users = realm.member.get("/users").json
    with_extra = {**users, "members": [{**users["members"][0], "extra": True}]}
    found = strict_problems(with_extra, response_schema("/users", "get"), "response")
    assert found == ["response.members[0].extra: not in the reference"]
    # AND an extension is allowed, since only a client that asks receives it
    assert strict_problems({**body, "event_queue_websocket_url": None}, schema,
                           "response") == []


def test_every_operation_the_reference_declares_is_checked_strictly(realm):
    # GIVEN real answers of operations the reference declares (any of them, no list)
    for path in ("/users/me", "/realm/emoji", "/users/me/alert_words"):
        body = realm.member.get(path).json
        check_reference_response("GET", f"/api/v1{path}", 200, json.dumps(body).encode())
        # WHEN the answer carries a key the reference does not list, THEN it is refused
        with pytest.raises(ReferenceShapeError):
            check_reference_response("GET", f"/api/v1{path}", 200,
                                     json.dumps({**body, "surprise": 1}).encode())


# ---- shapes that were of an older level -------------------------------------------------

def test_subscribe_results_are_keyed_by_user_id(realm):
    response = realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "keyed"}],
        "principals": [realm.owner.user_id, realm.member.user_id]})
    assert response.ok, response.json
    assert response.json["subscribed"] == {str(realm.owner.user_id): ["keyed"],
                                           str(realm.member.user_id): ["keyed"]}
    again = realm.owner.post("/users/me/subscriptions", {
        "subscriptions": [{"name": "keyed"}], "principals": [realm.member.user_id]})
    assert again.json["subscribed"] == {}
    assert again.json["already_subscribed"] == {str(realm.member.user_id): ["keyed"]}


def test_subscription_properties_answer_is_the_envelope(realm):
    stream_id = channel(realm.member, "props")
    response = realm.member.post("/users/me/subscriptions/properties", {"subscription_data": [
        {"stream_id": stream_id, "property": "pin_to_top", "value": True}]})
    assert response.ok, response.json
    assert set(response.json) == {"result", "msg"}
    [sub] = [s for s in realm.member.get("/users/me/subscriptions").json["subscriptions"]
             if s["stream_id"] == stream_id]
    assert sub["pin_to_top"] is True


def test_register_has_no_removed_realm_keys(realm):
    state = realm.member.post("/register", {"fetch_event_types": ["realm"]}).json
    assert "realm_email_address_visibility" not in state
    assert "realm_wildcard_mention_large_stream_threshold" not in state
    assert state["realm_name"]   # the realm's other keys are there


def test_fetched_message_has_no_rendered_content(realm):
    channel(realm.member, "plain")
    message_id = send(realm.member, "plain", "t", "some **bold** words")
    message = realm.member.get(f"/messages/{message_id}").json["message"]
    assert "rendered_content" not in message
    assert message["content"] == "<p>some <strong>bold</strong> words</p>"
    fetched = realm.member.get("/messages", {"anchor": "newest", "num_before": 1,
                                             "num_after": 0}).json["messages"]
    assert fetched and "rendered_content" not in fetched[-1]


def test_users_client_gravatar_default(realm):
    # GIVEN no client_gravatar: the reference's default (true) leaves Gravatar URLs to
    # the client, and custom profile data out
    [member] = [u for u in realm.owner.get("/users").json["members"]
                if u["user_id"] == realm.member.user_id]
    assert member["avatar_url"] is None and "profile_data" not in member
    one = realm.owner.get(f"/users/{realm.member.user_id}").json["user"]
    assert one["avatar_url"] is None
    # WHEN the client asks for URLs and profile data, THEN they are there
    asked = realm.owner.get("/users", {"client_gravatar": False,
                                       "include_custom_profile_fields": True}).json
    [member] = [u for u in asked["members"] if u["user_id"] == realm.member.user_id]
    assert member["avatar_url"].startswith(GRAVATAR_PREFIX) and member["profile_data"] == {}
    one = realm.owner.get(f"/users/{realm.member.user_id}", {"client_gravatar": False})
    assert one.json["user"]["avatar_url"].startswith(GRAVATAR_PREFIX)


def test_users_filtered_by_user_ids(realm):
    wanted = [realm.member.user_id, realm.guest.user_id]
    members = realm.owner.get("/users", {"user_ids": wanted}).json["members"]
    assert sorted(u["user_id"] for u in members) == sorted(wanted)
    assert realm.owner.get("/users", {"user_ids": []}).json["members"] == []


def test_get_users_needs_authentication(anonymous):
    response = anonymous("GET", "/users")
    assert response.status == 401 and response.json["code"] == "UNAUTHORIZED"


def test_get_user_by_email(realm):
    response = realm.owner.get(f"/users/{quote(realm.member.email)}")
    assert response.ok, response.json
    assert response.json["user"]["user_id"] == realm.member.user_id
    assert response.json["user"]["avatar_url"] is None   # the same defaults as by id
    missing = realm.owner.get("/users/nobody@nowhere.example.com")
    assert missing.status == 400 and missing.json["code"] == "BAD_REQUEST"
    # A guest who cannot see the user learns nothing more by email than by id
    by_id = realm.guest.get(f"/users/{realm.member.user_id}")
    by_email = realm.guest.get(f"/users/{quote(realm.member.email)}")
    assert by_id.status == by_email.status


def test_update_user_by_email(realm):
    # PATCH /users/{email} (level 313): the same operation as by id
    response = realm.admin.patch(f"/users/{quote(realm.member.email)}",
                                 {"full_name": "Mei By Email"})
    assert response.ok, response.json
    shown = realm.admin.get(f"/users/{realm.member.user_id}").json["user"]
    assert shown["full_name"] == "Mei By Email"
    missing = realm.admin.patch("/users/nobody@nowhere.example.com", {"full_name": "X"})
    assert missing.status == 400 and missing.json["code"] == "BAD_REQUEST"
    # A non-administrator is refused before the address is looked up
    refused = realm.member.patch("/users/nobody@nowhere.example.com", {"full_name": "X"})
    assert refused.status == 400 and "not allowed" in refused.json["msg"]


def test_invites_list_the_link_url(realm):
    created = realm.admin.post("/invites/multiuse", {"stream_ids": []})
    assert created.ok, created.json
    link = created.json["invite_link"]
    invites = realm.admin.get("/invites").json["invites"]
    [listed] = [i for i in invites if i["is_multiuse"]]
    assert listed["link_url"] == link and "email" not in listed
    # AND the link found there is the one to revoke
    assert realm.admin.delete(f"/invites/multiuse/{listed['id']}").ok
    assert not [i for i in realm.admin.get("/invites").json["invites"] if i["is_multiuse"]]


def test_get_stream_id_unknown_name(realm):
    response = realm.member.get("/get_stream_id", {"stream": "no such channel"})
    assert response.status == 400 and response.json["code"] == "BAD_REQUEST"
    assert "no such channel" in response.json["msg"]
    assert set(response.json) == {"result", "msg", "code"}


def test_malformed_and_wrong_api_keys(realm, anonymous):
    malformed = anonymous("GET", "/users/me", headers=basic(realm.member.email, "short"))
    wrong = anonymous("GET", "/users/me", headers=basic(realm.member.email, "a" * 32))
    other = anonymous("GET", "/users/me", headers=basic(realm.owner.email,
                                                        realm.member.api_key))
    for response in (malformed, wrong, other):
        assert response.status == 401 and response.json["code"] == "UNAUTHORIZED"
    assert malformed.json["msg"] != wrong.json["msg"] == other.json["msg"]
    # A key with stray spaces around it is still the key
    assert anonymous("GET", "/users/me",
                     headers=basic(realm.member.email, f" {realm.member.api_key} ")).ok


def test_is_moderator_covers_administrators(realm):
    flags = {}
    for account in (realm.owner, realm.admin, realm.moderator, realm.member):
        state = account.post("/register", {"fetch_event_types": ["realm_user"]}).json
        flags[account.role] = state["is_moderator"]
    assert flags == {100: True, 200: True, 300: True, 400: False}


def test_new_setting_values_are_accepted(realm):
    for value in (3, 4):   # levels 383 and 401
        assert realm.member.patch("/settings", {"web_channel_default_view": value}).ok
    state = realm.member.post("/register", {"fetch_event_types": ["user_settings"]}).json
    assert state["user_settings"]["resolved_topic_notice_auto_read_policy"] == \
        "except_followed"
    assert realm.member.patch("/settings", {
        "resolved_topic_notice_auto_read_policy": "never"}).ok
    state = realm.member.post("/register", {"fetch_event_types": ["user_settings"]}).json
    assert state["user_settings"]["resolved_topic_notice_auto_read_policy"] == "never"
    refused = realm.member.patch("/settings", {"resolved_topic_notice_auto_read_policy": "x"})
    assert refused.status == 400


CHANNEL_FOLDER_SETTINGS = ("web_left_sidebar_unreads_count_summary",   # level 398
                           "web_left_sidebar_show_channel_folders",    # level 411
                           "web_inbox_show_channel_folders")           # level 431


def test_display_settings_of_the_channel_folders_era(realm, register_queue, fetch_events,
                                                      drain_events, advertise):
    advertise(431)
    queue_id = register_queue(realm.member, event_types=["user_settings",
                                                         "realm_user_settings_defaults"])[
        "queue_id"]
    state = realm.member.post("/register", {"fetch_event_types": [
        "user_settings", "realm_user_settings_defaults"]}).json
    assert [state["user_settings"][n] for n in CHANNEL_FOLDER_SETTINGS] == [True] * 3
    assert [state["realm_user_settings_defaults"][n] for n in CHANNEL_FOLDER_SETTINGS] == \
        [True] * 3
    # Each is a personal setting and an organization default, told as it changes
    assert realm.member.patch("/settings", dict.fromkeys(CHANNEL_FOLDER_SETTINGS, False)).ok
    assert realm.admin.patch("/realm/user_settings_defaults", {
        "web_inbox_show_channel_folders": False}).ok
    assert realm.member.patch("/settings", {"web_inbox_show_channel_folders": "x"}).status == 400
    drain_events()
    told = {(e["type"], e["property"]): e["value"] for e in fetch_events(realm.member, queue_id)}
    assert told == {**{("user_settings", n): False for n in CHANNEL_FOLDER_SETTINGS},
                    ("realm_user_settings_defaults", "web_inbox_show_channel_folders"): False}
    # Below their levels they are neither shown nor told
    advertise(397)
    state = realm.member.post("/register", {"fetch_event_types": [
        "user_settings", "realm_user_settings_defaults"]}).json
    assert not set(CHANNEL_FOLDER_SETTINGS) & set(state["user_settings"])
    assert not set(CHANNEL_FOLDER_SETTINGS) & set(state["realm_user_settings_defaults"])


def test_registration_keys_of_the_12_series(realm, advertise):
    def register():
        response = realm.member.post("/register", {"fetch_event_types": ["realm"]})
        assert response.ok, response.json
        return response.json

    advertise(425)
    older = register()
    assert older["realm_is_zephyr_mirror_realm"] is False
    assert older["server_supported_permission_settings"]["stream"][
        "can_administer_channel_group"]["default_group_name"] == "stream_creator_or_nobody"
    assert (older["giphy_rating_options"]["g"]["id"], older["realm_giphy_rating"]) == (2, 2)
    assert not {"gif_rating_options", "tenor_api_key", "server_report_message_types",
                "realm_owner_full_content_access"} & set(older)
    advertise(442)
    state = register()
    assert "realm_is_zephyr_mirror_realm" not in state   # level 426
    assert state["server_supported_permission_settings"]["stream"][
        "can_administer_channel_group"]["default_group_name"] == "channel_creator"   # 427
    assert [t["key"] for t in state["server_report_message_types"]] == [   # level 435
        "spam", "harassment", "inappropriate", "norms", "other"]
    assert state["realm_owner_full_content_access"] is False   # level 438
    # Level 442: one rating for every GIF picker, G first; no picker key here
    assert "giphy_rating_options" not in state and state["tenor_api_key"] == ""
    assert (state["gif_rating_options"]["g"]["id"], state["realm_giphy_rating"]) == (1, 1)


def test_subscriber_count_in_channel_objects(realm, advertise):
    stream_id = channel(realm.owner, "counted", [realm.owner, realm.member])

    def counts() -> list[int | None]:
        [sub] = [s for s in realm.owner.get("/users/me/subscriptions").json["subscriptions"]
                 if s["stream_id"] == stream_id]
        [listed] = [s for s in realm.owner.post("/register", {
            "fetch_event_types": ["stream"]}).json["streams"] if s["stream_id"] == stream_id]
        return [realm.owner.get(f"/streams/{stream_id}").json["stream"].get(
            "subscriber_count"), sub.get("subscriber_count"), listed.get("subscriber_count")]

    # Not below level 394, which added it
    advertise(393)
    assert counts() == [None, None, None]
    advertise(394)
    assert counts() == [2, 2, 2]


def test_moved_message_ids_are_sorted(realm, register_queue, fetch_events, drain_events):
    channel(realm.owner, "sorted", [realm.owner])
    ids = [send(realm.owner, "sorted", "a", f"m{n}") for n in range(3)]
    queue_id = register_queue(realm.owner, event_types=["update_message"])["queue_id"]
    assert realm.owner.patch(f"/messages/{ids[1]}", {"topic": "b",
                                                     "propagate_mode": "change_all"}).ok
    drain_events()
    [event] = [e for e in fetch_events(realm.owner, queue_id) if e["type"] == "update_message"]
    assert event["message_ids"] == sorted(event["message_ids"]) == ids


def test_messages_by_ids(realm):
    channel(realm.member, "byids")
    message_id = send(realm.member, "byids", "t", "x")
    response = realm.member.get("/messages", {"message_ids": [message_id]})
    assert response.ok and [m["id"] for m in response.json["messages"]] == [message_id]


def test_unsupported_parameters_are_reported(realm):
    stream_id = channel(realm.owner, "reported")
    cases = [
        (realm.owner.post("/users/me/subscriptions", {
            "subscriptions": [{"name": "reported2"}], "message_retention_days": 3,
            "is_default_stream": True, "can_add_subscribers_group": 1,
            "can_administer_channel_group": 1, "can_remove_subscribers_group": 1,
            "can_send_message_group": 1, "can_subscribe_group": 1,
            "can_move_messages_within_channel_group": 1,
            "can_move_messages_out_of_channel_group": 1, "can_resolve_topics_group": 1,
            "can_delete_any_message_group": 1, "can_delete_own_message_group": 1,
            "can_create_topic_group": 1}),
         {"message_retention_days", "is_default_stream", "can_add_subscribers_group",
          "can_administer_channel_group", "can_remove_subscribers_group",
          "can_send_message_group", "can_subscribe_group",
          "can_move_messages_within_channel_group", "can_move_messages_out_of_channel_group",
          "can_resolve_topics_group", "can_delete_any_message_group",
          "can_delete_own_message_group", "can_create_topic_group"}),
        (realm.owner.get("/streams", {"include_all": True,
                                      "include_can_access_content": True}),
         {"include_all", "include_can_access_content"}),
        (realm.owner.patch(f"/streams/{stream_id}", {"description": "d",
                                                     "can_send_message_group": 1,
                                                     "can_subscribe_group": 1}),
         {"can_send_message_group", "can_subscribe_group"}),
    ]
    group = realm.owner.post("/user_groups/create", {"name": "crew", "description": "",
                                                     "members": [realm.owner.user_id]})
    assert group.ok, group.json
    cases.append((realm.owner.patch(f"/user_groups/{group.json['group_id']}",
                                    {"description": "x", "deactivated": False}),
                  {"deactivated"}))
    for response, reported in cases:
        assert response.ok, response.json
        assert set(response.json["ignored_parameters_unsupported"]) == reported


# ---- operations new at later levels -------------------------------------------------------

def test_navigation_views_lifecycle_with_events_and_state(realm, register_queue, fetch_events,
                                                          drain_events):
    # GIVEN a queue for navigation view events, and another user's
    queue_id = register_queue(realm.member, event_types=["navigation_view"])["queue_id"]
    others = register_queue(realm.admin, event_types=["navigation_view"])["queue_id"]
    # WHEN a built-in view is unpinned and a custom view is added, renamed and removed
    assert realm.member.post("/navigation_views", {"fragment": "inbox",
                                                   "is_pinned": False}).ok
    custom = "narrow/channel/9-design"
    assert realm.member.post("/navigation_views", {"fragment": custom, "is_pinned": True,
                                                   "name": "Design"}).ok
    # THEN both are listed, in the order they were added
    listed = realm.member.get("/navigation_views").json["navigation_views"]
    assert listed == [{"fragment": "inbox", "is_pinned": False, "name": None},
                      {"fragment": custom, "is_pinned": True, "name": "Design"}]
    state = realm.member.post("/register", {"fetch_event_types": ["navigation_view"]}).json
    assert state["navigation_views"] == listed
    assert realm.admin.get("/navigation_views").json["navigation_views"] == []
    # WHEN the custom one is edited (its fragment percent-encoded in the path) and removed
    path = f"/navigation_views/{quote(custom, safe='')}"
    assert realm.member.patch(path, {"name": "Designs", "is_pinned": False}).ok
    assert realm.member.delete(path).ok
    assert realm.member.get("/navigation_views").json["navigation_views"] == [listed[0]]
    # THEN each change was one event to the owner only, in the reference's shapes
    drain_events()
    events = [{k: v for k, v in e.items() if k != "id"}
              for e in fetch_events(realm.member, queue_id)]
    assert events == [
        {"type": "navigation_view", "op": "add", "navigation_view": listed[0]},
        {"type": "navigation_view", "op": "add", "navigation_view": listed[1]},
        {"type": "navigation_view", "op": "update", "fragment": custom,
         "data": {"name": "Designs", "is_pinned": False}},
        {"type": "navigation_view", "op": "remove", "fragment": custom}]
    assert fetch_events(realm.admin, others) == []


def test_navigation_view_fragment_with_its_slashes_in_the_path(realm):
    # The reference reads the rest of the path as the fragment, as its example sends it
    fragment = "narrow/channel/9-design/topic/plans"
    assert realm.member.post("/navigation_views", {"fragment": fragment, "is_pinned": True,
                                                   "name": "Plans"}).ok
    assert realm.member.patch(f"/navigation_views/{fragment}", {"is_pinned": False}).ok
    [view] = realm.member.get("/navigation_views").json["navigation_views"]
    assert view == {"fragment": fragment, "is_pinned": False, "name": "Plans"}
    assert realm.member.delete(f"/navigation_views/{fragment}").ok
    assert realm.member.get("/navigation_views").json["navigation_views"] == []
    missing = realm.member.delete("/navigation_views/narrow/is/nothing")
    assert missing.status in (400, 404) and missing.json["result"] == "error"


@pytest.mark.parametrize(("method", "path", "params", "status"), [
    ("POST", "/navigation_views", {"fragment": "inbox", "is_pinned": True, "name": "Mine"},
     400),                                            # a built-in view keeps its name
    ("POST", "/navigation_views", {"fragment": "narrow/is/alerted", "is_pinned": True}, 400),
    ("POST", "/navigation_views", {"fragment": "recent", "is_pinned": True}, 400),  # again
    ("POST", "/navigation_views", {"fragment": "narrow/x", "is_pinned": True,
                                   "name": "Taken"}, 400),   # the name is another view's
    ("PATCH", "/navigation_views/feed", {"is_pinned": True}, 404),
    ("PATCH", "/navigation_views/recent", {"name": "Other"}, 400),
    ("DELETE", "/navigation_views/feed", {}, 404),
])
def test_navigation_view_errors(realm, method, path, params, status):
    assert realm.member.post("/navigation_views", {"fragment": "recent",
                                                   "is_pinned": True}).ok
    assert realm.member.post("/navigation_views", {"fragment": "narrow/y", "is_pinned": True,
                                                   "name": "Taken"}).ok
    response = realm.member.call(method, path, params)
    assert response.status == status and response.json["code"] == "BAD_REQUEST", \
        response.json
    assert len(realm.member.get("/navigation_views").json["navigation_views"]) == 2


def test_create_channel(realm, register_queue, fetch_events, drain_events, advertise):
    advertise(421)   # subscriber_count (394) shows who was subscribed
    # GIVEN a subscriber-to-be's queue
    queue_id = register_queue(realm.member, event_types=["subscription"])["queue_id"]
    # WHEN a member creates a private channel for themself and another
    response = realm.moderator.post("/channels/create", {
        "name": "launch", "subscribers": [realm.moderator.user_id, realm.member.user_id],
        "description": "Go **live**", "invite_only": True})
    assert response.ok, response.json
    stream_id = response.json["id"]
    # THEN it exists with those subscribers, and the subscriber heard of it
    stream = realm.moderator.get(f"/streams/{stream_id}").json["stream"]
    assert (stream["name"], stream["invite_only"]) == ("launch", True)
    assert stream["rendered_description"] == "<p>Go <strong>live</strong></p>"
    assert stream["subscriber_count"] == 2
    drain_events()
    added = [e for e in fetch_events(realm.member, queue_id) if e["op"] == "add"]
    assert [s["stream_id"] for e in added for s in e["subscriptions"]] == [stream_id]
    # AND an empty list of subscribers makes a channel nobody is subscribed to
    empty = realm.moderator.post("/channels/create", {"name": "quiet", "subscribers": []})
    assert empty.ok, empty.json
    assert realm.moderator.get(f"/streams/{empty.json['id']}").json["stream"][
        "subscriber_count"] == 0
    # AND a user named twice is subscribed once
    twice = realm.moderator.post("/channels/create", {
        "name": "echo", "subscribers": [realm.member.user_id] * 3})
    assert twice.ok, twice.json
    assert realm.moderator.get(f"/streams/{twice.json['id']}").json["stream"][
        "subscriber_count"] == 1
    # AND a taken name, or a guest, is refused
    taken = realm.owner.post("/channels/create", {"name": "launch", "subscribers": []})
    assert taken.status == 409 and taken.json["code"] == "CHANNEL_ALREADY_EXISTS"
    guest = realm.guest.post("/channels/create", {"name": "g", "subscribers": []})
    assert guest.status == 400
    missing = realm.owner.post("/channels/create", {"name": "x"})
    assert missing.status == 400 and missing.json["code"] == "REQUEST_VARIABLE_MISSING"


def test_welcome_bot_custom_message(realm):
    text = "Welcome aboard: read #**general** first."
    response = realm.admin.post("/realm/test_welcome_bot_custom_message",
                                {"welcome_message_custom_text": text})
    assert response.ok, response.json
    message = realm.admin.get(f"/messages/{response.json['message_id']}",
                              {"apply_markdown": False}).json["message"]
    assert message["content"] == text and message["type"] == "private"
    assert message["sender_full_name"] == "Welcome Bot"
    assert [r["id"] for r in message["display_recipient"]] == sorted(
        [realm.admin.user_id, message["sender_id"]]) or \
        realm.admin.user_id in [r["id"] for r in message["display_recipient"]]
    for account, params, code in (
            (realm.member, {"welcome_message_custom_text": text}, "UNAUTHORIZED_PRINCIPAL"),
            (realm.admin, {"welcome_message_custom_text": ""}, "BAD_REQUEST"),
            (realm.admin, {"welcome_message_custom_text": "x" * 8001}, "BAD_REQUEST")):
        refused = account.post("/realm/test_welcome_bot_custom_message", params)
        assert refused.status == 400 and refused.json["code"] == code, refused.json


def test_video_call_providers_of_12_0_answer_as_unconfigured(realm):
    """Levels 460, 465, 493: the providers are not offered (not among the organization's
    available providers) and their endpoints answer as the reference's without them."""
    providers = realm.member.post("/register", {"fetch_event_types": ["realm"]}).json[
        "realm_available_video_chat_providers"]
    assert {p["id"] for p in providers.values()} == {0, 1}
    for path, params, name in (("/calls/constructorgroups/create", {}, "Constructor Groups"),
                               ("/calls/nextcloud_talk/create", {"room_name": "sync"},
                                "Nextcloud Talk"),
                               ("/calls/webex/create", {}, "Webex")):
        answer = realm.member.post(path, params)
        assert (answer.status, answer.json["msg"]) == (400, f"{name} is not configured.")
    assert realm.member.post("/calls/nextcloud_talk/create").status == 400   # room_name
