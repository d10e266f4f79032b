"""The notifier (@app.on_sqs_message): decides who is notified of new messages
(decide.py), sends the email of a period, pushes, removals.

An email job arrives when its user's batching period ends (a longer period than SQS's
15-minute delay is reached by sending the job again with the time left). Then, exactly
once per user and period:

1. claim: a conditional put of the period's EmailClaim (a redelivered or duplicated job
   finds it and stops; a claim left `sending` by a worker that died is taken over after
   CLAIM_LEASE_MS);
2. close the period, so a message arriving from now on opens the next one;
3. read what is pending (one Query), drop what was read meanwhile (the unread markers,
   one BatchGetItem) and what the user's settings no longer ask for;
4. send one email through SES (unless the address bounced or complained), delete the
   pending items, mark the claim sent.
The one window for a duplicate is a crash between SES accepting the email and step 4's
delete (a retry after the lease would send it again); it is as narrow as one write.
"""
from __future__ import annotations

import json
import time
from typing import Any

from pynamodb.exceptions import DeleteError, PutError, UpdateError

from chalicelib.actions.users.reads.access import INACCESSIBLE_USER_NAME, AccessCache
from chalicelib.aws import metrics
from chalicelib.aws.email import send_message
from chalicelib.aws.log import logger
from chalicelib.aws.partial_batch import PartialBatchResponse, process_records
from chalicelib.core.feature_levels import level_reached
from chalicelib.models.base import is_write_condition_failure
from chalicelib.models.channels import Stream, user_key
from chalicelib.models.message_flags import UnreadMessage
from chalicelib.models.messages import Message
from chalicelib.models.notifications import (
    CLAIM_RETENTION,
    PENDING_PREFIX,
    PERIOD_ITEM,
    PUSH_RETENTION,
    SUPPRESSED_ITEM,
    EmailClaim,
    EmailPeriod,
    MailSuppression,
    PendingNotification,
    PushSent,
    address_key,
    claim_item,
    expiry,
    owner_key,
    push_item,
)
from chalicelib.models.presence import Presence
from chalicelib.models.realms import Realm, realm_setting
from chalicelib.models.users import User
from chalicelib.notifications import push
from chalicelib.notifications.decide import decide
from chalicelib.notifications.e2ee_push import (
    e2ee_devices,
    message_payload,
    publish_e2ee,
    removal_payload,
)
from chalicelib.notifications.email_render import MissedMessage, render
from chalicelib.notifications.jobs import EmailJob, clock_ms, delay_until, send_jobs
from chalicelib.notifications.rules import still_wanted
from chalicelib.rules import presence_rules
from chalicelib.rules.user_settings import effective_settings

# From this level, require_e2ee_push_notifications stops legacy push entirely.
LEGACY_PUSH_OFF_LEVEL = 500
CLAIM_LEASE_MS = 300_000   # a claim `sending` for longer than this was abandoned
EARLY_MS = 1000            # SQS may deliver a delayed message slightly early


class RetryLater(Exception):
    """Another worker holds the period's claim: offer the job again later."""


def handle_notifier_batch(raw_event: dict[str, Any], context: Any = None
                          ) -> PartialBatchResponse:
    logger.append_keys(handler="notifier",
                       request_id=getattr(context, "aws_request_id", None))
    try:
        return process_records(raw_event, _record, "sqs")
    finally:
        metrics.flush()
        logger.remove_keys(["handler", "request_id"])


def _record(record: dict[str, Any]) -> None:
    job = json.loads(record["body"])
    kind = job.get("kind")
    if kind == "email":
        send_period_email(job)
    elif kind == "push":
        send_pushes(int(job["realm_id"]), int(job["user_id"]),
                    [(int(m), str(r)) for m, r in job["messages"]])
    elif kind == "decide":
        decide(job)
    elif kind == "remove":
        remove_pushes(int(job["realm_id"]), int(job["user_id"]),
                      [int(i) for i in job["message_ids"]])
    else:
        logger.warning("unknown notification job", extra={"kind": kind})


# -- email ------------------------------------------------------------------------------

def send_period_email(job: EmailJob) -> int:
    """Sends the period's email if it is due and not sent yet; returns how many messages
    it listed (0: nothing sent)."""
    realm_id, user_id, due_ms = int(job["realm_id"]), int(job["user_id"]), int(job["due_ms"])
    now_ms = clock_ms()
    if due_ms - now_ms > EARLY_MS:   # a period longer than SQS's delay: wait again
        send_jobs([(job, delay_until(due_ms, now_ms))])
        return 0
    owner = owner_key(realm_id, user_id)
    claim = _claim(owner, due_ms, now_ms)
    if claim is None:
        return 0
    try:
        EmailPeriod(owner, PERIOD_ITEM).update(actions=[EmailPeriod.closed.set(True)],
                                               condition=EmailPeriod.due_ms == due_ms)
    except UpdateError as error:
        if not is_write_condition_failure(error):
            raise   # else: a stale period was reopened meanwhile; it has its own job
    pending = list(PendingNotification.query(
        owner, PendingNotification.item.startswith(PENDING_PREFIX), consistent_read=True))
    try:
        count = _send(realm_id, user_id, pending)
    except Exception:
        _release(claim)   # nothing was sent: let the retry claim at once
        raise
    with PendingNotification.batch_write() as batch:
        for item in pending:
            batch.delete(item)
    claim.update(actions=[EmailClaim.state.set("sent"), EmailClaim.messages.set(count)])
    metrics.collector.add_metric(name=metrics.MISSED_MESSAGE_EMAILS, unit="Count",
                                 value=1 if count else 0)
    return count


