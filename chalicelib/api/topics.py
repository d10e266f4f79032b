"""A channel's topics: listing them, most recent first (§4.12), and deleting one."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.actions.channels.reads.topics import TopicDict, get_topics
from chalicelib.actions.messages.topic_delete import (
    DeleteTopicResult,
    check_delete_topic,
)
from chalicelib.core.principal import Principal
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


class TopicsResult(TypedDict):
    topics: list[TopicDict]


@bp.endpoint("/users/me/{stream_id}/topics", "GET")
def list_topics(caller: Principal, *, stream_id: int,
                allow_empty_topic_name: bool = False) -> TopicsResult:
    return {"topics": get_topics(caller, stream_id, allow_empty_topic_name)}


@bp.endpoint("/streams/{stream_id}/delete_topic", "POST")
def delete_topic(caller: Principal, *, stream_id: int, topic_name: str) -> DeleteTopicResult:
    return check_delete_topic(caller, stream_id, topic_name)
