"""Scheduled messages: GET/POST /scheduled_messages, PATCH/DELETE /scheduled_messages/{id}."""
from __future__ import annotations

from typing import Annotated, Literal

from chalicelib.actions.messages.scheduled_messages import (
    CreateScheduledMessageResult,
    GetScheduledMessagesResult,
    check_create_scheduled_message,
    check_edit_scheduled_message,
    do_delete_scheduled_message,
    get_scheduled_messages,
)
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import ApiParam

bp = ApiBlueprint(__name__)

MessageType = Literal["stream", "channel", "private", "direct"]


@bp.endpoint("/scheduled_messages", "GET")
def get_scheduled_messages_backend(caller: Principal) -> GetScheduledMessagesResult:
    return get_scheduled_messages(caller)


@bp.endpoint("/scheduled_messages", "POST")
def create_scheduled_message(caller: Principal, *,
                             message_type: Annotated[MessageType, ApiParam(alias="type")],
                             to: str, content: str, scheduled_delivery_timestamp: int,
                             topic: str | None = None, read_by_sender: bool | None = None,
                             ) -> CreateScheduledMessageResult:
    return check_create_scheduled_message(
        caller, message_type=message_type, to=to, content=content, topic=topic,
        scheduled_delivery_timestamp=scheduled_delivery_timestamp,
        read_by_sender=read_by_sender)


@bp.endpoint("/scheduled_messages/{scheduled_message_id}", "PATCH")
def update_scheduled_message(caller: Principal, *, scheduled_message_id: int,
                             message_type: Annotated[MessageType | None,
                                                     ApiParam(alias="type")] = None,
                             to: str | None = None, content: str | None = None,
                             topic: str | None = None,
                             scheduled_delivery_timestamp: int | None = None) -> EmptyResult:
    check_edit_scheduled_message(caller, scheduled_message_id, message_type=message_type,
                                 to=to, content=content, topic=topic,
                                 scheduled_delivery_timestamp=scheduled_delivery_timestamp)
    return {}


@bp.endpoint("/scheduled_messages/{scheduled_message_id}", "DELETE")
def delete_scheduled_message(caller: Principal, *, scheduled_message_id: int) -> EmptyResult:
    do_delete_scheduled_message(caller, scheduled_message_id)
    return {}
