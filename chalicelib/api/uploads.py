"""File uploads: POST /user_uploads, and reading a file back through a short-lived link."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.actions.messages.thumbnails import ThumbnailStatusResult, thumbnail_status
from chalicelib.actions.messages.uploads import (
    UploadResult,
    do_upload_file,
    download_url,
)
from chalicelib.core.files import UploadedFile
from chalicelib.core.principal import Principal
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


@bp.endpoint("/user_uploads", "POST")
def upload_file(caller: Principal, *, uploaded_files: list[UploadedFile]) -> UploadResult:
    return do_upload_file(caller, uploaded_files)


class TemporaryUrl(TypedDict):
    url: str   # readable without credentials, for a short while


@bp.endpoint("/user_uploads/{realm_id_str}/{random}/{filename}", "GET")
def get_upload(caller: Principal, *, realm_id_str: str, random: str, filename: str
               ) -> TemporaryUrl:
    # As the reference's get-file-temporary-url: a link the caller's browser can load
    # (an <img>) without the API key; S3 serves the bytes (API Gateway cannot stream
    # large bodies back itself).
    return {"url": download_url(caller, f"{realm_id_str}/{random}/{filename}")}


@bp.endpoint("/thumbnail/status/{realm_id_str}/{random}/{filename}", "GET")
def get_thumbnail_status(caller: Principal, *, realm_id_str: str, random: str,
                         filename: str) -> ThumbnailStatusResult:
    return thumbnail_status(caller, f"{realm_id_str}/{random}/{filename}")
