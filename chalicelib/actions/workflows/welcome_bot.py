"""POST /realm/test_welcome_bot_custom_message (feature level 416): an administrator
previews the Welcome Bot's custom message, sent to themself."""
from __future__ import annotations

import json
from typing import TypedDict

from chalicelib.actions.invitations.terms import MAX_WELCOME_TEXT_LENGTH
from chalicelib.actions.messages.send import check_send_message
from chalicelib.actions.users.system_bots import welcome_bot
from chalicelib.core.errors import ADMINISTRATOR_REQUIRED, ApiError, principal_error
from chalicelib.core.principal import Principal


class TestWelcomeMessageResult(TypedDict):
    message_id: int


def do_send_test_welcome_message(caller: Principal, text: str) -> TestWelcomeMessageResult:
    if not caller.is_admin:
        raise principal_error(ADMINISTRATOR_REQUIRED)
    if not text:
        raise ApiError("The welcome message text is empty.")
    if len(text) > MAX_WELCOME_TEXT_LENGTH:
        raise ApiError("welcome_message_custom_text is over the limit of "
                       f"{MAX_WELCOME_TEXT_LENGTH} characters.")
    bot = welcome_bot(caller.realm_id)
    sender = Principal(bot.realm_id, bot.user_id, bot.email, bot.role, bot.is_bot)
    sent = check_send_message(sender, message_type="private", to=json.dumps([caller.user_id]),
                              topic=None, content=text, client="Internal")
    return {"message_id": sent["id"]}
