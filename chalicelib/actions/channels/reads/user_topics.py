"""A user's topic visibility policies as the API shows them (POST /register's user_topics
and the deprecated muted_topics); the writes are in actions/channels/user_topics.py.
"""
from __future__ import annotations

from typing import TypedDict

from chalicelib.models.channels import Stream, user_key
from chalicelib.models.realms import Realm, empty_topic_display_name
from chalicelib.models.topics import MUTED, UserTopic


class UserTopicDict(TypedDict):
    stream_id: int
    topic_name: str
    last_updated: int
    visibility_policy: int


MutedTopic = tuple[str, str, int]   # channel name, topic, last_updated


def user_topics(realm_id: int, user_id: int) -> list[UserTopic]:
    return list(UserTopic.query(user_key(realm_id, user_id)))


def user_topic_dict(item: UserTopic, empty_topic_display: str | None = None
                    ) -> UserTopicDict:
    """The reference shape; the empty topic shows as `empty_topic_display` when given."""
    topic = item.topic_name or empty_topic_display or ""
    return {"stream_id": item.stream_id, "topic_name": topic,
            "last_updated": item.last_updated, "visibility_policy": item.visibility_policy}


def muted_topic_triples(realm: Realm, items: list[UserTopic]) -> list[MutedTopic]:
    """The deprecated muted_topics shape: [channel name, topic, last_updated].

    Its readers predate the empty topic (clients that know it ask for user_topic
    instead), so the empty topic always shows as the realm's display name.
    """
    muted = [i for i in items if i.visibility_policy == MUTED]
    if not muted:
        return []
    names = {s.stream_id: s.name for s in Stream.batch_get(
        [(realm.realm_id, i) for i in {m.stream_id for m in muted}])}
    display = empty_topic_display_name(realm)
    return [(names[m.stream_id], m.topic_name or display, m.last_updated) for m in muted
            if m.stream_id in names]
