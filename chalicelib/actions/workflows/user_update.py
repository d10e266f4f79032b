"""PATCH /users/{user_id}: the change itself (actions/users/admin.py), then, when the role
changed, the channels that showed or hid to the person (actions/channels/
role_visibility.py; channels sit above users in the house, so the two meet here)."""
from __future__ import annotations

from typing import Any

from chalicelib.actions.channels.role_visibility import tell_channel_visibility
from chalicelib.actions.users.admin import do_update_user
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult


def update_user(caller: Principal, user_id_or_email: str, **changes: Any) -> EmptyResult:
    return do_update_user(caller, user_id_or_email, **changes,
                          after_role_change=tell_channel_visibility)
