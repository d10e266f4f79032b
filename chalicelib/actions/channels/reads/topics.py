"""GET /users/me/{stream_id}/topics: a channel's topics as the caller may see them."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.actions.channels.reads.channels import access_stream_by_id
from chalicelib.core.errors import UNKNOWN_CHANNEL_ID, ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.channels import stream_key
from chalicelib.models.realms import empty_topic_display_name, get_realm
from chalicelib.models.topics import Topic


class TopicDict(TypedDict):
    name: str
    max_id: int   # the id of the topic's latest message


def get_topics(caller: Principal, stream_id: int, allow_empty_topic_name: bool
               ) -> list[TopicDict]:
    try:
        stream, subscription = access_stream_by_id(caller, stream_id)
    except ApiError:
        raise ApiError(UNKNOWN_CHANNEL_ID) from None
    first_visible = 0
    if stream.invite_only and not stream.history_public_to_subscribers:
        # Protected history: only topics with messages since the caller subscribed; a
        # non-subscriber with content access (the add-subscribers group) reads none.
        if subscription is None:
            return []
        first_visible = subscription.first_visible_message_id
    display = None if allow_empty_topic_name else empty_topic_display_name(
        get_realm(caller.realm_id))
    topics = [t for t in Topic.query(stream_key(caller.realm_id, stream_id))
              if t.max_id >= first_visible]
    topics.sort(key=lambda t: t.max_id, reverse=True)
    return [{"name": display if (t.name == "" and display is not None) else t.name,
             "max_id": t.max_id} for t in topics]
