"""Missed-message email and mobile push, through the HTTP API, the outbox stream and the
notifier's delayed queue (run synchronously; the clock is moved past the period)."""
from __future__ import annotations

import json
from urllib.parse import urlsplit

import boto3
import pytest

from chalicelib.rules import presence_rules
from tests.functional.notification_helpers import (
    endpoint_messages,
    sent_mail,
    text_of,
)

PERIOD = 120   # the default email_notifications_batching_period_seconds


@pytest.fixture
def fcm_app(monkeypatch):
    sns = boto3.client("sns", region_name="us-east-1")
    arn = sns.create_platform_application(Name="teamchat-test-fcm", Platform="GCM",
                                          Attributes={"PlatformCredential": "k"})[
        "PlatformApplicationArn"]
    monkeypatch.setenv("SNS_FCM_PLATFORM_ARN", arn)
    return arn


def send_dm(sender, recipients, content="hello there"):
    response = sender.post("/messages", {"type": "direct", "to": [r.user_id for r in recipients],
                                         "content": content})
    assert response.ok, response.json
    return response.json["id"]


def send_to_channel(sender, channel, topic, content):
    response = sender.post("/messages", {"type": "stream", "to": channel, "topic": topic,
                                         "content": content})
    assert response.ok, response.json
    return response.json["id"]


def subscribe(account, channel, *others):
    response = account.post("/users/me/subscriptions", {
        "subscriptions": [{"name": channel}],
        "principals": [account.user_id, *(o.user_id for o in others)]})
    assert response.ok, response.json


def end_period(clock, notifier, seconds=PERIOD + 1):
    """Fans out what was sent (it arrives now), then lets the batching period end."""
    notifier.run()
    clock.advance(seconds)
    notifier.run()


def test_two_dms_in_one_period_make_one_email_listing_both(realm, notifier, clock):
    first = send_dm(realm.member, [realm.admin], "first message")
    notifier.run()                    # fan-out: pending, a wake-up delayed by the period
    assert sent_mail(realm.admin.email) == []
    clock.advance(30)
    second = send_dm(realm.member, [realm.admin], "second message")
    notifier.run()
    assert sent_mail(realm.admin.email) == []        # still inside the period
    wakeups = [j for j in notifier.jobs() if j["kind"] == "email"
               and (j["realm_id"], j["user_id"]) == (realm.realm_id, realm.admin.user_id)]
    assert len(wakeups) == 1                         # the second message joined the period
    end_period(clock, notifier)
    [mail] = sent_mail(realm.admin.email)
    assert mail["Subject"] == "DMs with Max Member"
    body = text_of(mail)
    assert "first message" in body and "second message" in body
    assert f"/near/{first}" in body and f"/near/{second}" in body
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert mail["List-Unsubscribe"].startswith("<") and "/accounts/unsubscribe/" in mail[
        "List-Unsubscribe"]
    # The sender is never emailed about their own messages.
    assert sent_mail(realm.member.email) == []


def test_read_before_the_period_ends_sends_nothing(realm, notifier, clock):
    message_id = send_dm(realm.member, [realm.admin])
    notifier.run()
    clock.advance(60)
    response = realm.admin.post("/messages/flags", {"messages": [message_id], "op": "add",
                                                     "flag": "read"})
    assert response.ok, response.json
    end_period(clock, notifier)
    assert sent_mail(realm.admin.email) == []


def test_only_unread_messages_are_listed(realm, notifier, clock):
    read_one = send_dm(realm.member, [realm.admin], "already seen")
    send_dm(realm.member, [realm.admin], "never seen")
    notifier.run()
    assert realm.admin.post("/messages/flags", {"messages": [read_one], "op": "add",
                                                "flag": "read"}).ok
    end_period(clock, notifier)
    [mail] = sent_mail(realm.admin.email)
    assert "never seen" in text_of(mail) and "already seen" not in text_of(mail)


def test_setting_off_sends_nothing(realm, notifier, clock):
    assert realm.admin.patch("/settings", {"enable_offline_email_notifications": False}).ok
    send_dm(realm.member, [realm.admin])
    end_period(clock, notifier)
    assert sent_mail(realm.admin.email) == []
    assert not [j for j in notifier.handled if j.get("user_id") == realm.admin.user_id]


def test_setting_turned_off_during_the_period_sends_nothing(realm, notifier, clock):
    send_dm(realm.member, [realm.admin])
    notifier.run()
    assert realm.admin.patch("/settings", {"enable_offline_email_notifications": False}).ok
    end_period(clock, notifier)
    assert sent_mail(realm.admin.email) == []


