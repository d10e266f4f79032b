"""Rate-limit counters: one small item per subject, rule and window, counted with one
conditional UpdateItem (ADD) that returns the new count, and left to TTL.

Correct under concurrent requests to any number of Lambda instances: DynamoDB applies
each ADD atomically to the one item, and the condition (`hits < limit`) keeps a counter
from passing its limit, so exactly `limit` hits per window get through.
"""
from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from datetime import UTC, datetime

from pynamodb.attributes import TTLAttribute, UnicodeAttribute
from pynamodb.exceptions import PynamoDBException

from chalicelib import config
from chalicelib.aws import metrics
from chalicelib.aws.log import logger
from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, is_write_condition_failure, table_meta
from chalicelib.models.realms import Realm
from chalicelib.rules.rate_limits import (
    AUTH_FAILURES_BY_IP,
    AUTH_FAILURES_BY_USERNAME,
    EMAILS_BY_RECIPIENT,
    RateLimitedError,
    Rule,
    Verdict,
    bucket_key,
    effective_rules,
)

# A counter item outlives its window by this much (TTL deletion is lazy anyway).
EXPIRY_GRACE_SECONDS = 60


class RateCounter(BaseModel):
    """Hits of one subject under one rule in one fixed window."""

    Meta = table_meta("rate_limits")
    bucket = UnicodeAttribute(hash_key=True)
    hits = IntegerAttribute(null=True)
    expires_at = TTLAttribute()


def clock() -> float:
    """The time windows are counted in (UNIX seconds); tests move it."""
    return time.time()


def subject_key(text: str) -> str:
    """Usernames, addresses and IPs are counted under a digest, never stored as given."""
    return hashlib.sha256(text.strip().lower().encode()).hexdigest()[:32]


# realm id -> (valid until, on time.monotonic(); the realm's RATE_LIMITS override)
_realm_specs: dict[int, tuple[float, str | None]] = {}


def forget_realm_limits(realm_id: int | None = None) -> None:
    """Drops this process's cached realm overrides (all of them without an id)."""
    if realm_id is None:
        _realm_specs.clear()
    else:
        _realm_specs.pop(realm_id, None)


def _realm_spec(realm_id: int) -> str | None:
    """The realm's override, read at most once per REALM_LIMITS_CACHE_SECONDS per process."""
    cached = _realm_specs.get(realm_id)
    if cached is not None and cached[0] > time.monotonic():
        return cached[1]
    realm = Realm.get_or_none(realm_id, consistent_read=False)
    spec = realm.rate_limits if realm is not None else None
    _realm_specs[realm_id] = (time.monotonic() + config.realm_limits_cache_seconds(), spec)
    return spec


def rule_for(name: str, realm_id: int | None = None) -> Rule:
    realm = _realm_spec(realm_id) if realm_id is not None else None
    return effective_rules(config.rate_limits(), realm)[name]


def hit(name: str, subject: str, realm_id: int | None = None, amount: int = 1
        ) -> Verdict | None:
    """Counts one hit (or `amount` at once, all or none); the verdict, or None if the rule
    is off or the store failed (the request goes through: a limiter fault must not take
    the API down)."""
    rule = rule_for(name, realm_id)
    if not rule.enabled:
        return None
    now = clock()
    item = RateCounter(bucket_key(name, subject, rule, now))
    verdict = Verdict(rule, rule.limit + 1, now)
    if amount > rule.limit:   # more than a whole window allows: refused without a write
        count_limit_hit(name)
        return verdict
    expires = datetime.fromtimestamp(verdict.reset + EXPIRY_GRACE_SECONDS, UTC)
    try:
        item.update(actions=[RateCounter.hits.add(amount),
                             RateCounter.expires_at.set(expires)],
                    condition=RateCounter.hits.does_not_exist()
                    | (RateCounter.hits <= rule.limit - amount))
    except PynamoDBException as error:
        if not is_write_condition_failure(error):
            logger.warning("rate limiter unavailable", extra={"rule": name,
                                                              "error": str(error)})
            return None
    else:
        verdict = Verdict(rule, item.hits or 1, now)
    if not verdict.allowed:
        count_limit_hit(name)
    return verdict


