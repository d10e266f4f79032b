"""A user's uploads: GET /attachments, DELETE /attachments/{id}, the space used, the
quota, and the attachment events."""
from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import ClientError

from chalicelib import config
from chalicelib.models.realms import Realm
from tests.functional.edit_helpers import channel, send


def upload(account, name: str, data: bytes) -> str:
    response = account.upload([("file", name, data)])
    assert response.ok, response.json
    return response.json["url"].removeprefix("/user_uploads/")


def listed(account):
    response = account.get("/attachments")
    assert response.ok, response.json
    return response.json


def error_of(response) -> str:
    assert response.status == 400, response.json
    assert response.json["code"] == "BAD_REQUEST"
    return response.json["msg"]


def test_list_own_uploads_with_linking_messages_and_space_used(realm, register_queue,
                                                              fetch_events, drain_events,
                                                              advertise):
    advertise(442)   # times in milliseconds below level 443
    queue = register_queue(realm.member, event_types=["attachment"])["queue_id"]
    channel(realm.member, "files")
    # WHEN a member uploads two files and links one in two messages
    notes = upload(realm.member, "notes.txt", b"12345")
    plan = upload(realm.member, "plan.txt", b"1234567890")
    upload(realm.admin, "theirs.txt", b"abc")
    first = send(realm.member, "files", "t", f"[notes](/user_uploads/{notes})")
    second = send(realm.member, "files", "t", f"again [notes](/user_uploads/{notes})")
    # THEN they list their own files, in upload order, with the messages and their dates
    body = listed(realm.member)
    assert body["upload_space_used"] == 18   # the organization's, every user's files
    [one, two] = body["attachments"]
    assert (one["name"], one["path_id"], one["size"]) == ("notes.txt", notes, 5)
    assert [m["id"] for m in one["messages"]] == [first, second]
    sent = realm.member.get(f"/messages/{first}").json["message"]["timestamp"]
    assert one["messages"][0]["date_sent"] == sent * 1000
    assert (two["name"], two["size"], two["messages"]) == ("plan.txt", 10, [])
    assert one["create_time"] > 10**12 and two["id"] > one["id"]
    # From level 443, in seconds
    advertise(443)
    [one_in_seconds, _] = listed(realm.member)["attachments"]
    assert one_in_seconds["messages"][0]["date_sent"] == sent
    assert one_in_seconds["create_time"] == one["create_time"] // 1000
    assert [a["name"] for a in listed(realm.admin)["attachments"]] == ["theirs.txt"]
    assert listed(realm.guest) == {**listed(realm.guest), "attachments": [],
                                   "upload_space_used": 18}
    # WHEN the member deletes one
    assert realm.member.delete(f"/attachments/{two['id']}").ok
    # THEN it is gone from the list, the space, and the bucket
    after = listed(realm.member)
    assert [a["id"] for a in after["attachments"]] == [one["id"]]
    assert after["upload_space_used"] == 8
    s3 = boto3.client("s3", region_name=config.region())
    with pytest.raises(ClientError):
        s3.get_object(Bucket=config.upload_bucket(), Key=plan)
    assert realm.member.call("GET", f"/user_uploads/{plan}").status == 404
    # AND the uploader heard of each upload and of the deletion
    drain_events()
    events = [{k: v for k, v in e.items() if k != "id"} for e in fetch_events(realm.member,
                                                                               queue)]
    assert [(e["op"], e["attachment"]["id"], e["upload_space_used"]) for e in events] == [
        ("add", one["id"], 5), ("add", two["id"], 15), ("remove", two["id"], 8)]
    assert events[0]["attachment"] == {**one, "messages": []}
    assert events[2]["attachment"] == {"id": two["id"]}


def test_from_level_472_attachments_list_their_message_ids(realm, register_queue,
                                                          fetch_events, drain_events,
                                                          advertise):
    advertise(472)
    queue = register_queue(realm.member, event_types=["attachment"])["queue_id"]
    channel(realm.member, "files")
    notes = upload(realm.member, "notes.txt", b"12345")
    second = send(realm.member, "files", "t", f"again [notes](/user_uploads/{notes})")
    first = send(realm.member, "files", "t", f"[notes](/user_uploads/{notes})")
    # THEN the file lists the ids of the messages that link it, and no message objects
    [listed_file] = listed(realm.member)["attachments"]
    assert listed_file["message_ids"] == sorted([first, second])
    assert "messages" not in listed_file
    # AND its add event is in the same form
    drain_events()
    [added] = fetch_events(realm.member, queue)
    assert added["attachment"] == {**listed_file, "message_ids": []}


def test_only_the_owner_deletes_and_unknown_ids_are_refused(realm):
    mine = upload(realm.member, "mine.txt", b"x")
    [attachment] = listed(realm.member)["attachments"]
    for other in (realm.admin, realm.owner, realm.guest):
        assert error_of(other.delete(f"/attachments/{attachment['id']}")) == \
            "No such uploaded file"
    for missing in (999999, 0, -1):
        assert error_of(realm.member.delete(f"/attachments/{missing}")) == \
            "No such uploaded file"
    assert realm.member.delete(f"/attachments/{attachment['id']}").ok
    assert error_of(realm.member.delete(f"/attachments/{attachment['id']}")) == \
        "No such uploaded file"
    assert mine not in str(listed(realm.member))


def test_upload_quota_is_enforced(realm):
    # GIVEN an organization whose quota is 1 MiB
    Realm(realm.realm_id).update(actions=[Realm.settings["upload_quota_mib"].set(1)])
    state = realm.member.post("/register", {"fetch_event_types": ["realm"]}).json
    assert state["realm_upload_quota_mib"] == 1
    upload(realm.member, "big.bin", b"x" * (700 * 1024))
    # WHEN an upload would pass it THEN it is refused and nothing is stored
    response = realm.admin.upload([("file", "more.bin", b"y" * (400 * 1024))])
    assert error_of(response) == "This file would take the organization over its storage quota."
    assert listed(realm.admin)["attachments"] == []
    assert listed(realm.admin)["upload_space_used"] == 700 * 1024
    # AND after a deletion there is room again
    [big] = listed(realm.member)["attachments"]
    assert realm.member.delete(f"/attachments/{big['id']}").ok
    upload(realm.admin, "more.bin", b"y" * (400 * 1024))
