"""Channel folders: creating them (administrators), listing them, their API shape; changing
and reordering them is folder_admin.py."""
from __future__ import annotations

from typing import Literal, TypedDict

from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.channels.reads.folders import (
    MAX_FOLDER_DESCRIPTION_LENGTH,
    MAX_FOLDER_NAME_LENGTH,
    ChannelFolderDict,
    channel_folder_dict,
    realm_folders,
)
from chalicelib.core.errors import ADMINISTRATOR_REQUIRED, ApiError
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import add_event, to_realm
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.channel_folders import ChannelFolder
from chalicelib.models.ids import allocate_id
from chalicelib.models.realms import UniqueName, claim_name
from chalicelib.rules.markdown import render_markdown
from chalicelib.rules.names import check_name
from chalicelib.rules.timeutil import now_seconds


class ChannelFolderAddEvent(TypedDict):
    type: Literal["channel_folder"]
    op: Literal["add"]
    channel_folder: ChannelFolderDict


class CreateChannelFolderResult(TypedDict):
    channel_folder_id: int


def folder_name_key(realm_id: int, name: str) -> tuple[str, str]:
    return f"realm:{realm_id}", f"channel_folder:{name.strip().lower()}"


def check_folder_name(name: str) -> str:
    return check_name(name, "Channel folder name", MAX_FOLDER_NAME_LENGTH)


def do_create_channel_folder(caller: Principal, name: str, description: str
                             ) -> CreateChannelFolderResult:
    if not caller.is_admin:
        raise ApiError(ADMINISTRATOR_REQUIRED)
    name = check_folder_name(name)
    description = description.strip()
    if len(description) > MAX_FOLDER_DESCRIPTION_LENGTH:
        raise ApiError("Channel folder description too long (limit: "
                       f"{MAX_FOLDER_DESCRIPTION_LENGTH} characters).")
    if UniqueName.get_or_none(*folder_name_key(caller.realm_id, name)) is not None:
        raise ApiError("Another channel folder already has that name")
    existing = realm_folders(caller.realm_id)
    folder = ChannelFolder(caller.realm_id, allocate_id(caller.realm_id, "folder"), name=name,
                           description=description,
                           rendered_description=render_markdown(description),
                           creator_id=caller.user_id, date_created=now_seconds(),
                           order=len(existing))
    try:
        with transaction() as tx:
            tx.save(folder, condition=ChannelFolder.folder_id.does_not_exist())
            # The name claim keeps names unique under concurrent creators.
            claim_name(tx, folder_name_key(caller.realm_id, name), folder.folder_id)
            event: ChannelFolderAddEvent = {
                "type": "channel_folder", "op": "add",
                "channel_folder": channel_folder_dict(folder, len(existing))}
            add_event(tx, caller.realm_id, event, to_realm())
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ApiError("Another channel folder already has that name") from None
        raise
    return {"channel_folder_id": folder.folder_id}


def get_usable_folder(realm_id: int, folder_id: int) -> ChannelFolder:
    """An existing, unarchived folder of the realm (channels can be put in it)."""
    folder = ChannelFolder.get_or_none(realm_id, folder_id)
    if folder is None or folder.is_archived:
        raise ApiError("No channel folder has that ID")
    return folder


