"""Settings from the environment, read at call time so tests and stages can differ."""
from __future__ import annotations

import functools
import hashlib
import json
import os

# The reference release whose feature level this server advertises (12.2: level 500).
SERVICE_VERSION = "12.2-teamchat"
SERVICE_MERGE_BASE = ""

MAX_MESSAGE_LENGTH = 10000
MAX_TOPIC_LENGTH = 60
MAX_STREAM_NAME_LENGTH = 60
MAX_STREAM_DESCRIPTION_LENGTH = 1024
MAX_FULL_NAME_LENGTH = 100


def _env(name: str, default: str) -> str:
    return os.environ.get(name, default)


def table_prefix() -> str:
    return _env("TABLE_PREFIX", "teamchat-dev-")


@functools.cache
def bound_table_prefix() -> str:
    """The prefix of the tables this process uses, read once, on first use (not at
    import): a test client that patches the environment per request cannot move the
    models to another stage's tables half way through."""
    return table_prefix()


def table_name(suffix: str) -> str:
    """The table a model uses: the bound prefix + suffix, unless TABLE_NAME_OVERRIDES (a
    JSON object, suffix -> full name; the restore drill sets it, docs/operations.md) names
    another."""
    override = table_name_overrides().get(suffix)
    return override if override else bound_table_prefix() + suffix


def table_name_overrides() -> dict[str, str]:
    raw = _env("TABLE_NAME_OVERRIDES", "").strip()
    if not raw:
        return {}
    parsed = json.loads(raw)
    if not isinstance(parsed, dict) or not all(isinstance(v, str) for v in parsed.values()):
        raise ValueError("TABLE_NAME_OVERRIDES must be a JSON object of table names")
    return {str(k): v for k, v in parsed.items()}


def region() -> str:
    return _env("AWS_DEFAULT_REGION", _env("AWS_REGION", "us-east-1"))


def root_domain() -> str:
    """Host that serves several organizations; subdomains of it name a realm."""
    return _env("ROOT_DOMAIN", "localhost")


def external_scheme() -> str:
    return _env("EXTERNAL_SCHEME", "https")


def realm_url(subdomain: str) -> str:
    """The organization's address, for links in emails."""
    port = _env("EXTERNAL_PORT", "")
    return f"{external_scheme()}://{subdomain}.{root_domain()}" + (f":{port}" if port else "")


def web_public_streams_enabled() -> bool:
    """The server setting WEB_PUBLIC_STREAMS_ENABLED (§4.4): web-public channels allowed."""
    return _env("WEB_PUBLIC_STREAMS_ENABLED", "true").lower() in {"1", "true", "yes"}


def longpoll_wait_seconds() -> float:
    """How long a blocking GET /events waits; leaves margin under API Gateway's 29 s."""
    return float(_env("LONGPOLL_WAIT_SECONDS", "20"))


def request_seconds() -> float:
    """How long one API request may work (aws/deadline.py): past a long-poll's wait, under
    the API function's timeout (28 s) and API Gateway's (29 s)."""
    return float(_env("REQUEST_SECONDS", "24"))


def allow_private_webhook_hosts() -> bool:
    """Local development only: lets outgoing webhooks reach loopback receivers."""
    return _env("ALLOW_PRIVATE_WEBHOOK_HOSTS", "") in {"1", "true", "loopback"}


def dev_fetch_api_key_enabled() -> bool:
    """Local development only: POST /dev_fetch_api_key issues keys without a password."""
    return _env("DEV_FETCH_API_KEY", "") in {"1", "true"}


# After the stage's prefix in the name of every wake queue (chalicelib/delivery/wake.py).
WAKE_QUEUE_MARK = "wake-"


def webhook_queue_name() -> str:
    return table_prefix() + "outgoing-webhooks"


def webhook_retry_delays_seconds() -> list[int]:
    """How long an unreachable webhook job waits before attempts 2, 3 and 4 (backoff)."""
    return [int(v) for v in _env("WEBHOOK_RETRY_DELAYS_SECONDS", "5,30,120").split(",")]


def upload_bucket() -> str:
    return _env("UPLOAD_BUCKET", table_prefix() + "uploads")


def s3_link_endpoint() -> str | None:
    """Where links to stored files point, if not at S3 itself: the local stack's own
    address, which serves them (infra/local/object_links.py). Unset on AWS."""
    return _env("S3_LINK_ENDPOINT_URL", "") or None


def invitation_link_validity_minutes() -> int:
    """How long an invitation lasts unless the inviter says otherwise (§8: 14400 = 10 days)."""
    return int(_env("INVITATION_LINK_VALIDITY_MINUTES", "14400"))


def invites_daily_limit() -> int:
    """How many invitation emails one organization may send per UTC day."""
    return int(_env("INVITES_DAILY_LIMIT", "100"))


def join_link_daily_limit() -> int:
    """How many confirmation emails one reusable invitation link may cause per UTC day
    (anyone holding the link can ask for them, so they must not be unlimited)."""
    return int(_env("JOIN_LINK_DAILY_LIMIT", "100"))


def longpoll_check_seconds() -> float:
    """How often a waiting GET /events reads its queue when no wake-up came (a safety
    net: appends wake it through its SQS wake queue)."""
    return float(_env("LONGPOLL_CHECK_SECONDS", "5"))


def websocket_url() -> str | None:
    """Where clients connect to the push channel (wss://... on AWS); None when not served."""
    return _env("WEBSOCKET_URL", "") or None


def websocket_management_url() -> str:
    """API Gateway's management API for the push channel's connections (https://...)."""
    return _env("WEBSOCKET_MANAGEMENT_URL", "")


