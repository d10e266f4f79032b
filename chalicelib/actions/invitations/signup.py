"""Accepting invitations: what a link leads to, confirming the address of someone who used
a reusable link, and creating the account with its channels, groups and welcome.

The account is created with the invitation used up (and the account's id recorded on it)
in one transaction; the onboarding steps follow one by one, each recorded on the
invitation once done, so a retry of a signup cut short (same key and password) resumes
the steps not done and answers like the first success.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TypedDict

from pynamodb.exceptions import TransactWriteError
from pynamodb.transactions import TransactWrite

from chalicelib import config
from chalicelib.actions.channels.access_events import GuestAccess
from chalicelib.actions.channels.add_subscribers import do_add_subscribers
from chalicelib.actions.channels.new_member_history import give_recent_history
from chalicelib.actions.channels.reads.permissions import realm_default_stream_ids
from chalicelib.actions.groups.membership import join_group
from chalicelib.actions.invitations.invites import (
    KEEP_AFTER_USE,
    add_invites_changed,
    count_today,
    email_link,
    hash_key,
    is_expired,
    new_invitation,
    save_new,
)
from chalicelib.actions.invitations.terms import InviteTerms
from chalicelib.actions.messages.send import check_send_message
from chalicelib.actions.users.account import add_api_key
from chalicelib.actions.users.system_bots import notification_bot, welcome_bot
from chalicelib.actions.users.users import (
    NewUser,
    check_email,
    check_full_name,
    do_create_user,
)
from chalicelib.aws.log import logger
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import ROLE_ADMINISTRATOR, Principal
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.channels import Stream
from chalicelib.models.ids import allocate_id
from chalicelib.models.invitations import Invitation, InvitationKey
from chalicelib.models.realms import Realm, realm_setting
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import User, get_user_by_email
from chalicelib.rules.passwords import MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, check_password, hash_password

# How long the confirmation emailed to someone who used a reusable link stays valid.
SIGNUP_CONFIRMATION_VALIDITY = timedelta(days=1)
INVALID_LINK = "This invitation link is invalid or has expired."
ALREADY_USED = "This invitation was already used; log in instead."
# What a new account gets after it is created, in this order (recorded as each is done).
ONBOARDING_STEPS = ("channels", "groups", "welcome", "welcome_custom", "referrer")


def check_usable(invitation: Invitation | None) -> Invitation:
    if invitation is None:
        raise ApiError(INVALID_LINK)
    if invitation.status == "revoked":
        raise ApiError("This invitation was revoked.")
    if invitation.status == "used":
        raise ApiError(ALREADY_USED)
    if is_expired(invitation):
        raise ApiError("This invitation has expired; ask for a new one.")
    return invitation


def _find(key: str, allow_unfinished: bool = False) -> tuple[Invitation, Realm]:
    """The invitation whose link carries this key (two reads), if it can still be used
    (or, when allowed, its signup has onboarding steps left)."""
    record = InvitationKey.get_or_none(hash_key(key))
    invitation = None if record is None else Invitation.get_or_none(record.realm_id,
                                                                    record.invite_id)
    if record is None or invitation is None or invitation.key_hash != record.key_hash:
        raise ApiError(INVALID_LINK)   # a resent invitation's old link lands here
    realm = Realm.get_or_none(invitation.realm_id)
    if realm is None or realm.deactivated:
        raise ApiError("This organization is deactivated.")
    if allow_unfinished and unfinished(invitation):
        return invitation, realm
    return check_usable(invitation), realm


def unfinished(invitation: Invitation) -> bool:
    """Used by a signup whose onboarding was cut short (and not yet past its keeping)."""
    return (invitation.status == "used" and invitation.user_id is not None
            and not is_expired(invitation)
            and not set(ONBOARDING_STEPS) <= set(invitation.onboarding_done or ()))


def find_invitation(key: str, allow_unfinished: bool = False) -> tuple[Invitation, Realm]:
    """An invitation for one address: emailed, or confirming the use of a reusable link."""
    invitation, realm = _find(key, allow_unfinished)
    if invitation.kind == "multiuse":
        raise ApiError("This is a reusable invitation link: POST your email address to it "
                       "(parameter email), then use the link that is emailed to you.")
    if invitation.parent_id is not None and not unfinished(invitation):
        link = Invitation.get_or_none(realm.realm_id, invitation.parent_id)
        if link is None or link.status == "revoked":
            raise ApiError("The invitation link you used was revoked.")
    return invitation, realm


def find_link(key: str) -> tuple[Invitation, Realm]:
    invitation, realm = _find(key)
    if invitation.kind != "multiuse":
        raise ApiError(INVALID_LINK)
    return invitation, realm


class InvitationResult(TypedDict):
    """What an emailed link's account will be, and where to create it."""

    realm_name: str
    realm_url: str
    email: str
    invited_as: int
    register_url: str


