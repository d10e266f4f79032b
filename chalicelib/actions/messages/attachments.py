"""A user's own uploads: GET /attachments (with the organization's space used) and
DELETE /attachments/{id}. The listing is one Query of the owner index plus one BatchGet
of the messages that link the files (for their dates, below level 472)."""
from __future__ import annotations

from typing import TypedDict

from pynamodb.exceptions import TransactWriteError

from chalicelib import config
from chalicelib.actions.messages.upload_space import (
    AttachmentDict,
    change_space,
    remove_attachment_event,
    upload_space_used,
)
from chalicelib.actions.messages.uploads import attachment_dict, attachment_messages_shown
from chalicelib.aws import aws_clients
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.messages import Message
from chalicelib.models.uploads import Attachment


class AttachmentsResult(TypedDict):
    attachments: list[AttachmentDict]
    upload_space_used: int


def own_attachments(caller: Principal) -> list[Attachment]:
    items = Attachment.by_owner.query(caller.user_id, Attachment.realm_id == caller.realm_id)
    return sorted(items, key=lambda a: a.attachment_id)


def get_attachments(caller: Principal) -> AttachmentsResult:
    attachments = own_attachments(caller)
    wanted = {(caller.realm_id, m) for a in attachments for m in a.message_ids or ()
              } if attachment_messages_shown() else set()
    messages = {m.message_id: m for m in Message.batch_get(sorted(wanted))} if wanted else {}
    listed = [attachment_dict(a, [messages[m] for m in sorted(a.message_ids or ())
                                  if m in messages]) for a in attachments]
    return {"attachments": listed, "upload_space_used": upload_space_used(caller.realm_id)}


def do_delete_attachment(caller: Principal, attachment_id: int) -> EmptyResult:
    """Deletes one of the caller's uploads: the record, its space and the event in one
    transaction, then the file (messages that linked it keep a dead link, as the
    reference's do)."""
    found = [a for a in own_attachments(caller) if a.attachment_id == attachment_id]
    if not found:
        raise ApiError("No such uploaded file")
    attachment = found[0]
    realm_id = caller.realm_id
    used_after = max(0, upload_space_used(realm_id) - attachment.size)
    try:
        with transaction() as tx:
            tx.delete(Attachment(realm_id, attachment.path_id),
                      condition=Attachment.path_id.exists())
            change_space(tx, realm_id, -attachment.size)
            remove_attachment_event(tx, realm_id, caller.user_id, attachment_id, used_after)
    except TransactWriteError as error:
        if is_condition_failure(error):   # deleted meanwhile
            raise ApiError("No such uploaded file") from None
        raise
    aws_clients.s3().delete_object(Bucket=config.upload_bucket(), Key=attachment.path_id)
    return {}