def test_redelivered_job_and_stream_record_still_send_one_email(realm, notifier, clock,
                                                                 drain_events):
    send_dm(realm.member, [realm.admin])
    records = drain_events.read()                # the stream records, kept for a replay
    from chalicelib.fanout.batch import handle_stream_batch

    handle_stream_batch({"Records": records})
    handle_stream_batch({"Records": records})   # the stream delivers them again
    notifier.run_due()
    [decided] = [j for j in notifier.handled if j["kind"] == "decide"]
    [wakeup] = [j for j in notifier.jobs() if j["kind"] == "email"
                and j["user_id"] == realm.admin.user_id]
    assert notifier.replay(decided)["batchItemFailures"] == []   # SQS delivers it again
    assert [j for j in notifier.jobs() if j["kind"] == "email"] == [wakeup]
    end_period(clock, notifier)
    assert len(sent_mail(realm.admin.email)) == 1
    result = notifier.replay(wakeup)             # SQS delivers the job again
    assert result["batchItemFailures"] == []
    handle_stream_batch({"Records": records})
    end_period(clock, notifier)
    assert len(sent_mail(realm.admin.email)) == 1


def test_an_active_recipient_gets_no_email(realm, notifier, clock):
    assert realm.admin.post("/users/me/presence", {"status": "active"}).ok
    send_dm(realm.member, [realm.admin])
    end_period(clock, notifier)
    assert sent_mail(realm.admin.email) == []


def test_a_recipient_back_before_the_period_ends_gets_no_email(realm, notifier, clock):
    send_dm(realm.member, [realm.admin])
    notifier.run()
    clock.advance(PERIOD - 10)
    assert realm.admin.post("/users/me/presence", {"status": "active"}).ok
    end_period(clock, notifier, seconds=11)
    assert sent_mail(realm.admin.email) == []


def test_a_recipient_active_long_ago_is_away(realm, notifier, clock):
    assert realm.admin.post("/users/me/presence", {"status": "active"}).ok
    clock.advance(presence_rules.OFFLINE_THRESHOLD_SECONDS + 10)
    send_dm(realm.member, [realm.admin])
    end_period(clock, notifier)
    assert len(sent_mail(realm.admin.email)) == 1


def test_mention_in_a_channel_is_emailed_and_plain_messages_are_not(realm, notifier, clock):
    subscribe(realm.member, "kitchen", realm.admin, realm.moderator)
    notifier.run()
    send_to_channel(realm.member, "kitchen", "lunch", "who wants soup?")
    mention = send_to_channel(realm.member, "kitchen", "lunch",
                              "@**Adam Admin** your soup is ready")
    end_period(clock, notifier)
    [mail] = sent_mail(realm.admin.email)
    assert mail["Subject"] == "#kitchen > lunch"
    body = text_of(mail)
    assert "your soup is ready" in body and "who wants soup" not in body
    assert f"/topic/lunch/near/{mention}" in body
    assert sent_mail(realm.moderator.email) == []   # not mentioned, channel email off


def test_presence_is_read_only_for_recipients_a_rule_could_notify(realm, notifier, clock,
                                                                   monkeypatch):
    from chalicelib.models.presence import Presence
    from chalicelib.notifications import decide

    presence_reads: list[list] = []
    real_read_all = decide.read_all

    def spying(model, keys, *args, **kwargs):
        if model is Presence:
            presence_reads.append(list(keys))
        return real_read_all(model, keys, *args, **kwargs)

    monkeypatch.setattr(decide, "read_all", spying)
    subscribe(realm.member, "pantry", realm.admin, realm.moderator)
    notifier.run()
    send_to_channel(realm.member, "pantry", "jam", "the jam is back")
    notifier.run()
    assert [keys for keys in presence_reads if keys] == []   # nobody could be notified
    send_to_channel(realm.member, "pantry", "jam", "@**Adam Admin** it is apricot")
    notifier.run()
    assert [keys for keys in presence_reads if keys] == [[(realm.realm_id, realm.admin.user_id)]]
    end_period(clock, notifier)
    assert len(sent_mail(realm.admin.email)) == 1 and sent_mail(realm.moderator.email) == []


