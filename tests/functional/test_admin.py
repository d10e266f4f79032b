"""The admin CLI, run in-process against the functional tier's moto."""
from __future__ import annotations

import base64
import json

from chalicelib.admin import main


def run(capsys, *argv: str) -> tuple[int, dict, str]:
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
    assert me["is_bot"] and me["bot_owner_id"] == realm["user_id"]
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