class InviteLinkDescription(TypedDict):
    realm_name: str
    realm_url: str
    invited_as: int


class JoinResult(TypedDict):
    email: str   # where the one-use link went


class RegisterAccountResult(TypedDict):
    user_id: int
    email: str
    api_key: str


def describe_invitation(key: str) -> InvitationResult:
    """GET on an emailed link: what the account will be, and where to create it."""
    invitation, realm = find_invitation(key)
    base = config.realm_url(realm.subdomain)
    return {"realm_name": realm.name, "realm_url": base, "email": invitation.email,
            "invited_as": invitation.invite_as, "register_url": f"{base}/accounts/register"}


def describe_link(key: str) -> InviteLinkDescription:
    link, realm = find_link(key)
    return {"realm_name": realm.name, "realm_url": config.realm_url(realm.subdomain),
            "invited_as": link.invite_as}


def do_join_with_link(key: str, email: str) -> JoinResult:
    """Someone used a reusable link: email them a one-use link with the link's terms, so
    that an account is created only for an address its owner confirmed."""
    link, realm = find_link(key)
    email = check_email(email)
    if get_user_by_email(realm.realm_id, email) is not None:
        raise ApiError(f"'{email}' already has an account in {realm.name}; log in instead.")
    expires = datetime.now(UTC) + SIGNUP_CONFIRMATION_VALIDITY
    if link.expires_at is not None:
        expires = min(expires, link.expires_at)
    terms = InviteTerms(
        invite_as=link.invite_as, stream_ids=list(link.stream_ids),
        group_ids=list(link.group_ids),
        include_realm_default_subscriptions=link.include_realm_default_subscriptions,
        notify_referrer_on_join=False,
        welcome_message_custom_text=link.welcome_message_custom_text, expires_at=expires)
    invitation, key_record, new_key = new_invitation(
        realm.realm_id, allocate_id(realm.realm_id, "invite"), "signup", link.invited_by,
        terms, email=email, parent_id=link.invite_id)
    try:
        with transaction() as tx:
            save_new(tx, invitation, key_record)
            tx.condition_check(Invitation, realm.realm_id, link.invite_id,
                               condition=Invitation.status == "active")
            count_today(tx, f"joins:{realm.realm_id}:{link.invite_id}", 1,
                        config.join_link_daily_limit())
    except TransactWriteError as error:
        if not is_condition_failure(error):
            raise
        current = Invitation.get_or_none(realm.realm_id, link.invite_id)
        if current is None or current.status != "active":
            raise ApiError("This invitation was revoked.") from None
        raise ApiError("This invitation link has been used too many times today; try again "
                       "tomorrow, or ask for an invitation by email.") from None
    if not email_link(realm, invitation, new_key,
                      subject=f"Confirm your email address to join {realm.name}",
                      intro=f"This address was given to join {realm.name} with an invitation "
                            "link. If that was not you, ignore this email."):
        raise ApiError("The confirmation email could not be sent; try again later.")
    return {"email": email}


def do_register(key: str, full_name: str, password: str) -> RegisterAccountResult:
    """Creates the invited account and onboards it; resumes a signup cut short."""
    invitation, realm = find_invitation(key, allow_unfinished=True)
    referrer = User.get_or_none(realm.realm_id, invitation.invited_by)
    if unfinished(invitation):
        # The same request again (its answer was lost): the password proves it.
        user = User.get_or_none(realm.realm_id, invitation.user_id)
        if user is None or not check_password(password, user.password_hash):
            raise ApiError(ALREADY_USED)
        api_key = add_api_key(user)
    else:
        user, api_key = _create_account(realm, invitation, referrer, full_name, password)
    _onboard(realm, invitation, user, referrer)
    return {"user_id": user.user_id, "email": user.delivery_email, "api_key": api_key}


def _create_account(realm: Realm, invitation: Invitation, referrer: User | None,
                    full_name: str, password: str) -> tuple[User, str]:
    """The account, with the invitation used up and the account recorded on it."""
    if not MIN_PASSWORD_LENGTH <= len(password) <= MAX_PASSWORD_LENGTH:
        raise ApiError(f"The password must be {MIN_PASSWORD_LENGTH} to {MAX_PASSWORD_LENGTH} "
                       "characters long.")
    full_name = check_full_name(full_name)
    gone = datetime.now(UTC) + KEEP_AFTER_USE

    def use_up(tx: TransactWrite, user: User) -> None:
        tx.update(invitation, actions=[Invitation.status.set("used"),
                                       Invitation.expires_at.set(gone),
                                       Invitation.user_id.set(user.user_id)],
                  condition=(Invitation.status == "active")
                  & (Invitation.key_hash == invitation.key_hash))
        tx.update(InvitationKey(invitation.key_hash),
                  actions=[InvitationKey.expires_at.set(gone)],
                  condition=InvitationKey.key_hash.exists())
        if invitation.kind == "email":   # links' confirmations are not listed
            add_invites_changed(tx, realm.realm_id, invitation.invited_by,
                                referrer is not None and referrer.role <= ROLE_ADMINISTRATOR)

    new = NewUser(email=invitation.email or "", full_name=full_name, role=invitation.invite_as,
                  password_hash=hash_password(password))
    try:
        user, api_key = do_create_user(realm.realm_id, new, also=use_up)
    except ApiError:
        # Used or revoked at the same time: say that rather than "email in use".
        check_usable(Invitation.get_or_none(realm.realm_id, invitation.invite_id))
        raise
    return user, api_key