def blocked(checks: list[tuple[str, str]], realm_id: int | None = None) -> Verdict | None:
    """Without counting: the verdict of the first (rule, subject) whose window is already
    full, else None. One BatchGetItem (for limits counted only on failure, such as wrong
    passwords, which must be refused before the password is even checked)."""
    now = clock()
    rules = {name: rule_for(name, realm_id) for name, _ in checks}
    keys = {bucket_key(name, subject, rules[name], now): name for name, subject in checks
            if rules[name].enabled}
    if not keys:
        return None
    try:
        found = {item.bucket: item.hits or 0
                 for item in RateCounter.batch_get(list(keys), consistent_read=True)}
    except PynamoDBException as error:
        logger.warning("rate limiter unavailable", extra={"error": str(error)})
        return None
    for key, name in keys.items():
        if found.get(key, 0) >= rules[name].limit:
            count_limit_hit(name)
            return Verdict(rules[name], found[key] + 1, now)
    return None


def count_limit_hit(name: str) -> None:
    """A CloudWatch metric (EMF) per refused request, by rule."""
    metrics.count_rate_limit_hit(name)


def check_login_allowed(username: str, source_ip: str) -> None:
    """Refuses (429) a password login while its username or source address has used up
    its failed attempts: checked before the password, so guessing learns nothing."""
    verdict = blocked(_failure_subjects(username, source_ip))
    if verdict is not None:
        raise RateLimitedError(verdict, TOO_MANY_FAILURES)


def record_auth_failure(username: str, source_ip: str) -> None:
    """Counts a failed authentication against the username and the source address;
    raises RateLimitedError (instead of the caller's 401) once either is over its limit."""
    refused = None
    for name, subject in _failure_subjects(username, source_ip):
        verdict = hit(name, subject)
        if verdict is not None and not verdict.allowed and refused is None:
            refused = verdict
    if refused is not None:
        raise RateLimitedError(refused, TOO_MANY_FAILURES)


TOO_MANY_FAILURES = "Too many failed authentication attempts; try again later."


def record_key_failure(source_ip: str) -> None:
    """Counts a wrong API key against its source address only: an API key is no guess at
    a password, so it never counts toward the username's limit (else anyone who knows an
    email could lock its owner's password login); RateLimitedError once over."""
    verdict = hit(AUTH_FAILURES_BY_IP, subject_key(source_ip)) if source_ip else None
    if verdict is not None and not verdict.allowed:
        raise RateLimitedError(verdict, TOO_MANY_FAILURES)


def check_password_attempt(username: str, attempt: Callable[[], bool]) -> bool:
    """A password check of a logged-in user (PATCH /settings `old_password`) under the
    username's login limit: refused while the window is full, a failure counted like a
    failed login. The check's result; RateLimitedError when refused."""
    check_login_allowed(username, "")
    if attempt():
        return True
    record_auth_failure(username, "")
    return False


def _failure_subjects(username: str, source_ip: str) -> list[tuple[str, str]]:
    subjects = [(AUTH_FAILURES_BY_USERNAME, subject_key(username))]
    if source_ip:
        subjects.append((AUTH_FAILURES_BY_IP, subject_key(source_ip)))
    return subjects


def user_subject(realm_id: int, user_id: int) -> str:
    return f"{realm_id}:{user_id}"


def take_allowance(name: str, realm_id: int, user_id: int, amount: int, what: str) -> None:
    """Counts `amount` things a user makes (`what`: "new channels") against their rule
    `name`, all or none; RateLimitedError, nothing counted, when they would pass it."""
    verdict = hit(name, user_subject(realm_id, user_id), realm_id, amount)
    if verdict is not None and not verdict.allowed:
        raise RateLimitedError(verdict, f"Too many {what}: at most {verdict.rule.limit} "
                               f"every {verdict.rule.window} seconds; try again later.")


def check_email_allowed(to: str) -> None:
    """Counts an email to `to`; RateLimitedError (nothing sent) once the address has had
    its share: the server must not be a way to flood someone's mailbox."""
    verdict = hit(EMAILS_BY_RECIPIENT, subject_key(to))
    if verdict is not None and not verdict.allowed:
        raise RateLimitedError(verdict, "Too many emails to this address; try again later.")
