"""What an invitation may give and to whom (POST /invites, /invites/multiuse): the
invitee addresses, the inviter's right to invite, the role, channels, groups, welcome
text and expiry, each checked against the inviter before anything is written."""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from chalicelib import config
from chalicelib.actions.channels.reads.channels import access_stream_by_id
from chalicelib.actions.channels.reads.permissions import can_add_subscribers
from chalicelib.actions.groups.members import can_add_members_to_group
from chalicelib.actions.groups.reads.settings import caller_has_realm_permission
from chalicelib.actions.groups.reads.user_groups import require_member_or_admin
from chalicelib.actions.users.users import check_email
from chalicelib.core.errors import (
    ADMINISTRATOR_REQUIRED,
    NOT_PERMITTED,
    OWNER_REQUIRED,
    ApiError,
    principal_error,
)
from chalicelib.core.principal import ROLE_OWNER, ROLES, Principal
from chalicelib.models.realms import Realm
from chalicelib.models.user_groups import UserGroup

MAX_WELCOME_TEXT_LENGTH = 8000
MAX_EXPIRY_MINUTES = 100 * 365 * 24 * 60
# What a view passes when invite_expires_in_minutes was not sent (null means "never").
NOT_GIVEN: Any = object()


@dataclass
class InviteTerms:
    """What accepting an invitation gives the new user, checked against the inviter's rights."""

    invite_as: int
    stream_ids: list[int]
    group_ids: list[int]
    include_realm_default_subscriptions: bool
    notify_referrer_on_join: bool
    welcome_message_custom_text: str | None
    expires_at: datetime | None



def parse_invitee_emails(raw: str) -> list[str]:
    """Addresses split on commas and newlines ("Name <address>" allowed), trimmed and
    deduplicated; the first bad one is named and nothing is sent."""
    found: dict[str, str] = {}
    for part in re.split(r"[,\n]", raw):
        named = re.search(r"<([^<>]*)>", part)
        address = (named.group(1) if named else part).strip()
        if not address:
            continue
        try:
            address = check_email(address)
        except ApiError as error:
            raise ApiError(f"{error.msg} No invitations were sent.") from None
        found.setdefault(address.lower(), address)
    if not found:
        raise ApiError("Give at least one email address to invite.")
    return list(found.values())


def check_can_invite(caller: Principal, realm: Realm, setting: str) -> None:
    """Guests and bots never invite; others need the realm's group setting."""
    require_member_or_admin(caller)
    if not caller_has_realm_permission(realm, caller.user_id, caller.role, setting):
        raise ApiError(NOT_PERMITTED)


def check_invite_streams(caller: Principal, realm: Realm, stream_ids: list[int]) -> list[int]:
    """Channels the invitation subscribes to: each existing, accessible and one the caller
    may add subscribers to."""
    streams = []
    for stream_id in dict.fromkeys(stream_ids):
        try:
            stream, subscription = access_stream_by_id(caller, stream_id,
                                                       require_content_access=False)
        except ApiError:
            stream = None
        if stream is None or stream.is_archived:
            raise ApiError(f"Channel {stream_id} does not exist or you cannot see it, so no "
                           "invitations were sent.")
        streams.append((stream, subscription))
    # §4.8: someone who may invite but not subscribe others may name no channel at all,
    # not even a default one (so default channels need no exemption below).
    if streams and not caller_has_realm_permission(realm, caller.user_id, caller.role,
                                                   "can_add_subscribers_group"):
        raise ApiError("You are not allowed to add other people to channels.")
    for stream, subscription in streams:
        if not can_add_subscribers(caller, stream, subscription is not None, realm):
            raise ApiError("You are not allowed to add other people to channels.")
    return [stream.stream_id for stream, _ in streams]


def check_invite_groups(caller: Principal, realm: Realm, group_ids: list[int]) -> list[int]:
    wanted = list(dict.fromkeys(group_ids))
    found = {g.group_id: g for g in UserGroup.batch_get(
        [(caller.realm_id, group_id) for group_id in wanted])}
    for group_id in wanted:
        group = found.get(group_id)
        if group is None or group.deactivated:
            raise ApiError(f"No user group with ID {group_id} exists, so no invitations were sent.")
        if group.is_system_group:
            raise ApiError(f"Cannot add members to the system group '{group.name}': its "
                           "members follow from their roles.")
        if not can_add_members_to_group(caller, realm, group):
            raise ApiError(f"Insufficient permission to add members to user group "
                           f"'{group.name}'. No invites were sent.")
    return wanted


def check_expiry(minutes: int | None) -> datetime | None:
    if minutes is NOT_GIVEN:
        minutes = config.invitation_link_validity_minutes()
    if minutes is None:
        return None
    if not 0 < minutes <= MAX_EXPIRY_MINUTES:
        raise ApiError("Invalid invite_expires_in_minutes: give a number of minutes above 0 "
                       "(at most 100 years), or null for an invitation that never expires.")
    return datetime.now(UTC) + timedelta(minutes=minutes)


def check_invite_terms(caller: Principal, realm: Realm, *, invite_as: int,
                       stream_ids: list[int], group_ids: list[int],
                       include_realm_default_subscriptions: bool,
                       notify_referrer_on_join: bool, welcome_message_custom_text: str | None,
                       invite_expires_in_minutes: int | None) -> InviteTerms:
    if invite_as not in ROLES:
        raise ApiError("Invalid invite_as: use 100, 200, 300, 400 or 600.")
    if invite_as < caller.role:   # a role like one's own or a more restricted one (§5)
        raise principal_error(OWNER_REQUIRED if invite_as == ROLE_OWNER
                              else ADMINISTRATOR_REQUIRED)
    text = welcome_message_custom_text
    if text is not None and not caller.is_admin:   # §4.8: others may only send null
        raise principal_error(ADMINISTRATOR_REQUIRED)
    if text is not None and len(text) > MAX_WELCOME_TEXT_LENGTH:
        raise ApiError("welcome_message_custom_text is over the limit of "
                       f"{MAX_WELCOME_TEXT_LENGTH} characters.")
    return InviteTerms(
        invite_as=invite_as,
        expires_at=check_expiry(invite_expires_in_minutes),
        group_ids=check_invite_groups(caller, realm, group_ids),
        stream_ids=check_invite_streams(caller, realm, stream_ids),
        include_realm_default_subscriptions=include_realm_default_subscriptions,
        notify_referrer_on_join=notify_referrer_on_join,
        welcome_message_custom_text=text)