def test_channel_email_notifications_and_followed_topics(realm, notifier, clock):
    subscribe(realm.member, "garden", realm.admin, realm.moderator)
    assert realm.admin.post("/users/me/subscriptions/properties", {"subscription_data": [
        {"stream_id": _channel_id(realm.admin, "garden"), "property": "email_notifications",
         "value": True}]}).ok
    assert realm.moderator.post("/user_topics", {
        "stream_id": _channel_id(realm.moderator, "garden"), "topic": "roses",
        "visibility_policy": 3}).ok
    notifier.run()
    send_to_channel(realm.member, "garden", "roses", "they bloomed")
    send_to_channel(realm.member, "garden", "tulips", "not yet")
    end_period(clock, notifier)
    [admin_mail] = sent_mail(realm.admin.email)
    assert "they bloomed" in text_of(admin_mail) and "not yet" in text_of(admin_mail)
    [moderator_mail] = sent_mail(realm.moderator.email)
    assert "they bloomed" in text_of(moderator_mail)
    assert "not yet" not in text_of(moderator_mail)


def test_wildcard_mentions_follow_wildcard_mentions_notify(realm, notifier, clock):
    subscribe(realm.member, "hall", realm.admin, realm.moderator)
    assert realm.moderator.patch("/settings", {"wildcard_mentions_notify": False}).ok
    notifier.run()
    send_to_channel(realm.member, "hall", "news", "@**all** meeting at noon")
    end_period(clock, notifier)
    assert len(sent_mail(realm.admin.email)) == 1
    assert sent_mail(realm.moderator.email) == []


def test_content_and_realm_name_settings_shape_the_email(realm, notifier, clock):
    assert realm.admin.patch("/settings", {"message_content_in_email_notifications": False,
                                           "realm_name_in_email_notifications_policy": 2}).ok
    send_dm(realm.member, [realm.admin], "a secret plan")
    end_period(clock, notifier)
    [mail] = sent_mail(realm.admin.email)
    assert mail["Subject"].startswith("[Test org ")
    assert "a secret plan" not in text_of(mail) and "Max Member sent a message" in text_of(mail)


def test_unsubscribe_link_turns_the_setting_off_without_signing_in(realm, notifier, clock,
                                                                   anonymous):
    send_dm(realm.member, [realm.admin])
    end_period(clock, notifier)
    [mail] = sent_mail(realm.admin.email)
    path = urlsplit(mail["List-Unsubscribe"].strip("<>")).path
    response = realm.client.http.post(path, headers={
        "Content-Type": "application/x-www-form-urlencoded"},
        body=b"List-Unsubscribe=One-Click")
    assert response.status_code == 200, response.body
    assert json.loads(response.body)["setting"] == "enable_offline_email_notifications"
    register = realm.admin.post("/register", {"fetch_event_types": ["user_settings"]}).json
    assert register["user_settings"]["enable_offline_email_notifications"] is False
    send_dm(realm.member, [realm.admin], "after unsubscribing")
    end_period(clock, notifier)
    assert len(sent_mail(realm.admin.email)) == 1
    tampered = path[:-3] + ("AAA" if not path.endswith("AAA") else "BBB")
    assert realm.client.http.get(tampered).status_code == 400


def test_a_bounced_address_gets_no_more_email(realm, notifier, clock, chalice_client):
    event = chalice_client.events.generate_sns_event(message=json.dumps({
        "eventType": "Bounce", "bounce": {"bounceType": "Permanent", "bouncedRecipients": [
            {"emailAddress": realm.admin.email.upper()}]}}))
    chalice_client.lambda_.invoke("mail_events", event)
    send_dm(realm.member, [realm.admin])
    end_period(clock, notifier)
    assert sent_mail(realm.admin.email) == []


def test_local_stack_writes_every_email_as_an_eml_file(realm, notifier, clock, tmp_path,
                                                       monkeypatch, capsys):
    monkeypatch.setenv("LOCAL_MAIL_DIR", str(tmp_path))
    send_dm(realm.member, [realm.admin], "look in the folder")
    end_period(clock, notifier)
    assert realm.admin.post("/invites", {"invitee_emails": "newcomer@example.org",
                                         "stream_ids": []}).ok
    files = sorted(tmp_path.glob("*.eml"))
    texts = [f.read_text() for f in files]
    assert len(files) == 2
    assert any("look in the folder" in t and "List-Unsubscribe" in t for t in texts)
    assert any("newcomer@example.org" in t for t in texts)
    printed = [line for line in capsys.readouterr().out.splitlines()
               if line.startswith("[mail]")]
    assert len(printed) == 2


