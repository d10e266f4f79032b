"""PATCH /messages/{id} (§4.1): decide what an edit may change, then hand it to the writer.

Content edits touch one message. Topic and channel moves select the messages of the
propagate mode that the actor can access, check the organization's permissions and
time limits, and are written by message_move in batches (each a transaction with its
own update_message event), resumable after a crash.
"""
from __future__ import annotations

from dataclasses import dataclass

from chalicelib.actions.channels.reads.channels import access_stream_by_id
from chalicelib.actions.channels.reads.permissions import (
    can_move_messages_out_of_channel,
    can_move_messages_within_channel,
    holds_channel_setting,
)
from chalicelib.actions.channels.topics import check_topic, check_topic_creation
from chalicelib.actions.groups.reads.settings import caller_has_realm_permission
from chalicelib.actions.messages.move import UpdateMessageResult, execute_edit
from chalicelib.actions.messages.move_notifications import RESOLVED_TOPIC_PREFIX
from chalicelib.actions.messages.move_plan import MovePlan, PropagateMode
from chalicelib.actions.messages.move_resume import MOVE_ATTRIBUTES, find_resumable_move
from chalicelib.actions.messages.prepare import check_wildcard_permission
from chalicelib.actions.messages.reads.access import (
    NO_PERMISSION,
    access_message,
    can_read_message,
    check_content_edit,
)
from chalicelib.actions.messages.reads.rendering import check_content, render_content
from chalicelib.core.errors import UNKNOWN_CHANNEL_ID, ApiError, ErrorCode, expectation_mismatch
from chalicelib.core.principal import Principal
from chalicelib.models.channels import Stream, Subscription
from chalicelib.models.messages import Message, topic_key
from chalicelib.models.realms import Realm, get_realm, realm_setting
from chalicelib.rules.timeutil import now_seconds

RESOLVED_PREFIX = RESOLVED_TOPIC_PREFIX


@dataclass
class EditRequest:
    message_id: int
    content: str | None = None
    topic: str | None = None
    stream_id: int | None = None
    propagate_mode: PropagateMode = "change_one"
    send_notification_to_old_thread: bool = False
    send_notification_to_new_thread: bool = True
    prev_content_sha256: str | None = None


def do_update_message(caller: Principal, request: EditRequest) -> UpdateMessageResult:
    realm = get_realm(caller.realm_id)
    accessed = access_message(caller, request.message_id)
    message, stream, subscription = accessed.message, accessed.stream, accessed.subscription
    _check_request_shape(message, request)
    resumable = find_resumable_move(caller, realm, message, request.topic,
                                    request.stream_id, request.propagate_mode)
    if resumable is not None and (request.content is None or
                                  check_content(request.content) == message.content):
        return execute_edit(caller, realm, message, None, resumable)
    if request.prev_content_sha256 is not None and \
            request.prev_content_sha256 != message.content_sha256:
        raise expectation_mismatch("prev_content_sha256")
    now = now_seconds()
    rendered = None
    if request.content is not None:
        check_content_edit(caller, realm, message, now)
        rendered = render_content(caller.realm_id, request.content, realm, author=caller)
    plan = None
    if stream is not None and (request.topic is not None or request.stream_id is not None):
        plan = _plan_move(caller, realm, message, stream, subscription, request, now)
    if rendered is not None and stream is not None:
        destination = plan.new_stream if plan else stream
        if rendered.mentions.channel_wildcard or rendered.mentions.topic_wildcard:
            check_wildcard_permission(caller, realm, destination, rendered.mentions)
    if rendered is not None and rendered.content == message.content:
        rendered = None
    if rendered is None and plan is None:
        raise ApiError("The request changes nothing")
    return execute_edit(caller, realm, message, rendered, plan, stream=stream,
                        prev_content_sha256=request.prev_content_sha256)


def _check_request_shape(message: Message, request: EditRequest) -> None:
    if request.content is not None and request.stream_id is not None:
        raise ApiError("A message's content and channel cannot be changed in one request")
    if message.type == "private":
        if request.stream_id is not None:
            raise ApiError("A direct message cannot be moved into a channel.")
        if request.topic is not None:
            raise ApiError("A direct message has no topic to change.")
    if request.topic is None and request.stream_id is None and \
            request.propagate_mode != "change_one":
        raise ApiError("propagate_mode needs a topic or channel change")


def is_resolve_only(old_topic: str, new_topic: str) -> bool:
    return new_topic == RESOLVED_PREFIX + old_topic or old_topic == RESOLVED_PREFIX + new_topic


