"""Invitations (§4.8, §4.11): sending, listing, revoking, resending; and the public links
that accept them (emailed links, reusable links, account creation)."""
from __future__ import annotations

from chalicelib.actions.invitations.admin import (
    InvitesResult,
    do_resend_invite,
    do_revoke_invite,
    do_revoke_multiuse_invite,
    get_invites,
)
from chalicelib.actions.invitations.invites import (
    InviteLinkResult,
    do_create_multiuse_invite,
    do_invite_users,
)
from chalicelib.actions.invitations.signup import (
    InvitationResult,
    InviteLinkDescription,
    JoinResult,
    RegisterAccountResult,
    describe_invitation,
    describe_link,
    do_join_with_link,
    do_register,
)
from chalicelib.actions.invitations.terms import NOT_GIVEN
from chalicelib.core.principal import ROLE_MEMBER, Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import Json

bp = ApiBlueprint(__name__)


@bp.endpoint("/invites", "POST")
def send_invites(
    caller: Principal, *,
    invitee_emails: str,
    stream_ids: Json[list[int]],
    invite_expires_in_minutes: Json[int | None] = NOT_GIVEN,
    invite_as: int = ROLE_MEMBER,
    group_ids: Json[list[int]] | None = None,
    include_realm_default_subscriptions: bool = False,
    notify_referrer_on_join: bool = True,
    welcome_message_custom_text: str | None = None,
) -> EmptyResult:
    return do_invite_users(
        caller, invitee_emails=invitee_emails, stream_ids=stream_ids,
        invite_expires_in_minutes=invite_expires_in_minutes, invite_as=invite_as,
        group_ids=group_ids or [],
        include_realm_default_subscriptions=include_realm_default_subscriptions,
        notify_referrer_on_join=notify_referrer_on_join,
        welcome_message_custom_text=welcome_message_custom_text)


@bp.endpoint("/invites/multiuse", "POST")
def create_invite_link(
    caller: Principal, *,
    invite_expires_in_minutes: Json[int | None] = NOT_GIVEN,
    invite_as: int = ROLE_MEMBER,
    stream_ids: Json[list[int]] | None = None,
    group_ids: Json[list[int]] | None = None,
    include_realm_default_subscriptions: bool = False,
    welcome_message_custom_text: str | None = None,
) -> InviteLinkResult:
    return do_create_multiuse_invite(
        caller, invite_expires_in_minutes=invite_expires_in_minutes, invite_as=invite_as,
        stream_ids=stream_ids or [], group_ids=group_ids or [],
        include_realm_default_subscriptions=include_realm_default_subscriptions,
        welcome_message_custom_text=welcome_message_custom_text)


@bp.endpoint("/invites", "GET")
def list_invites(caller: Principal) -> InvitesResult:
    return get_invites(caller)


@bp.endpoint("/invites/{invite_id}", "DELETE")
def revoke_email_invite(caller: Principal, *, invite_id: int) -> EmptyResult:
    return do_revoke_invite(caller, invite_id)


@bp.endpoint("/invites/multiuse/{invite_id}", "DELETE")
def revoke_invite_link(caller: Principal, *, invite_id: int) -> EmptyResult:
    return do_revoke_multiuse_invite(caller, invite_id)


@bp.endpoint("/invites/{invite_id}/resend", "POST")
def resend_email_invite(caller: Principal, *, invite_id: int) -> EmptyResult:
    return do_resend_invite(caller, invite_id)


# Registered without the /api/v1 prefix: the addresses that invitation emails link to, and
# account creation, which authenticates with the invitation's key instead of an API key.
links = ApiBlueprint(__name__ + ".links")


@links.endpoint("/accounts/do_confirm/{confirmation_key}", "GET", public=True)
def open_invitation(*, confirmation_key: str) -> InvitationResult:
    return describe_invitation(confirmation_key)


@links.endpoint("/join/{confirmation_key}", "GET", public=True)
def open_invite_link(*, confirmation_key: str) -> InviteLinkDescription:
    return describe_link(confirmation_key)


@links.endpoint("/join/{confirmation_key}", "POST", public=True)
def join_with_invite_link(*, confirmation_key: str, email: str) -> JoinResult:
    return do_join_with_link(confirmation_key, email)


@links.endpoint("/accounts/register", "POST", public=True)
def register(*, key: str, full_name: str, password: str) -> RegisterAccountResult:
    return do_register(key, full_name, password)
