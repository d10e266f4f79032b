"""The notification rules, tokens and SES events, as pure functions."""
from __future__ import annotations

from chalicelib.notifications.bounces import suppressed_addresses
from chalicelib.notifications.jobs import MAX_DELAY_SECONDS, delay_until
from chalicelib.notifications.rules import Recipient, reason_for, still_wanted
from chalicelib.notifications.tokens import make_token, read_token
from chalicelib.rules.user_settings import DEFAULTS


def settings(**changed):
    return {**DEFAULTS, **changed}


def channel(flags=(), sub=None, policy=0, **changed):
    return Recipient(frozenset(flags), settings(**changed), private=False,
                     subscription=sub or {}, topic_policy=policy)


def test_direct_messages_and_mentions_follow_the_offline_settings():
    dm = Recipient(frozenset(), settings(), private=True)
    assert reason_for(dm, "email") == "private" and reason_for(dm, "push") == "private"
    off = Recipient(frozenset(), settings(enable_offline_email_notifications=False), True)
    assert reason_for(off, "email") is None and reason_for(off, "push") == "private"
    assert reason_for(channel({"mentioned"}), "email") == "mention"
    assert reason_for(channel({"has_alert_word"}), "push") == "mention"
    assert reason_for(channel(), "email") is None


def test_wildcards_follow_wildcard_mentions_notify_and_muting():
    wildcard = {"stream_wildcard_mentioned"}
    assert reason_for(channel(wildcard), "email") == "wildcard"
    assert reason_for(channel(wildcard, wildcard_mentions_notify=False), "email") is None
    assert reason_for(channel(wildcard, {"wildcard_mentions_notify": True},
                              wildcard_mentions_notify=False), "email") == "wildcard"
    assert reason_for(channel(wildcard, {"is_muted": True}), "email") is None
    assert reason_for(channel(wildcard, policy=1), "email") is None
    # A followed topic has its own wildcard setting (then the topic is followed anyway).
    assert reason_for(channel(wildcard, policy=3, wildcard_mentions_notify=False),
                      "email") == "wildcard"


def test_channel_and_followed_topic_settings():
    assert reason_for(channel(sub={"email_notifications": True}), "email") == "channel"
    assert reason_for(channel(enable_stream_email_notifications=True), "email") == "channel"
    assert reason_for(channel(sub={"email_notifications": False},
                              enable_stream_email_notifications=True), "email") is None
    assert reason_for(channel(sub={"email_notifications": True, "is_muted": True}),
                      "email") is None
    assert reason_for(channel(policy=3), "email") == "followed"
    assert reason_for(channel(policy=3, enable_followed_topic_push_notifications=False),
                      "push") is None
    assert still_wanted("followed", settings(), "email")
    assert not still_wanted("mention", settings(enable_offline_email_notifications=False),
                            "email")


def test_tokens_are_signed():
    token = make_token(3, 14)
    found = read_token(token)
    assert found is not None and (found.realm_id, found.user_id) == (3, 14)
    payload, _, signature = token.partition(".")
    assert read_token(payload + "." + signature[::-1]) is None
    assert read_token(make_token(3, 15).split(".")[0] + "." + signature) is None
    assert read_token("garbage") is None


def test_only_permanent_bounces_and_complaints_suppress():
    bounce = {"eventType": "Bounce", "bounce": {"bounceType": "Permanent",
                                                "bouncedRecipients": [{"emailAddress": "a@x"}]}}
    assert suppressed_addresses(bounce) == [("a@x", "bounce")]
    bounce["bounce"]["bounceType"] = "Transient"
    assert suppressed_addresses(bounce) == []
    complaint = {"notificationType": "Complaint",
                 "complaint": {"complainedRecipients": [{"emailAddress": "b@x"}]}}
    assert suppressed_addresses(complaint) == [("b@x", "complaint")]
    assert suppressed_addresses({"eventType": "Delivery"}) == []


def test_delays_are_capped_at_the_sqs_limit():
    assert delay_until(120_000, 0) == 120
    assert delay_until(1_500, 0) == 2
    assert delay_until(0, 5_000) == 0
    assert delay_until(7 * 86_400_000, 0) == MAX_DELAY_SECONDS
