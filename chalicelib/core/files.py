"""A file a client uploaded, as actions receive it."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class UploadedFile:
    """One uploaded file: its name, declared type (the part's Content-Type as sent, ""
    without one) and bytes."""

    filename: str
    content_type: str
    data: bytes


MAX_UPLOAD_MIB = 5   # API Gateway and Lambda cap request bodies (10 MB / 6 MB), base64 included
DOWNLOAD_URL_SECONDS = 60