def _onboard(realm: Realm, invitation: Invitation, user: User, referrer: User | None) -> None:
    """Runs the onboarding steps not done yet, recording each on the invitation once done.

    Channels and groups are idempotent (existing subscribers and members are skipped).
    The messages are guarded by their marker: each is sent at most once, except when the
    request dies in the narrow window between sending it and recording it (a retry then
    sends it again), or when two retries of one signup run at the same time."""
    steps: dict[str, Callable[[], None]] = {
        "channels": lambda: subscribe_new_user(realm, user, invitation),
        "groups": lambda: join_groups(realm.realm_id, user.user_id, invitation.group_ids),
        "welcome": lambda: send_welcome(realm, user),
        "welcome_custom": lambda: send_custom_welcome(
            realm, user, invitation.welcome_message_custom_text),
        "referrer": lambda: notify_referrer(realm, user, invitation, referrer),
    }
    done = set(invitation.onboarding_done or ())
    for step in ONBOARDING_STEPS:
        if step not in done:
            steps[step]()
            invitation.update(actions=[Invitation.onboarding_done.add({step})],
                              condition=Invitation.invite_id.exists())


def subscribe_new_user(realm: Realm, user: User, invitation: Invitation) -> None:
    """The invited channels (and the realm's defaults when asked), minus archived ones,
    with their recent messages as the new member's first (channels/new_member_history.py)."""
    stream_ids = set(invitation.stream_ids)
    if invitation.include_realm_default_subscriptions:
        stream_ids |= realm_default_stream_ids(realm)
    streams = [s for s in Stream.batch_get([(realm.realm_id, i) for i in stream_ids])
               if not s.is_archived]
    guests = GuestAccess(realm.realm_id, realm)   # read once for every channel
    for stream in sorted(streams, key=lambda s: s.stream_id):
        do_add_subscribers(realm.realm_id, stream, [user], guests=guests)
    give_recent_history(realm.realm_id, user.user_id, streams)


def join_groups(realm_id: int, user_id: int, group_ids: list[int]) -> None:
    """Adds the user to each invited group that is still active (one transaction each);
    groups the user is already in (a resumed signup) are skipped."""
    for group in UserGroup.batch_get([(realm_id, g) for g in group_ids]):
        if not (group.deactivated or group.is_system_group):
            join_group(realm_id, group.group_id, user_id)


def notify_referrer(realm: Realm, user: User, invitation: Invitation,
                    referrer: User | None) -> None:
    if invitation.notify_referrer_on_join and referrer is not None and referrer.is_active:
        send_direct(notification_bot(realm.realm_id), referrer.user_id,
                    f"@_**{user.full_name}|{user.user_id}** accepted your invitation to join "
                    f"{realm.name}!")


def welcome_text(realm: Realm, user: User) -> str:
    return (f"Hello {user.full_name}, and welcome to **{realm.name}**!\n\n"
            "Conversations happen in channels, each split into topics; you can also send "
            "direct messages to anyone here. Say hello to your new colleagues!")


def send_welcome(realm: Realm, user: User) -> None:
    send_direct(welcome_bot(realm.realm_id), user.user_id, welcome_text(realm, user))


def send_custom_welcome(realm: Realm, user: User, custom_text: str | None) -> None:
    """The Welcome Bot's custom message after the greeting (level 416): the invitation's
    text, the organization's welcome_message_custom_text (null), or none (empty)."""
    text = str(realm_setting(realm, "welcome_message_custom_text")) if custom_text is None \
        else custom_text
    if text.strip():
        send_direct(welcome_bot(realm.realm_id), user.user_id, text)


def send_direct(sender: User, recipient_id: int, content: str) -> None:
    caller = Principal(sender.realm_id, sender.user_id, sender.email, sender.role,
                       sender.is_bot)
    try:
        check_send_message(caller, message_type="private", to=json.dumps([recipient_id]),
                           topic=None, content=content, client="Internal")
    except ApiError as error:   # the account exists; a refused notice must not undo that
        logger.warning("signup message refused", extra={"error": error.msg})
