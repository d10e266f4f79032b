"""POST /external/{integration}, the part every integration shares: the bot's key (in
the URL or as HTTP Basic), the target (channel and topic, or the owner's direct
messages), the event filters, the reference's errors and statuses, the payload's bounds,
signatures, rate limits, and what registration and POST /bots say about integrations."""
from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import json
import os

import pytest

from chalicelib.integrations import INTEGRATIONS
from chalicelib.models import rate_limits
from chalicelib.models.users import User
from tests.functional.integration_helpers import (
    channel_messages,
    fixture,
    fixture_json,
    last_message,
    make_hook,
    rendered,
)

PR_OPENED = fixture("github", "pull_request__opened.json")
GITHUB_PR = {"X-GitHub-Event": "pull_request"}


def direct_messages(account, other_id: int) -> list[dict]:
    fetched = account.get("/messages", {"anchor": "newest", "num_before": 10, "num_after": 0,
                                        "apply_markdown": False,
                                        "narrow": [{"operator": "dm", "operand": [other_id]}]})
    assert fetched.ok, fetched.json
    return fetched.json["messages"]


def test_a_pull_request_lands_in_its_topic_as_the_bot(realm):
    hook = make_hook(realm)
    # WHEN GitHub posts a pull request to the bot's URL, naming the channel
    answer = hook.post("github", PR_OPENED, headers=GITHUB_PR, stream="dev")
    # THEN the reference's empty success, with the rate limit's headers
    assert answer.status == 200 and answer.json == {"result": "success", "msg": ""}
    assert "X-RateLimit-Remaining" in answer.headers
    # AND one message, from the bot, in the pull request's topic, saying who did what
    message = last_message(realm)
    assert message["sender_id"] == hook.bot_id and message["client"] == "GitHub webhook"
    assert message["subject"] == "Hello-World / PR #2 Update the README with new information."
    assert message["content"].startswith(
        "Codertocat opened [PR #2](https://github.com/Codertocat/Hello-World/pull/2) from "
        "`Codertocat:changes` to `Codertocat:master`:\n\n> This is a pretty simple change")


def test_basic_credentials_work_as_the_url_key_does(realm):
    hook = make_hook(realm)
    token = base64.b64encode(f"{hook.email}:{hook.api_key}".encode()).decode()
    answer = hook.post("github", PR_OPENED, key="", stream="dev",
                       headers={**GITHUB_PR, "Authorization": f"Basic {token}"})
    assert answer.status == 200, answer.json
    assert last_message(realm)["sender_id"] == hook.bot_id


def test_keys_get_the_references_errors(realm):
    hook = make_hook(realm)
    missing = hook.post("github", PR_OPENED, headers=GITHUB_PR, key="", stream="dev")
    assert missing.status == 400 and missing.json["code"] == "REQUEST_VARIABLE_MISSING"
    assert missing.json["var_name"] == "api_key"
    malformed = hook.post("github", PR_OPENED, headers=GITHUB_PR, key="short", stream="dev")
    assert (malformed.status, malformed.json["code"], malformed.json["msg"]) == \
        (401, "INVALID_API_KEY", "That API key is not well formed")
    wrong = hook.post("github", PR_OPENED, headers=GITHUB_PR, key="a" * 32, stream="dev")
    assert (wrong.status, wrong.json["code"], wrong.json["msg"]) == \
        (401, "INVALID_API_KEY", "That API key is not valid")
    # A person's key, or another kind of bot's, is no incoming-webhook bot's
    for account in (realm.member, realm.add_user("Plain Bot", is_bot=True)):
        refused = hook.post("github", PR_OPENED, headers=GITHUB_PR, key=account.api_key,
                            stream="dev")
        assert refused.status == 400 and refused.json["code"] == "BAD_REQUEST"
        assert "incoming webhook bot" in refused.json["msg"]
    # A deactivated bot (its owner's deactivation deactivates it)
    assert realm.admin.delete(f"/users/{realm.member.user_id}").ok
    gone = hook.post("github", PR_OPENED, headers=GITHUB_PR, stream="dev")
    assert (gone.status, gone.json["code"]) == (401, "USER_DEACTIVATED")
    assert channel_messages(realm) == []


def test_an_unknown_integration_is_not_found(realm):
    hook = make_hook(realm)
    answer = hook.post("no-such-tool", {"a": 1}, stream="dev")
    assert (answer.status, answer.json["code"]) == (404, "NOT_FOUND")


