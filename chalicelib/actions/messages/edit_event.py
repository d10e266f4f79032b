"""The update_message event a message edit or move sends: which keys it carries for
which change (a move, a new content, both)."""
from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from chalicelib.actions.messages.move_plan import PropagateMode
from chalicelib.actions.messages.reads.dicts import TopicLink


class UpdateMessageEvent(TypedDict):
    """An edit or move of messages; the keys of what changed (a move, a new content)."""

    type: Literal["update_message"]
    user_id: int | None
    edit_timestamp: int
    rendering_only: bool
    message_id: int
    message_ids: list[int]
    flags: list[str]   # the receiving user's, for the edited message
    stream_id: NotRequired[int]             # channel messages: the channel before a move
    stream_name: NotRequired[str]
    propagate_mode: NotRequired[PropagateMode]
    orig_subject: NotRequired[str]
    subject: NotRequired[str]
    topic_links: NotRequired[list[TopicLink]]
    new_stream_id: NotRequired[int]
    orig_content: NotRequired[str]
    orig_rendered_content: NotRequired[str]
    content: NotRequired[str]
    rendered_content: NotRequired[str]
    is_me_message: NotRequired[bool]
