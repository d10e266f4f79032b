"""Organization exports: POST/GET /export/realm, GET /export/realm/consents, the worker that
writes them, and `admin import-realm` loading one into a new organization (round trip)."""
from __future__ import annotations

import json

import boto3
import pytest

from chalicelib import config
from chalicelib.admin import main
from chalicelib.models.linkifiers import realm_linkifiers
from chalicelib.models.users import User
from tests.functional.conftest import Account
from tests.functional.edit_helpers import channel, send


def error_of(response) -> str:
    assert response.status == 400 and response.json["code"] == "BAD_REQUEST", response.json
    return response.json["msg"]


def exports(account) -> list[dict]:
    response = account.get("/export/realm")
    assert response.ok, response.json
    return response.json["exports"]


def stored_export(realm_id: int, export: dict) -> dict:
    s3 = boto3.client("s3", region_name=config.region())
    keys = [o["Key"] for o in s3.list_objects_v2(
        Bucket=config.upload_bucket(), Prefix=f"{realm_id}/exports/{export['id']}/")
        .get("Contents", [])]
    [key] = keys
    assert key.rsplit("/", 1)[-1] in export["export_url"]
    return {"key": key, "document": json.loads(s3.get_object(
        Bucket=config.upload_bucket(), Key=key)["Body"].read())}


def populate(realm) -> dict:
    general = channel(realm.owner, "general", members=[realm.admin, realm.member, realm.guest])
    channel(realm.owner, "secret", members=[realm.owner, realm.member], invite_only=True)
    upload = realm.member.upload([("file", "plan.txt", b"the plan")])
    path = upload.json["url"]
    first = send(realm.member, "general", "hello", f"Hi @**Adam Admin**, see [plan]({path})")
    assert realm.admin.post(f"/messages/{first}/reactions", {"emoji_name": "smile"}).ok
    send(realm.admin, "general", "other", "second topic")
    send(realm.member, "secret", "quiet", "consented private words")
    send(realm.owner, "secret", "quiet", "unconsented private words")
    dm = realm.member.post("/messages", {"type": "direct", "to": [realm.admin.user_id],
                                         "content": "a direct message"})
    assert dm.ok, dm.json
    assert realm.admin.post("/default_streams", {"stream_id": general}).ok
    return {"general": general, "first": first, "path": path}


def test_export_writes_the_realm_and_tells_the_requester(realm, register_queue, fetch_events,
                                                         webhooks, advertise):
    advertise(430)
    populate(realm)
    # GIVEN the member consents to exporting their private data, the owner does not
    assert realm.member.patch("/settings", {"allow_private_data_export": True}).ok
    consents = realm.admin.get("/export/realm/consents").json["export_consents"]
    assert {c["user_id"]: c["consented"] for c in consents}[realm.member.user_id] is True
    assert {c["user_id"]: c["consented"] for c in consents}[realm.owner.user_id] is False
    assert {c["email_address_visibility"] for c in consents} == {1}   # level 430
    queue = register_queue(realm.admin, event_types=["realm_export"])["queue_id"]
    # WHEN an administrator asks for a standard export
    response = realm.admin.post("/export/realm", {"export_type": 2})
    assert response.ok, response.json
    export_id = response.json["id"]
    [pending] = exports(realm.admin)
    assert (pending["id"], pending["pending"], pending["export_url"]) == (export_id, True, None)
    assert pending["acting_user_id"] == realm.admin.user_id and pending["export_type"] == 2
    # AND the worker runs (outbox -> queue -> worker)
    webhooks.run()
    # THEN the export is done, with a link to the object in the uploads bucket
    [done] = exports(realm.admin)
    assert done["pending"] is False and done["failed_timestamp"] is None
    assert done["export_url"].startswith("http") and "Signature" in done["export_url"]
    document = stored_export(realm.realm_id, done)["document"]
    assert document["format"] == "teamchat-realm-export" and document["version"] == 1
    assert {u["email"] for u in document["users"]} >= {realm.owner.email, realm.member.email}
    assert {c["name"] for c in document["channels"]} == {"general", "secret"}
    contents = {m["content"] for m in document["messages"]}
    # Private data only of the consenting user: their private-channel message and DM
    assert "consented private words" in contents and "a direct message" in contents
    assert "unconsented private words" not in contents
    assert [u["name"] for u in document["uploads"]] == ["plan.txt"]
    # AND the requester heard of it twice (pending, then done)
    events = [e for e in fetch_events(realm.admin, queue) if e["type"] == "realm_export"]
    assert [e["exports"][0]["pending"] for e in events] == [True, False]
    # AND running the job again changes nothing (a redelivered job)
    webhooks.run()
    [again] = exports(realm.admin)
    assert {**again, "export_url": None} == {**done, "export_url": None}