def test_without_a_channel_the_owner_gets_a_direct_message(realm):
    hook = make_hook(realm, channel=None)
    assert hook.post("github", PR_OPENED, headers=GITHUB_PR).status == 200
    [message] = direct_messages(realm.member, hook.bot_id)
    assert message["sender_id"] == hook.bot_id
    assert message["content"].startswith("Codertocat opened [PR #2]")


def test_the_urls_topic_wins_and_the_message_then_names_the_object(realm):
    hook = make_hook(realm)
    stream_id = realm.owner.get("/get_stream_id", {"stream": "dev"}).json["stream_id"]
    # A channel by id, a topic of the URL's choosing
    assert hook.post("github", PR_OPENED, headers=GITHUB_PR, stream=str(stream_id),
                     topic="github").status == 200
    message = last_message(realm)
    assert message["subject"] == "github"
    assert "[PR #2 Update the README with new information\\.]" not in message["content"]
    assert "[PR #2 Update the README with new information.](" in message["content"]


def test_a_missing_channel_is_told_to_the_owner_once(realm):
    hook = make_hook(realm)
    # WHEN the URL names a channel that does not exist, twice
    first = hook.post("github", PR_OPENED, headers=GITHUB_PR, stream="nowhere")
    second = hook.post("github", PR_OPENED, headers=GITHUB_PR, stream="nowhere")
    # THEN the tool is answered with success, as the reference does
    assert (first.status, second.status) == (200, 200)
    # AND the bot's owner hears of it once, from the notification bot
    notices = [m for m in realm.member.get("/messages", {
        "anchor": "newest", "num_before": 20, "num_after": 0, "apply_markdown": False,
        "narrow": [{"operator": "is", "operand": "dm"}]}).json["messages"]
        if "nowhere" in m["content"]]
    assert len(notices) == 1
    assert "could not post a GitHub message" in notices[0]["content"]
    assert notices[0]["sender_email"].startswith("notification-bot@")


def test_only_events_and_exclude_events_match_like_the_reference(realm):
    hook = make_hook(realm)
    # Shell-style patterns over the integration's event types
    assert hook.post("github", PR_OPENED, headers=GITHUB_PR, stream="dev",
                     only_events=["push_*", "issue*"]).status == 200
    assert hook.post("github", PR_OPENED, headers=GITHUB_PR, stream="dev",
                     exclude_events=["*_pull_request"]).status == 200
    assert channel_messages(realm) == []
    assert hook.post("github", PR_OPENED, headers=GITHUB_PR, stream="dev",
                     only_events=["opened_*"], exclude_events=["push_commits"]).status == 200
    assert len(channel_messages(realm)) == 1
    # Patterns are bounded
    long = hook.post("github", PR_OPENED, headers=GITHUB_PR, stream="dev",
                     only_events=["x" * 101])
    assert long.status == 400 and "over the limit" in long.json["msg"]


def test_payload_errors_have_the_references_codes(realm):
    hook = make_hook(realm)
    # An event the integration does not handle: 200, so that the tool keeps the hook
    unsupported = hook.post("github", {"action": "created", "sender": {"login": "x"}},
                            headers={"X-GitHub-Event": "sponsorship"}, stream="dev")
    assert unsupported.status == 200 and unsupported.json["result"] == "error"
    assert unsupported.json["code"] == "UNSUPPORTED_WEBHOOK_EVENT_TYPE"
    assert unsupported.json["webhook_name"] == "GitHub"
    assert unsupported.json["event_type"] == "sponsorship:created"
    # No event header
    headless = hook.post("github", PR_OPENED, stream="dev")
    assert (headless.status, headless.json["code"], headless.json["header"]) == \
        (400, "MISSING_HTTP_EVENT_HEADER", "X-GitHub-Event")
    # Not JSON
    broken = hook.post("github", b'{"action": ', headers=GITHUB_PR, stream="dev")
    assert (broken.status, broken.json["code"]) == (400, "INVALID_JSON")
    # JSON, but not what GitHub sends
    odd = hook.post("github", {"action": "opened", "pull_request": {"number": "two"}},
                    headers=GITHUB_PR, stream="dev")
    assert (odd.status, odd.json["code"]) == (400, "ANOMALOUS_WEBHOOK_PAYLOAD")
    assert odd.json["webhook_name"] == "GitHub" and "pull_request" in odd.json["msg"]
    odd_list = hook.post("github", b"[1, 2]", headers=GITHUB_PR, stream="dev")
    assert odd_list.json["code"] == "ANOMALOUS_WEBHOOK_PAYLOAD"
    assert channel_messages(realm) == []


