"""Who is calling and the roles of an organization's members."""
from __future__ import annotations

from dataclasses import dataclass

ROLE_OWNER = 100
ROLE_ADMINISTRATOR = 200
ROLE_MODERATOR = 300
ROLE_MEMBER = 400
ROLE_GUEST = 600


@dataclass(frozen=True)
class Principal:
    """Who is calling: what the API-key record says, without another read."""

    realm_id: int
    user_id: int
    email: str
    role: int
    is_bot: bool

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
