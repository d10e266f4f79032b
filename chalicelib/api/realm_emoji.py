"""Custom emoji: POST/DELETE /realm/emoji/{emoji_name}, GET /realm/emoji, and their images."""
from __future__ import annotations

from typing import TypedDict
from urllib.parse import unquote

from chalice.app import Response

from chalicelib.actions.realm.emoji import check_add_realm_emoji, do_deactivate_realm_emoji, emoji_image_url
from chalicelib.actions.realm.reads.emoji import RealmEmojiDict, realm_emoji_state
from chalicelib.core.files import UploadedFile
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


class RealmEmojiResult(TypedDict):
    emoji: dict[str, RealmEmojiDict]


@bp.endpoint("/realm/emoji/{emoji_name}", "POST")
def upload_custom_emoji(caller: Principal, *, emoji_name: str,
                        uploaded_files: list[UploadedFile]) -> EmptyResult:
    return check_add_realm_emoji(caller, unquote(emoji_name), uploaded_files)


@bp.endpoint("/realm/emoji/{emoji_name}", "DELETE")
def deactivate_custom_emoji(caller: Principal, *, emoji_name: str) -> EmptyResult:
    return do_deactivate_realm_emoji(caller, unquote(emoji_name))


@bp.endpoint("/realm/emoji", "GET")
def get_custom_emoji(caller: Principal) -> RealmEmojiResult:
    return {"emoji": realm_emoji_state(caller.realm_id)}


@bp.endpoint("/user_avatars/{realm_id}/emoji/images/{filename}", "GET")
def get_custom_emoji_image(caller: Principal, *, realm_id: int, filename: str) -> Response:
    url = emoji_image_url(caller, realm_id, filename)
    return Response(body="", status_code=302, headers={"Location": url})