def websocket_heartbeat_seconds() -> int:
    """How often each connection gets a heartbeat event: within API Gateway's 10-minute
    idle timeout (the keepalive schedule in app.py runs at this rate on AWS)."""
    return int(_env("WEBSOCKET_HEARTBEAT_SECONDS", "300"))


def mark_all_as_read_seconds() -> float:
    """How long POST /mark_all_as_read works before answering `complete: false` (the
    client repeats it): well under API Gateway's 29 s."""
    return float(_env("MARK_ALL_AS_READ_SECONDS", "10"))


def schedule_group() -> str:
    """The EventBridge Scheduler group of this stage's one-time schedules."""
    return _env("SCHEDULE_GROUP", "default")


def scheduled_messages_target_arn() -> str:
    """The function a scheduled message's schedule invokes (set by the template)."""
    return _env("SCHEDULED_MESSAGES_TARGET_ARN",
                "arn:aws:lambda:us-east-1:000000000000:function:"
                + table_prefix() + "scheduled-messages")


def scheduler_role_arn() -> str:
    """The role EventBridge Scheduler assumes to invoke it (set by the template)."""
    return _env("SCHEDULER_ROLE_ARN", "arn:aws:iam::000000000000:role/teamchat-scheduler")


# -- Notifications for people who are away (chalicelib/notifications/) ----------------------

def notification_queue_name() -> str:
    """The notifier's queue: email wake-ups (delayed by the batching period) and pushes."""
    return table_prefix() + "notifications"


def ses_configuration_set() -> str:
    """The SES configuration set every email is sent with (bounce/complaint events)."""
    return _env("SES_CONFIGURATION_SET", table_prefix() + "mail")


def sns_apns_platform_arn() -> str:
    """The SNS platform application for iOS phones (APNs); empty: not configured."""
    return _env("SNS_APNS_PLATFORM_ARN", "")


def sns_fcm_platform_arn() -> str:
    """The SNS platform application for Android phones (FCM); empty: not configured."""
    return _env("SNS_FCM_PLATFORM_ARN", "")


def notification_signing_key() -> bytes:
    """Signs unsubscribe links (HMAC-SHA256). On AWS a Secrets Manager secret of the
    template; the fallback is for the local stack and tests only."""
    return _env("NOTIFICATION_SIGNING_KEY", "teamchat-local-notification-key").encode()


def bot_key_sealing_key() -> bytes:
    """The key bots' API keys are sealed under (rules/secrets.seal_secret): derived from
    the notification signing key with its own personalization, so neither key tells the
    other; a new signing key leaves earlier sealed keys unreadable (the bot's key is then
    regenerated to be shown again)."""
    return hashlib.blake2b(notification_signing_key(), digest_size=32,
                           person=b"teamchat-botkeys").digest()


def push_registration_secrets() -> list[str]:
    """Secrets the server's push registration key pairs derive from, newest first (comma
    separated, so a new key can be added before the old one is retired); a mobile app
    built for this server seals its push token to one of their public keys
    (rules/push_crypto.py). On AWS a Secrets Manager secret of the template; the
    fallback is for the local stack and tests only."""
    raw = _env("PUSH_REGISTRATION_SECRET", "teamchat-local-push-registration-key")
    return [part.strip() for part in raw.split(",") if part.strip()]


def local_mail_dir() -> str:
    """Local stack only: where every email sent is also written as an .eml file."""
    return _env("LOCAL_MAIL_DIR", "")


def mail_events_topic_name() -> str:
    """The SNS topic the SES configuration set publishes bounces and complaints to."""
    return table_prefix() + "mail-events"


def rate_limits() -> str:
    """Overrides of the default rate limits (rules/rate_limits.py), e.g.
    `api_by_user=200/60,auth_failures_by_username=5/1800`; `name=off` turns one off."""
    return _env("RATE_LIMITS", "")


def realm_limits_cache_seconds() -> float:
    """How long a process keeps an organization's own rate limits before reading them again."""
    return float(_env("REALM_LIMITS_CACHE_SECONDS", "60"))


def metrics_namespace() -> str:
    return _env("POWERTOOLS_METRICS_NAMESPACE", "teamchat")


def fanout_slice_queues() -> int:
    """Queues one fan-out invocation appends to for a batch; a batch for more queues
    hands the rest, in slices of this many, to parallel invocations (fanout/slices.py)."""
    return max(1, int(_env("FANOUT_SLICE_QUEUES", "1000")))


def export_invocation_seconds() -> float:
    """How long one invocation of the background worker writes an organization export
    before it saves its progress and hands the job back (the function's timeout is 60 s;
    actions/workflows/export_writer.py)."""
    return float(_env("EXPORT_INVOCATION_SECONDS", "40"))


def fanout_slice_people() -> int:
    """People of a batch's largest audience one fan-out invocation takes; a larger
    audience is cut into ranges of user ids of about this many, each range on its own
    invocation (fanout/audience_slices.py)."""
    return max(1, int(_env("FANOUT_SLICE_PEOPLE", "1000")))


def fanout_slice_items() -> int:
    """Recipients' rows (unread markers, flag rows) one fan-out invocation writes for a
    batch; more go, in slices of this many, to parallel invocations (fanout/write_slices.py)."""
    return max(1, int(_env("FANOUT_SLICE_ITEMS", "2000")))


def direct_aws_requests() -> bool:
    """DynamoDB and SQS requests signed and sent by aws/direct_requests.py; "off" sends
    them through botocore's own pipeline, as every other AWS call (read when a session
    is made, so a function's new environment takes it)."""
    return _env("DIRECT_AWS_REQUESTS", "on").lower() not in {"0", "off", "false", "no"}


def own_function_name() -> str | None:
    """The Lambda function this code runs in (Lambda sets it); None elsewhere."""
    return _env("AWS_LAMBDA_FUNCTION_NAME", "") or None
