"""Uploaded files (§2.3): storing them in S3, who may read them, and which messages link them.

An attachment records the messages whose content links `/user_uploads/<path_id>`; the
links change in the same transaction as the message. Whether an edit removes an upload's
last reference is decided from a read just before that transaction, which is
conditioned on what was read (an edit that loses the race reads again).
"""
from __future__ import annotations

import re
import secrets
import unicodedata
from dataclasses import dataclass, field
from typing import Any, TypedDict

from pynamodb.expressions.condition import size

from chalicelib import config
from chalicelib.actions.messages.reads.access import can_read_message
from chalicelib.actions.messages.upload_space import (
    AttachmentDict,
    add_attachment_event,
    change_space,
    check_upload_quota,
)
from chalicelib.aws import aws_clients
from chalicelib.core.errors import ApiError, ResourceNotFoundError
from chalicelib.core.feature_levels import at_advertised_level, level_reached, withheld
from chalicelib.core.files import (
    DOWNLOAD_URL_SECONDS,
    MAX_NAME_LENGTH,
    MAX_UPLOAD_MIB,
    PATH_ID,
    UPLOAD_LINK,
    UploadedFile,
)
from chalicelib.core.principal import Principal
from chalicelib.models.base import transaction
from chalicelib.models.channels import get_stream, get_subscription
from chalicelib.models.ids import allocate_id
from chalicelib.models.messages import Message
from chalicelib.models.uploads import Attachment
from chalicelib.rules.file_types import UNKNOWN_TYPE, normalized_type, response_overrides
from chalicelib.rules.timeutil import now_seconds


class UploadResult(TypedDict):
    uri: str   # deprecated name of `url`
    url: str
    filename: str


MAX_ACCESS_CHECKS = 100   # linking messages loaded to decide whether a caller may read


def sanitize_filename(name: str) -> str:
    """A name safe in a URL path and an S3 key; keeps letters, digits, dot, dash, underscore."""
    name = unicodedata.normalize("NFKD", name.rsplit("/", 1)[-1].rsplit("\\", 1)[-1])
    name = re.sub(r"[^\w.-]+", "-", name.encode("ascii", "ignore").decode()).strip("-.")
    return name[:MAX_NAME_LENGTH] or "file"


def upload_path_ids(content: str) -> set[str]:
    """The path ids of uploads that Markdown content links to."""
    return set(UPLOAD_LINK.findall(content))


def do_upload_file(caller: Principal, files: list[UploadedFile]) -> UploadResult:
    if not files:
        raise ApiError("Attach a file to upload")
    if len(files) > 1:
        raise ApiError("Upload one file per request")
    upload = files[0]
    if not upload.filename.strip():
        raise ApiError("The uploaded file needs a name")
    if len(upload.data) > MAX_UPLOAD_MIB * 1024 * 1024:
        raise ApiError(f"File too large: the limit is {MAX_UPLOAD_MIB} MiB")
    used = check_upload_quota(caller.realm_id, len(upload.data))
    path_id = f"{caller.realm_id}/{secrets.token_hex(12)}/{sanitize_filename(upload.filename)}"
    content_type = normalized_type(upload.content_type, upload.filename)
    aws_clients.s3().put_object(Bucket=config.upload_bucket(), Key=path_id, Body=upload.data,
                                ContentType=content_type,
                                Metadata={"owner-id": str(caller.user_id)})
    attachment = Attachment(
        caller.realm_id, path_id, attachment_id=allocate_id(caller.realm_id, "upload"),
        owner_id=caller.user_id, name=upload.filename.strip(), size=len(upload.data),
        content_type=content_type, create_time=now_seconds() * 1000)
    # The file, its space and the uploader's event in one transaction.
    with transaction() as tx:
        tx.save(attachment, condition=Attachment.path_id.does_not_exist())
        change_space(tx, caller.realm_id, attachment.size)
        add_attachment_event(tx, caller.realm_id, caller.user_id,
                             attachment_dict(attachment, []), used + attachment.size)
    uri = f"/user_uploads/{path_id}"
    return {"uri": uri, "url": uri, "filename": upload.filename.strip()}


def download_url(caller: Principal, path_id: str) -> str:
    """A short-lived S3 URL for the file, if the caller may read it; else "not found".
    Served inline only if its type is on the short safe list, else as an attachment
    (rules/file_types.py)."""
    in_realm = PATH_ID.fullmatch(path_id) is not None and \
        path_id.split("/", 1)[0] == str(caller.realm_id)
    attachment = Attachment.get_or_none(caller.realm_id, path_id) if in_realm else None
    if attachment is None or not _may_read(caller, attachment):
        raise ResourceNotFoundError("File not found")
    return aws_clients.presigned_get_url(path_id, DOWNLOAD_URL_SECONDS, **response_overrides(
        attachment.content_type or UNKNOWN_TYPE, path_id.rsplit("/", 1)[-1]))


