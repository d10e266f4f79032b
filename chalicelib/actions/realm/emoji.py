"""The organization's custom emoji: upload, list, deactivate, and name → emoji lookups.

An active emoji's name is claimed in the names table in the same transaction as the
emoji and its event, so two uploads of one name cannot both win. The image is in the
uploads bucket under `<realm_id>/emoji/images/<emoji_id>.<ext>`.
"""
from __future__ import annotations

import re
from typing import Literal, TypedDict

from pynamodb.exceptions import TransactWriteError

from chalicelib import config
from chalicelib.actions.ids import allocate_id
from chalicelib.actions.messages.uploads import DOWNLOAD_URL_SECONDS
from chalicelib.core.errors import ApiError, ErrorCode
from chalicelib.core.files import UploadedFile
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import add_event, to_realm
from chalicelib.lib import aws_clients
from chalicelib.lib.emoji import (
    CustomEmoji,
    EmojiData,
    EmojiError,
    builtin_emoji_data,
    check_emoji,
    is_builtin_emoji_name,
)
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.realm_emoji import RealmEmoji
from chalicelib.models.realms import UniqueName, claim_name, release_name

MAX_EMOJI_FILE_SIZE_MIB = 5
MAX_EMOJI_NAME_LENGTH = 60
_NAME_CHARS = re.compile(r"[0-9a-z_-]+")
# Image formats by their first bytes; the stored name takes the extension.
_IMAGE_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "png", "image/png"),
    (b"GIF87a", "gif", "image/gif"),
    (b"GIF89a", "gif", "image/gif"),
    (b"\xff\xd8\xff", "jpg", "image/jpeg"),
)


class RealmEmojiDict(TypedDict):
    id: str
    name: str
    source_url: str
    still_url: str | None
    deactivated: bool
    author_id: int | None


class RealmEmojiUpdateEvent(TypedDict):
    """The realm's whole set of custom emoji, after a change."""

    type: Literal["realm_emoji"]
    op: Literal["update"]
    realm_emoji: dict[str, RealmEmojiDict]


def emoji_name_key(realm_id: int, name: str) -> tuple[str, str]:
    return f"realm:{realm_id}", f"emoji:{name}"


def realm_emoji_items(realm_id: int) -> list[RealmEmoji]:
    return list(RealmEmoji.query(realm_id))


def realm_emoji_dict(item: RealmEmoji) -> RealmEmojiDict:
    """The reference shape; still images of animations are not made, so still_url is null."""
    return {"id": str(item.emoji_id), "name": item.name,
            "source_url": f"/user_avatars/{item.path_id}", "still_url": None,
            "deactivated": bool(item.deactivated), "author_id": item.author_id}


def active_emoji_sources(realm_id: int) -> dict[str, str]:
    """Active custom emoji names and their image addresses, for rendering (one Query)."""
    return {i.name: realm_emoji_dict(i)["source_url"] for i in realm_emoji_items(realm_id)
            if not i.deactivated}


def realm_emoji_state(realm_id: int) -> dict[str, RealmEmojiDict]:
    return {str(i.emoji_id): realm_emoji_dict(i) for i in realm_emoji_items(realm_id)}


def active_emoji_id(realm_id: int, name: str) -> int | None:
    if len(name) > MAX_EMOJI_NAME_LENGTH:   # no emoji has it; DynamoDB refuses such keys
        return None
    claim = UniqueName.get_or_none(*emoji_name_key(realm_id, name))
    return None if claim is None else int(claim.target_id)


def emoji_data(realm_id: int, name: str) -> EmojiData:
    """What an emoji name means in this realm: its custom emoji first, then built-in ones."""
    emoji_id = active_emoji_id(realm_id, name)
    if emoji_id is not None:
        return EmojiData(str(emoji_id), "realm_emoji")
    data = builtin_emoji_data(name)
    if data is None:
        raise ApiError(f"Emoji '{name}' does not exist")
    return data


def check_emoji_request(realm_id: int, name: str, code: str, reaction_type: str) -> None:
    custom = None
    if reaction_type == "realm_emoji" and code.isdigit():
        item = RealmEmoji.get_or_none(realm_id, int(code))
        if item is not None:
            custom = CustomEmoji(item.emoji_id, item.name, bool(item.deactivated))
    try:
        check_emoji(name, code, reaction_type, custom)
    except EmojiError as error:
        raise ApiError(str(error)) from None


def check_emoji_name(name: str) -> str:
    """The stored form (spaces as underscores, lowercase), or an error for a bad name."""
    name = name.strip().replace(" ", "_").lower()
    if not name:
        raise ApiError("Emoji name is missing")
    if len(name) > MAX_EMOJI_NAME_LENGTH:
        raise ApiError(f"Emoji name is too long (limit: {MAX_EMOJI_NAME_LENGTH} characters)")
    if not _NAME_CHARS.fullmatch(name):
        raise ApiError("Emoji names must contain only lowercase English letters, digits, "
                       "spaces, dashes, and underscores.")
    if name[-1] in "-_":
        raise ApiError("Emoji names must end with either a letter or digit.")
    return name


