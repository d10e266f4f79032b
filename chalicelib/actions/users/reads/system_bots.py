"""Which users are the server's own bots (the notification and welcome bots); finding or
creating one is actions/users/system_bots.py.
"""
from __future__ import annotations

from chalicelib.core.principal import (  # used here, and imported from here by tests
    SYSTEM_BOT_EMAILS,
)
from chalicelib.models.user_rows import UserRow
from chalicelib.models.users import User


def is_system_bot(user: User | UserRow) -> bool:
    return user.is_bot and user.email in SYSTEM_BOT_EMAILS