def test_payloads_are_bounded_before_they_are_parsed(realm):
    hook = make_hook(realm)
    deep = hook.post("json", b"[" * 40 + b"]" * 40, stream="dev")
    assert deep.status == 400 and "nested too deeply" in deep.json["msg"]
    many = hook.post("json", b"[" + b"0," * 60_000 + b"0]", stream="dev")
    assert many.status == 400 and "too many values" in many.json["msg"]
    large = hook.post("json", b'{"a": "' + b"x" * 1_100_000 + b'"}', stream="dev")
    assert large.status == 413 and "too large" in large.json["msg"]
    assert channel_messages(realm) == []


def test_fields_are_shown_as_text_and_mention_nobody(realm, drain_events):
    hook = make_hook(realm)
    payload = json.loads(PR_OPENED)
    payload["pull_request"]["title"] = "<b>bold</b> @**all** [x](javascript:alert(1))"
    payload["pull_request"]["body"] = "Ping @**all** and @*everyone* <script>x</script>"
    payload["sender"]["login"] = "**mallory**"
    assert hook.post("github", payload, headers=GITHUB_PR, stream="dev", topic="t").status == 200
    drain_events()
    message = last_message(realm)
    html = rendered(realm, message["id"])
    assert "<b>" not in html and "&lt;b&gt;bold&lt;/b&gt;" in html
    assert "<script>" not in html and "javascript:" not in html.replace("javascript:alert", "")
    assert "wildcard" not in html and "**mallory**" in html
    flags = realm.owner.get("/messages", {"anchor": message["id"], "num_before": 0,
                                          "num_after": 0}).json["messages"][0]["flags"]
    assert "wildcard_mentioned" not in flags and "mentioned" not in flags


def test_a_configured_secret_is_checked(realm):
    secret = "s3cr3t-value"
    hook = make_hook(realm, service_name="github",
                     config_data=json.dumps({"webhook_secret": secret}))
    signature = "sha256=" + hmac.new(secret.encode(), PR_OPENED, hashlib.sha256).hexdigest()
    unsigned = hook.post("github", PR_OPENED, headers=GITHUB_PR, stream="dev")
    forged = hook.post("github", PR_OPENED, stream="dev",
                       headers={**GITHUB_PR, "X-Hub-Signature-256": "sha256=" + "0" * 64})
    assert (unsigned.status, forged.status) == (400, 400)
    assert "signature does not match" in forged.json["msg"]
    signed = hook.post("github", PR_OPENED, stream="dev",
                       headers={**GITHUB_PR, "X-Hub-Signature-256": signature})
    assert signed.status == 200, signed.json
    assert len(channel_messages(realm)) == 1
    # GitLab's secret token travels as it is
    lab = make_hook(realm, short_name="lab", channel=None, service_name="gitlab",
                    config_data=json.dumps({"webhook_secret": secret}))
    body = fixture("gitlab", "issue.json")
    headers = {"X-Gitlab-Event": "Issue Hook"}
    assert lab.post("gitlab", body, headers=headers, stream="dev").status == 400
    assert lab.post("gitlab", body, stream="dev",
                    headers={**headers, "X-Gitlab-Token": secret}).status == 200


def test_a_bots_configuration_is_checked_and_stored(realm):
    unknown = realm.member.post("/bots", {"full_name": "A", "short_name": "a", "bot_type": 2,
                                          "service_name": "nosuchtool"})
    assert unknown.status == 400 and "is not an integration this server knows" in unknown.json["msg"]
    extra = realm.member.post("/bots", {"full_name": "B", "short_name": "b", "bot_type": 2,
                                        "service_name": "grafana",
                                        "config_data": json.dumps({"webhook_secret": "x"})})
    assert extra.status == 400 and "configuration parameter" in extra.json["msg"]
    made = realm.member.post("/bots", {"full_name": "C", "short_name": "c", "bot_type": 2,
                                       "service_name": "sentry",
                                       "config_data": json.dumps({"webhook_secret": "k"})})
    assert made.ok, made.json
    bot = User.get(realm.realm_id, made.json["user_id"])
    assert bot.bot_config.as_dict() == {"integration_id": "sentry", "webhook_secret": "k"}


@pytest.fixture
def api_limit(monkeypatch):
    monkeypatch.setenv("RATE_LIMITS", os.environ["RATE_LIMITS"] + ",api_by_user=2/60")
    monkeypatch.setattr(rate_limits, "clock", lambda: 86400.0 * 20835 - 60)
    monkeypatch.setattr("chalice.local.LambdaEventConverter.LOCAL_SOURCE_IP", "198.51.100.250")


