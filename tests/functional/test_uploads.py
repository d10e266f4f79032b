"""POST /user_uploads, reading files back, and which messages an upload belongs to."""
from __future__ import annotations

import itertools
import threading
from urllib.parse import urlparse

import boto3
import requests

from chalicelib import config
from chalicelib.actions.messages import uploads
from chalicelib.actions.messages.edit import EditRequest, do_update_message
from chalicelib.actions.messages.uploads import plan_attachment_changes
from chalicelib.core.principal import Principal
from chalicelib.models.base import transaction
from chalicelib.models.uploads import Attachment
from tests.functional.conftest import Account
from tests.functional.edit_helpers import channel, send

_other_realms = itertools.count(1)


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
    assert path_id.endswith("/Q3-plan-final-.txt")
    assert stored_object(path_id) == b"numbers"
    attachment = Attachment.get(realm.realm_id, path_id)
    assert (attachment.owner_id, attachment.size, attachment.name) == (
        realm.member.user_id, 7, "Q3 plan (final).txt")
    # the owner gets a short-lived link to the object (the reference's temporary URL)
    response = realm.member.call("GET", body["uri"].removeprefix("/api/v1"))
    assert response.status == 200, response.json
    link = response.json["url"]
    location = urlparse(link)
    assert location.path.endswith(path_id) and "Signature" in location.query
    # AND the link serves the bytes without credentials (moto answers it)
    fetched = requests.get(link, timeout=10)
    assert fetched.status_code == 200 and fetched.content == b"numbers"


def test_upload_errors(realm):
    assert realm.member.post("/user_uploads", {"note": "no file"}).json["msg"] == \
        "Attach a file to upload"
    two = realm.member.upload([("a", "a.txt", b"a"), ("b", "b.txt", b"b")])
    assert two.status == 400 and "one file" in two.json["msg"]
    big = realm.member.upload([("f", "big.bin", b"x" * (5 * 1024 * 1024 + 1))])
    assert big.status == 400 and big.json["msg"] == "File too large: the limit is 5 MiB"
    unnamed = realm.member.upload([("f", "  ", b"data")])
    assert unnamed.status == 400 and unnamed.json["msg"] == "The uploaded file needs a name"
    # exactly at the limit is accepted
    assert realm.member.upload([("f", "edge.bin", b"x" * (5 * 1024 * 1024))]).ok


def test_who_may_read_an_upload(realm):
    channel(realm.owner, "talk", [realm.owner, realm.member])
    path = upload(realm.member)["uri"]
    path_id = path.removeprefix("/user_uploads/")
    # not linked anywhere: only the owner
    assert realm.owner.call("GET", path).status == 404
    # linked in a channel message: its readers too
    message_id = send(realm.member, "talk", "files", f"see [notes]({path})")
    assert Attachment.get(realm.realm_id, path_id).message_ids == {message_id}
    assert realm.owner.call("GET", path).status == 200
    assert realm.guest.call("GET", path).status == 404
    other_realm_path = f"/user_uploads/{realm.realm_id + 1000}/{'a' * 24}/x.txt"
    assert realm.owner.call("GET", other_realm_path).status == 404
    missing = realm.owner.call("GET", f"/user_uploads/x/{'a' * 24}/x.txt")
    assert (missing.status, missing.json["code"]) == (404, "NOT_FOUND")


def other_realm_owner(realm) -> Account:
    from chalicelib.actions.users.users import NewUser
    from chalicelib.actions.workflows.realms import do_create_realm

    subdomain = f"upl{next(_other_realms)}x{realm.realm_id}"
    email = f"owner@{subdomain}.example.com"
    other, owner_id, key = do_create_realm("Other org", subdomain, NewUser(
        email=email, full_name="Other Owner", role=100))
    return Account(realm.client, other.realm_id, owner_id, email, key, "Other Owner", 100)


def test_uploads_of_another_realm_are_not_found(realm):
    # GIVEN a file linked in a public channel of this realm
    channel(realm.owner, "open", [realm.owner, realm.member])
    path = upload(realm.member)["uri"]
    send(realm.member, "open", "files", f"[notes]({path})")
    assert realm.admin.call("GET", path).status == 200
    # THEN the owner of another realm cannot read it
    response = other_realm_owner(realm).call("GET", path)
    assert (response.status, response.json["msg"]) == (404, "File not found")


def test_direct_message_links_are_readable_by_participants_only(realm):
    path = upload(realm.member)["uri"]
    sent = realm.member.post("/messages", {"type": "direct", "to": [realm.moderator.user_id],
                                           "content": f"[notes]({path})"})
    assert sent.ok, sent.json
    assert realm.moderator.call("GET", path).status == 200
    assert realm.admin.call("GET", path).status == 404
    assert realm.owner.call("GET", path).status == 404


def test_private_channel_links_need_a_subscription(realm):
    channel(realm.owner, "secret", [realm.owner, realm.member], invite_only=True)
    path = upload(realm.member)["uri"]
    send(realm.member, "secret", "files", f"[notes]({path})")
    assert realm.owner.call("GET", path).status == 200
    assert realm.admin.call("GET", path).status == 404


def test_links_claim_only_own_uploads(realm):
    channel(realm.owner, "talk", [realm.owner, realm.member])
    mine = upload(realm.member)["uri"]
    theirs = upload(realm.owner)["uri"]
    send(realm.member, "talk", "files", f"[a]({mine}) [b]({theirs})")
    assert Attachment.get(realm.realm_id, mine.removeprefix("/user_uploads/")).message_ids
    assert not Attachment.get(realm.realm_id,
                              theirs.removeprefix("/user_uploads/")).message_ids