def test_public_export_has_no_private_data(realm, webhooks):
    populate(realm)
    assert realm.member.patch("/settings", {"allow_private_data_export": True}).ok
    assert realm.owner.post("/export/realm").ok   # export_type defaults to public
    webhooks.run()
    [done] = exports(realm.owner)
    document = stored_export(realm.realm_id, done)["document"]
    assert done["export_type"] == "public"   # by name from level 449
    assert {c["name"] for c in document["channels"]} == {"general"}
    assert all(m["type"] == "stream" for m in document["messages"])
    assert all(u["settings"] == {} for u in document["users"])


def test_refusals(realm):
    for account in (realm.moderator, realm.member, realm.guest):
        assert error_of(account.post("/export/realm")) == \
            "Only the organization's administrators can do this."
        assert error_of(account.get("/export/realm")) == "Only the organization's administrators can do this."
        assert error_of(account.get("/export/realm/consents")) == \
            "Only the organization's administrators can do this."
    # A full export without consent (3) needs what no organization here has (level 449)
    assert "access to all private content" in error_of(
        realm.admin.post("/export/realm", {"export_type": 3}))
    assert error_of(realm.admin.post("/export/realm", {"export_type": 7})) == \
        "export_type has an unacceptable value"
    assert exports(realm.admin) == []


