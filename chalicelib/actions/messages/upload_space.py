"""The organization's upload space: the bytes its uploads use (a per-realm counter changed
in the transaction that adds or deletes an upload), its quota, and the `attachment`
events that report both to the uploader."""
from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from chalicelib.core.errors import ApiError
from chalicelib.delivery.outbox import add_event, to_users
from chalicelib.models.counters import Counter
from chalicelib.models.ids import realm_scope
from chalicelib.models.realms import get_realm
from chalicelib.rules.realm_settings import UNCHANGEABLE_DEFAULTS

MIB = 1024 * 1024


class AttachmentMessage(TypedDict):
    id: int
    date_sent: int   # UNIX milliseconds


class AttachmentDict(TypedDict):
    """An uploaded file (§2.3), with the messages that link it: their ids and dates
    below level 472, their ids alone from it (feature_levels.at_advertised_level)."""

    id: int
    name: str
    path_id: str
    size: int
    create_time: int   # UNIX milliseconds
    messages: NotRequired[list[AttachmentMessage]]
    message_ids: NotRequired[list[int]]


class AttachmentAddEvent(TypedDict):
    """To the uploader: a file they uploaded, and the organization's space used."""

    type: Literal["attachment"]
    op: Literal["add"]
    attachment: AttachmentDict
    upload_space_used: int


class RemovedAttachment(TypedDict):
    id: int


class AttachmentRemoveEvent(TypedDict):
    """To the uploader: a file they deleted, and the organization's space used."""

    type: Literal["attachment"]
    op: Literal["remove"]
    attachment: RemovedAttachment
    upload_space_used: int


def upload_space_used(realm_id: int) -> int:
    counter = Counter.get_or_none(realm_scope(realm_id), consistent_read=True)
    return max(0, counter.upload_space or 0) if counter is not None else 0


def check_upload_quota(realm_id: int, size: int) -> int:
    """The space used before this upload, if the organization's quota allows it."""
    used = upload_space_used(realm_id)
    # Set by the operator on the realm's stored settings (no API changes it).
    realm = get_realm(realm_id)
    stored = realm.settings.as_dict() if realm.settings else {}
    quota_mib = stored.get("upload_quota_mib", UNCHANGEABLE_DEFAULTS["upload_quota_mib"])
    if quota_mib is not None and used + size > int(quota_mib) * MIB:
        raise ApiError("This file would take the organization over its storage quota.")
    return used


def change_space(tx: Any, realm_id: int, delta: int) -> None:
    tx.update(Counter(realm_scope(realm_id)), actions=[Counter.upload_space.add(delta)])


def add_attachment_event(tx: Any, realm_id: int, owner_id: int, attachment: AttachmentDict,
                         used_after: int) -> None:
    event: AttachmentAddEvent = {"type": "attachment", "op": "add", "attachment": attachment,
                                 "upload_space_used": used_after}
    add_event(tx, realm_id, event, to_users([owner_id]))


def remove_attachment_event(tx: Any, realm_id: int, owner_id: int, attachment_id: int,
                            used_after: int) -> None:
    event: AttachmentRemoveEvent = {"type": "attachment", "op": "remove",
                                    "attachment": {"id": attachment_id},
                                    "upload_space_used": used_after}
    add_event(tx, realm_id, event, to_users([owner_id]))
