"""A file a client uploaded, as actions receive it, and how messages link uploads."""
from __future__ import annotations

import re
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

MAX_NAME_LENGTH = 100   # sanitized file names are no longer
# "<realm_id>/<random>/<name>": bounded, so text that only looks like one never turns into
# a key DynamoDB refuses (a sort key holds at most 1 KB).
_NAME_CHAR = r"[^\s)\]\"'<>?#]"
PATH_ID = re.compile(rf"\d{{1,19}}/[0-9a-f]{{24}}/{_NAME_CHAR}{{1,{MAX_NAME_LENGTH}}}")
# "/user_uploads/<path_id>", relative or after a scheme and host.
UPLOAD_LINK = re.compile(rf"/user_uploads/({PATH_ID.pattern})(?!{_NAME_CHAR})")
