"""Custom emoji: POST/DELETE /realm/emoji/{emoji_name}, GET /realm/emoji, events, state."""
from __future__ import annotations

from urllib.parse import urlparse

import boto3

from chalicelib import config

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
GIF = b"GIF89a" + b"\x00" * 32


def add(account, name, files=None):
    files = [("file", "img.png", PNG)] if files is None else files
    return account.upload(files, path=f"/realm/emoji/{name}")


def listed(account):
    response = account.get("/realm/emoji")
    assert response.ok, response.json
    return response.json["emoji"]


def stored_image(key):
    s3 = boto3.client("s3", region_name=config.region())
    return s3.get_object(Bucket=config.upload_bucket(), Key=key)["Body"].read()


def test_member_adds_emoji_listed_in_reference_shape_with_image_in_s3(realm):
    # WHEN a member uploads an image under a new name
    response = add(realm.member, "green_tick")
    # THEN it is listed by id with the reference fields, and its image is stored
    assert response.ok, response.json
    [(emoji_id, emoji)] = listed(realm.guest).items()
    assert emoji == {"id": emoji_id, "name": "green_tick",
                     "source_url": f"/user_avatars/{realm.realm_id}/emoji/images/{emoji_id}.png",
                     "still_url": None, "deactivated": False,
                     "author_id": realm.member.user_id}
    assert stored_image(emoji["source_url"].removeprefix("/user_avatars/")) == PNG


def test_image_url_redirects_for_users_of_the_realm_only(realm, chalice_client):
    assert add(realm.member, "party", [("f", "p.gif", GIF)]).ok
    [emoji] = listed(realm.member).values()
    path = emoji["source_url"]
    assert path.endswith(".gif")
    response = realm.guest.get(path)
    assert response.status == 302
    location = {k.lower(): v for k, v in response.headers.items()}["location"]
    assert urlparse(location).path.endswith(path.removeprefix("/user_avatars"))
    assert "Signature" in urlparse(location).query
    # Another emoji id, or the path of another realm: not found
    assert realm.guest.get(path.replace(f"/{emoji['id']}.gif", "/999.gif")).status == 404
    other = path.replace(f"/user_avatars/{realm.realm_id}/", "/user_avatars/999999/")
    assert realm.guest.get(other).status == 404


def test_name_is_normalized_and_validated(realm):
    assert add(realm.member, "Big%20Smile").ok    # spaces become underscores, lowercased
    assert [e["name"] for e in listed(realm.member).values()] == ["big_smile"]
    for name, msg in [
        ("a" * 61, "Emoji name is over the limit of 60 characters"),
        ("bad!name", "An emoji name may use only a-z, 0-9, spaces, '-' and '_'."),
        ("ends_", "An emoji name has to end in a letter or a digit."),
        ("ends-", "An emoji name has to end in a letter or a digit."),
        ("%20", "An emoji needs a name"),
    ]:
        response = add(realm.member, name)
        assert response.status == 400 and response.json["code"] == "BAD_REQUEST", name
        assert response.json["msg"] == msg, name
    assert add(realm.member, "a" * 60).ok
    assert add(realm.member, "dash-ok-1").ok


def test_upload_errors(realm):
    cases = [
        ([("a", "a.png", PNG), ("b", "b.png", PNG)], "Attach exactly one image file."),
        ([("a", "a.txt", b"plain text, not an image")], "That file is not an image this server accepts"),
        ([("a", "a.png", PNG + b"\x00" * (5 * 1024 * 1024))],
         "The file is over the 5 MiB limit"),
    ]
    for files, msg in cases:
        response = add(realm.member, "thing", files)
        assert response.status == 400 and response.json["msg"] == msg, msg
    # No multipart body at all
    response = realm.member.post("/realm/emoji/thing", {"note": "no file"})
    assert response.status == 400
    assert response.json["msg"] == "Attach exactly one image file."
    assert listed(realm.member) == {}
    # Exactly 5 MiB is allowed
    assert add(realm.member, "thing", [("a", "a.png", PNG.ljust(5 * 1024 * 1024, b"\0"))]).ok


def test_guest_may_not_add_and_only_admins_override_builtin_names(realm):
    response = add(realm.guest, "mine")
    assert response.status == 400 and response.json["msg"] == "You are not allowed to do this."
    response = add(realm.member, "car")
    assert response.status == 400
    assert response.json["msg"] == "Only administrators may replace a built-in emoji."
    assert add(realm.admin, "car").ok
    assert [e["name"] for e in listed(realm.member).values()] == ["car"]


def test_duplicate_active_name_is_refused_until_deactivated(realm):
    assert add(realm.member, "green_tick").ok
    response = add(realm.admin, "green_tick")
    assert response.status == 400
    assert response.json["msg"] == "This organization already has a custom emoji of that name."
    assert realm.member.delete("/realm/emoji/green_tick").ok
    assert add(realm.admin, "green_tick").ok
    emoji = sorted(listed(realm.member).values(), key=lambda e: int(e["id"]))
    assert [(e["name"], e["deactivated"]) for e in emoji] == [
        ("green_tick", True), ("green_tick", False)]


