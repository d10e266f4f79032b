"""The notification bot's messages that tell a topic where its messages went (or came from)."""
from __future__ import annotations

from chalicelib.actions.messages.move_plan import MovePlan
from chalicelib.actions.messages.prepare import (
    PreparedMessage,
    channel_audience,
    new_channel_message,
    prepare_message,
)
from chalicelib.actions.messages.reads.rendering import render_content
from chalicelib.actions.users.system_bots import notification_bot
from chalicelib.models.realms import Realm
from chalicelib.models.users import User

RESOLVED_TOPIC_PREFIX = "✔ "


def topic_resolution(old_topic: str, new_topic: str) -> str | None:
    """"resolved" or "unresolved" when the new name only adds or removes the prefix."""
    if new_topic == RESOLVED_TOPIC_PREFIX + old_topic:
        return "resolved"
    if old_topic == RESOLVED_TOPIC_PREFIX + new_topic:
        return "unresolved"
    return None


def move_notifications(realm: Realm, actor_id: int, plan: MovePlan,
                       count: int) -> list[PreparedMessage]:
    """The messages to send, as the reference words them: where the messages went and
    came from, and in the topic, whether it was marked resolved or unresolved."""
    # As the reference: a topic resolved or unresolved where it is; a move to another
    # channel is told by the move notices.
    resolution = (None if plan.channel_changed
                  else topic_resolution(plan.old_topic, plan.new_topic))
    if not (plan.notify_old or plan.notify_new or resolution):
        return []
    actor = User.get(realm.realm_id, actor_id)
    who = f"@_**{actor.full_name}|{actor.user_id}**"
    old = f"#**{plan.old_stream.name}>{plan.old_topic}**"
    new = f"#**{plan.new_stream.name}>{plan.new_topic}**"
    whole = plan.propagate_mode == "change_all"
    texts = []
    if plan.notify_new:
        text = (f"This topic was moved here from {old} by {who}." if whole else
                f"A message was moved here from {old} by {who}." if count == 1 else
                f"{count} messages were moved here from {old} by {who}.")
        texts.append((plan.new_stream, plan.new_topic, text))
    if plan.notify_old:
        text = (f"This topic was moved to {new} by {who}." if whole else
                f"A message was moved from this topic to {new} by {who}." if count == 1
                else f"{count} messages were moved from this topic to {new} by {who}.")
        texts.append((plan.old_stream, plan.old_topic, text))
    if resolution:
        texts.append((plan.new_stream, plan.new_topic,
                      f"{who} has marked this topic as {resolution}."))
    bot = notification_bot(realm.realm_id)
    prepared = []
    for stream, topic, text in texts:
        rendered = render_content(realm.realm_id, text, realm)
        message = new_channel_message(realm, bot.user_id, stream, topic, rendered,
                                      client="Internal")
        prepared.append(prepare_message(realm, message, channel_audience(stream),
                                        people=[bot], stream=stream,
                                        linkifiers=rendered.linkifiers))
    return prepared