def _may_read(caller: Principal, attachment: Attachment) -> bool:
    """Owner, or a reader of one of the (newest MAX_ACCESS_CHECKS) messages linking it."""
    if attachment.owner_id == caller.user_id:
        return True
    ids = sorted(attachment.message_ids or (), reverse=True)[:MAX_ACCESS_CHECKS]
    by_stream: dict[int, list[Message]] = {}
    for message in Message.batch_get([(caller.realm_id, i) for i in ids]):
        if message.type == "private":
            if caller.user_id in message.recipient_ids:
                return True
        else:
            by_stream.setdefault(message.stream_id, []).append(message)
    # Two reads per channel, not per message.
    for stream_id, messages in by_stream.items():
        stream = get_stream(caller.realm_id, stream_id)
        if stream is None:
            continue
        subscription = get_subscription(caller.realm_id, caller.user_id, stream_id)
        if any(can_read_message(stream, subscription, m.message_id, caller) for m in messages):
            return True
    return False


@dataclass
class AttachmentChanges:
    """The link changes of one message write, applied inside its transaction."""

    realm_id: int
    message_id: int
    link: list[str] = field(default_factory=list)
    unlink: list[str] = field(default_factory=list)
    detached: list[AttachmentDict] = field(default_factory=list)
    # The actor's uploads this change unlinks, and whether other messages still link
    # them as read: the write is conditioned on it, so that of two edits removing the
    # last two links, exactly one reports the upload as detached.
    still_linked: dict[str, bool] = field(default_factory=dict)

    def apply(self, tx: Any) -> None:
        for path_id in self.link:
            tx.update(Attachment(self.realm_id, path_id),
                      actions=[Attachment.message_ids.add({self.message_id})],
                      condition=Attachment.path_id.exists())
        for path_id in self.unlink:
            condition = Attachment.path_id.exists()
            if path_id in self.still_linked:
                links = size(Attachment.message_ids)
                condition &= (links > 1) if self.still_linked[path_id] else (links == 1)
            tx.update(Attachment(self.realm_id, path_id),
                      actions=[Attachment.message_ids.delete({self.message_id})],
                      condition=condition)


@dataclass
class DeletedLinks:
    """The upload links of messages being deleted, removed in the deletion's transaction:
    an upload no remaining message links is readable by its owner alone (the reference's
    detached upload)."""

    realm_id: int
    by_path: dict[str, set[int]] = field(default_factory=dict)   # path_id -> message ids

    def apply(self, tx: Any) -> None:
        for path_id, message_ids in sorted(self.by_path.items()):
            tx.update(Attachment(self.realm_id, path_id),
                      actions=[Attachment.message_ids.delete(message_ids)],
                      condition=Attachment.path_id.exists())


def plan_deleted_links(realm_id: int, messages: list[Message]) -> DeletedLinks:
    """One BatchGet of the uploads these messages' contents link (none: no read)."""
    wanted: dict[str, set[int]] = {}
    for message in messages:
        for path_id in upload_path_ids(message.content):
            wanted.setdefault(path_id, set()).add(message.message_id)
    links = DeletedLinks(realm_id)
    if not wanted:
        return links
    for attachment in Attachment.batch_get([(realm_id, p) for p in wanted]):
        linked = wanted[attachment.path_id] & set(attachment.message_ids or ())
        if linked:
            links.by_path[attachment.path_id] = linked
    return links


def plan_links(realm_id: int, sender_id: int, message_id: int, content: str
               ) -> AttachmentChanges:
    """For a new message: link the sender's own uploads that the content references."""
    return plan_attachment_changes(realm_id, sender_id, message_id, "", content)


def plan_attachment_changes(realm_id: int, actor_id: int, message_id: int, old_content: str,
                            new_content: str) -> AttachmentChanges:
    old, new = upload_path_ids(old_content), upload_path_ids(new_content)
    changes = AttachmentChanges(realm_id, message_id)
    wanted = (new - old) | (old - new)
    if not wanted:
        return changes
    found = {a.path_id: a for a in Attachment.batch_get([(realm_id, p) for p in wanted])}
    # New links claim only the actor's own uploads, as the reference does.
    changes.link = sorted(p for p in new - old if p in found and found[p].owner_id == actor_id)
    changes.unlink = sorted(p for p in old - new if p in found
                            and message_id in (found[p].message_ids or ()))
    for path_id in changes.unlink:
        attachment = found[path_id]
        remaining = set(attachment.message_ids or ()) - {message_id}
        if attachment.owner_id == actor_id:
            changes.still_linked[path_id] = bool(remaining)
            if not remaining:
                changes.detached.append(attachment_dict(attachment, []))
    return changes


def attachment_dict(attachment: Attachment, messages: list[Message]) -> AttachmentDict:
    """`messages`: those linking it, for the form below level 472 (with their dates);
    from that level the ids alone, from the attachment itself."""
    # Times in seconds from level 443 (milliseconds before); stored in milliseconds.
    seconds = level_reached(443)
    shown: AttachmentDict = {
        "id": attachment.attachment_id, "name": attachment.name,
        "path_id": attachment.path_id, "size": attachment.size,
        "create_time": attachment.create_time // 1000 if seconds else attachment.create_time,
        "messages": [{"id": m.message_id,
                      "date_sent": m.date_sent if seconds else m.date_sent * 1000}
                     for m in messages],
        "message_ids": sorted(int(i) for i in attachment.message_ids or ())}
    return at_advertised_level("attachment", shown)


def attachment_messages_shown() -> bool:
    """Whether attachments list their messages' dates (below level 472): reading the
    messages is needed only then."""
    return "messages" not in withheld("attachment")
