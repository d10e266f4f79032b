"""Messages in the API's shape (§2.1), built with one batch read of people and channels."""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Literal, NotRequired, TypedDict, cast

from chalicelib.models.channels import Stream
from chalicelib.models.messages import Message, parse_reaction_key
from chalicelib.models.realms import Realm, realm_setting
from chalicelib.models.users import User, user_avatar_url
from chalicelib.rules.linkifiers import LinkifierRule, topic_links


class DisplayRecipient(TypedDict):
    id: int
    email: str
    full_name: str
    is_mirror_dummy: bool


class Submessage(TypedDict):
    id: int
    message_id: int
    sender_id: int
    msg_type: str
    content: str


class TopicLink(TypedDict):
    """A link the realm's linkifiers find in a topic name: the matched text, its URL."""

    text: str
    url: str


def topic_link_dicts(topic: str, linkifiers: Sequence[LinkifierRule]) -> list[TopicLink]:
    return [{"text": text, "url": url} for text, url in topic_links(topic, linkifiers)]


class EditHistoryEntry(TypedDict):
    """One edit or move, newest first; the prev_*/new fields of what changed."""

    user_id: int | None
    timestamp: int
    prev_content: NotRequired[str]
    prev_rendered_content: NotRequired[str]
    prev_stream: NotRequired[int]
    stream: NotRequired[int]
    prev_topic: NotRequired[str]
    topic: NotRequired[str]


class MessageDict(TypedDict):
    """A message (§2.1): as events, outgoing webhooks and (with flags) fetches show it."""

    id: int
    type: Literal["stream", "private"]
    content: str
    content_type: Literal["text/html", "text/x-markdown"]
    recipient_id: int
    sender_id: int
    sender_email: str
    sender_full_name: str
    sender_realm_str: str
    avatar_url: str | None
    client: str
    timestamp: int
    is_me_message: bool
    reactions: list[ReactionDict]
    submessages: list[Submessage]
    topic_links: list[TopicLink]
    subject: str
    display_recipient: str | list[DisplayRecipient]
    stream_id: NotRequired[int]                # channel messages only
    last_edit_timestamp: NotRequired[int]      # once the content was edited
    last_moved_timestamp: NotRequired[int]     # once moved
    edit_history: NotRequired[list[EditHistoryEntry]]


class FetchedMessageDict(MessageDict):
    """A message as GET /messages shows it: with the reader's flags."""

    flags: list[str]


def recipient_id_for(key: str) -> int:
    """A stable id for a set of recipients (a channel or a direct conversation)."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:13], 16)


class ReactionDict(TypedDict):
    """A reaction on a fetched message (§2.2); the `user` object was removed at 328."""

    emoji_name: str
    emoji_code: str
    reaction_type: str
    user_id: int


def reaction_dicts(message: Message) -> list[ReactionDict]:
    """The message's reactions, oldest first."""
    stored = message.reaction_map()
    result: list[tuple[int, str, ReactionDict]] = []
    for key, value in stored.items():
        reaction_type, emoji_code, user_id = parse_reaction_key(key)
        reaction: ReactionDict = {"emoji_name": str(value["emoji_name"]),
                                  "emoji_code": emoji_code, "reaction_type": reaction_type,
                                  "user_id": user_id}
        result.append((int(value.get("at", 0)), key, reaction))
    return [reaction for _, _, reaction in sorted(result, key=lambda r: r[:2])]


def load_people_and_channels(realm_id: int, messages: list[Message]
                             ) -> tuple[dict[int, User], dict[int, Stream]]:
    user_ids = {m.sender_id for m in messages} | {u for m in messages for u in m.recipient_ids}
    stream_ids = {m.stream_id for m in messages if m.stream_id is not None}
    users = {u.user_id: u for u in User.batch_get([(realm_id, i) for i in user_ids])}
    streams = {s.stream_id: s for s in Stream.batch_get([(realm_id, i) for i in stream_ids])}
    return users, streams


def message_api_dict(message: Message, users: dict[int, User], streams: dict[int, Stream],
                     realm: Realm, *, linkifiers: Sequence[LinkifierRule],
                     apply_markdown: bool = True,
                     empty_topic_name: str | None = None) -> MessageDict:
    """`linkifiers`: the realm's, for the topic's links (computed when shown, so they follow
    the linkifiers as they are now, as the reference's do); `empty_topic_name`: what an
    empty channel topic shows as (None: keep it empty)."""
    sender = users.get(message.sender_id)
    display: str | list[DisplayRecipient]
    if message.type == "stream":
        stream = streams.get(message.stream_id)
        display = stream.name if stream else ""
    else:
        display = [{"id": uid, "email": users[uid].email, "full_name": users[uid].full_name,
                    "is_mirror_dummy": False} for uid in message.recipient_ids if uid in users]
    data: MessageDict = {
        "id": message.message_id,
        "type": cast(Literal["stream", "private"], message.type),   # checked when sent
        "content": message.rendered_content if apply_markdown else message.content,
        "content_type": "text/html" if apply_markdown else "text/x-markdown",
        "recipient_id": message.recipient_id,
        "sender_id": message.sender_id,
        "sender_email": sender.email if sender else "",
        "sender_full_name": sender.full_name if sender else "",
        "sender_realm_str": realm.subdomain,
        "avatar_url": user_avatar_url(sender) if sender else None,
        "client": message.client,
        "timestamp": message.date_sent,
        "is_me_message": message.is_me_message,
        "reactions": reaction_dicts(message),
        "submessages": [],
        "topic_links": [],
        "subject": message.topic,
        "display_recipient": display,
    }
    if message.type == "stream":
        data["stream_id"] = message.stream_id
        data["topic_links"] = topic_link_dicts(message.topic, linkifiers)
        if message.topic == "" and empty_topic_name is not None:
            data["subject"] = empty_topic_name
    else:
        data["subject"] = ""
    if message.last_edit_timestamp is not None:
        data["last_edit_timestamp"] = message.last_edit_timestamp
    if message.last_moved_timestamp is not None:
        data["last_moved_timestamp"] = message.last_moved_timestamp
    history = visible_edit_history(realm, message.edit_history) if message.edit_history \
        else None
    if history:
        data["edit_history"] = cast(list[EditHistoryEntry], history)   # as stored
    return data


POLICY = "message_edit_history_visibility_policy"
CONTENT_KEYS = ("prev_content", "prev_rendered_content", "content_html_diff")


def visible_edit_history(realm: Realm, edit_history: list[dict[str, Any]]
                         ) -> list[dict[str, Any]] | None:
    """A fetched message's edit_history as the realm's policy shows it (None: leave out)."""
    policy = realm_setting(realm, POLICY)
    if policy == "none":
        return None
    if policy == "moves":
        moves = [{k: v for k, v in e.items() if k not in CONTENT_KEYS} for e in edit_history
                 if "prev_topic" in e or "prev_stream" in e]
        return moves or None
    return edit_history
