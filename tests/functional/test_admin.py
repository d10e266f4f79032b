"""The admin CLI, run in-process against the functional tier's moto."""
from __future__ import annotations

import base64
import json

from chalicelib.admin import main


def run(capsys, *argv: str) -> tuple[int, dict, str]:
    capsys.readouterr()   # what came before (e.g. a metric line a request printed)
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if captured.out.strip() else {}), captured.err


def basic(email: str, key: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{email}:{key}".encode()).decode()}


def test_create_realm_user_and_bot(aws, capsys, anonymous):
    # WHEN an organization, a user and two bots are created
    code, realm, _ = run(capsys, "create-realm", "--name", "CLI Org", "--subdomain", "cliorg",
                         "--owner-email", "boss@cli.example.com", "--owner-name", "Boss")
    assert code == 0 and {"realm_id", "user_id", "email", "api_key"} <= set(realm)
    code, user, _ = run(capsys, "create-user", "--realm", "cliorg", "--email", "u@cli.example.com",
                        "--name", "Una User", "--role", "moderator")
    assert code == 0 and user["role"] == 300
    code, bot, _ = run(capsys, "create-bot", "--realm", "cliorg", "--owner-email",
                       "boss@cli.example.com", "--name", "Echo", "--short-name", "echo",
                       "--outgoing-webhook-url", "http://127.0.0.1:9999/hook")
    assert code == 0 and bot["email"] == "echo-bot@cli.example.com"
    assert len(bot["token"]) == 32 and bot["token"].isalnum()
    code, plain_bot, _ = run(capsys, "create-bot", "--realm", "cliorg", "--owner-email",
                             "boss@cli.example.com", "--name", "Plain", "--short-name", "plain")
    assert code == 0 and "token" not in plain_bot
    # THEN their keys authenticate over HTTP
    for account in (realm, user, bot):
        response = anonymous("GET", "/users/me",
                             headers=basic(account["email"], account["api_key"]))
        assert response.ok, response.json
    me = anonymous("GET", "/users/me", headers=basic(bot["email"], bot["api_key"])).json
    record = anonymous("GET", f"/users/{me['user_id']}",
                       headers=basic(bot["email"], bot["api_key"])).json["user"]
    assert me["is_bot"] and record["bot_owner_id"] == realm["user_id"]
    # AND list-users shows everyone without secrets
    code, listing, _ = run(capsys, "list-users", "--realm", "cliorg")
    assert code == 0 and len(listing["users"]) == 4
    assert all("api_key" not in u for u in listing["users"])


def test_bad_input_is_a_clear_error(aws, capsys):
    code, _, err = run(capsys, "create-user", "--realm", "no-such-org", "--email", "a@b.co",
                       "--name", "A", "--role", "member")
    assert code == 2 and "No organization with subdomain 'no-such-org'" in err
    run(capsys, "create-realm", "--name", "Dup", "--subdomain", "dupe", "--owner-email",
        "o@dupe.example.com", "--owner-name", "O")
    code, _, err = run(capsys, "create-realm", "--name", "Dup", "--subdomain", "dupe",
                       "--owner-email", "o@dupe.example.com", "--owner-name", "O")
    assert code == 2 and "already in use" in err
    code, _, err = run(capsys, "create-user", "--realm", "dupe", "--email", "not-an-email",
                       "--name", "X", "--role", "member")
    assert code == 2 and "Invalid email" in err
    code, _, err = run(capsys, "create-bot", "--realm", "dupe", "--owner-email",
                       "o@dupe.example.com", "--name", "B", "--short-name", "b",
                       "--outgoing-webhook-url", "ftp://x")
    assert code == 2 and "Invalid outgoing webhook URL" in err


def test_deactivated_realm_cannot_authenticate(aws, capsys, anonymous):
    _, realm, _ = run(capsys, "create-realm", "--name", "Gone", "--subdomain", "gone",
                      "--owner-email", "o@gone.example.com", "--owner-name", "O")
    assert anonymous("GET", "/users/me", headers=basic(realm["email"], realm["api_key"])).ok
    code, result, _ = run(capsys, "deactivate-realm", "--realm", "gone")
    assert code == 0 and result["api_keys_revoked"] == 1
    response = anonymous("GET", "/users/me", headers=basic(realm["email"], realm["api_key"]))
    assert response.status == 401 and response.json["code"] == "REALM_DEACTIVATED"


def test_reindex_backfills_what_older_versions_did_not_write(realm, capsys):
    from chalicelib.models.users import User
    from tests.functional.user_group_helpers import group_ids_of

    created = realm.admin.post("/user_groups/create", {
        "name": "Old crew", "description": "", "members": [realm.member.user_id,
                                                            realm.guest.user_id]})
    assert created.ok, created.json
    group_id = created.json["group_id"]
    # GIVEN users as an older version wrote them: no role key, no group ids
    for user_id in (realm.member.user_id, realm.guest.user_id, realm.owner.user_id):
        User(realm.realm_id, user_id).update(actions=[User.role_key.remove(),
                                                      User.group_ids.remove()])
    # WHEN the organization is reindexed, twice
    code, first, _ = run(capsys, "reindex", "--realm", realm.subdomain)
    code_again, again, _ = run(capsys, "reindex", "--realm", realm.subdomain)
    # THEN the attributes are back, and the second run changes nothing more
    assert (code, first["role_keys_set"], first["group_links_set"]) == (0, 3, 2)
    assert (code_again, again["role_keys_set"]) == (0, 0)
    assert group_ids_of(realm, realm.member.user_id) == {group_id}
    assert User.get(realm.realm_id, realm.owner.user_id).role_key is not None
    # AND deactivating a reindexed user takes them out of the group they were in
    assert realm.admin.delete(f"/users/{realm.member.user_id}").ok
    [group] = [g for g in realm.admin.get("/user_groups").json["user_groups"]
               if g["id"] == group_id]
    assert group["members"] == [realm.guest.user_id]
    assert group_ids_of(realm, realm.member.user_id) == set()


def test_reindex_gives_older_users_the_maps_later_updates_need(realm, capsys):
    from chalicelib.models.users import User

    # GIVEN a user as versions before the settings / profile_data maps wrote them
    User(realm.realm_id, realm.member.user_id).update(
        actions=[User.settings.remove(), User.profile_data.remove()])
    field = realm.admin.post("/realm/profile_fields", {"name": "Bio", "field_type": 1})
    assert realm.member.patch("/settings", {"color_scheme": 2}).status == 500
    # WHEN the organization is reindexed, twice
    code, first, _ = run(capsys, "reindex", "--realm", realm.subdomain)
    code_again, again, _ = run(capsys, "reindex", "--realm", realm.subdomain)
    # THEN only that user was given the maps, and the per-key updates work
    assert (code, first["user_maps_set"], code_again, again["user_maps_set"]) == (0, 1, 0, 0)
    assert realm.member.patch("/settings", {"color_scheme": 2}).ok
    assert realm.member.patch("/users/me/profile_data", {
        "data": [{"id": field.json["id"], "value": "hello"}]}).ok
    assert realm.member.get("/users/me").json["profile_data"] == {
        str(field.json["id"]): {"value": "hello", "rendered_value": "<p>hello</p>"}}


def test_status_reads_the_local_stacks_lag_or_cloudwatch(aws, capsys, tmp_path, monkeypatch):
    import boto3

    from chalicelib.fanout import lag

    # GIVEN no local stack: status reads the FanoutDelay metric of the last minutes
    monkeypatch.setenv("LOCAL_STATE_DIR", str(tmp_path))
    code, answer, _ = run(capsys, "status")
    assert code == 0 and answer["stack"] == "aws" and answer["fanout"]["batches"] == 0
    boto3.client("cloudwatch", region_name="us-east-1").put_metric_data(
        Namespace="teamchat-test", MetricData=[
            {"MetricName": "FanoutDelay", "Unit": "Milliseconds", "Value": value,
             "Dimensions": [{"Name": "service", "Value": "teamchat"}]}
            for value in (120.0, 7400.0)])
    code, answer, _ = run(capsys, "status")
    assert code == 0 and answer["fanout"]["max_ms"] == 7400
    assert answer["fanout"]["batches"] == 2 and answer["fanout"]["behind"] is True
    # GIVEN a local stack's state directory with its poller's last report
    (tmp_path / "endpoint.json").write_text('{"aws_endpoint_url": "http://127.0.0.1:1"}')
    code, answer, _ = run(capsys, "status")
    assert answer == {"stack": "local", "fanout": {"lag_seconds": None,
                                                   "note": "no batch handled yet"}}
    lag.write_local(tmp_path, 0.25, 3)
    code, answer, _ = run(capsys, "status")
    assert code == 0 and answer["fanout"]["lag_seconds"] == 0.25
    assert answer["fanout"]["behind"] is False and answer["fanout"]["records"] == 3