def test_a_bot_has_the_api_limit_of_every_writer(realm, api_limit):
    hook = make_hook(realm)
    answers = [hook.post("github", PR_OPENED, headers=GITHUB_PR, stream="dev").status
               for _ in range(3)]
    assert answers == [200, 200, 429]


def test_registration_lists_the_integrations_and_their_options(realm, advertise):
    state = realm.guest.post("/register", {
        "fetch_event_types": ["realm_incoming_webhook_bots"]}).json
    bots = {b["name"]: b for b in state["realm_incoming_webhook_bots"]}
    assert set(bots) == set(INTEGRATIONS)
    github = bots["github"]
    assert github["display_name"] == "GitHub" and "opened_pull_request" in \
        github["all_event_types"]
    assert github["config_options"] == [{"key": "webhook_secret", "label": github[
        "config_options"][0]["label"], "validator": "check_string"}]
    assert bots["json"]["all_event_types"] is None
    # url_options is level 403's: withheld below it, sent from it on
    advertise(402)
    below = realm.guest.post("/register", {
        "fetch_event_types": ["realm_incoming_webhook_bots"]}).json
    assert all("url_options" not in b for b in below["realm_incoming_webhook_bots"])
    advertise(403)
    state = realm.guest.post("/register", {
        "fetch_event_types": ["realm_incoming_webhook_bots"]}).json
    options = {b["name"]: b["url_options"] for b in state["realm_incoming_webhook_bots"]}
    assert [o["key"] for o in options["github"]] == ["branches", "ignore_private_repositories"]
    assert options["alertmanager"][0] == {"key": "name", "label": options["alertmanager"][0][
        "label"], "validator": "check_string"}


def test_url_options_name_their_input_type_from_level_485(realm, advertise):
    def github(level: int) -> dict:
        advertise(level)
        state = realm.member.post("/register", {
            "fetch_event_types": ["realm_incoming_webhook_bots"]}).json
        return {b["name"]: b for b in state["realm_incoming_webhook_bots"]}["github"]

    before, after = github(484), github(485)
    assert {o["key"]: o.get("validator") for o in before["url_options"]} == {
        "branches": "check_string", "ignore_private_repositories": "check_bool"}
    assert all("input_type" not in o for o in before["url_options"])
    assert {o["key"]: o.get("input_type") for o in after["url_options"]} == {
        "branches": "check_string", "ignore_private_repositories": "check_bool"}
    assert all("validator" not in o for o in after["url_options"])
    # Configuration options keep their validator
    assert after["config_options"] == before["config_options"] == [
        {"key": "webhook_secret", "label": before["config_options"][0]["label"],
         "validator": "check_string"}]

def test_every_integration_has_its_docs_page():
    from pathlib import Path
    docs = Path(__file__).resolve().parents[2] / "docs" / "integrations"
    for name in INTEGRATIONS:
        page = (docs / f"{name}.md").read_text()
        assert f"/api/v1/external/{name}?api_key=" in page, name
    index = (docs.parent / "integrations.md").read_text()
    assert all(f"integrations/{name}.md" in index for name in INTEGRATIONS)


def test_a_fixture_is_read_as_the_tool_sent_it():
    # The helpers send the file's bytes: signatures are over what the tool sent.
    assert copy.deepcopy(fixture_json("github", "ping.json"))["zen"]


def test_the_admin_cli_makes_an_incoming_webhook_bot_and_its_url(realm, capsys):
    from urllib.parse import parse_qs, urlsplit

    from chalicelib.admin import main

    capsys.readouterr()
    assert main(["create-bot", "--realm", realm.subdomain, "--owner-email",
                 realm.owner.email, "--name", "CI", "--short-name", "ci",
                 "--incoming-webhook", "github", "--webhook-secret", "topsecret",
                 "--stream", "dev"]) == 0
    made = json.loads(capsys.readouterr().out)
    url = urlsplit(made["integration_url"])
    assert url.path == "/api/v1/external/github"
    assert parse_qs(url.query) == {"api_key": [made["api_key"]], "stream": ["dev"]}
    bot = User.get(realm.realm_id, made["user_id"])
    assert bot.bot_type == 2 and bot.bot_config.as_dict() == {
        "integration_id": "github", "webhook_secret": "topsecret"}
    # Bad combinations are refused in one line
    assert main(["create-bot", "--realm", realm.subdomain, "--owner-email",
                 realm.owner.email, "--name", "X", "--short-name", "x",
                 "--webhook-secret", "s"]) == 2
    assert "--incoming-webhook" in capsys.readouterr().err
    assert main(["create-bot", "--realm", realm.subdomain, "--owner-email",
                 realm.owner.email, "--name", "Y", "--short-name", "y",
                 "--incoming-webhook", "nosuch"]) == 2
    assert "'nosuch' is not an integration this server knows" in capsys.readouterr().err


