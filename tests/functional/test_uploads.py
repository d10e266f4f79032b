"""POST /user_uploads, reading files back, and which messages an upload belongs to."""
from __future__ import annotations

from urllib.parse import urlparse

import boto3

from chalicelib import config
from chalicelib.models.uploads import Attachment
from tests.functional.edit_helpers import channel, send


def upload(account, name: str = "notes.txt", data: bytes = b"hello file"):
    response = account.upload([("file", name, data)])
    assert response.status == 200, response.json
    return response.json


def stored_object(path_id: str) -> bytes:
    s3 = boto3.client("s3", region_name="us-east-1")
    return s3.get_object(Bucket=config.upload_bucket(), Key=path_id)["Body"].read()


def test_upload_store_and_read_back(realm):
    body = upload(realm.member, "Q3 plan (final).txt", b"numbers")
    assert body["filename"] == "Q3 plan (final).txt"
    assert body["uri"] == body["url"] and body["uri"].startswith(
        f"/user_uploads/{realm.realm_id}/")
    path_id = body["uri"].removeprefix("/user_uploads/")
    assert path_id.endswith("/Q3-plan-final-.txt") or path_id.endswith("/Q3-plan-final.txt")
    assert stored_object(path_id) == b"numbers"
    attachment = Attachment.get(realm.realm_id, path_id)
    assert (attachment.owner_id, attachment.size, attachment.name) == (
        realm.member.user_id, 7, "Q3 plan (final).txt")
    # the owner gets a redirect to a short-lived link to the object
    response = realm.member.call("GET", body["uri"].removeprefix("/api/v1"))
    assert response.status == 302
    location = urlparse({k.lower(): v for k, v in response.headers.items()}["location"])
    assert location.path.endswith(path_id) and "Signature" in location.query


def test_upload_errors(realm):
    assert realm.member.post("/user_uploads", {"note": "no file"}).json["msg"] == \
        "You must specify a file to upload"
    two = realm.member.upload([("a", "a.txt", b"a"), ("b", "b.txt", b"b")])
    assert two.status == 400 and "one file" in two.json["msg"]
    big = realm.member.upload([("f", "big.bin", b"x" * (5 * 1024 * 1024 + 1))])
    assert big.status == 400 and big.json["msg"] == "File too large: the limit is 5 MiB"


def test_who_may_read_an_upload(realm):
    channel(realm.owner, "talk", [realm.owner, realm.member])
    path = upload(realm.member)["uri"]
    path_id = path.removeprefix("/user_uploads/")
    # not linked anywhere: only the owner
    assert realm.owner.call("GET", path).status == 404
    # linked in a channel message: its readers too
    message_id = send(realm.member, "talk", "files", f"see [notes]({path})")
    assert Attachment.get(realm.realm_id, path_id).message_ids == {message_id}
    assert realm.owner.call("GET", path).status == 302
    assert realm.guest.call("GET", path).status == 404
    other_realm_path = f"/user_uploads/{realm.realm_id + 1000}/{'a' * 24}/x.txt"
    assert realm.owner.call("GET", other_realm_path).status == 404


def test_links_claim_only_own_uploads(realm):
    channel(realm.owner, "talk", [realm.owner, realm.member])
    mine = upload(realm.member)["uri"]
    theirs = upload(realm.owner)["uri"]
    send(realm.member, "talk", "files", f"[a]({mine}) [b]({theirs})")
    assert Attachment.get(realm.realm_id, mine.removeprefix("/user_uploads/")).message_ids
    assert not Attachment.get(realm.realm_id,
                              theirs.removeprefix("/user_uploads/")).message_ids


def test_edit_that_removes_the_last_link_returns_the_detached_upload(realm):
    channel(realm.owner, "talk", [realm.owner, realm.member])
    body = upload(realm.member, "plan.txt", b"12345")
    path_id = body["uri"].removeprefix("/user_uploads/")
    first = send(realm.member, "talk", "files", f"[plan]({body['uri']})")
    second = send(realm.member, "talk", "files", f"again [plan]({body['uri']})")
    # WHEN one of two messages drops the link: still referenced, nothing detached
    response = realm.member.patch(f"/messages/{first}", {"content": "no file here"})
    assert response.json["detached_uploads"] == []
    assert Attachment.get(realm.realm_id, path_id).message_ids == {second}
    # WHEN the last one drops it: the edit returns it
    response = realm.member.patch(f"/messages/{second}", {"content": "gone"})
    [detached] = response.json["detached_uploads"]
    attachment = Attachment.get(realm.realm_id, path_id)
    assert detached == {"id": attachment.attachment_id, "name": "plan.txt",
                        "path_id": path_id, "size": 5,
                        "create_time": attachment.create_time, "messages": []}
    assert not attachment.message_ids
    # AND an edit that links it again re-attaches it
    assert realm.member.patch(f"/messages/{first}", {"content": f"[p]({body['uri']})"}).ok
    assert Attachment.get(realm.realm_id, path_id).message_ids == {first}