def test_an_export_round_trips_into_a_new_organization(realm, webhooks, capsys, drain_events):
    facts = populate(realm)
    assert realm.member.patch("/settings", {"allow_private_data_export": True}).ok
    assert realm.admin.post("/export/realm", {"export_type": 2}).ok
    webhooks.run()
    [done] = exports(realm.admin)
    key = stored_export(realm.realm_id, done)["key"]
    # WHEN the operator imports it under a new subdomain
    code = main(["import-realm", "--source", f"s3://{key}",
                 "--subdomain", f"{realm.subdomain}copy"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    result = json.loads(captured.out.strip().splitlines()[-1])   # after the metrics lines
    assert result["messages"] == 4 and result["uploads"] == 1   # not the unconsented one
    owner = Account(realm.client, result["realm_id"], 0, result["owner_email"],
                    result["owner_api_key"], "Olivia Owner", 100)
    drain_events()
    # THEN the new organization has the users, channels, subscriptions and messages
    users = {u["email"]: u for u in owner.get("/users").json["members"]}
    assert users[realm.member.email]["full_name"] == "Max Member"
    # (imported people join when they first log in, level 475)
    assert User.get(result["realm_id"], users[realm.member.email]["user_id"]
                    ).joined_at_first_login is True
    assert users[realm.guest.email]["role"] == 600
    streams = {s["name"]: s for s in owner.get("/streams", {"include_all_active": True}
                                              ).json["streams"]}
    assert set(streams) == {"general", "secret"}
    general = streams["general"]["stream_id"]
    members = owner.get(f"/streams/{general}/members").json["subscribers"]
    assert users[realm.member.email]["user_id"] in members
    assert owner.post("/register", {"fetch_event_types": ["default_streams"]}).json[
        "realm_default_streams"] == [general]
    messages = owner.get("/messages", {
        "anchor": "oldest", "num_before": 0, "num_after": 50,
        "narrow": [{"operator": "channel", "operand": "general"}]}).json["messages"]
    assert [(m["subject"], m["sender_email"]) for m in messages] == [
        ("hello", realm.member.email), ("other", realm.admin.email)]
    first = messages[0]
    # Mentions resolve to the new ids; reactions carry the new user ids
    admin_id = users[realm.admin.email]["user_id"]
    assert f'data-user-id="{admin_id}"' in first["content"]
    assert [r["user_id"] for r in first["reactions"]] == [admin_id]
    # AND the upload is there under the new organization, linked from the message
    [link] = [part for part in first["content"].split('"') if "/user_uploads/" in part]
    assert link != facts["path"] and link.startswith(f"/user_uploads/{result['realm_id']}/")
    assert owner.call("GET", link.removeprefix("/api/v1")).status == 200


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


def test_groups_emoji_linkifiers_and_read_state_round_trip(realm, webhooks, capsys,
                                                           drain_events):
    from tests.functional.read_state_helpers import set_flags

    # GIVEN a group with a subgroup and a group-valued setting, a custom emoji used in a
    # reaction and another retired, a linkifier, and messages the member has not all read
    channel(realm.owner, "general", members=[realm.admin, realm.member])
    inner = realm.admin.post("/user_groups/create", {
        "name": "backend", "description": "API people", "members": [realm.member.user_id]})
    assert inner.ok, inner.json
    outer = realm.admin.post("/user_groups/create", {
        "name": "engineering", "description": "", "members": [realm.admin.user_id],
        "subgroups": [inner.json["group_id"]],
        "can_mention_group": {"direct_members": [realm.member.user_id],
                              "direct_subgroups": [inner.json["group_id"]]}})
    assert outer.ok, outer.json
    for name in ("party", "retired"):
        assert realm.member.upload([("file", "img.png", PNG)], path=f"/realm/emoji/{name}").ok
    assert realm.admin.delete("/realm/emoji/retired").ok
    assert realm.admin.post("/realm/filters", {
        "pattern": "#(?P<id>[0-9]+)", "url_template": "https://tracker.example.com/{id}",
        "example_input": "#7", "reverse_template": "#{id}",
        "alternative_url_templates": json.dumps(["https://tracker.example.com/t/{id}"])}).ok
    read = send(realm.admin, "general", "fix #12", "fixed #12")
    unread = send(realm.admin, "general", "later", "hi @**Max Member**")
    drain_events()
    assert set_flags(realm.member, [read], "add", "read").ok
    assert realm.member.post(f"/messages/{read}/reactions", {"emoji_name": "party"}).ok
    assert realm.member.patch("/settings", {"allow_private_data_export": True}).ok
    assert realm.admin.post("/export/realm", {"export_type": 2}).ok
    webhooks.run()
    [done] = exports(realm.admin)
    document = stored_export(realm.realm_id, done)["document"]
    assert document["read_state"] == {str(realm.member.user_id): [unread]}
    # WHEN it is imported into a new organization
    code = main(["import-realm", "--source", f"s3://{stored_export(realm.realm_id, done)['key']}",
                 "--subdomain", f"{realm.subdomain}copy2"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    result = json.loads(captured.out.strip().splitlines()[-1])
    owner = Account(realm.client, result["realm_id"], 0, result["owner_email"],
                    result["owner_api_key"], "Olivia Owner", 100)
    drain_events()
    users = {u["email"]: u["user_id"] for u in owner.get("/users").json["members"]}
    member_id, admin_id = users[realm.member.email], users[realm.admin.email]
    # THEN the groups, with members, subgroup and setting mapped to the new ids
    groups = {g["name"]: g for g in owner.get("/user_groups").json["user_groups"]}
    backend, engineering = groups["backend"], groups["engineering"]
    assert (backend["description"], backend["members"]) == ("API people", [member_id])
    assert engineering["members"] == [admin_id]
    assert engineering["direct_subgroup_ids"] == [backend["id"]]
    assert engineering["can_mention_group"] == {"direct_members": [member_id],
                                                "direct_subgroups": [backend["id"]]}
    # AND the custom emoji (the retired one kept retired)
    emoji = owner.get("/realm/emoji").json["emoji"]
    by_name = {e["name"]: e for e in emoji.values()}
    assert by_name["party"]["deactivated"] is False and by_name["retired"]["deactivated"]
    # AND the linkifier, applied to the imported messages and their topics
    assert [(i["pattern"], i["url_template"]) for i in owner.get(
        "/realm/linkifiers").json["linkifiers"]] == [("#(?P<id>[0-9]+)",
                                                     "https://tracker.example.com/{id}")]
    [imported] = realm_linkifiers(result["realm_id"])   # with its reverse-linkification values
    assert (imported.example_input, imported.reverse_template,
            imported.alternative_url_templates) == (
        "#7", "#{id}", ["https://tracker.example.com/t/{id}"])
    messages = owner.get("/messages", {
        "anchor": "oldest", "num_before": 0, "num_after": 50,
        "narrow": [{"operator": "channel", "operand": "general"}]}).json["messages"]
    first = messages[0]
    assert 'href="https://tracker.example.com/12"' in first["content"]
    assert first["topic_links"] == [{"text": "#12", "url": "https://tracker.example.com/12"}]
    assert [(r["reaction_type"], r["emoji_code"], r["user_id"]) for r in first["reactions"]] \
        == [("realm_emoji", by_name["party"]["id"], member_id)]
    # AND the member's read state: the unread message (with its mention) is unread for
    # them, the other read (their key comes from the operator, as imported users' do)
    assert main(["rotate-key", "--realm", f"{realm.subdomain}copy2",
                 "--email", realm.member.email]) == 0
    key = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["api_key"]
    member = Account(realm.client, result["realm_id"], member_id, realm.member.email, key,
                     "Max Member", 400)
    flags = {m["id"]: m["flags"] for m in member.get("/messages", {
        "anchor": "oldest", "num_before": 0, "num_after": 50, "narrow": []}).json["messages"]}
    assert "read" in flags[first["id"]]
    assert "read" not in flags[messages[1]["id"]]
    state = member.post("/register", {"fetch_event_types": [
        "message", "update_message_flags"]}).json["unread_msgs"]
    assert state["count"] == 1 and state["mentions"] == [messages[1]["id"]]


class _Killed(BaseException):
    """An invocation stopped from outside (its timeout), not an error it handles."""


def test_a_long_export_goes_on_where_each_invocation_stopped(realm, webhooks, monkeypatch):
    """Written in parts that outlive their invocation: an invocation out of time saves
    its progress and hands the job back; one killed goes on from the last saved part."""
    import moto.s3.models

    from chalicelib.actions.workflows import export as export_module
    from chalicelib.actions.workflows import export_writer
    from tests.functional.edit_helpers import bulk_messages

    general = populate(realm)["general"]
    bulk_messages(realm.realm_id, realm.member.user_id, general, "bulk", 120)
    whole = export_module.build_export(realm.realm_id, 1)
    # GIVEN parts of 2 KB (S3 wants 5 MiB) and no time at all for an invocation
    monkeypatch.setattr(export_writer, "PART_BYTES", 2000)
    monkeypatch.setattr(moto.s3.models, "S3_UPLOAD_PART_MIN_SIZE", 1)
    monkeypatch.setenv("EXPORT_INVOCATION_SECONDS", "0")
    runs = []
    run = export_writer.ExportRun.run

    def counted(self):
        runs.append(len(self.progress.parts))
        return run(self)

    monkeypatch.setattr(export_writer.ExportRun, "run", counted)
    # AND the second invocation is killed after uploading its part, before saving it
    upload = export_module._S3Parts.upload
    uploads = []

    def killed_once(self, number, data):
        uploads.append(number)
        if len(uploads) == 2:
            raise _Killed()
        return upload(self, number, data)

    monkeypatch.setattr(export_module._S3Parts, "upload", killed_once)
    export_id = realm.admin.post("/export/realm", {"export_type": 1}).json["id"]
    job = {"realm_id": realm.realm_id, "export_id": export_id}
    export_module.run_export_job(job)   # one part, saved, the job handed back
    with pytest.raises(_Killed):
        export_module.run_export_job(job)
    # WHEN the queue offers the job again, and every invocation stops after one part
    webhooks.run()
    # THEN it went on from the saved part each time and wrote the whole document once
    [done] = [e for e in exports(realm.admin) if e["id"] == export_id]
    assert done["pending"] is False and done["failed_timestamp"] is None
    # (the killed one's part 2 was written again by the next: runs start at 0, 1, 1)
    assert runs[:3] == [0, 1, 1] and len(runs) > 4
    document = stored_export(realm.realm_id, done)["document"]
    assert document["messages"] == whole["messages"]
    assert {k: v for k, v in document.items() if k != "exported_at"} == \
        {k: v for k, v in whole.items() if k != "exported_at"}


def test_imported_users_are_stubs_until_they_log_in(realm, webhooks, capsys, drain_events,
                                                      register_queue, fetch_events, advertise):
    advertise(433)
    from chalicelib.models.users import User
    from chalicelib.rules.passwords import hash_password
    assert realm.admin.post("/export/realm", {"export_type": 2}).ok
    webhooks.run()
    [done] = exports(realm.admin)
    code = main(["import-realm", "--source", f"s3://{stored_export(realm.realm_id, done)['key']}",
                 "--subdomain", f"{realm.subdomain}stub"])
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0
    owner = Account(realm.client, result["realm_id"], 0, result["owner_email"],
                    result["owner_api_key"], "Olivia Owner", 100)
    drain_events()
    # THEN every imported person is a stub (level 433), and registration says is_imported
    users = {u["email"]: u for u in owner.get("/users").json["members"]}
    member = users[realm.member.email]
    assert member["is_imported_stub"] is True
    state = owner.post("/register", {"fetch_event_types": ["realm_user"]}).json
    [listed] = [u for u in state["realm_users"] if u["user_id"] == member["user_id"]]
    assert listed["is_imported"] is True and "is_imported_stub" not in listed
    assert all(bot["is_imported"] is False for bot in state["cross_realm_bots"])
    queue_id = register_queue(owner, event_types=["realm_user"])["queue_id"]
    # WHEN the member sets a password and logs in for the first time
    User(result["realm_id"], member["user_id"]).update(
        actions=[User.password_hash.set(hash_password("a long enough secret"))])
    login = realm.client.http.post(
        "/api/v1/fetch_api_key", body="username=" + realm.member.email.replace("@", "%40")
        + "&password=a+long+enough+secret",
        headers={"Content-Type": "application/x-www-form-urlencoded",
                 "Host": f"{realm.subdomain}stub.{config.root_domain()}"})
    assert login.status_code == 200, login.body
    drain_events()
    # THEN the account is no longer a stub, and those who can see the user are told
    again = {u["email"]: u for u in owner.get("/users").json["members"]}
    assert again[realm.member.email]["is_imported_stub"] is False
    told = [e["person"] for e in fetch_events(owner, queue_id) if e["type"] == "realm_user"]
    assert {"user_id": member["user_id"], "is_imported_stub": False} in told
    # AND users created otherwise never were
    assert users[realm.member.email]["is_imported_stub"] is True
    assert realm.owner.get("/users/me").json["is_imported_stub"] is False


def test_exports_say_they_are_not_from_a_prior_server_from_level_499(
        realm, webhooks, advertise, capsys):
    assert realm.admin.post("/export/realm", {"export_type": 1}).ok
    webhooks.run()
    advertise(498)
    [before] = exports(realm.admin)
    assert "export_from_prior_server" not in before
    advertise(499)
    [done] = exports(realm.admin)
    assert done["export_from_prior_server"] is False and done["export_url"]
    # An import carries no export records: the new organization has none to show
    key = stored_export(realm.realm_id, done)["key"]
    assert main(["import-realm", "--source", f"s3://{key}",
                 "--subdomain", f"{realm.subdomain}prior"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    owner = Account(realm.client, result["realm_id"], 0, result["owner_email"],
                    result["owner_api_key"], "Olivia Owner", 100)
    assert exports(owner) == []


def test_export_types_by_name_from_level_449(realm, register_queue, fetch_events,
                                             drain_events, advertise):
    # GIVEN a server below level 449: numbers only
    advertise(448)
    assert error_of(realm.admin.post("/export/realm", {"export_type": "public"})) == \
        "export_type has an unacceptable value"
    assert realm.admin.post("/export/realm", {"export_type": 2}).ok
    assert [e["export_type"] for e in exports(realm.admin)] == [2]
    # WHEN it advertises 449
    advertise(449)
    drain_events()
    queue_id = register_queue(realm.admin, event_types=["realm_export"])["queue_id"]
    assert realm.admin.post("/export/realm", {"export_type": "public"}).ok
    # THEN types are named, in the list and in the event
    assert [e["export_type"] for e in exports(realm.admin)] == ["full_with_consent",
                                                                "public"]
    drain_events()
    [event] = [e for e in fetch_events(realm.admin, queue_id) if e["type"] == "realm_export"]
    assert [e["export_type"] for e in event["exports"]] == ["full_with_consent", "public"]
    # AND a full export without consent needs what no organization here has
    refused = error_of(realm.owner.post("/export/realm",
                                        {"export_type": "full_without_consent"}))
    assert "access to all private content" in refused
    assert error_of(realm.admin.post("/export/realm", {"export_type": "everything"})) == \
        "export_type has an unacceptable value"
    assert len(exports(realm.admin)) == 2
