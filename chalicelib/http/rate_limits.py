"""The rate limits of an HTTP request: per user on every authenticated request (headers
announced on each answer), per username and source address on failed authentication.

A long-poll (GET /events) is one request however long it waits, and a push connection
is counted when it connects and for each message the client sends: limits count
connections and requests, not waiting time.
"""
from __future__ import annotations

from typing import Any

from chalicelib.core.errors import WrongApiKeyError
from chalicelib.core.principal import Principal
from chalicelib.http.auth import authenticate
from chalicelib.models.rate_limits import hit, record_key_failure, user_subject
from chalicelib.rules.rate_limits import API_BY_USER, RateLimitedError


def source_ip(context: Any) -> str:
    """The caller's address as API Gateway saw it (a client cannot forge it, unlike
    X-Forwarded-For); "" when unknown."""
    if not isinstance(context, dict):
        return ""
    identity = context.get("identity") or {}
    return str(identity.get("sourceIp") or "")


def authenticate_limited(header: str | None, ip: str) -> Principal:
    """authenticate(), counting a wrong API key against its source address (only)."""
    try:
        return authenticate(header)
    except WrongApiKeyError:
        record_key_failure(ip)
        raise


def limit_request(caller: Principal, rule: str | None = None) -> dict[str, str]:
    """Counts the request against the caller's API limit (and the endpoint's own rule, if
    any); the headers to announce, or RateLimitedError when over."""
    verdict = hit(API_BY_USER, user_subject(caller.realm_id, caller.user_id), caller.realm_id)
    if verdict is not None and not verdict.allowed:
        raise RateLimitedError(verdict)
    if rule is not None:
        extra = hit(rule, user_subject(caller.realm_id, caller.user_id), caller.realm_id)
        if extra is not None and not extra.allowed:
            raise RateLimitedError(extra)
    return verdict.headers() if verdict is not None else {}



def limit_connection_message(realm_id: int, user_id: int) -> None:
    """Counts a message a push connection's client sent against its user's API limit."""
    verdict = hit(API_BY_USER, user_subject(realm_id, user_id), realm_id)
    if verdict is not None and not verdict.allowed:
        raise RateLimitedError(verdict)
