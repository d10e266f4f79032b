"""GET /user_avatars/{realm_id}/generated/{filename}: a generated picture (avatar_source
"J"), drawn from the digest in its name with no read; public, as the reference serves
the pictures under /user_avatars/ (their URLs are in every message and user)."""
from __future__ import annotations

from chalice.app import Response

from chalicelib.core.errors import ResourceNotFoundError
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.rules.identicon import identicon_svg, is_identicon_digest

bp = ApiBlueprint(__name__)   # nothing under /api/v1
links = ApiBlueprint(__name__ + ".links")

# The image is a pure function of its name: cached for a year; nothing in it may run
# or load anything (an SVG opened directly is a document).
IMAGE_HEADERS: dict[str, str | list[str]] = {
    "Content-Type": "image/svg+xml",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    "Cache-Control": "public, max-age=31536000, immutable",
}


@links.endpoint("/user_avatars/{realm_id}/generated/{filename}", "GET", public=True)
def get_generated_avatar(*, realm_id: str, filename: str) -> Response:
    # The picture is the digest's alone; the organization's id only scopes the URL (read
    # as text, so that a path that is not this one's form is simply not found).
    digest = filename.removesuffix(".svg").removesuffix("-medium")
    if not (realm_id.isdigit() and filename.endswith(".svg") and is_identicon_digest(digest)):
        raise ResourceNotFoundError("No such picture")
    return Response(body=identicon_svg(digest), status_code=200,   # text: no base64
                    headers=dict(IMAGE_HEADERS))
