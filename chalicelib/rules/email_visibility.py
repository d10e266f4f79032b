"""Email address visibility (the email_address_visibility user setting): its values, which
roles each lets see a person's real address, and the stand-in address shown otherwise.

The values are the reference's: 1 everyone, 2 members, 3 administrators, 4 nobody,
5 moderators. A person whose setting is not "everyone" is known to the API by a stand-in
address, user{id}@{the organization's host}, the same for every viewer; their real
address (`delivery_email`) goes only to the viewers the setting allows, and always to
themselves. Bots are always "everyone".
"""
from __future__ import annotations

import re

from chalicelib import config

EVERYONE = 1
MEMBERS = 2
ADMINISTRATORS = 3
NOBODY = 4
MODERATORS = 5
VALUES = frozenset({EVERYONE, MEMBERS, ADMINISTRATORS, NOBODY, MODERATORS})

# The least privileged role (the highest number) that sees real addresses under each
# value; 0: no role does (core/principal.py numbers the roles, owners 100 to guests 600).
_MAX_ROLE_SEEING = {EVERYONE: 600, MEMBERS: 400, MODERATORS: 300, ADMINISTRATORS: 200,
                    NOBODY: 0}

_STAND_IN = re.compile(r"user(\d{1,15})@", re.IGNORECASE)


def role_sees(role: int | None, visibility: int) -> bool:
    """Whether a viewer of this role sees the real address of someone with this setting
    (an unknown role sees only what everyone sees)."""
    if visibility == EVERYONE:
        return True
    return role is not None and role <= _MAX_ROLE_SEEING.get(visibility, 0)


def realm_host(subdomain: str) -> str:
    """The organization's host name, as in its URL (without a port)."""
    return f"{subdomain}.{config.root_domain()}"


def stand_in_email(user_id: int, subdomain: str) -> str:
    """The address the API shows for a person whose real one is hidden."""
    return f"user{user_id}@{realm_host(subdomain)}"


def stand_in_user_id(email: str) -> int | None:
    """The user id a stand-in address names (any host: the caller compares the whole
    address with the user's), or None for an address of another form."""
    match = _STAND_IN.match(email.strip())
    return int(match.group(1)) if match else None
