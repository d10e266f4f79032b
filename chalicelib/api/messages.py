"""Messages: send, fetch (a range, one, its history), preview, match narrows, edit, delete."""
from __future__ import annotations

from typing import Annotated, Any, Literal

from chalicelib.actions.messages.delete import DeleteMessageResult, check_delete_message
from chalicelib.actions.messages.edit import EditRequest, do_update_message
from chalicelib.actions.messages.move import UpdateMessageResult
from chalicelib.actions.messages.reads.fetch import (
    GetMessageResult,
    GetMessagesResult,
    RangeRequest,
    RenderOptions,
    get_message,
    get_messages,
)
from chalicelib.actions.messages.reads.history import (
    MessageHistoryResult,
    get_message_history,
)
from chalicelib.actions.messages.reads.matches import (
    MAX_MESSAGE_IDS,
    MatchesNarrowResult,
    messages_matching_narrow,
)
from chalicelib.actions.messages.reads.range import parse_anchor
from chalicelib.actions.messages.reads.render import RenderResult, render_preview
from chalicelib.actions.messages.send import SendMessageResult, check_send_message
from chalicelib.core.errors import confusing_arguments
from chalicelib.core.principal import Principal
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import ApiParam, Json

bp = ApiBlueprint(__name__)


def topic_or_subject(topic: str | None, subject: str | None) -> str | None:
    """`subject` is the deprecated name of `topic`; a client may send one of them."""
    if topic is not None and subject is not None:
        raise confusing_arguments("topic", "subject")
    return topic if topic is not None else subject


@bp.endpoint("/messages", "POST", allow_incoming_webhooks=True)
def send_message(caller: Principal, *,
                 message_type: Annotated[Literal["stream", "channel", "private", "direct"],
                                         ApiParam(alias="type")],
                 to: str, content: str, topic: str | None = None,
                 subject: str | None = None, queue_id: str | None = None,
                 local_id: str | None = None, read_by_sender: bool | None = None,
                 ) -> SendMessageResult:
    topic = topic_or_subject(topic, subject)
    if message_type in ("stream", "channel") and topic is None:
        topic = ""
    return check_send_message(caller, message_type=message_type, to=to, topic=topic,
                              content=content, read_by_sender=read_by_sender is not False)


@bp.endpoint("/messages", "GET")
def fetch_messages(caller: Principal, *, anchor: str | None = None,
                   include_anchor: bool | None = None,
                   num_before: int | None = None, num_after: int | None = None,
                   narrow: Json[list[Any]] = [],  # noqa: B006 - never mutated
                   message_ids: Json[list[int]] | None = None,
                   anchor_date: str | None = None,
                   apply_markdown: bool = True, client_gravatar: bool = True,
                   allow_empty_topic_name: bool = False,
                   use_first_unread_anchor: bool | None = None,
                   ) -> GetMessagesResult:
    return get_messages(
        caller, narrow_terms=narrow, message_ids=message_ids,
        request=RangeRequest(anchor=parse_anchor(anchor) if anchor is not None else None,
                             include_anchor=include_anchor, num_before=num_before,
                             num_after=num_after,
                             use_first_unread_anchor=use_first_unread_anchor,
                             anchor_date=anchor_date),
        options=RenderOptions(apply_markdown=apply_markdown, client_gravatar=client_gravatar,
                              allow_empty_topic_name=allow_empty_topic_name))


@bp.endpoint("/messages/{message_id}", "GET")
def fetch_message(caller: Principal, *, message_id: int, apply_markdown: bool = True,
                  allow_empty_topic_name: bool = False) -> GetMessageResult:
    return get_message(caller, message_id, apply_markdown, allow_empty_topic_name)


@bp.endpoint("/messages/{message_id}", "PATCH")
def update_message(caller: Principal, *, message_id: int, content: str | None = None,
                   topic: str | None = None, subject: str | None = None,
                   stream_id: int | None = None,
                   propagate_mode: Literal["change_one", "change_later",
                                           "change_all"] = "change_one",
                   send_notification_to_old_thread: bool = False,
                   send_notification_to_new_thread: bool = True,
                   prev_content_sha256: str | None = None) -> UpdateMessageResult:
    return do_update_message(caller, EditRequest(
        message_id=message_id, content=content,
        topic=topic_or_subject(topic, subject), stream_id=stream_id,
        propagate_mode=propagate_mode,
        send_notification_to_old_thread=send_notification_to_old_thread,
        send_notification_to_new_thread=send_notification_to_new_thread,
        prev_content_sha256=prev_content_sha256))


@bp.endpoint("/messages/{message_id}", "DELETE")
def delete_message(caller: Principal, *, message_id: int) -> DeleteMessageResult:
    return check_delete_message(caller, message_id)


@bp.endpoint("/messages/{message_id}/history", "GET")
def fetch_message_history(caller: Principal, *, message_id: int,
                          allow_empty_topic_name: bool = False) -> MessageHistoryResult:
    return get_message_history(caller, message_id, allow_empty_topic_name)


@bp.endpoint("/messages/render", "POST")
def render_message(caller: Principal, *, content: str) -> RenderResult:
    return render_preview(caller, content)


@bp.endpoint("/messages/matches_narrow", "GET")
def check_messages_match_narrow(
        caller: Principal, *,
        msg_ids: Annotated[Json[list[int]], ApiParam(max_length=MAX_MESSAGE_IDS)],
        narrow: Json[list[Any]]) -> MatchesNarrowResult:
    return messages_matching_narrow(caller, msg_ids, narrow)
