"""Group-setting values (§2.7): their shape and canonical form, the defaults of channels'
and groups' settings, and which system groups a setting may name. Who a value includes
is read in actions/groups/reads/settings.py.
"""
from __future__ import annotations

from decimal import Decimal
from typing import Any, TypedDict

from chalicelib.core.errors import ApiError
from chalicelib.rules.realm_settings import SYSTEM_GROUPS, system_group_id


class AnonymousGroup(TypedDict):
    """A group-setting value that is not a named group: users and groups, directly."""

    direct_members: list[int]
    direct_subgroups: list[int]


GroupSettingValue = int | AnonymousGroup


def normalize(value: Any) -> GroupSettingValue:
    """A stored or submitted value in its canonical shape (DynamoDB returns Decimals).

    As the reference: an anonymous group of exactly one subgroup is that group's id,
    and an empty one is the nobody group.
    """
    if isinstance(value, (int, Decimal)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, dict) and set(value) <= {"direct_members", "direct_subgroups"}:
        try:
            members = sorted({int(v) for v in value.get("direct_members") or []})
            subgroups = sorted({int(v) for v in value.get("direct_subgroups") or []})
        except (TypeError, ValueError):
            pass   # not ids: refused below
        else:
            if not members and len(subgroups) <= 1:
                return subgroups[0] if subgroups else system_group_id("role:nobody")
            return {"direct_members": members, "direct_subgroups": subgroups}
    raise ApiError("Invalid group setting value: give a group id or an object with "
                   "direct_members and direct_subgroups.")


# A default meaning "the creator of the channel or group": an anonymous group of one.
CREATOR = "creator"


def stored_group_setting(stored: Any, name: str, default: str,
                         creator_id: int | None = None) -> GroupSettingValue:
    """A group setting as stored in a realm's, channel's or group's map of settings (or
    that map as a dict), or its default: a system group's name, or CREATOR."""
    values = stored if isinstance(stored, dict) else stored.as_dict() if stored else {}
    if name in values:
        return normalize(values[name])
    if default == CREATOR:
        return normalize({"direct_members": [creator_id] if creator_id else [],
                          "direct_subgroups": []})
    return system_group_id(default)


def is_system_group(group_id: int) -> bool:
    return 1 <= group_id <= len(SYSTEM_GROUPS)


# Settings whose value may only be one of these system groups (as the reference limits them).
ALLOWED_SYSTEM_GROUPS: dict[str, set[str]] = {
    "can_access_all_users_group": {"role:everyone", "role:members"},
}
# System groups that a setting may not name, directly or as a subgroup of an anonymous
# group, as the reference limits them (guests may never administer or add subscribers).
FORBIDDEN_SYSTEM_GROUPS: dict[str, set[str]] = {
    "can_manage_group": {"role:everyone"},
    "can_mention_group": {"role:owners"},
    "can_add_subscribers_group": {"role:everyone"},
    "can_administer_channel_group": {"role:everyone"},
    "can_delete_any_message_group": {"role:everyone"},
    "can_set_delete_message_policy_group": {"role:everyone"},
}


# The channel-level group settings (§4.4) and their defaults; "channel_creator" is the
# anonymous group of the channel's creator, as in the reference.
CHANNEL_GROUP_SETTING_DEFAULTS: dict[str, str] = {
    "can_add_subscribers_group": "role:nobody",
    "can_remove_subscribers_group": "role:administrators",
    "can_administer_channel_group": CREATOR,
    "can_delete_any_message_group": "role:nobody",
    "can_delete_own_message_group": "role:nobody",
    "can_move_messages_out_of_channel_group": "role:nobody",
    "can_move_messages_within_channel_group": "role:nobody",   # level 396
    "can_resolve_topics_group": "role:nobody",                 # level 402
    "can_create_topic_group": "role:everyone",                 # level 441
}
CHANNEL_GROUP_SETTINGS = tuple(CHANNEL_GROUP_SETTING_DEFAULTS)


# The group's own permission settings and their defaults for new groups, as the
# reference: "group_creator" is the anonymous group of just the creator.
GROUP_PERMISSION_DEFAULTS: dict[str, str] = {
    "can_add_members_group": CREATOR,
    "can_join_group": "role:nobody",
    "can_leave_group": "role:everyone",
    "can_manage_group": CREATOR,
    "can_mention_group": "role:everyone",
    "can_remove_members_group": "role:nobody",
}
GROUP_PERMISSION_SETTINGS = tuple(GROUP_PERMISSION_DEFAULTS)