def _plan_move(caller: Principal, realm: Realm, message: Message, stream: Stream,
               subscription: Subscription | None, request: EditRequest, now: int) -> MovePlan | None:
    new_stream = stream
    if request.stream_id is not None and request.stream_id != stream.stream_id:
        try:
            new_stream, _ = access_stream_by_id(caller, request.stream_id)
        except ApiError:
            raise ApiError(UNKNOWN_CHANNEL_ID) from None
        if new_stream.is_archived:
            raise ApiError("Cannot move messages to an archived channel.")
    old_topic = message.topic
    new_topic = old_topic
    if request.topic is not None:
        new_topic = check_topic(request.topic, realm, new_stream)
    elif new_stream is not stream:
        check_topic(old_topic, realm, new_stream)   # the destination's topics policy
    if new_topic.startswith(RESOLVED_PREFIX.strip()) and \
            check_topic(new_topic[len(RESOLVED_PREFIX.strip()):], realm,
                        enforce_policy=False) == "":
        # The empty topic under any of its names ("", "(no topic)", the display name).
        raise ApiError("General chat cannot be marked as resolved")
    channel_changed = new_stream.stream_id != stream.stream_id
    topic_changed = new_topic != old_topic
    if not channel_changed and not topic_changed:
        return None
    resolve_only = not channel_changed and is_resolve_only(old_topic, new_topic)
    limits = _check_move_permission(caller, realm, (stream, new_stream), message,
                                    resolve_only, topic_changed, request.propagate_mode, now)
    if not resolve_only:   # the destination topic may be a new one (level 441)
        check_topic_creation(caller, new_stream, new_topic)
    plan = MovePlan(old_stream=stream, new_stream=new_stream, old_topic=old_topic,
                    new_topic=new_topic, propagate_mode=request.propagate_mode,
                    resolve_only=resolve_only,
                    notify_old=request.send_notification_to_old_thread and not resolve_only,
                    notify_new=request.send_notification_to_new_thread and not resolve_only)
    plan.messages = _messages_to_move(caller, message, stream, subscription, plan)
    if limits and request.propagate_mode == "change_all":
        _check_topic_time_limit(plan.messages, min(limits), now)
    return plan


def _check_move_permission(caller: Principal, realm: Realm, streams: tuple[Stream, Stream],
                           message: Message, resolve_only: bool, topic_changed: bool,
                           propagate_mode: str, now: int) -> list[int]:
    """Raises unless the caller may move the message from the first channel of `streams`
    to the second; returns the time limits that apply.

    The organization's setting, or the channel's own (levels 396, 402): for a topic
    change or a resolution, that of the channel moved from or to; for moving out of a
    channel, that of the channel moved from."""
    stream, new_stream = streams
    channel_changed = new_stream.stream_id != stream.stream_id
    ends = (stream,) if not channel_changed else streams

    def allowed(setting: str) -> bool:
        return caller_has_realm_permission(realm, caller.user_id, caller.role, setting)

    if resolve_only:   # its own permission, and no time limits
        if not (allowed("can_resolve_topics_group") or any(
                holds_channel_setting(caller, s, "can_resolve_topics_group") for s in ends)):
            raise ApiError(NO_PERMISSION)
        return []
    limits: list[int] = []
    if topic_changed:
        if not (allowed("can_move_messages_between_topics_group") or any(
                can_move_messages_within_channel(caller, s) for s in ends)):
            raise ApiError(NO_PERMISSION)
        limit = realm_setting(realm, "move_messages_within_stream_limit_seconds")
        if limit is not None and not caller.is_moderator_or_above:
            limits.append(int(limit))
            if propagate_mode != "change_all" and now - message.date_sent > int(limit):
                raise ApiError("This message is too old for you to change its topic")
    if channel_changed:
        # The organization's setting, or the channel's own (§4.4) for moves out of it.
        if not (allowed("can_move_messages_between_channels_group")
                or can_move_messages_out_of_channel(caller, stream)):
            raise ApiError("You are not allowed to move this message")
        limit = realm_setting(realm, "move_messages_between_streams_limit_seconds")
        if limit is not None and not caller.is_moderator_or_above:
            limits.append(int(limit))
            if propagate_mode != "change_all" and now - message.date_sent > int(limit):
                raise ApiError("The time limit for moving this message to another channel "
                               "has passed")
    return limits


def _messages_to_move(caller: Principal, target: Message, stream: Stream,
                      subscription: Subscription | None, plan: MovePlan) -> list[Message]:
    if plan.propagate_mode == "change_one":
        return [target]
    key = topic_key(caller.realm_id, stream.stream_id, plan.old_topic)
    condition = (Message.message_id >= target.message_id
                 if plan.propagate_mode == "change_later" else None)
    found = {m.message_id: m for m in Message.by_topic.query(
        key, range_key_condition=condition, attributes_to_get=MOVE_ATTRIBUTES)
        if m.topic_key == key}
    found[target.message_id] = target   # the index may lag behind the table
    messages = [m for _, m in sorted(found.items())]
    return [m for m in messages if can_read_message(stream, subscription, m.message_id, caller)]


def _check_topic_time_limit(messages: list[Message], limit: int, now: int) -> None:
    allowed = [m for m in messages if now - m.date_sent <= limit]
    if len(allowed) == len(messages):
        return
    raise ApiError(
        f"You may move only the latest {len(allowed)} of this topic's {len(messages)} messages.",
        code=ErrorCode.MOVE_MESSAGES_TIME_LIMIT_EXCEEDED,
        first_message_id_allowed_to_move=allowed[0].message_id if allowed else None,
        total_messages_allowed_to_move=len(allowed), total_messages_in_topic=len(messages))
