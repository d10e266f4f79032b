"""The organization's custom emoji: upload, deactivate, the image's address (the list and
the name → emoji lookups are readers: reads/emoji.py).

An active emoji's name is claimed in the names table in the same transaction as the
emoji and its event, so two uploads of one name cannot both win. The image is in the
uploads bucket under `<realm_id>/emoji/images/<emoji_id>.<ext>`.
"""
from __future__ import annotations

import re
from typing import Literal, TypedDict

from pynamodb.exceptions import TransactWriteError

from chalicelib import config
from chalicelib.actions.realm.reads.emoji import (
    MAX_EMOJI_NAME_LENGTH,
    RealmEmojiDict,
    active_emoji_id,
    emoji_name_key,
    realm_emoji_dict,
    realm_emoji_items,
)
from chalicelib.aws import aws_clients
from chalicelib.core.errors import NOT_PERMITTED, ApiError, ErrorCode
from chalicelib.core.feature_levels import level_reached
from chalicelib.core.files import DOWNLOAD_URL_SECONDS, UploadedFile
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import OutboxEntry, add_event, to_realm
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.ids import allocate_id
from chalicelib.models.realm_emoji import RealmEmoji
from chalicelib.models.realms import claim_name, release_name
from chalicelib.rules.emoji import (
    is_builtin_emoji_name,
)
from chalicelib.rules.file_types import response_overrides

MAX_EMOJI_FILE_SIZE_MIB = 5
# Level 491: clients with this capability get one event per emoji changed (add,
# update_one) instead of the whole set; below that level nobody does.
INDIVIDUAL_CHANGES = "individual_emoji_changes"
INDIVIDUAL_CHANGES_LEVEL = 491
_NAME_CHARS = re.compile(r"[0-9a-z_-]+")
# Image formats by their first bytes; the stored name takes the extension.
_IMAGE_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "png", "image/png"),
    (b"GIF87a", "gif", "image/gif"),
    (b"GIF89a", "gif", "image/gif"),
    (b"\xff\xd8\xff", "jpg", "image/jpeg"),
)
_TYPE_OF_EXTENSION = {extension: content_type for _, extension, content_type
                      in _IMAGE_SIGNATURES} | {"webp": "image/webp"}


class RealmEmojiUpdateEvent(TypedDict):
    """The realm's whole set of custom emoji, after a change (for clients without the
    individual_emoji_changes capability)."""

    type: Literal["realm_emoji"]
    op: Literal["update"]
    realm_emoji: dict[str, RealmEmojiDict]


class RealmEmojiAddEvent(TypedDict):
    """A custom emoji added (level 491, individual_emoji_changes)."""

    type: Literal["realm_emoji"]
    op: Literal["add"]
    emoji: RealmEmojiDict


class RealmEmojiChangedData(TypedDict):
    deactivated: bool


class RealmEmojiUpdateOneEvent(TypedDict):
    """A property of one custom emoji changed (level 491, individual_emoji_changes)."""

    type: Literal["realm_emoji"]
    op: Literal["update_one"]
    emoji_id: str
    data: RealmEmojiChangedData


def check_emoji_name(name: str) -> str:
    """The stored form (spaces as underscores, lowercase), or an error for a bad name."""
    name = name.strip().replace(" ", "_").lower()
    if not name:
        raise ApiError("An emoji needs a name")
    if len(name) > MAX_EMOJI_NAME_LENGTH:
        raise ApiError(f"Emoji name is over the limit of {MAX_EMOJI_NAME_LENGTH} characters")
    if not _NAME_CHARS.fullmatch(name):
        raise ApiError("An emoji name may use only a-z, 0-9, spaces, '-' and '_'.")
    if name[-1] in "-_":
        raise ApiError("An emoji name has to end in a letter or a digit.")
    return name


def _image_type(data: bytes) -> tuple[str, str]:
    for signature, extension, content_type in _IMAGE_SIGNATURES:
        if data.startswith(signature):
            return extension, content_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp", "image/webp"
    raise ApiError("That file is not an image this server accepts")


