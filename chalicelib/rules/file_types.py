"""How a stored file is served: its own type, shown in the browser, only for a short list
of types a browser cannot run as code (the reference's `INLINE_MIME_TYPES`); everything
else, HTML, SVG, XML and JavaScript included, as an attachment of no particular type.

Decided when a link is made, from the type the uploader declared (normalized when
stored), and sent as the link's response overrides: S3 answers a presigned link with
them, whatever the object was stored with.
"""
from __future__ import annotations

import mimetypes
import re

# As the reference's list (zerver/lib/mime_types.py): images, audio, video, PDF, plain
# text. Never add a type a browser renders as a document that can run script (text/html,
# application/xhtml+xml, image/svg+xml, text/xml, application/xml) or plugins run.
INLINE_TYPES = frozenset({
    "application/pdf",
    "audio/aac", "audio/flac", "audio/mp4", "audio/mpeg", "audio/wav", "audio/webm",
    "image/apng", "image/avif", "image/gif", "image/jpeg", "image/png", "image/webp",
    "text/plain",
    "video/mp4", "video/webm",
})
UNKNOWN_TYPE = "application/octet-stream"
MAX_TYPE_LENGTH = 100
_ESSENCE = re.compile(r"[a-z0-9!#$&^_.+-]+/[a-z0-9!#$&^_.+-]+")
_CHARSET = re.compile(r'charset="?([a-z0-9_.:-]{1,40})"?')


def normalized_type(declared: str, filename: str = "") -> str:
    """The declared type as stored: lowercase `type/subtype`, with the charset of a text
    type; without a declared type, the one the file's name implies (as the reference
    guesses); the unknown type for anything else (junk included)."""
    if not declared.strip():
        declared = mimetypes.guess_type(filename, strict=False)[0] or UNKNOWN_TYPE
    if len(declared) > MAX_TYPE_LENGTH:
        return UNKNOWN_TYPE
    essence, *params = (part.strip() for part in declared.lower().split(";"))
    if not _ESSENCE.fullmatch(essence):
        return UNKNOWN_TYPE
    charsets = [m.group(1) for m in map(_CHARSET.fullmatch, params) if m]
    return f"{essence}; charset={charsets[0]}" if charsets and essence.startswith("text/") \
        else essence


def response_overrides(stored_type: str, filename: str) -> dict[str, str]:
    """S3's response overrides for a link to a stored file named `filename` (a
    sanitized name: letters, digits, dot, dash, underscore)."""
    served = normalized_type(stored_type)
    if served.split(";", 1)[0] in INLINE_TYPES:
        disposition = "inline"
    else:
        served, disposition = UNKNOWN_TYPE, "attachment"
    return {"ResponseContentType": served,
            "ResponseContentDisposition": f'{disposition}; filename="{filename}"'}
