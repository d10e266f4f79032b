"""The notification bot: the sender of the server's own messages (e.g. "topic moved")."""
from __future__ import annotations

from chalicelib.actions.users import NewUser, do_create_user, get_user_by_email
from chalicelib.http.errors import ApiError
from chalicelib.models.users import User

NOTIFICATION_BOT_EMAIL = "notification-bot@system.teamchat.invalid"
NOTIFICATION_BOT_NAME = "Notification Bot"
DEFAULT_BOT = 1


def notification_bot(realm_id: int) -> User:
    """The realm's notification bot, created on first use (older realms have none)."""
    bot = get_user_by_email(realm_id, NOTIFICATION_BOT_EMAIL)
    if bot is not None:
        return bot
    try:
        bot, _ = do_create_user(realm_id, NewUser(email=NOTIFICATION_BOT_EMAIL,
                                                  full_name=NOTIFICATION_BOT_NAME,
                                                  is_bot=True, bot_type=DEFAULT_BOT))
        return bot
    except ApiError:   # created concurrently by another request
        found = get_user_by_email(realm_id, NOTIFICATION_BOT_EMAIL)
        if found is None:
            raise
        return found
