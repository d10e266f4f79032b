"""System bots: the notification bot (the server's own notices, e.g. "topic moved") and
the welcome bot (greets new users)."""
from __future__ import annotations

from chalicelib.actions.users.users import NewUser, do_create_user
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import (  # used here, and imported from here by tests
    NOTIFICATION_BOT_EMAIL,
    WELCOME_BOT_EMAIL,
)
from chalicelib.models.users import User, get_user_by_email

NOTIFICATION_BOT_NAME = "Notification Bot"
WELCOME_BOT_NAME = "Welcome Bot"
DEFAULT_BOT = 1


def notification_bot(realm_id: int) -> User:
    return system_bot(realm_id, NOTIFICATION_BOT_EMAIL, NOTIFICATION_BOT_NAME)


def welcome_bot(realm_id: int) -> User:
    return system_bot(realm_id, WELCOME_BOT_EMAIL, WELCOME_BOT_NAME)


def system_bot(realm_id: int, email: str, full_name: str) -> User:
    """The realm's system bot with this email, created on first use (older realms have none)."""
    bot = get_user_by_email(realm_id, email)
    if bot is not None:
        return bot
    try:
        bot, _ = do_create_user(realm_id, NewUser(email=email, full_name=full_name,
                                                  is_bot=True, bot_type=DEFAULT_BOT))
        return bot
    except ApiError:   # created concurrently by another request
        found = get_user_by_email(realm_id, email)
        if found is None:
            raise
        return found
