"""Managing invitations: GET /invites, revoking email invitations and reusable links, and
resending an email invitation, with the reference's rules on who manages which."""
from __future__ import annotations

from datetime import UTC, datetime
from typing import NotRequired, TypedDict

from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.groups.reads.user_groups import require_member_or_admin
from chalicelib.actions.invitations.invites import (
    DAILY_LIMIT,
    KEEP_AFTER_USE,
    add_daily_count,
    add_invites_changed,
    invitation_failed,
    invite_link,
    is_expired,
    load_realm_and_user,
    new_key,
    send_invitation_email,
)
from chalicelib.core.errors import ADMINISTRATOR_REQUIRED, OWNER_REQUIRED, ApiError, ConflictError
from chalicelib.core.principal import ROLE_ADMINISTRATOR, ROLE_OWNER, Principal
from chalicelib.core.results import EmptyResult
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.invitations import Invitation, InvitationKey
from chalicelib.models.realms import Realm
from chalicelib.models.users import User

LISTED_KINDS = ("email", "multiuse")   # "signup" confirmations belong to their link


class InviteDict(TypedDict):
    id: int
    invited_by_user_id: int
    invited: int
    expiry_date: int | None   # null: never expires
    invited_as: int
    notify_referrer_on_join: bool
    is_multiuse: bool
    email: NotRequired[str]   # emailed invitations only
    link_url: NotRequired[str]   # reusable links only


class InvitesResult(TypedDict):
    invites: list[InviteDict]


def invite_api_dict(invitation: Invitation, realm: Realm) -> InviteDict:
    """An invitation as GET /invites shows it (the reference's Invite)."""
    data: InviteDict = {
        "id": invitation.invite_id,
        "invited_by_user_id": invitation.invited_by,
        "invited": invitation.created,
        "expiry_date": (None if invitation.expires_at is None
                        else int(invitation.expires_at.timestamp())),
        "invited_as": invitation.invite_as,
        "notify_referrer_on_join": invitation.notify_referrer_on_join,
        "is_multiuse": invitation.kind == "multiuse",
    }
    if invitation.kind == "email":
        data["email"] = invitation.email
    elif invitation.link_key is not None:   # links made before link_key have none to show
        data["link_url"] = invite_link(realm, invitation, invitation.link_key)
    return data


def get_invites(caller: Principal) -> InvitesResult:
    """Unexpired, unused invitations: administrators see all, others their own."""
    require_member_or_admin(caller)
    condition = (Invitation.status == "active") & Invitation.kind.is_in(*LISTED_KINDS)
    if not caller.is_admin:
        condition &= Invitation.invited_by == caller.user_id
    # Pending invitations are bounded by the daily limit and expire: one Query, paged.
    invitations = Invitation.query(caller.realm_id, filter_condition=condition)
    realm = Realm.get(caller.realm_id)
    return {"invites": [invite_api_dict(i, realm) for i in invitations if not is_expired(i)]}


def access_invite_by_id(caller: Principal, invite_id: int, kind: str) -> Invitation:
    """An invitation the caller manages: their own, or any as an administrator (owners
    only for invitations of owners)."""
    require_member_or_admin(caller)
    invitation = Invitation.get_or_none(caller.realm_id, invite_id)
    if invitation is None or invitation.kind != kind or is_expired(invitation) or (
            kind == "email" and invitation.status != "active"):
        raise ApiError("No invitation with that ID exists")
    if invitation.invited_by != caller.user_id:
        if invitation.invite_as == ROLE_OWNER and not caller.is_owner:
            raise ApiError(OWNER_REQUIRED)
        if not caller.is_admin:
            raise ApiError(ADMINISTRATOR_REQUIRED)
    return invitation


def _inviter_is_admin(caller: Principal, invitation: Invitation) -> bool:
    if invitation.invited_by == caller.user_id:
        return caller.is_admin
    inviter = User.get_or_none(caller.realm_id, invitation.invited_by)
    return inviter is not None and inviter.role <= ROLE_ADMINISTRATOR


def _revoke(caller: Principal, invitation: Invitation) -> EmptyResult:
    # The invitation keeps its status for a while, so its link says it was revoked.
    gone = datetime.now(UTC) + KEEP_AFTER_USE
    try:
        with transaction() as tx:
            tx.update(invitation, actions=[Invitation.status.set("revoked"),
                                           Invitation.expires_at.set(gone)],
                      condition=Invitation.status == "active")
            tx.update(InvitationKey(invitation.key_hash),
                      actions=[InvitationKey.expires_at.set(gone)],
                      condition=InvitationKey.key_hash.exists())
            add_invites_changed(tx, caller.realm_id, invitation.invited_by,
                                _inviter_is_admin(caller, invitation))
    except TransactWriteError as error:
        if not is_condition_failure(error):
            raise
        raise ConflictError("The invitation was used or revoked meanwhile.") from None
    return {}


def do_revoke_invite(caller: Principal, invite_id: int) -> EmptyResult:
    return _revoke(caller, access_invite_by_id(caller, invite_id, "email"))


def do_revoke_multiuse_invite(caller: Principal, invite_id: int) -> EmptyResult:
    invitation = access_invite_by_id(caller, invite_id, "multiuse")
    if invitation.status == "revoked":
        raise ApiError("That invitation was revoked already")
    return _revoke(caller, invitation)


def do_resend_invite(caller: Principal, invite_id: int) -> EmptyResult:
    """Emails a new link (only hashes are stored, so the old one cannot be shown again);
    the old link stops working. Counts against the daily limit."""
    invitation = access_invite_by_id(caller, invite_id, "email")
    realm, inviter = load_realm_and_user(caller.realm_id, invitation.invited_by)
    key, new_hash = new_key()
    old_hash = invitation.key_hash
    try:
        with transaction() as tx:
            add_daily_count(tx, realm, 1)
            tx.update(invitation, actions=[Invitation.key_hash.set(new_hash)],
                      condition=(Invitation.status == "active")
                      & (Invitation.key_hash == old_hash))
            tx.delete(InvitationKey(old_hash))
            tx.save(InvitationKey(new_hash, realm_id=caller.realm_id, invite_id=invite_id,
                                  expires_at=invitation.expires_at),
                    condition=InvitationKey.key_hash.does_not_exist())
            add_invites_changed(tx, caller.realm_id, invitation.invited_by,
                                inviter.role <= ROLE_ADMINISTRATOR)
    except TransactWriteError as error:
        if not is_condition_failure(error):
            raise
        current = Invitation.get_or_none(caller.realm_id, invite_id)
        if current is not None and current.status == "active" and current.key_hash == old_hash:
            raise invitation_failed(DAILY_LIMIT, [], False, daily_limit_reached=True) from None
        raise ConflictError("The invitation was used, revoked or resent meanwhile.") from None
    invitation.key_hash = new_hash
    if not send_invitation_email(realm, inviter.full_name, invitation, key):
        raise ApiError("The invitation email could not be sent; try again later.")
    return {}
