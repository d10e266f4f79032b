"""Rate-limit rules: what each limit allows, fixed windows, the verdict and its headers.

Pure: no AWS. The counters live in models/rate_limits.py; the HTTP hook in
http/rate_limits.py. A rule allows `limit` hits per `window` seconds for one subject (a
user, a username, a source address, a recipient), counted in fixed windows aligned to
multiples of the window since the epoch (one counter item per subject and window).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from chalicelib.core.errors import ApiError, ErrorCode

API_BY_USER = "api_by_user"
AUTH_FAILURES_BY_USERNAME = "auth_failures_by_username"
AUTH_FAILURES_BY_IP = "auth_failures_by_ip"
EMAILS_BY_RECIPIENT = "emails_by_recipient"
CHANNELS_BY_USER = "channels_by_user"


@dataclass(frozen=True)
class Rule:
    """At most `limit` hits per `window` seconds; `limit` 0 turns the rule off."""

    limit: int
    window: int

    @property
    def enabled(self) -> bool:
        return self.limit > 0


# The reference's API limit (200 requests a minute per user, bots included) and stricter
# ones where a request is worth more to an attacker than to a client.
DEFAULT_RULES: dict[str, Rule] = {
    API_BY_USER: Rule(200, 60),
    # Wrong passwords (POST /fetch_api_key) and API keys (Basic auth) for one username...
    AUTH_FAILURES_BY_USERNAME: Rule(5, 1800),
    # ... and from one source address, whatever the username (a shared NAT gets room).
    AUTH_FAILURES_BY_IP: Rule(50, 1800),
    # Emails to one address (invitations, resends, email-change links, notices).
    EMAILS_BY_RECIPIENT: Rule(10, 86400),
    # Channels one member creates (counted per channel: subscribing creates many at once).
    CHANNELS_BY_USER: Rule(100, 3600),
}


# Rules of earlier versions, still accepted in a RATE_LIMITS value (a deployment's, or an
# organization's stored one) and ignored: invites_by_user limited invitation requests per
# user (20 an hour), which stopped an administrator inviting a team one at a time; the
# organization's daily limit on invitees bounds invitation email instead, as the
# reference bounds it (docs/rate-limits.md, "Invitations").
RETIRED_RULES = frozenset({"invites_by_user"})


class RateLimitSpecError(ValueError):
    """A RATE_LIMITS value that cannot be read (names the part that is wrong)."""


def parse_rules(spec: str) -> dict[str, Rule]:
    """Reads `name=limit/window,...` (`name=off` turns a rule off); unknown names refused."""
    rules: dict[str, Rule] = {}
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        name, sep, value = (s.strip() for s in part.partition("="))
        if name in RETIRED_RULES:
            continue
        if not sep or name not in DEFAULT_RULES:
            raise RateLimitSpecError(f"unknown rate limit {name!r} in {part!r}; known: "
                                     + ", ".join(sorted(DEFAULT_RULES)))
        if value == "off":
            rules[name] = Rule(0, DEFAULT_RULES[name].window)
            continue
        limit, slash, window = value.partition("/")
        try:
            rule = Rule(int(limit), int(window) if slash else DEFAULT_RULES[name].window)
        except ValueError:
            raise RateLimitSpecError(f"{part!r}: expected name=limit/seconds") from None
        if rule.limit < 0 or rule.window <= 0:
            raise RateLimitSpecError(f"{part!r}: limit >= 0 and seconds > 0 expected")
        rules[name] = rule
    return rules


def format_rules(rules: dict[str, Rule]) -> str:
    return ",".join(f"{name}={rule.limit}/{rule.window}" if rule.enabled else f"{name}=off"
                    for name, rule in sorted(rules.items()))


def effective_rules(deployment: str, realm: str | None) -> dict[str, Rule]:
    """The defaults, overridden by the deployment's RATE_LIMITS, then by the realm's."""
    return {**DEFAULT_RULES, **parse_rules(deployment), **parse_rules(realm or "")}


def window_start(rule: Rule, now: float) -> int:
    return int(now // rule.window) * rule.window


def bucket_key(name: str, subject: str, rule: Rule, now: float) -> str:
    """The counter item of `subject` under rule `name` in the window holding `now`."""
    return f"{name}#{rule.window}#{subject}#{window_start(rule, now)}"


@dataclass(frozen=True)
class Verdict:
    """A rule's answer for one hit: the count after it, against the limit."""

    rule: Rule
    count: int
    now: float

    @property
    def allowed(self) -> bool:
        return self.count <= self.rule.limit

    @property
    def remaining(self) -> int:
        return max(0, self.rule.limit - self.count)

    @property
    def reset(self) -> int:
        """When the window ends (UNIX seconds): the counter starts over."""
        return window_start(self.rule, self.now) + self.rule.window

    @property
    def retry_after(self) -> int:
        return max(1, math.ceil(self.reset - self.now))

    def headers(self) -> dict[str, str]:
        """The reference's rate-limit headers, announced on every authenticated answer."""
        return {"X-RateLimit-Limit": str(self.rule.limit),
                "X-RateLimit-Remaining": str(self.remaining),
                "X-RateLimit-Reset": str(self.reset)}


class RateLimitedError(ApiError):
    """Over a rate limit: 429 with `retry-after` in the body and the Retry-After header."""

    code = ErrorCode.RATE_LIMIT_HIT
    http_status = 429

    def __init__(self, verdict: Verdict, msg: str = "Too many requests; slow down and retry later") -> None:
        super().__init__(msg, headers={**verdict.headers(),
                                       "Retry-After": str(verdict.retry_after)})
        self.extra["retry-after"] = verdict.retry_after
