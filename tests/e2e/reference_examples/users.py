"""The rows of the reference's test_users, in its order."""
from __future__ import annotations

from tests.e2e.reference_dev_data import DevData
from tests.e2e.reference_examples.base import Example, Result, first_subscription, keep, stream_id, that


def _check_members(x: DevData, result: Result) -> None:
    [newbie] = [m for m in result["members"] if m["email"] == x.email("newbie")]
    assert not newbie["is_admin"] and newbie["full_name"] == "New User"


def _check_members_with_profiles(x: DevData, result: Result) -> None:
    for member in result["members"]:
        if member["is_bot"]:
            assert member.get("profile_data") is None
        else:
            assert member.get("profile_data") is not None
        # client_gravatar: no URL for a Gravatar; a picture the server generated (the
        # organization's default_avatar_source "J", level 456) has its own
        assert member["avatar_url"] is None or \
            member["avatar_url"].startswith("/user_avatars/"), member


def _upload_and_share(x: DevData) -> Result:
    with x.image.open("rb") as fp:
        result = x.client.upload_file(fp)
    x.client.send_message({"type": "stream", "to": "Denmark", "topic": "Castle",
                           "content": f"Check out [this picture]({result['url']}) of my castle!"})
    return result


def _deactivate_own_user(x: DevData) -> Result:
    result = x.client.call_endpoint(url="/users/me", method="DELETE")
    # The example reactivates the account at once, as later examples need it.
    x.found["reactivated"] = x.owner.reactivate_user_by_id(x.users["iago"])
    return result


def _check_groups(x: DevData, result: Result) -> None:
    [hamlet] = [g for g in result["user_groups"] if g["name"] == "hamletcharacters"]
    assert hamlet["description"] == "Characters of Hamlet"
    [leadership] = [g for g in result["user_groups"] if g["name"] == "leadership"]
    x.found["leadership"] = leadership["id"]


def _fragment(x: DevData) -> str:
    views = x.client.call_endpoint(url="navigation_views", method="GET")["navigation_views"]
    return str(views[0]["fragment"])


