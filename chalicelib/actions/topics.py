"""Channel topics: the per-channel topic list (§4.12) and keeping it in step with messages."""
from __future__ import annotations

from typing import Any

from pynamodb.exceptions import DeleteError, UpdateError

from chalicelib.actions.realm_settings import realm_setting
from chalicelib.actions.realms import get_realm
from chalicelib.actions.streams import access_stream_by_id
from chalicelib.http.auth import Principal
from chalicelib.http.errors import ApiError
from chalicelib.models.messages import Message, topic_key
from chalicelib.models.streams import stream_key
from chalicelib.models.topics import Topic, topic_item_key


def note_topic_message(realm_id: int, stream_id: int, topic: str, message_id: int) -> None:
    """Raises the topic's latest message id to message_id (never lowers it)."""
    try:
        Topic(stream_key(realm_id, stream_id), topic_item_key(topic)).update(
            actions=[Topic.name.set(topic), Topic.max_id.set(message_id)],
            condition=Topic.max_id.does_not_exist() | (Topic.max_id < message_id))
    except UpdateError:
        pass   # a later message is already recorded


def refresh_topic(realm_id: int, stream_id: int, topic: str, gone: set[int]) -> None:
    """Recomputes a topic's entry after messages (`gone`) left it; deletes it when empty.

    The topic index is eventually consistent, so ids known to have left are skipped.
    """
    key = topic_key(realm_id, stream_id, topic)
    latest: Message | None = None
    for message in Message.by_topic.query(key, scan_index_forward=False):
        if message.message_id not in gone and message.topic_key == key:
            latest = message
            break
    item = Topic(stream_key(realm_id, stream_id), topic_item_key(topic))
    if latest is None:
        try:
            item.delete()
        except DeleteError:
            pass
        return
    item.update(actions=[Topic.name.set(latest.topic),
                         Topic.max_id.set(latest.message_id)])


def get_topics(caller: Principal, stream_id: int, allow_empty_topic_name: bool
               ) -> list[dict[str, Any]]:
    try:
        stream, subscription = access_stream_by_id(caller, stream_id)
    except ApiError:
        raise ApiError("Invalid channel ID") from None
    first_visible = 0
    if stream.invite_only and not stream.history_public_to_subscribers:
        # Protected history: only topics with messages since the caller subscribed.
        first_visible = subscription.first_visible_message_id if subscription else 0
    display = None if allow_empty_topic_name else str(
        realm_setting(get_realm(caller.realm_id), "realm_empty_topic_display_name"))
    topics = [t for t in Topic.query(stream_key(caller.realm_id, stream_id))
              if t.max_id >= first_visible]
    topics.sort(key=lambda t: t.max_id, reverse=True)
    return [{"name": display if (t.name == "" and display is not None) else t.name,
             "max_id": t.max_id} for t in topics]
