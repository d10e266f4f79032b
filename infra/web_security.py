"""The web client's security headers: one definition for the local stack's server and
the CloudFront response headers policy in infra/template.json (a unit test holds the
template to this)."""
from __future__ import annotations


def content_security_policy(websocket_origin: str, upload_origins: str = "") -> str:
    """Scripts and styles from the page's own origin only (no inline script, no eval),
    requests to the API (same origin) and the push channel, images from the
    organization itself and from the short-lived links to its uploads (the object
    store's address, `upload_origins`); nothing may frame the page."""
    return "; ".join([
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        f"img-src 'self' data: {upload_origins}".rstrip(),
        "font-src 'self'",
        f"connect-src 'self' {websocket_origin}".rstrip(),
        "manifest-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
    ])


# Beside the policy, on every file of the client.
STATIC_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
# The page itself is checked for a newer build on every load; its hashed files never change.
PAGE_CACHE_CONTROL = "no-cache"
ASSET_CACHE_CONTROL = "public, max-age=31536000, immutable"
