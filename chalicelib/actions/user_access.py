"""Who can access a user (can_access_all_users_group): the audience of events about them.

With the default, role:everyone, every user of the realm can access every other. With
role:members, guests are left out; the events about a user then reach members and above,
and the user themself. (The reference also lets guests access users they share a channel
or a conversation with; that is not modelled here, so such guests miss these events.)
"""
from __future__ import annotations

from chalicelib.actions.group_settings import realm_group_setting
from chalicelib.actions.realms import system_group_id
from chalicelib.events.outbox import Audience
from chalicelib.http.auth import ROLE_MEMBER
from chalicelib.models.realms import Realm


def user_access_audience(user_id: int) -> Audience:
    """Everyone who can access this user; the fan-out applies the realm's policy."""
    return {"realm": True, "user_access": user_id}


def realm_limits_user_access(realm_id: int) -> bool:
    realm = Realm.get_or_none(realm_id)
    if realm is None:
        return False
    return realm_group_setting(realm, "can_access_all_users_group") != system_group_id(
        "role:everyone")


def may_access(viewer_id: int, viewer_role: int | None, user_id: int, limited: bool) -> bool:
    """Whether a queue owner hears about `user_id` (queues of unknown role: yes, as before)."""
    return (not limited or viewer_id == user_id or viewer_role is None
            or viewer_role <= ROLE_MEMBER)