# -- push ---------------------------------------------------------------------------------

def _endpoint(fcm_app, token):
    sns = boto3.client("sns", region_name="us-east-1")
    [endpoint] = [e for e in sns.list_endpoints_by_platform_application(
        PlatformApplicationArn=fcm_app)["Endpoints"] if e["Attributes"]["Token"] == token]
    return endpoint["EndpointArn"]


def _channel_id(account, name):
    response = account.get("/get_stream_id", {"stream": name})
    assert response.ok, response.json
    return response.json["stream_id"]


def test_push_is_published_at_once_and_removed_when_read(realm, notifier, clock, fcm_app):
    assert realm.admin.post("/users/me/android_gcm_reg_id", {"token": "phone-1"}).ok
    endpoint = _endpoint(fcm_app, "phone-1")
    message_id = send_dm(realm.member, [realm.admin], "call me")
    notifier.run()                   # no batching period for push
    [pushed] = endpoint_messages(endpoint)
    assert pushed["event"] == "message" and pushed["zulip_message_id"] == message_id
    assert pushed["recipient_type"] == "private" and pushed["content"] == "call me"
    assert realm.admin.post("/messages/flags", {"messages": [message_id], "op": "add",
                                                "flag": "read"}).ok
    notifier.run()
    removal = endpoint_messages(endpoint)[-1]
    assert removal["event"] == "remove" and removal["zulip_message_ids"] == str(message_id)
    assert realm.admin.delete("/users/me/android_gcm_reg_id", {"token": "phone-1"}).ok
    assert realm.admin.delete("/users/me/android_gcm_reg_id",
                              {"token": "phone-1"}).json["msg"] == "That device token is not registered"


def test_a_decide_or_push_job_delivered_twice_pushes_once(realm, notifier, clock, fcm_app):
    assert realm.admin.post("/users/me/android_gcm_reg_id", {"token": "phone-9"}).ok
    endpoint = _endpoint(fcm_app, "phone-9")
    send_dm(realm.member, [realm.admin], "once only")
    notifier.run()
    [decided] = [j for j in notifier.handled if j["kind"] == "decide"]
    [push_job] = [j for j in notifier.handled if j["kind"] == "push"]
    assert notifier.replay(push_job)["batchItemFailures"] == []   # SQS's at-least-once
    assert notifier.replay(decided)["batchItemFailures"] == []
    notifier.run()
    assert [m["content"] for m in endpoint_messages(endpoint)] == ["once only"]


def test_push_settings_offline_and_online(realm, notifier, clock, fcm_app):
    assert realm.admin.post("/users/me/android_gcm_reg_id", {"token": "phone-2"}).ok
    endpoint = _endpoint(fcm_app, "phone-2")
    assert realm.admin.patch("/settings", {"enable_offline_push_notifications": False}).ok
    send_dm(realm.member, [realm.admin])
    notifier.run()
    assert endpoint_messages(endpoint) == []
    assert realm.admin.patch("/settings", {"enable_offline_push_notifications": True}).ok
    # An active user is pushed to (enable_online_push_notifications, on by default) but
    # not emailed; with the online setting off, not pushed either.
    assert realm.admin.post("/users/me/presence", {"status": "active"}).ok
    online = send_dm(realm.member, [realm.admin], "while online")
    notifier.run()
    assert [m["zulip_message_id"] for m in endpoint_messages(endpoint)] == [online]
    assert realm.admin.patch("/settings", {"enable_online_push_notifications": False}).ok
    send_dm(realm.member, [realm.admin], "online, no push")
    end_period(clock, notifier, seconds=30)
    assert len(endpoint_messages(endpoint)) == 1
    assert sent_mail(realm.admin.email) == []


def test_a_disabled_endpoint_is_forgotten(realm, notifier, clock, fcm_app):
    assert realm.admin.post("/users/me/android_gcm_reg_id", {"token": "phone-3"}).ok
    sns = boto3.client("sns", region_name="us-east-1")
    sns.set_endpoint_attributes(EndpointArn=_endpoint(fcm_app, "phone-3"),
                                Attributes={"Enabled": "false"})
    send_dm(realm.member, [realm.admin])
    notifier.run()
    response = realm.admin.delete("/users/me/android_gcm_reg_id", {"token": "phone-3"})
    assert response.json["msg"] == "That device token is not registered"