def _claim(owner: str, due_ms: int, now_ms: int) -> EmailClaim | None:
    """The period's claim, made by this worker; None if the email is sent already."""
    claim = EmailClaim(owner, claim_item(due_ms), state="sending", claimed_ms=now_ms,
                       expires_at=expiry(CLAIM_RETENTION))
    try:
        claim.save(condition=EmailClaim.item.does_not_exist())
        return claim
    except PutError as error:
        if not is_write_condition_failure(error):
            raise
    held = EmailClaim.get_or_none(owner, claim_item(due_ms))
    if held is None or held.state == "sent":
        return None
    if now_ms - int(held.claimed_ms) < CLAIM_LEASE_MS:
        raise RetryLater(owner)
    try:   # abandoned: take it over (one taker wins)
        held.update(actions=[EmailClaim.claimed_ms.set(now_ms)],
                    condition=(EmailClaim.claimed_ms == held.claimed_ms)
                    & (EmailClaim.state == "sending"))
    except UpdateError as error:
        if is_write_condition_failure(error):
            return None
        raise
    return held


def _release(claim: EmailClaim) -> None:
    try:
        claim.delete(condition=(EmailClaim.claimed_ms == claim.claimed_ms)
                     & (EmailClaim.state == "sending"))
    except DeleteError:
        logger.exception("could not release an email claim")


def _send(realm_id: int, user_id: int, pending: list[PendingNotification]) -> int:
    if not pending:
        return 0
    user = User.get_or_none(realm_id, user_id)
    if user is None or not user.is_active or not user.delivery_email:
        return 0
    if _active_now(realm_id, user_id):
        logger.info("the user came back during the period: no email")
        return 0
    settings = effective_settings(user.stored_settings())
    ukey = user_key(realm_id, user_id)
    unread = {int(m.message_id) for m in UnreadMessage.batch_get(
        [(ukey, int(p.message_id)) for p in pending], consistent_read=True,
        attributes_to_get=["user_key", "message_id"])}
    wanted = {int(p.message_id): p.reason for p in pending
              if int(p.message_id) in unread and still_wanted(p.reason, settings, "email")}
    if not wanted:
        return 0
    if MailSuppression.get_or_none(address_key(user.delivery_email), SUPPRESSED_ITEM):
        logger.info("address suppressed after a bounce or complaint: no email")
        return 0
    messages = _missed(realm_id, user, wanted)
    if not messages:
        return 0
    realm = Realm.get(realm_id)
    send_message(render(to=user.delivery_email, full_name=user.full_name, realm=realm,
                        realm_id=realm_id, user_id=user_id, settings=settings,
                        messages=messages))
    return len(messages)


def _active_now(realm_id: int, user_id: int) -> bool:
    """The user reported activity within the presence timeout: they are here to read."""
    item = Presence.get_or_none(realm_id, user_id, consistent_read=False)
    return item is not None and not item.hidden and item.active_at is not None and \
        int(item.active_at) >= clock_ms() / 1000 - presence_rules.OFFLINE_THRESHOLD_SECONDS


def _missed(realm_id: int, reader: User, wanted: dict[int, str]) -> list[MissedMessage]:
    """The wanted messages as the email or push shows them to `reader`, oldest first
    (batched reads); a channel message's sender the reader may not access (a guest the
    organization limits) is "Unknown user", as in the reader's events."""
    user_id = int(reader.user_id)
    stored = sorted(Message.batch_get([(realm_id, i) for i in sorted(wanted)]),
                    key=lambda m: int(m.message_id))
    people = {int(m.sender_id) for m in stored} | {
        int(u) for m in stored if m.type == "private" for u in m.recipient_ids}
    found = {int(u.user_id): u for u in User.batch_get(
        [(realm_id, i) for i in sorted(people)], attributes_to_get=[
            "realm_id", "user_id", "full_name", "email", "is_bot", "is_active"])}
    access = AccessCache()   # reads nothing unless the reader is a guest it may limit
    for person in found.values():
        access.remember(person)
    names = {user_id: u.full_name for user_id, u in found.items()}
    stream_ids = sorted({int(m.stream_id) for m in stored if m.stream_id is not None})
    streams = {int(s.stream_id): s.name for s in Stream.batch_get(
        [(realm_id, i) for i in stream_ids], attributes_to_get=["realm_id", "stream_id",
                                                                "name"])}
    missed = []
    for m in stored:
        participants = tuple(sorted(int(u) for u in m.recipient_ids))
        sender = found.get(int(m.sender_id))
        sender_name = names.get(int(m.sender_id), "Someone")
        if m.type == "stream" and not access.viewer_may_access(
                realm_id, user_id, int(reader.role), int(m.sender_id)):
            sender, sender_name = None, INACCESSIBLE_USER_NAME
        missed.append(MissedMessage(
            message_id=int(m.message_id), type=m.type,
            sender_name=sender_name, content=m.content,
            reason=wanted[int(m.message_id)],
            stream_id=None if m.stream_id is None else int(m.stream_id),
            stream_name=streams.get(int(m.stream_id or 0), ""), topic=m.topic or "",
            others=tuple(names.get(u, "Someone") for u in participants if u != user_id),
            participant_ids=participants, sender_id=int(m.sender_id),
            sender_email=sender.email if sender is not None else "",
            date_sent=int(m.date_sent)))
    return missed


