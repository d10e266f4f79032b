"""Changing channel folders (administrators): PATCH /channel_folders/{id} (name,
description, archiving; level 389) and PATCH /channel_folders (their order, levels 414
and 418), each with its channel_folder event to the organization."""
from __future__ import annotations

from typing import Literal, TypedDict

from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.channels.folders import check_folder_name, folder_name_key
from chalicelib.actions.channels.reads.folders import MAX_FOLDER_DESCRIPTION_LENGTH, realm_folders
from chalicelib.core.errors import ADMINISTRATOR_REQUIRED, ApiError, ConflictError
from chalicelib.core.feature_levels import level_reached
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import add_event, to_realm
from chalicelib.models.base import MAX_TRANSACTION_ITEMS, is_condition_failure, transaction
from chalicelib.models.channel_folders import ChannelFolder
from chalicelib.models.realms import move_name
from chalicelib.rules.markdown import render_markdown

INVALID_ORDER = "The order must list every existing item exactly once."


class ChannelFolderChanges(TypedDict, total=False):
    name: str
    description: str
    rendered_description: str
    is_archived: bool


class ChannelFolderUpdateEvent(TypedDict):
    type: Literal["channel_folder"]
    op: Literal["update"]
    channel_folder_id: int
    data: ChannelFolderChanges


class ChannelFolderReorderEvent(TypedDict):
    type: Literal["channel_folder"]
    op: Literal["reorder"]
    order: list[int]


def _check_admin(caller: Principal) -> None:
    if not caller.is_admin:
        raise ApiError(ADMINISTRATOR_REQUIRED)


def do_update_channel_folder(caller: Principal, folder_id: int, name: str | None,
                             description: str | None, is_archived: bool | None) -> None:
    _check_admin(caller)
    folder = ChannelFolder.get_or_none(caller.realm_id, folder_id)
    if folder is None:
        raise ApiError("No channel folder has that ID")
    data: ChannelFolderChanges = {}
    if name is not None and check_folder_name(name) != folder.name:
        data["name"] = check_folder_name(name)
    if description is not None and description.strip() != folder.description:
        if len(description.strip()) > MAX_FOLDER_DESCRIPTION_LENGTH:
            raise ApiError("Channel folder description too long (limit: "
                           f"{MAX_FOLDER_DESCRIPTION_LENGTH} characters).")
        data["description"] = description.strip()
        data["rendered_description"] = render_markdown(data["description"])
    if is_archived is not None and is_archived != folder.is_archived:
        data["is_archived"] = is_archived
    if not data:
        return
    # Archiving needs the folder empty; every changed value must still be the one read.
    condition = ChannelFolder.folder_id.exists()
    for key in data:
        condition &= getattr(ChannelFolder, key) == getattr(folder, key)
    if data.get("is_archived"):
        condition &= ChannelFolder.channel_count.does_not_exist() | (
            ChannelFolder.channel_count <= 0)
    event: ChannelFolderUpdateEvent = {"type": "channel_folder", "op": "update",
                                       "channel_folder_id": folder_id, "data": data}
    try:
        with transaction() as tx:
            tx.update(folder, actions=[getattr(ChannelFolder, k).set(v) for k, v in
                                       data.items()], condition=condition)
            if "name" in data:   # the name's claim moves with it: names stay unique
                move_name(tx, folder_name_key(caller.realm_id, folder.name),
                          folder_name_key(caller.realm_id, data["name"]), folder_id)
            add_event(tx, caller.realm_id, event, to_realm())
    except TransactWriteError as error:
        if not is_condition_failure(error):
            raise
        _explain_failure(caller.realm_id, folder, data)


def _explain_failure(realm_id: int, folder: ChannelFolder, data: ChannelFolderChanges
                     ) -> None:
    current = ChannelFolder.get_or_none(realm_id, folder.folder_id)
    if current is not None and data.get("is_archived") and int(current.channel_count or 0) > 0:
        raise ApiError("Move its channels out of the folder before archiving it.")
    if "name" in data and current is not None and current.name == folder.name:
        raise ApiError("Another channel folder already has that name")
    raise ConflictError("The channel folder changed at the same time; try again.")


def do_reorder_channel_folders(caller: Principal, order: list[int]) -> None:
    """Numbers every folder of the organization (archived ones too) from 0 in the order
    given, in transactions of at most 100 items, the reorder event in the last one."""
    _check_admin(caller)
    folders = {f.folder_id: f for f in realm_folders(caller.realm_id)}
    if len(set(order)) != len(order) or set(order) != set(folders):
        raise ApiError(INVALID_ORDER)
    step = MAX_TRANSACTION_ITEMS - 1
    batches = [order[n:n + step] for n in range(0, len(order), step)] or [[]]
    position = {folder_id: n for n, folder_id in enumerate(order)}
    event: ChannelFolderReorderEvent = {"type": "channel_folder", "op": "reorder",
                                        "order": list(order)}
    try:
        for number, batch in enumerate(batches, start=1):
            with transaction() as tx:
                for folder_id in batch:
                    tx.update(ChannelFolder(caller.realm_id, folder_id),
                              actions=[ChannelFolder.order.set(position[folder_id])],
                              condition=ChannelFolder.folder_id.exists())
                # The event is new at level 418; below it clients read the order anew.
                if number == len(batches) and level_reached(418):
                    add_event(tx, caller.realm_id, event, to_realm())
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ApiError(INVALID_ORDER) from None
        raise