def test_edit_that_removes_the_last_link_returns_the_detached_upload(realm, advertise):
    advertise(471)  # attachments list their messages (message_ids from 472)
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
                        "create_time": attachment.create_time // 1000, "messages": []}   # seconds (443)
    assert not attachment.message_ids
    # AND an edit that links it again re-attaches it
    assert realm.member.patch(f"/messages/{first}", {"content": f"[p]({body['uri']})"}).ok
    assert Attachment.get(realm.realm_id, path_id).message_ids == {first}


def test_plan_attachment_changes_reports_only_the_actors_last_links(realm, advertise):
    advertise(471)  # attachments list their messages (message_ids from 472)
    # GIVEN two uploads of the member and one of the owner, linked in one message
    channel(realm.owner, "talk", [realm.owner, realm.member])
    kept = upload(realm.member, "kept.txt")["uri"]
    lone = upload(realm.member, "lone.txt", b"abc")["uri"]
    owners = upload(realm.owner, "owners.txt")["uri"]
    message_id = send(realm.member, "talk", "t", f"[k]({kept}) [l]({lone})")
    other_id = send(realm.member, "talk", "t", f"[k]({kept})")
    send(realm.owner, "talk", "t", f"[o]({owners})")
    old = f"[k]({kept}) [l]({lone})"
    lone_id = lone.removeprefix("/user_uploads/")
    # WHEN the member's edit drops both links and adds the owner's file and a fresh own one
    fresh = upload(realm.member, "fresh.txt")["uri"]
    new = f"[o]({owners}) [f]({fresh})"
    changes = plan_attachment_changes(realm.realm_id, realm.member.user_id, message_id,
                                      old, new)
    # THEN only the upload that loses its last message is detached
    lone_attachment = Attachment.get(realm.realm_id, lone_id)
    assert changes.detached == [{
        "id": lone_attachment.attachment_id, "name": "lone.txt", "path_id": lone_id,
        "size": 3, "create_time": lone_attachment.create_time // 1000, "messages": []}]
    # AND another actor making the same change unlinks the member's file without reporting it
    by_owner = plan_attachment_changes(realm.realm_id, realm.owner.user_id, message_id,
                                       old, new)
    assert lone_id in by_owner.unlink and by_owner.detached == []
    # AND applying it in a transaction moves the links; the owner's file is not claimed
    with transaction() as tx:
        changes.apply(tx)

    def linked(uri: str) -> set[int]:
        return set(Attachment.get(realm.realm_id, uri.removeprefix("/user_uploads/"))
                   .message_ids or ())
    assert linked(kept) == {other_id}
    assert linked(lone) == set()
    assert linked(fresh) == {message_id}
    assert message_id not in linked(owners)
    # AND nothing changes when the content keeps the same links
    same = plan_attachment_changes(realm.realm_id, realm.member.user_id, other_id,
                                   f"[k]({kept})", f"still [k]({kept})")
    assert (same.link, same.unlink, same.detached) == ([], [], [])


def test_two_edits_removing_the_last_two_links_detach_the_upload_once(realm, monkeypatch):
    # GIVEN an upload linked by two messages, and two edits that each drop one link,
    # both planned (both read the upload) before either writes
    channel(realm.owner, "talk", [realm.owner, realm.member])
    uri = upload(realm.member, "plan.txt")["uri"]
    messages = [send(realm.member, "talk", "files", f"[plan]({uri}) {n}") for n in range(2)]
    both_planned = threading.Barrier(2, timeout=10)
    plan = uploads.plan_attachment_changes
    planned_once = threading.local()

    def plan_then_wait(*args):
        changes = plan(*args)
        if not getattr(planned_once, "done", False):
            planned_once.done = True
            both_planned.wait()
        return changes

    monkeypatch.setattr(uploads, "plan_attachment_changes", plan_then_wait)
    caller = Principal(realm.realm_id, realm.member.user_id, realm.member.email, 400, False)
    results: list[list] = []

    def edit(message_id: int) -> None:
        results.append(do_update_message(caller, EditRequest(message_id, content="none"))
                       ["detached_uploads"])

    # WHEN both edits write at once
    threads = [threading.Thread(target=edit, args=(m,)) for m in messages]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # THEN exactly one of them reports the upload as detached, and no message links it
    assert sorted(len(r) for r in results) == [0, 1]
    path_id = uri.removeprefix("/user_uploads/")
    assert [d["path_id"] for r in results for d in r] == [path_id]
    assert not Attachment.get(realm.realm_id, path_id).message_ids


def test_thumbnail_status_answers_the_uploader_of_an_image(realm):
    # GIVEN an image and a text file the member uploaded
    image = realm.member.upload([("file", "chart.png", b"\x89PNG\r\n")],
                                content_type="image/png").json["url"]
    text = upload(realm.member)["url"]

    def status(account, url: str):
        return account.get("/thumbnail/status/" + url.removeprefix("/user_uploads/"))

    # THEN the uploader's image has every thumbnail there is (this server makes none, so
    # no message ever waits for one)
    assert status(realm.member, image).json == {"result": "success", "msg": "",
                                                "has_thumbnail": True}
    # AND another user's image, a file that is no image, and an unknown path are invalid
    for account, url in ((realm.admin, image), (realm.member, text),
                         (realm.member, image.replace("chart", "other"))):
        answer = status(account, url)
        assert answer.status == 400 and answer.json["msg"] == "No such uploaded image of yours", url
