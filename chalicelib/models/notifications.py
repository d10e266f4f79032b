"""Notifications for people who are away: one table, several kinds of item.

Every item of a user lives in that user's partition (`owner` = "<realm_id>#<user_id>"),
so the notifier reads a user's pending messages with one Query; the item key says the
kind. Addresses that bounced or complained live under "addr#<address>".

- `m#<message id>`   PendingNotification: a message that may be emailed (fan-out)
- `period`           EmailPeriod: the user's open batching period (when it ends)
- `sent#<due ms>`    EmailClaim: the one email of a period (claimed, then sent)
- `d#<kind>#<token>` PushDevice: a registered phone and its SNS endpoint
- `push#<message id>` PushSent: a message pushed to the user's phones (for `remove`)
- `cd#<device id>`   ClientDevice: a logged-in mobile app (level 468), its push key and
                     end-to-end encrypted push registration
- `suppressed`       MailSuppression (owner "addr#..."): SES reported a bounce/complaint
"""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pynamodb.attributes import BooleanAttribute, TTLAttribute, UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta

PENDING_RETENTION = timedelta(days=8)    # longer than any batching period (7 days)
CLAIM_RETENTION = timedelta(days=2)
PUSH_RETENTION = timedelta(days=7)

PENDING_PREFIX = "m#"
DEVICE_PREFIX = "d#"
CLIENT_DEVICE_PREFIX = "cd#"
PUSH_PREFIX = "push#"
PERIOD_ITEM = "period"
SUPPRESSED_ITEM = "suppressed"


def owner_key(realm_id: int, user_id: int) -> str:
    return f"{realm_id}#{user_id}"


def address_key(address: str) -> str:
    return f"addr#{address.strip().lower()}"


def pending_item(message_id: int) -> str:
    return f"{PENDING_PREFIX}{message_id:012d}"


def push_item(message_id: int) -> str:
    return f"{PUSH_PREFIX}{message_id:012d}"


def device_item(kind: str, token: str) -> str:
    return f"{DEVICE_PREFIX}{kind}#{token}"


def client_device_item(device_id: int) -> str:
    return f"{CLIENT_DEVICE_PREFIX}{device_id:012d}"


def claim_item(due_ms: int) -> str:
    return f"sent#{due_ms}"


def expiry(retention: timedelta) -> datetime:
    return datetime.now(UTC) + retention


class PendingNotification(BaseModel):
    """A message that triggered an email for a user who was away when it arrived."""

    Meta = table_meta("notifications")
    owner = UnicodeAttribute(hash_key=True)
    item = UnicodeAttribute(range_key=True)
    message_id = IntegerAttribute()
    reason = UnicodeAttribute()            # rules.Reason: private, mention, wildcard, ...
    arrived_ms = IntegerAttribute()
    expires_at = TTLAttribute(null=True)


class EmailPeriod(BaseModel):
    """The user's batching period: open from the first pending message until `due_ms`;
    the notifier closes it before reading what is pending."""

    Meta = table_meta("notifications")
    owner = UnicodeAttribute(hash_key=True)
    item = UnicodeAttribute(range_key=True)
    due_ms = IntegerAttribute()
    closed = BooleanAttribute(default=False)
    expires_at = TTLAttribute(null=True)


class EmailClaim(BaseModel):
    """The email of one user and period: created once (conditional put), then `sent`."""

    Meta = table_meta("notifications")
    owner = UnicodeAttribute(hash_key=True)
    item = UnicodeAttribute(range_key=True)
    state = UnicodeAttribute()             # "sending" or "sent"
    claimed_ms = IntegerAttribute()
    messages = IntegerAttribute(default=0)  # how many messages the email listed
    expires_at = TTLAttribute(null=True)


class PushDevice(BaseModel):
    """A phone registered for push: its token and its SNS platform endpoint."""

    Meta = table_meta("notifications")
    owner = UnicodeAttribute(hash_key=True)
    item = UnicodeAttribute(range_key=True)
    kind = UnicodeAttribute()              # "apns" or "fcm"
    token = UnicodeAttribute()
    appid = UnicodeAttribute(null=True)
    endpoint_arn = UnicodeAttribute()
    created_ms = IntegerAttribute()
    expires_at = TTLAttribute(null=True)


class PushSent(BaseModel):
    """A message pushed to the user's phones, so reading it elsewhere can remove it."""

    Meta = table_meta("notifications")
    owner = UnicodeAttribute(hash_key=True)
    item = UnicodeAttribute(range_key=True)
    message_id = IntegerAttribute()
    expires_at = TTLAttribute(null=True)


class MailSuppression(BaseModel):
    """An address SES reported as bouncing permanently or complaining: no more mail."""

    Meta = table_meta("notifications")
    owner = UnicodeAttribute(hash_key=True)
    item = UnicodeAttribute(range_key=True)
    reason = UnicodeAttribute()            # "bounce" or "complaint"
    at_ms = IntegerAttribute()
    expires_at = TTLAttribute(null=True)


class ClientDevice(BaseModel):
    """A logged-in mobile app (POST /register_client_device) and, once it registered
    for end-to-end encrypted push (POST /mobile_push/register), its push key and its
    token's SNS endpoint. Token ids are Base64 as the API shows them; `version` guards
    every change (a concurrent one loses and is told to retry)."""

    Meta = table_meta("notifications")
    owner = UnicodeAttribute(hash_key=True)
    item = UnicodeAttribute(range_key=True)
    device_id = IntegerAttribute()
    push_key = UnicodeAttribute(null=True)            # Base64: cipher byte + key
    push_key_id = IntegerAttribute(null=True)
    push_token_id = UnicodeAttribute(null=True)
    pending_push_token_id = UnicodeAttribute(null=True)
    push_token_kind = UnicodeAttribute(null=True)     # "fcm" or "apns"
    push_token_updated = IntegerAttribute(null=True)  # seconds
    push_registration_error_code = UnicodeAttribute(null=True)
    endpoint_arn = UnicodeAttribute(null=True)
    version = IntegerAttribute(default=0)
    expires_at = TTLAttribute(null=True)   # the table's; a device stays until removed
