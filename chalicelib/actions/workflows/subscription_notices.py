"""POST /users/me/subscriptions with its notices (level 397): the notification bot tells
each person the request subscribed to an existing channel (not the caller, not bots),
unless `send_new_subscription_messages` is false or the request subscribed more than
MAX_BULK_NEW_SUBSCRIPTION_MESSAGES people. Here, above the areas, because subscribing
is the channels area and a notice is a message (the messages area sits above it)."""
from __future__ import annotations

import json
from typing import Any

from chalicelib.actions.channels.subscriptions import (
    MAX_BULK_NEW_SUBSCRIPTION_MESSAGES,
    SubscribeResult,
    check_subscribe,
)
from chalicelib.actions.messages.send import check_send_message
from chalicelib.actions.users.system_bots import notification_bot
from chalicelib.aws.log import logger
from chalicelib.core.errors import ApiError
from chalicelib.core.feature_levels import level_reached
from chalicelib.core.principal import Principal
from chalicelib.models.users import User


def subscribe_with_notices(caller: Principal, subscriptions: list[dict[str, Any]],
                           principals: list[int] | list[str] | None, invite_only: bool,
                           history_public_to_subscribers: bool | None,
                           authorization_errors_fatal: bool,
                           send_new_subscription_messages: bool) -> SubscribeResult:
    created: set[str] = set()
    result = check_subscribe(caller, subscriptions, principals, invite_only,
                             history_public_to_subscribers, authorization_errors_fatal,
                             created)
    if not send_new_subscription_messages:
        return result
    told = {int(user_id): [name for name in names if name not in created]
            for user_id, names in result["subscribed"].items()
            if int(user_id) != caller.user_id}
    told = {user_id: names for user_id, names in told.items() if names}
    sent = len(result["subscribed"]) <= MAX_BULK_NEW_SUBSCRIPTION_MESSAGES
    if sent and told:
        _send_notices(caller, told)
    if level_reached(397):
        result["new_subscription_messages_sent"] = sent
    return result


def _send_notices(caller: Principal, told: dict[int, list[str]]) -> None:
    people = {u.user_id: u for u in User.batch_get(
        [(caller.realm_id, i) for i in [caller.user_id, *told]])}
    actor = people.get(caller.user_id)
    bot = notification_bot(caller.realm_id)
    sender = Principal(bot.realm_id, bot.user_id, bot.email, bot.role, True)
    who = f"@_**{actor.full_name}|{caller.user_id}**" if actor else "Someone"
    for user_id, names in sorted(told.items()):
        if user_id not in people or people[user_id].is_bot:
            continue
        channels = " and ".join(f"**{name}**" for name in names) if len(names) <= 2 else \
            ", ".join(f"**{name}**" for name in names[:-1]) + f" and **{names[-1]}**"
        content = f"{who} added you to the channel{'s' if len(names) > 1 else ''} {channels}."
        try:
            check_send_message(sender, message_type="private", to=json.dumps([user_id]),
                               topic=None, content=content, client="Internal")
        except ApiError as error:   # the subscription stands; a refused notice must not undo it
            logger.warning("subscription notice refused", extra={"error": error.msg})
