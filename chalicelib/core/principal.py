"""Who is calling and the roles of an organization's members."""
from __future__ import annotations

from dataclasses import dataclass

ROLE_OWNER = 100
ROLE_ADMINISTRATOR = 200
ROLE_MODERATOR = 300
ROLE_MEMBER = 400
ROLE_GUEST = 600
ROLES = {ROLE_OWNER, ROLE_ADMINISTRATOR, ROLE_MODERATOR, ROLE_MEMBER, ROLE_GUEST}
# The server's own bots in each organization (actions/users/system_bots.py creates them).
NOTIFICATION_BOT_EMAIL = "notification-bot@system.teamchat.invalid"
WELCOME_BOT_EMAIL = "welcome-bot@system.teamchat.invalid"
SYSTEM_BOT_EMAILS = frozenset({NOTIFICATION_BOT_EMAIL, WELCOME_BOT_EMAIL})
ROLE_NAMES = {"owner": ROLE_OWNER, "administrator": ROLE_ADMINISTRATOR,
              "moderator": ROLE_MODERATOR, "member": ROLE_MEMBER, "guest": ROLE_GUEST}


@dataclass(frozen=True)
class Principal:
    """Who is calling: what the API-key record says, without another read."""

    realm_id: int
    user_id: int
    email: str
    role: int
    is_bot: bool
    bot_type: int | None = None

    @property
    def is_admin(self) -> bool:
        return self.role <= ROLE_ADMINISTRATOR

    @property
    def is_owner(self) -> bool:
        return self.role == ROLE_OWNER

    @property
    def is_moderator_or_above(self) -> bool:
        return self.role <= ROLE_MODERATOR

    @property
    def is_guest(self) -> bool:
        return self.role == ROLE_GUEST
