"""Who may see a person's real email address: the one decision (`may_see_real_email`),
and what follows from it in answers (`shown_delivery_email`) and in events
(`email_form`, which the fan-out asks for every queue).

A person's `email_address_visibility` (rules/email_visibility.py) names the roles that
see their real address; everyone else sees `delivery_email` null and knows them by
their API address, the stand-in user{id}@{host} whenever the setting is not "everyone".
The person always sees their own. The API address is stored on the user (User.email),
the same for every viewer, so sender_email, display_recipient, reactions, typing and
presence show it without asking here; only the real address varies by viewer.
"""
from __future__ import annotations

from typing import Any, Final

from chalicelib.core.principal import Principal
from chalicelib.delivery.types import EventFacts
from chalicelib.models.user_rows import UserRow
from chalicelib.models.users import User
from chalicelib.rules.email_visibility import EVERYONE, role_sees, stand_in_email
from chalicelib.rules.user_settings import DEFAULTS as SETTING_DEFAULTS

SETTING: Final = "email_address_visibility"


def visibility_of(user: User | UserRow) -> int:
    """The person's setting; a bot's address is always everyone's to see."""
    if user.is_bot:
        return EVERYONE
    return int(user.stored_settings().get(SETTING, SETTING_DEFAULTS[SETTING]))


def may_see_real_email(viewer_id: int, viewer_role: int | None, user_id: int,
                       visibility: int) -> bool:
    """Whether this viewer may see the real address of the person `user_id`, whose
    setting is `visibility`: themself always, others as the setting's roles allow."""
    return viewer_id == user_id or role_sees(viewer_role, visibility)


def shown_delivery_email(viewer: Principal, user: User | UserRow) -> str | None:
    """The `delivery_email` this viewer is shown for the user: real, or null."""
    if may_see_real_email(viewer.user_id, viewer.role, user.user_id, visibility_of(user)):
        return user.delivery_email
    return None


def api_email(user_id: int, delivery_email: str, visibility: int, subdomain: str) -> str:
    """The address the API shows for everyone (User.email)."""
    return delivery_email if visibility == EVERYONE else stand_in_email(user_id, subdomain)


def email_form(event: dict[str, Any], facts: EventFacts, viewer_id: int,
               viewer_role: int | None) -> dict[str, Any] | None:
    """What one queue gets of an event carrying a person's real address (None: nothing).

    Such events carry the person's setting in `facts` (email_visibility). A new person
    (realm_user add): the address if the viewer may see it, else null. A changed address
    (realm_user update, email_visibility alone): only to viewers who may see it. A
    changed setting (email_visibility_was too): the address to viewers who may now see
    it and could not, null to those who could and may not any more, nothing to the rest
    (as the reference's delivery_email update events).
    """
    visibility = facts.get("email_visibility")
    person = event.get("person")
    if visibility is None or not isinstance(person, dict) or person.get(
            "delivery_email") is None:
        return event
    user_id = int(person["user_id"])
    sees = may_see_real_email(viewer_id, viewer_role, user_id, int(visibility))
    hidden = {**event, "person": {**person, "delivery_email": None}}
    if event.get("op") == "add":
        return event if sees else hidden
    was = facts.get("email_visibility_was")
    if was is None:
        return event if sees else None
    if may_see_real_email(viewer_id, viewer_role, user_id, int(was)) == sees:
        return None
    return event if sees else hidden