def test_an_incoming_webhook_bots_key_opens_only_its_urls_and_sending(realm, anonymous):
    hook = make_hook(realm)
    auth = {"Authorization": "Basic " + base64.b64encode(
        f"{hook.email}:{hook.api_key}".encode()).decode()}
    # Its URL is pasted into other tools: the rest of the API is closed to it, as the
    # reference closes it
    for method, path in (("GET", "/users/me"), ("GET", "/messages"), ("POST", "/register")):
        refused = anonymous(method, path, headers=auth)
        assert (refused.status, refused.json["code"]) == (400, "BAD_REQUEST"), path
        assert "not open to incoming webhook bots" in refused.json["msg"]
    sent = anonymous("POST", "/messages", {"type": "stream", "to": "dev", "topic": "t",
                                           "content": "by hand"}, headers=auth)
    assert sent.ok, sent.json


def test_reindex_marks_the_keys_of_older_incoming_webhook_bots(realm, capsys, anonymous):
    from chalicelib.admin import main
    from chalicelib.models.users import ApiKey
    from chalicelib.rules.secrets import hash_api_key

    hook = make_hook(realm)
    auth = {"Authorization": "Basic " + base64.b64encode(
        f"{hook.email}:{hook.api_key}".encode()).decode()}
    # GIVEN the key as versions before ApiKey.bot_type wrote it
    ApiKey(hash_api_key(hook.api_key)).update(actions=[ApiKey.bot_type.remove()])
    assert anonymous("GET", "/users/me", headers=auth).ok
    # WHEN the organization is reindexed, twice
    capsys.readouterr()
    assert main(["reindex", "--realm", realm.subdomain]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(["reindex", "--realm", realm.subdomain]) == 0
    again = json.loads(capsys.readouterr().out)
    # THEN the key is limited again, and the second run changed nothing
    assert (first["bot_keys_marked"], again["bot_keys_marked"]) == (1, 0)
    assert anonymous("GET", "/users/me", headers=auth).status == 400



def test_odd_payloads_get_a_4xx_never_a_5xx(realm):
    # (Every integration and event against many odd shapes, without HTTP:
    # tests/unit/test_integrations_text.py; here a few through the whole path.)
    hook = make_hook(realm)
    for name, headers, body in [
            ("github", {"X-GitHub-Event": "push"}, b'{"ref": [], "commits": {}}'),
            ("gitlab", {"X-Gitlab-Event": "Note Hook"}, b'{"object_attributes": null}'),
            ("sentry", {}, b'{"data": {"issue": 5}}'), ("grafana", {}, b'{"alerts": [1]}'),
            ("alertmanager", {}, b'"text"'), ("slack_incoming", {}, b"[]")]:
        answer = hook.post(name, body, headers=headers, stream="dev")
        assert (answer.status, answer.json["code"]) == (400, "ANOMALOUS_WEBHOOK_PAYLOAD"), name
    # Lone UTF-16 halves in a payload's text cannot be stored: they become "?"
    halves = b'{"text": "broken \\ud800 half", "channel": "#\\udfff"}'
    assert hook.post("slack_incoming", halves, stream="dev").status == 200
    message = last_message(realm)
    assert message["content"] == "broken ? half" and message["subject"] == "?"


def test_a_tool_set_up_wrong_is_told_to_the_owner(realm):
    hook = make_hook(realm)
    assert hook.post("github", b"payload=x", stream="dev",
                     content_type="application/x-www-form-urlencoded",
                     headers=GITHUB_PR).json["code"] == "INVALID_JSON"
    assert hook.post("github", PR_OPENED, stream="dev").json["code"] == \
        "MISSING_HTTP_EVENT_HEADER"
    notices = [m for m in realm.member.get("/messages", {
        "anchor": "newest", "num_before": 20, "num_after": 0, "apply_markdown": False,
        "narrow": [{"operator": "is", "operand": "dm"}]}).json["messages"]
        if m["sender_email"].startswith("notification-bot@")]
    assert len(notices) == 1   # the second came within the interval
    assert "cannot read" in notices[0]["content"] and "Malformed JSON" in notices[0]["content"]
