"""Checks a link to a stored file as S3 checks a presigned URL (Signature Version 4 in the
query string), for the local stack's server: moto serves any request to its buckets,
signed or not, so the stack checks the signature before it forwards one.

Only what the app's links are is accepted: a GET (or HEAD) of one object, signed with
the stack's own secret (`link_secret`, kept in its state so that a link outlives a
restart), not expired. A listing, an unsigned or badly signed request, another
operation (`?acl`, `?uploads`...) is refused, as S3 refuses them.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from calendar import timegm
from pathlib import Path
from time import strptime
from urllib.parse import unquote

ALGORITHM = "AWS4-HMAC-SHA256"
_DATE_FORMAT = "%Y%m%dT%H%M%SZ"
MAX_EXPIRES = 7 * 86400   # S3's own ceiling for a presigned URL
CLOCK_SKEW_SECONDS = 900   # how far in the future S3 accepts a link's date


def link_secret(state: Path) -> str:
    """The secret the stack's app signs links with (its AWS secret key: moto takes any),
    made on first start and kept: known to nobody outside the state directory, so a link
    cannot be forged with the public "local" one."""
    path = state / "link-secret"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(32))
        path.chmod(0o600)
    return path.read_text().strip()


def refusal(method: str, target: str, host: str, *, bucket: str, access_key: str,
            secret: str, region: str, now: float) -> tuple[str, str] | None:
    """Why S3 would refuse this request for an object of `bucket` (its error code and
    message), or None when it is a valid, unexpired link. `target` is the request's path
    and query as received."""
    path, _, query = target.partition("?")
    if not path.startswith(f"/{bucket}/") or len(path) <= len(bucket) + 2:
        return "AccessDenied", "Access Denied"   # the bucket itself: a listing
    pairs = [pair.partition("=") for pair in query.split("&") if pair]
    params: dict[str, str] = {}
    for key, _, value in pairs:
        if unquote(key) in params:
            return "AuthorizationQueryParametersError", "A parameter is repeated."
        params[unquote(key)] = unquote(value)
    if params.get("X-Amz-Algorithm") != ALGORITHM or "X-Amz-Signature" not in params:
        return "AccessDenied", "Access Denied"
    scope = params.get("X-Amz-Credential", "").split("/")
    try:
        signed_at = timegm(strptime(params["X-Amz-Date"], _DATE_FORMAT))
        expires = int(params["X-Amz-Expires"])
    except (KeyError, ValueError):
        return "AuthorizationQueryParametersError", "The link's date or expiry is invalid."
    if len(scope) != 5 or scope[0] != access_key or scope[1] != params["X-Amz-Date"][:8] \
            or scope[2:] != [region, "s3", "aws4_request"]:
        return "InvalidAccessKeyId", "The link was not signed by this stack."
    if params.get("X-Amz-SignedHeaders") != "host":
        return "AccessDenied", "Access Denied"
    if not 0 < expires <= MAX_EXPIRES or signed_at > now + CLOCK_SKEW_SECONDS:
        return "AuthorizationQueryParametersError", "The link's expiry is invalid."
    if now > signed_at + expires:
        return "AccessDenied", "Request has expired"
    # The canonical request as the signer built it: the path and the query's pairs as
    # sent (already encoded), sorted, without the signature; the host; no payload hash.
    canonical_query = "&".join(sorted(f"{key}={value}" for key, _, value in pairs
                                      if key != "X-Amz-Signature"))
    canonical = "\n".join([method, path, canonical_query, f"host:{host}", "", "host",
                           "UNSIGNED-PAYLOAD"])
    to_sign = "\n".join([ALGORITHM, params["X-Amz-Date"], "/".join(scope[1:]),
                         hashlib.sha256(canonical.encode()).hexdigest()])
    key = f"AWS4{secret}".encode()
    for part in (scope[1], region, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    expected = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, params["X-Amz-Signature"]):
        return "SignatureDoesNotMatch", "The link's signature does not match."
    return None