def _image_type(data: bytes) -> tuple[str, str]:
    for signature, extension, content_type in _IMAGE_SIGNATURES:
        if data.startswith(signature):
            return extension, content_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp", "image/webp"
    raise ApiError("Invalid image format")


def check_add_realm_emoji(caller: Principal, name: str, files: list[UploadedFile]
                          ) -> EmptyResult:
    name = check_emoji_name(name)
    if caller.is_guest:   # the reference's default: members and above may add
        raise ApiError("Insufficient permission")
    if active_emoji_id(caller.realm_id, name) is not None:
        raise ApiError("A custom emoji with this name already exists.")
    if len(files) != 1:
        raise ApiError("You must upload exactly one file.")
    if is_builtin_emoji_name(name) and not caller.is_admin:
        raise ApiError("Only administrators can override default emoji.")
    data = files[0].data
    if len(data) > MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024:
        raise ApiError(f"Uploaded file is larger than the allowed limit of "
                       f"{MAX_EMOJI_FILE_SIZE_MIB} MiB")
    extension, content_type = _image_type(data)
    do_add_realm_emoji(caller, name, data, extension, content_type)
    return {}


def do_add_realm_emoji(caller: Principal, name: str, data: bytes, extension: str,
                       content_type: str) -> RealmEmoji:
    realm_id = caller.realm_id
    emoji_id = allocate_id(realm_id, "emoji")
    path_id = f"{realm_id}/emoji/images/{emoji_id}.{extension}"
    item = RealmEmoji(realm_id, emoji_id, name=name, path_id=path_id,
                      author_id=caller.user_id, deactivated=False)
    # The image first: an emoji that exists always has its image.
    s3 = aws_clients.s3()
    s3.put_object(Bucket=config.upload_bucket(), Key=path_id, Body=data,
                  ContentType=content_type)
    others = [i for i in realm_emoji_items(realm_id) if i.emoji_id != emoji_id]
    try:
        with transaction() as tx:
            claim_name(tx, emoji_name_key(realm_id, name), emoji_id)
            tx.save(item, condition=RealmEmoji.emoji_id.does_not_exist())
            add_event(tx, realm_id, _update_event([*others, item]), to_realm())
    except TransactWriteError as error:
        s3.delete_object(Bucket=config.upload_bucket(), Key=path_id)
        if is_condition_failure(error):
            raise ApiError("A custom emoji with this name already exists.") from None
        raise
    return item


def do_deactivate_realm_emoji(caller: Principal, name: str) -> EmptyResult:
    realm_id = caller.realm_id
    emoji_id = active_emoji_id(realm_id, name)
    item = RealmEmoji.get_or_none(realm_id, emoji_id) if emoji_id is not None else None
    if item is None or item.deactivated:
        raise ApiError(f"Emoji '{name}' does not exist", http_status=404)
    if not caller.is_admin and item.author_id != caller.user_id:
        raise ApiError("Must be an organization administrator or emoji author")
    item.deactivated = True
    after = [item if i.emoji_id == emoji_id else i for i in realm_emoji_items(realm_id)]
    try:
        with transaction() as tx:
            tx.update(RealmEmoji(realm_id, emoji_id), actions=[RealmEmoji.deactivated.set(True)],
                      condition=RealmEmoji.deactivated == False)
            release_name(tx, emoji_name_key(realm_id, name), item.emoji_id)
            add_event(tx, realm_id, _update_event(after), to_realm())
    except TransactWriteError as error:
        if is_condition_failure(error):   # deactivated meanwhile
            raise ApiError(f"Emoji '{name}' does not exist", http_status=404) from None
        raise
    return {}


def _update_event(items: list[RealmEmoji]) -> RealmEmojiUpdateEvent:
    return {"type": "realm_emoji", "op": "update",
            "realm_emoji": {str(i.emoji_id): realm_emoji_dict(i) for i in items}}


def emoji_image_url(caller: Principal, realm_id: int, filename: str) -> str:
    """A short-lived S3 URL for a custom emoji's image (deactivated ones too: old messages
    still show them), for users of its realm."""
    stem = filename.split(".", 1)[0]
    item = (RealmEmoji.get_or_none(realm_id, int(stem))
            if realm_id == caller.realm_id and stem.isdigit() else None)
    if item is None or item.path_id != f"{realm_id}/emoji/images/{filename}":
        raise ApiError("File not found", code=ErrorCode.NOT_FOUND, http_status=404)
    return aws_clients.presigned_get_url(item.path_id, DOWNLOAD_URL_SECONDS)
