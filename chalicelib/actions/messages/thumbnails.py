"""GET /thumbnail/status (level 479): whether an uploaded image's thumbnails are ready,
asked by the uploader's client while a message shows a thumbnail still being made.

This server makes no thumbnails (POST /register server_thumbnail_formats is empty) and
renders every image at its own URL, so no image ever waits for one: the uploader's image
has every thumbnail there is (none). Anything else is an invalid attachment, as for the
reference: another user's upload, a file that is not an image, an unknown path."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.core.errors import ApiError
from chalicelib.core.files import PATH_ID
from chalicelib.core.principal import Principal
from chalicelib.models.uploads import Attachment

# The raster types the reference makes thumbnails of (its image attachments).
THUMBNAILED_TYPES = frozenset({"image/apng", "image/avif", "image/gif", "image/heic",
                               "image/jpeg", "image/png", "image/tiff", "image/webp"})


class ThumbnailStatusResult(TypedDict):
    has_thumbnail: bool


def thumbnail_status(caller: Principal, path_id: str) -> ThumbnailStatusResult:
    in_realm = PATH_ID.fullmatch(path_id) is not None and \
        path_id.split("/", 1)[0] == str(caller.realm_id)
    attachment = Attachment.get_or_none(caller.realm_id, path_id) if in_realm else None
    if attachment is None or attachment.owner_id != caller.user_id or \
            attachment.content_type not in THUMBNAILED_TYPES:
        raise ApiError("No such uploaded image of yours")
    return {"has_thumbnail": True}
