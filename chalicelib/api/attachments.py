"""A user's uploads: GET /attachments, DELETE /attachments/{attachment_id}."""
from __future__ import annotations

from chalicelib.actions.messages import attachments as actions
from chalicelib.actions.messages.attachments import AttachmentsResult
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


@bp.endpoint("/attachments", "GET")
def get_attachments(caller: Principal) -> AttachmentsResult:
    return actions.get_attachments(caller)


@bp.endpoint("/attachments/{attachment_id}", "DELETE")
def remove_attachment(caller: Principal, *, attachment_id: int) -> EmptyResult:
    return actions.do_delete_attachment(caller, attachment_id)