USERS: list[Example] = [
    Example("create_user", "POST /users",
            lambda x: x.client.create_user({"email": x.email("newbie"), "password": "temp",
                                            "full_name": "New User"}),
            keep("newbie", lambda r: r["user_id"])),
    Example("create_user[email already used]", "POST /users",
            lambda x: x.client.create_user({"email": x.email("newbie"), "password": "temp",
                                            "full_name": "New User"}), error="BAD_REQUEST"),
    Example("get_members", "GET /users", lambda x: x.client.get_members(), _check_members),
    Example("get_members[client_gravatar]", "GET /users",
            lambda x: x.client.get_members({"client_gravatar": False}),
            that(lambda x, r: r["members"][0]["avatar_url"] is not None, "a URL for each")),
    Example("javascript get_users[client_gravatar]", "GET /users",
            lambda x: x.client.get_members({"client_gravatar": True})),
    Example("get_members[include_custom_profile_fields]", "GET /users",
            lambda x: x.client.get_members({"include_custom_profile_fields": True}),
            _check_members_with_profiles),
    Example("get_single_user", "GET /users/{user_id}",
            lambda x: x.client.get_user_by_id(x.users["cordelia"])),
    Example("get_single_user[include_custom_profile_fields]", "GET /users/{user_id}",
            lambda x: x.client.get_user_by_id(x.users["cordelia"],
                                              include_custom_profile_fields=True)),
    Example("deactivate_user", "DELETE /users/{user_id}",
            lambda x: x.client.deactivate_user_by_id(x.users["cordelia"])),
    Example("reactivate_user", "POST /users/{user_id}/reactivate",
            lambda x: x.client.reactivate_user_by_id(x.users["cordelia"])),
    Example("update_user[full_name]", "PATCH /users/{user_id}",
            lambda x: x.client.update_user_by_id(x.users["hamlet"], full_name="New Name")),
    Example("update_user[profile_data]", "PATCH /users/{user_id}",
            lambda x: x.client.update_user_by_id(
                x.users["cordelia"], profile_data=[{"id": x.profile_field_id,
                                                    "value": "some data"}])),
    Example("update_status", "POST /users/me/status",
            lambda x: x.client.call_endpoint(url="/users/me/status", method="POST", request={
                "status_text": "on vacation", "away": False, "emoji_name": "car",
                "emoji_code": "1f697", "reaction_type": "unicode_emoji"})),
    Example("update_status[status_text too long]", "POST /users/me/status",
            lambda x: x.client.call_endpoint(url="/users/me/status", method="POST", request={
                "status_text": "This is a message that exceeds 60 characters, and so should "
                               "throw an error.", "away": "false"}), error="BAD_REQUEST"),
    Example("get_user_status", "GET /users/{user_id}/status",
            lambda x: x.client.call_endpoint(url=f"/users/{x.users['iago']}/status",
                                             method="GET")),
    Example("get_user_by_email", "GET /users/{email}",
            lambda x: x.client.call_endpoint(url=f"/users/{x.email('iago')}", method="GET")),
    Example("get_subscription_status", "GET /users/{user_id}/subscriptions/{stream_id}",
            lambda x: x.client.call_endpoint(
                url=f"/users/{x.users['zoe']}/subscriptions/{first_subscription(x)}",
                method="GET")),
    Example("get_profile", "GET /users/me", lambda x: x.client.get_profile()),
    Example("update_settings", "PATCH /settings",
            lambda x: x.client.call_endpoint("/settings", method="PATCH", request={
                "enable_offline_push_notifications": True,
                "enable_online_push_notifications": True, "emojiset": "google"})),
    Example("upload_file", "POST /user_uploads", _upload_and_share),
    Example("get_attachments", "GET /attachments", lambda x: x.client.get_attachments(),
            keep("attachment_id", lambda r: r["attachments"][0]["id"])),
    Example("remove_attachment", "DELETE /attachments/{attachment_id}",
            lambda x: x.client.call_endpoint(url=f"attachments/{x.found['attachment_id']}",
                                             method="DELETE")),
    Example("set_typing_status[direct start]", "POST /typing",
            lambda x: x.client.set_typing_status(
                {"op": "start", "to": [x.users["hamlet"], x.users["iago"]]})),
    Example("set_typing_status[direct stop]", "POST /typing",
            lambda x: x.client.set_typing_status(
                {"op": "stop", "to": [x.users["hamlet"], x.users["iago"]]})),
    Example("set_typing_status[channel start]", "POST /typing",
            lambda x: x.client.set_typing_status(
                {"type": "stream", "op": "start", "stream_id": stream_id(x, "Denmark"),
                 "topic": "typing status"})),
    Example("set_typing_status[channel stop]", "POST /typing",
            lambda x: x.client.set_typing_status(
                {"type": "stream", "op": "stop", "stream_id": stream_id(x, "Denmark"),
                 "topic": "typing status"})),
    Example("update_presence", "POST /users/me/presence",
            lambda x: x.client.update_presence({"status": "active", "ping_only": False,
                                                "new_user_input": False,
                                                "last_update_id": -1})),
    Example("get_user_presence", "GET /users/{user_id_or_email}/presence",
            lambda x: x.client.get_user_presence(x.email("iago"))),
    Example("get_presence", "GET /realm/presence", lambda x: x.client.get_realm_presence()),
    Example("create_user_group", "POST /user_groups/create",
            lambda x: x.client.create_user_group({
                "name": "leadership", "description": "The leadership team.",
                "members": [x.users[n] for n in ("aaron", "zoe", "cordelia", "hamlet")]})),
    Example("get_user_groups", "GET /user_groups", lambda x: x.client.get_user_groups(),
            _check_groups),
    Example("update_user_group", "PATCH /user_groups/{user_group_id}",
            lambda x: x.client.update_user_group({"group_id": x.found["leadership"],
                                                  "name": "leadership",
                                                  "description": "The leadership team."})),
    Example("update_user_group_members", "POST /user_groups/{user_group_id}/members",
            lambda x: x.client.update_user_group_members(x.found["leadership"], {
                "delete": [x.users["cordelia"], x.users["hamlet"]],
                "add": [x.users["iago"]]})),
    Example("get_alert_words", "GET /users/me/alert_words",
            lambda x: x.client.get_alert_words()),
    Example("add_alert_words", "POST /users/me/alert_words",
            lambda x: x.client.add_alert_words(["foo", "bar"])),
    Example("remove_alert_words", "DELETE /users/me/alert_words",
            lambda x: x.client.remove_alert_words(x.client.get_alert_words()["alert_words"])),
    Example("deactivate_own_user", "DELETE /users/me", _deactivate_own_user,
            that(lambda x, r: x.found["reactivated"]["result"] == "success", "reactivated")),
    Example("add_user_mute", "POST /users/me/muted_users/{muted_user_id}",
            lambda x: x.client.call_endpoint(url=f"/users/me/muted_users/{x.users['hamlet']}",
                                             method="POST")),
    Example("remove_user_mute", "DELETE /users/me/muted_users/{muted_user_id}",
            lambda x: x.client.call_endpoint(url=f"/users/me/muted_users/{x.users['hamlet']}",
                                             method="DELETE")),
    Example("get_alert_words[again]", "GET /users/me/alert_words",
            lambda x: x.client.get_alert_words()),
    Example("add_alert_words[again]", "POST /users/me/alert_words",
            lambda x: x.client.add_alert_words(["foo", "bar"])),
    Example("add_navigation_views", "POST /navigation_views",
            lambda x: x.client.call_endpoint(url="navigation_views", method="POST", request={
                "fragment": "narrow/is/alerted", "is_pinned": True, "name": "Alert Word"})),
    Example("get_navigation_views", "GET /navigation_views",
            lambda x: x.client.call_endpoint(url="navigation_views", method="GET")),
    Example("update_navigation_views", "PATCH /navigation_views/{fragment}",
            lambda x: x.client.call_endpoint(url=f"navigation_views/{_fragment(x)}",
                                             method="PATCH", request={"is_pinned": True})),
    Example("remove_navigation_views", "DELETE /navigation_views/{fragment}",
            lambda x: x.client.call_endpoint(url=f"navigation_views/{_fragment(x)}",
                                             method="DELETE")),
    Example("create_saved_snippet", "POST /saved_snippets",
            lambda x: x.client.call_endpoint(url="/saved_snippets", method="POST", request={
                "title": "Welcome message",
                "content": "**Welcome** to the organization."})),
    Example("create_saved_snippet[again]", "POST /saved_snippets",
            lambda x: x.client.call_endpoint(url="/saved_snippets", method="POST", request={
                "title": "Welcome message",
                "content": "**Welcome** to the organization."})),
    Example("get_saved_snippets", "GET /saved_snippets",
            lambda x: x.client.call_endpoint(url="/saved_snippets", method="GET"),
            keep("snippet", lambda r: r["saved_snippets"][0]["id"])),
    Example("edit_saved_snippet", "PATCH /saved_snippets/{saved_snippet_id}",
            lambda x: x.client.call_endpoint(
                url=f"/saved_snippets/{x.found['snippet']}", method="PATCH",
                request={"title": "New welcome message", "content": "Welcome!"})),
    Example("delete_saved_snippet", "DELETE /saved_snippets/{saved_snippet_id}",
            lambda x: x.client.call_endpoint(url=f"/saved_snippets/{x.found['snippet']}",
                                             method="DELETE")),
    Example("remove_alert_words[again]", "DELETE /users/me/alert_words",
            lambda x: x.client.remove_alert_words(x.client.get_alert_words()["alert_words"])),
    Example("add_apns_token", "POST /users/me/apns_device_token",
            lambda x: x.client.call_endpoint(url="/users/me/apns_device_token", method="POST",
                                             request={"token": "c0ffee",
                                                      "appid": "org.zulip.Zulip"})),
    Example("remove_apns_token", "DELETE /users/me/apns_device_token",
            lambda x: x.client.call_endpoint(url="/users/me/apns_device_token",
                                             method="DELETE", request={"token": "c0ffee"})),
    Example("add_fcm_token", "POST /users/me/android_gcm_reg_id",
            lambda x: x.client.call_endpoint(url="/users/me/android_gcm_reg_id", method="POST",
                                             request={"token": "android-token"})),
    Example("remove_fcm_token", "DELETE /users/me/android_gcm_reg_id",
            lambda x: x.client.call_endpoint(url="/users/me/android_gcm_reg_id",
                                             method="DELETE",
                                             request={"token": "android-token"})),
]