def test_device_tokens_and_test_notification(realm, monkeypatch, fcm_app):
    apns = boto3.client("sns", region_name="us-east-1").create_platform_application(
        Name="teamchat-test-apns", Platform="APNS",
        Attributes={"PlatformCredential": "k"})["PlatformApplicationArn"]
    monkeypatch.setenv("SNS_APNS_PLATFORM_ARN", apns)
    bad = realm.admin.post("/users/me/apns_device_token", {"token": "xyz", "appid": "a.b"})
    assert (bad.status, bad.json["msg"]) == (400, "That is not an APNs device token")
    empty = realm.admin.post("/users/me/android_gcm_reg_id", {"token": ""})
    assert empty.json["msg"] == "The device token is empty or of the wrong length"
    missing = realm.admin.post("/mobile_push/test_notification", {"token": "nope"})
    assert (missing.status, missing.json["code"]) == (400, "INVALID_PUSH_DEVICE_TOKEN")
    assert realm.admin.post("/users/me/apns_device_token",
                            {"token": "abcd1234", "appid": "org.example.app"}).ok
    assert realm.admin.post("/users/me/android_gcm_reg_id", {"token": "phone-4"}).ok
    assert realm.admin.post("/mobile_push/test_notification", {"token": "phone-4"}).ok
    endpoint = _endpoint(fcm_app, "phone-4")
    assert [m["event"] for m in endpoint_messages(endpoint)] == ["test"]


def _published(endpoint_arn: str) -> list[dict]:
    """Each SNS message to the endpoint: the APNs form and the FCM form."""
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.sns.models import sns_backends
    endpoint = sns_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].platform_endpoints[endpoint_arn]
    return [json.loads(m) for m in endpoint.messages.values()]


def test_push_payloads_of_the_e2ee_era(realm, notifier, clock, fcm_app, advertise):
    advertise(413)
    assert realm.admin.post("/users/me/android_gcm_reg_id", {"token": "phone-e2ee"}).ok
    endpoint = _endpoint(fcm_app, "phone-e2ee")
    send_dm(realm.member, [realm.admin], "the plan is ready")
    notifier.run()
    [sent] = _published(endpoint)
    apns, fcm = json.loads(sent["APNS"])["zulip"], json.loads(sent["GCM"])["data"]
    # APNs no longer carries time (410), server and realm_id (413); FCM keeps them
    assert not {"time", "server", "realm_id"} & set(apns)
    assert {"time", "server", "realm_id"} <= set(fcm) and "content_truncated" not in fcm
    assert fcm["content"] == "the plan is ready"
    # WHEN the organization requires end-to-end encrypted push (level 409), THEN a legacy
    # notification says only that there is a message
    assert realm.admin.patch("/realm", {"require_e2ee_push_notifications": True}).ok
    state = realm.admin.post("/register", {"fetch_event_types": ["realm"]}).json
    assert state["realm_require_e2ee_push_notifications"] is True
    send_dm(realm.member, [realm.admin], "secret details")
    notifier.run()
    latest = _published(endpoint)[-1]
    assert json.loads(latest["GCM"])["data"]["content"] == "New message"
    assert json.loads(latest["APNS"])["aps"]["alert"]["body"] == "New message"
    assert "secret" not in json.dumps(latest)


def test_a_limited_guest_is_notified_of_an_inaccessible_sender_as_unknown(realm, notifier,
                                                                          clock, fcm_app):
    # GIVEN a realm limiting guests; the guest and the member share "kitchen"
    from tests.functional.test_user_access import PLACEHOLDER_NAME, restrict

    restrict(realm)
    subscribe(realm.member, "kitchen", realm.guest)
    assert realm.guest.post("/users/me/android_gcm_reg_id", {"token": "guest-phone"}).ok
    endpoint = _endpoint(fcm_app, "guest-phone")
    notifier.run()
    # WHEN the moderator, whom the guest may not access, writes there without subscribing
    send_to_channel(realm.moderator, "kitchen", "lunch", "@**Gus Guest** soup is ready")
    end_period(clock, notifier)
    # THEN the push and the email name them "Unknown user", never by name
    [pushed] = endpoint_messages(endpoint)
    assert pushed["sender_full_name"] == PLACEHOLDER_NAME
    [mail] = sent_mail(realm.guest.email)
    body = text_of(mail)
    assert "soup is ready" in body and PLACEHOLDER_NAME in body
    assert realm.moderator.full_name not in body + json.dumps(pushed)
