"""Channel topics: what a topic may be (length, characters, the topics policy), the
per-channel topic list (§4.12) and keeping it in step with messages."""
from __future__ import annotations

from pynamodb.exceptions import UpdateError

from chalicelib import config
from chalicelib.actions.groups.reads.settings import user_has_group_setting
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import SYSTEM_BOT_EMAILS, Principal
from chalicelib.models.base import is_write_condition_failure
from chalicelib.models.channels import Stream, channel_group_setting, stream_key
from chalicelib.models.messages import Message, topic_key
from chalicelib.models.races import retry_lost_races
from chalicelib.models.realms import Realm, empty_topic_display_name, realm_setting
from chalicelib.models.topics import Topic, topic_item_key
from chalicelib.models.users import User
from chalicelib.rules.realm_settings import system_group_id

REFRESH_ATTEMPTS = 3


def check_topic(topic: str | None, realm: Realm, stream: Stream | None = None, *,
                enforce_policy: bool = True) -> str:
    """The topic as stored: stripped, the empty topic's names read as "", within limits;
    and allowed by the topics policy unless only an existing topic is being named."""
    if topic is None:
        topic = ""
    topic = topic.strip()
    display = empty_topic_display_name(realm)
    if topic in ("(no topic)", display):
        topic = ""
    if len(topic) > config.MAX_TOPIC_LENGTH:
        raise ApiError(f"Topic too long (limit: {config.MAX_TOPIC_LENGTH} characters)")
    if any(ord(ch) < 32 for ch in topic):
        raise ApiError("Invalid character in topic")
    if not enforce_policy:
        return topic
    policy = topics_policy(realm, stream)
    if topic == "" and policy == "disable_empty_topic":
        raise ApiError("Topics are required in this channel." if stream is not None and
                       stream.topics_policy != "inherit" else
                       "This organization requires a topic on every channel message.")
    if topic != "" and policy == "empty_topic_only":
        raise ApiError(f"Only the \"{display}\" topic is allowed in this channel.")
    return topic


def check_topic_creation(caller: Principal, stream: Stream, topic: str) -> None:
    """Whether the caller may start `topic` in the channel (level 441): naming an
    existing topic needs nothing; a new one needs the channel's can_create_topic_group
    (everyone by default, then nothing is read). A bot may when its owner may, as the
    reference allows."""
    creators = channel_group_setting(stream, "can_create_topic_group")
    if creators == system_group_id("role:everyone") or (
            caller.is_bot and caller.email in SYSTEM_BOT_EMAILS):   # the server's own
        return
    if Topic.get_or_none(stream_key(stream.realm_id, stream.stream_id),
                         topic_item_key(topic)) is not None:
        return
    if user_has_group_setting(caller.realm_id, caller.user_id, caller.role, creators):
        return
    if caller.is_bot:
        bot = User.get_or_none(caller.realm_id, caller.user_id)
        owner = None if bot is None or bot.bot_owner_id is None else \
            User.get_or_none(caller.realm_id, int(bot.bot_owner_id))
        if owner is not None and owner.is_active and user_has_group_setting(
                caller.realm_id, owner.user_id, int(owner.role), creators):
            return
    raise ApiError("You may post in existing topics of this channel, but not start new ones.")


def topics_policy(realm: Realm, stream: Stream | None) -> str:
    """The channel's own policy, or the organization's when the channel inherits it."""
    if stream is not None and stream.topics_policy and stream.topics_policy != "inherit":
        return stream.topics_policy
    return str(realm_setting(realm, "realm_topics_policy"))


def note_topic_message(realm_id: int, stream_id: int, topic: str, message_id: int) -> None:
    """Raises the topic's latest message id to message_id (never lowers it), and the
    channel's."""
    try:
        Topic(stream_key(realm_id, stream_id), topic_item_key(topic)).update(
            actions=[Topic.name.set(topic), Topic.max_id.set(message_id)],
            condition=Topic.max_id.does_not_exist() | (Topic.max_id < message_id))
    except UpdateError as error:
        if not is_write_condition_failure(error):
            raise   # else a later message is already recorded
    note_channel_message(realm_id, stream_id, message_id)


def note_channel_message(realm_id: int, stream_id: int, message_id: int) -> None:
    """Raises the channel's last_message_id to message_id (never lowers it)."""
    try:
        Stream(realm_id, stream_id).update(
            actions=[Stream.last_message_id.set(message_id)],
            condition=Stream.realm_id.exists() & (Stream.last_message_id.does_not_exist()
                                                  | (Stream.last_message_id < message_id)))
    except UpdateError as error:
        if not is_write_condition_failure(error):
            raise   # else a later message is recorded (or the channel is gone)


def refresh_topic(realm_id: int, stream_id: int, topic: str, gone: set[int]) -> None:
    """Recomputes a topic's entry after messages (`gone`) left it; deletes it when empty.

    The topic index is eventually consistent: ids known to have left are skipped, and a
    message recorded in the entry (just sent) counts even before the index shows it. The
    write is conditioned on the entry as read, so one recorded meanwhile is not lost.
    """
    key = topic_key(realm_id, stream_id, topic)
    item = Topic(stream_key(realm_id, stream_id), topic_item_key(topic))
    def attempt() -> None:
        current = Topic.get_or_none(item.stream_key, item.topic_key)
        recorded = None if current is None else int(current.max_id)
        latest = _latest_message(realm_id, key, gone, recorded)
        read = (Topic.max_id.does_not_exist() if recorded is None
                else Topic.max_id == recorded)
        if latest is None:
            if current is not None:
                item.delete(condition=read)
        else:
            item.update(actions=[Topic.name.set(latest.topic),
                                 Topic.max_id.set(latest.message_id)], condition=read)

    # Changed on every attempt: the writers that won left it in step.
    retry_lost_races(attempt, conflict=None, attempts=REFRESH_ATTEMPTS)


def forget_topic_messages(realm_id: int, stream_id: int, topic: str, gone: set[int]) -> None:
    """After messages of the topic were deleted: its entry changes only if it named one
    of them (then it is recomputed, or removed with the topic's last message)."""
    current = Topic.get_or_none(stream_key(realm_id, stream_id), topic_item_key(topic))
    if current is not None and int(current.max_id) in gone:
        refresh_topic(realm_id, stream_id, topic, gone)


def _latest_message(realm_id: int, key: str, gone: set[int], recorded: int | None
                    ) -> Message | None:
    latest = next((m for m in Message.by_topic.query(key, scan_index_forward=False)
                   if m.message_id not in gone and m.topic_key == key), None)
    if recorded is not None and recorded not in gone and (
            latest is None or recorded > latest.message_id):
        message = Message.get_or_none(realm_id, recorded)
        if message is not None and message.topic_key == key:
            return message   # still in the topic; the index does not show it yet
    return latest