def test_deactivate_by_author_or_admin_only(realm):
    assert add(realm.member, "first_mark").ok
    assert add(realm.member, "second_mark").ok
    response = realm.moderator.delete("/realm/emoji/first_mark")
    assert response.status == 400
    assert response.json["msg"] == "Only administrators and the emoji's creator can do this"
    assert realm.member.delete("/realm/emoji/first_mark").ok      # the author
    assert realm.admin.delete("/realm/emoji/second_mark").ok       # an administrator
    assert all(e["deactivated"] for e in listed(realm.member).values())


def test_deactivate_missing_or_already_deactivated_is_404(realm):
    response = realm.admin.delete("/realm/emoji/green_tick")
    assert response.status == 404
    assert response.json == {"result": "error", "code": "BAD_REQUEST",
                             "msg": "No emoji called 'green_tick' exists"}
    assert add(realm.member, "green_tick").ok
    assert realm.admin.delete("/realm/emoji/green_tick").ok
    assert realm.admin.delete("/realm/emoji/green_tick").status == 404


def test_emoji_of_other_realms_are_invisible(realm, chalice_client):
    from chalicelib.actions.users.users import NewUser
    from chalicelib.actions.workflows.realms import do_create_realm
    from tests.functional.conftest import Account

    assert add(realm.member, "green_tick").ok
    realm_obj, owner_id, key = do_create_realm(
        "Elsewhere", "elsewhere-emoji", NewUser(email="o@elsewhere-emoji.example.com",
                                                full_name="O", role=100))
    outsider = Account(chalice_client, realm_obj.realm_id, owner_id,
                       "o@elsewhere-emoji.example.com", key, "O", 100)
    assert listed(outsider) == {}
    assert outsider.delete("/realm/emoji/green_tick").status == 404


def test_events_carry_the_full_dict_and_registration_state(realm, register_queue,
                                                          fetch_events, drain_events):
    # GIVEN an emoji and a queue for realm_emoji events
    assert add(realm.member, "first_mark").ok
    drain_events()   # its event is delivered before the queue exists
    state = register_queue(realm.guest, event_types=["realm_emoji"])
    [(one_id, one)] = state["realm_emoji"].items()
    assert one["name"] == "first_mark" and one["deactivated"] is False
    queue = state["queue_id"]
    # WHEN another is added and the first deactivated
    assert add(realm.member, "second_mark").ok
    assert realm.member.delete("/realm/emoji/first_mark").ok
    drain_events()
    # THEN two update events, each with every emoji of the realm
    events = fetch_events(realm.guest, queue)
    assert len(events) == 2, events
    added, removed = events
    assert added["type"] == removed["type"] == "realm_emoji"
    assert added["op"] == removed["op"] == "update"
    assert set(added) == {"id", "type", "op", "realm_emoji"}
    assert {e["name"]: e["deactivated"] for e in added["realm_emoji"].values()} == {
        "first_mark": False, "second_mark": False}
    assert removed["realm_emoji"][one_id]["deactivated"] is True
    assert removed["realm_emoji"] == listed(realm.member)
    # A queue that did not ask for realm_emoji gets none
    other = register_queue(realm.admin, event_types=["user_status"])["queue_id"]
    assert add(realm.member, "third_mark").ok
    drain_events()
    assert fetch_events(realm.admin, other) == []


def test_clients_with_individual_emoji_changes_get_one_emoji_per_event(
        realm, register_queue, fetch_events, drain_events, advertise):
    advertise(491)
    # GIVEN one queue with the capability (as the mobile app registers) and one without
    modern = register_queue(realm.guest, event_types=["realm_emoji"], client_capabilities={
        "individual_emoji_changes": True})["queue_id"]
    legacy = register_queue(realm.member, event_types=["realm_emoji"])["queue_id"]
    # WHEN an emoji is added, then deactivated
    assert add(realm.member, "fresh_mark").ok
    [(emoji_id, emoji)] = listed(realm.member).items()
    assert realm.member.delete("/realm/emoji/fresh_mark").ok
    drain_events()
    # THEN the capable client hears of that emoji alone, never of the whole set
    added, changed = fetch_events(realm.guest, modern)
    assert (added["op"], added["emoji"]) == ("add", emoji)
    assert {k: v for k, v in changed.items() if k != "id"} == {
        "type": "realm_emoji", "op": "update_one", "emoji_id": emoji_id,
        "data": {"deactivated": True}}
    # AND the other client gets the whole set, as before
    assert [e["op"] for e in fetch_events(realm.member, legacy)] == ["update", "update"]


def test_below_level_491_the_capability_changes_nothing(realm, register_queue,
                                                        fetch_events, drain_events, advertise):
    advertise(490)
    queue = register_queue(realm.guest, event_types=["realm_emoji"], client_capabilities={
        "individual_emoji_changes": True})["queue_id"]
    assert add(realm.member, "plain_mark").ok
    drain_events()
    [event] = fetch_events(realm.guest, queue)
    assert event["op"] == "update" and "plain_mark" in {
        e["name"] for e in event["realm_emoji"].values()}
