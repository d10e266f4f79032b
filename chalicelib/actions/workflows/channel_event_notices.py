"""PATCH /streams/{id} with its channel event messages: the notification bot tells a
channel's readers, in its "channel events" topic, that it was renamed, its description
changed or its privacy changed, unless the organization turned
send_channel_events_messages off (level 434). Here, above the areas, because the change
is the channels area's and a notice is a message (the messages area sits above it)."""
from __future__ import annotations

from typing import Any

from chalicelib import config
from chalicelib.actions.channels.admin import do_update_stream
from chalicelib.actions.channels.topics import topics_policy
from chalicelib.actions.messages.send import check_send_message
from chalicelib.actions.users.system_bots import notification_bot
from chalicelib.aws.log import logger
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.models.channels import get_stream
from chalicelib.models.realms import get_realm, realm_setting
from chalicelib.models.users import User

CHANNEL_EVENTS_TOPIC = "channel events"
PRIVACY = ("invite_only", "is_web_public", "history_public_to_subscribers")


def update_stream_with_notices(caller: Principal, stream_id: int, requested: dict[str, Any]
                               ) -> EmptyResult:
    changed: dict[str, tuple[Any, Any]] = {}
    result = do_update_stream(caller, stream_id, requested, changed)
    notices = channel_event_notices(caller, changed)
    if notices:
        realm = get_realm(caller.realm_id)
        stream = get_stream(caller.realm_id, stream_id)
        if stream is not None and realm_setting(realm, "send_channel_events_messages"):
            topic = "" if topics_policy(realm, stream) == "empty_topic_only" else \
                CHANNEL_EVENTS_TOPIC
            bot = notification_bot(caller.realm_id)
            sender = Principal(bot.realm_id, bot.user_id, bot.email, bot.role, True)
            for notice in notices:
                try:
                    check_send_message(sender, message_type="stream", to=str(stream_id),
                                       topic=topic, content=notice, client="Internal",
                                       skip_stream_access_check=True)
                except ApiError as error:   # the change stands; a refused notice must not undo it
                    logger.warning("channel event message refused", extra={"error": error.msg})
    return result


def channel_event_notices(caller: Principal, changed: dict[str, tuple[Any, Any]]) -> list[str]:
    """One message per kind of change, naming who made it (silently)."""
    if not changed.keys() & {"name", "description", *PRIVACY}:
        return []
    actor = User.get_or_none(caller.realm_id, caller.user_id)
    who = f"@_**{actor.full_name}|{caller.user_id}**" if actor else "An administrator"
    notices = []
    if "name" in changed:
        old, new = changed["name"]
        notices.append(f"{who} renamed this channel from **{old}** to **{new}**.")
    if "description" in changed:
        old, new = changed["description"]
        notices.append(f"{who} changed this channel's description.\n\n**Before:**\n"
                       f"{_quoted(old)}\n\n**After:**\n{_quoted(new)}")
    if changed.keys() & set(PRIVACY):
        notices.append(f"{who} changed who can see this channel: {_privacy(changed)}.")
    return notices


def _quoted(text: str) -> str:
    if not text.strip():
        return "*No description.*"
    return "\n".join(f"> {line}" for line in text[:config.MAX_STREAM_DESCRIPTION_LENGTH]
                     .splitlines())


def _privacy(changed: dict[str, tuple[Any, Any]]) -> str:
    def after(name: str) -> Any:
        return changed[name][1] if name in changed else None

    parts = []
    if after("invite_only") is not None:
        parts.append("it is now private" if after("invite_only") else "it is now public")
    if after("is_web_public") is not None:
        parts.append("anyone on the web may read it" if after("is_web_public")
                     else "it is no longer readable on the web")
    if after("history_public_to_subscribers") is not None:
        parts.append("new subscribers see its earlier messages"
                     if after("history_public_to_subscribers")
                     else "new subscribers see only messages sent after they join")
    return "; ".join(parts)