def check_add_realm_emoji(caller: Principal, name: str, files: list[UploadedFile]
                          ) -> EmptyResult:
    name = check_emoji_name(name)
    if caller.is_guest:   # the reference's default: members and above may add
        raise ApiError(NOT_PERMITTED)
    if active_emoji_id(caller.realm_id, name) is not None:
        raise ApiError("This organization already has a custom emoji of that name.")
    if len(files) != 1:
        raise ApiError("Attach exactly one image file.")
    if is_builtin_emoji_name(name) and not caller.is_admin:
        raise ApiError("Only administrators may replace a built-in emoji.")
    data = files[0].data
    if len(data) > MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024:
        raise ApiError(f"The file is over the {MAX_EMOJI_FILE_SIZE_MIB} MiB limit")
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
            add_event(tx, realm_id, *_event_for_level(
                RealmEmojiAddEvent(type="realm_emoji", op="add", emoji=realm_emoji_dict(item)),
                [*others, item]))
    except TransactWriteError as error:
        s3.delete_object(Bucket=config.upload_bucket(), Key=path_id)
        if is_condition_failure(error):
            raise ApiError("This organization already has a custom emoji of that name.") from None
        raise
    return item


def do_deactivate_realm_emoji(caller: Principal, name: str) -> EmptyResult:
    realm_id = caller.realm_id
    emoji_id = active_emoji_id(realm_id, name)
    item = RealmEmoji.get_or_none(realm_id, emoji_id) if emoji_id is not None else None
    if item is None or item.deactivated:
        raise ApiError(f"No emoji called '{name}' exists", http_status=404)
    if not caller.is_admin and item.author_id != caller.user_id:
        raise ApiError("Only administrators and the emoji's creator can do this")
    item.deactivated = True
    after = [item if i.emoji_id == emoji_id else i for i in realm_emoji_items(realm_id)]
    try:
        with transaction() as tx:
            tx.update(RealmEmoji(realm_id, emoji_id), actions=[RealmEmoji.deactivated.set(True)],
                      condition=RealmEmoji.deactivated == False)
            release_name(tx, emoji_name_key(realm_id, name), item.emoji_id)
            add_event(tx, realm_id, *_event_for_level(RealmEmojiUpdateOneEvent(
                type="realm_emoji", op="update_one", emoji_id=str(emoji_id),
                data={"deactivated": True}), after))
    except TransactWriteError as error:
        if is_condition_failure(error):   # deactivated meanwhile
            raise ApiError(f"No emoji called '{name}' exists", http_status=404) from None
        raise
    return {}


def _update_event(items: list[RealmEmoji]) -> RealmEmojiUpdateEvent:
    return {"type": "realm_emoji", "op": "update",
            "realm_emoji": {str(i.emoji_id): realm_emoji_dict(i) for i in items}}


def _event_for_level(change: RealmEmojiAddEvent | RealmEmojiUpdateOneEvent,
                     after: list[RealmEmoji]) -> OutboxEntry:
    """The one emoji's change for clients with individual_emoji_changes, the whole set
    `after` it for the others; the whole set for everyone below level 491. To everyone."""
    if not level_reached(INDIVIDUAL_CHANGES_LEVEL):
        return OutboxEntry(_update_event(after), to_realm())
    return OutboxEntry(change, to_realm(), {"without_capability": {
        "capability": INDIVIDUAL_CHANGES, "event": _update_event(after)}})


def emoji_image_url(caller: Principal, realm_id: int, filename: str) -> str:
    """A short-lived S3 URL for a custom emoji's image (deactivated ones too: old messages
    still show them), for users of its realm."""
    stem = filename.split(".", 1)[0]
    item = (RealmEmoji.get_or_none(realm_id, int(stem))
            if realm_id == caller.realm_id and stem.isdigit() else None)
    if item is None or item.path_id != f"{realm_id}/emoji/images/{filename}":
        raise ApiError("File not found", code=ErrorCode.NOT_FOUND, http_status=404)
    # Its extension is that of the image type _image_type recognized in its bytes.
    stored_type = _TYPE_OF_EXTENSION.get(filename.rsplit(".", 1)[-1], "")
    return aws_clients.presigned_get_url(item.path_id, DOWNLOAD_URL_SECONDS,
                                         **response_overrides(stored_type, filename))