# -- push -------------------------------------------------------------------------------

def send_pushes(realm_id: int, user_id: int, messages: list[tuple[int, str]]) -> int:
    """Pushes each still-unread message to every phone of the user; returns how many
    publishes SNS accepted. Devices registered for end-to-end encrypted push get the
    encrypted form; legacy registrations the plain one, unless the organization requires
    encryption from level 500 (then none)."""
    devices = push.devices_of(realm_id, user_id)
    sealed_for = e2ee_devices(realm_id, user_id)
    if not devices and not sealed_for:
        return 0
    user = User.get_or_none(realm_id, user_id)
    if user is None or not user.is_active:
        return 0
    settings = effective_settings(user.stored_settings())
    ukey = user_key(realm_id, user_id)
    unread = {int(m.message_id) for m in UnreadMessage.batch_get(
        [(ukey, m) for m, _ in messages], consistent_read=True,
        attributes_to_get=["user_key", "message_id"])}
    wanted = {m: r for m, r in messages if m in unread and still_wanted(r, settings, "push")}
    # A job (or the decide job before it) delivered twice pushes a message once.
    owner = owner_key(realm_id, user_id)
    for pushed in PushSent.batch_get([(owner, push_item(m)) for m in wanted],
                                     consistent_read=True):
        wanted.pop(int(pushed.message_id), None)
    if not wanted:
        return 0
    realm = Realm.get(realm_id)
    # Legacy devices under the E2EE requirement: no content (409), then nothing (500).
    required = bool(realm_setting(realm, "require_e2ee_push_notifications"))
    redacted = required and level_reached(409)
    if required and level_reached(LEGACY_PUSH_OFF_LEVEL):
        devices = []
    sent = 0
    shown = _missed(realm_id, user, wanted)
    for message in shown:
        sent += sum(publish_e2ee(device, message_payload(realm, user_id, message))
                    for device in sealed_for)
        content = push.REDACTED if redacted else message.content[:push.CONTENT_PREVIEW]
        payload: push.PushPayload = {
            **push.base_payload(realm, user_id), "event": "message",
            "zulip_message_id": message.message_id, "sender_full_name": message.sender_name,
            "recipient_type": "stream" if message.type == "stream" else "private",
            "time": int(time.time()), "content": content, "alert": content}
        if message.type == "stream":
            payload["stream"] = message.stream_name
            payload["stream_id"] = message.stream_id or 0
            payload["topic"] = message.topic
        else:
            payload["pm_users"] = ",".join(str(i) for i in message.participant_ids)
        for device in list(devices):
            if push.publish(device, payload):
                sent += 1
            else:
                devices.remove(device)
    with PushSent.batch_write() as batch:
        for message in shown:
            batch.save(PushSent(owner, push_item(message.message_id),
                                message_id=message.message_id,
                                expires_at=expiry(PUSH_RETENTION)))
    metrics.collector.add_metric(name=metrics.PUSH_NOTIFICATIONS, unit="Count", value=sent)
    return sent


def remove_pushes(realm_id: int, user_id: int, message_ids: list[int]) -> int:
    """Tells the user's phones to take down these messages' notifications (read
    elsewhere); returns how many publishes SNS accepted."""
    devices = push.devices_of(realm_id, user_id)
    sealed_for = e2ee_devices(realm_id, user_id)
    sent = 0
    if devices or sealed_for:
        realm = Realm.get(realm_id)
        payload: push.PushPayload = {
            **push.base_payload(realm, user_id), "event": "remove",
            "zulip_message_ids": ",".join(str(i) for i in sorted(message_ids))}
        sent = sum(1 for device in devices if push.publish(device, payload))
        removal = removal_payload(realm, user_id, message_ids)
        sent += sum(publish_e2ee(device, removal) for device in sealed_for)
    with PushSent.batch_write() as batch:
        for message_id in message_ids:
            batch.delete(PushSent(owner_key(realm_id, user_id), push_item(message_id)))
    return sent
