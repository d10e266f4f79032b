"""Sending invitations (POST /invites, §4.8) and creating reusable links (§4.11): who may
invite whom to what; plus the pieces that listing, revoking and signing up share."""
from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, TypedDict

from botocore.exceptions import BotoCoreError, ClientError
from pynamodb.exceptions import TransactWriteError
from pynamodb.transactions import TransactWrite

from chalicelib import config
from chalicelib.actions.invitations.terms import (
    InviteTerms,
    check_can_invite,
    check_invite_terms,
    parse_invitee_emails,
)
from chalicelib.aws.aws_errors import is_transient
from chalicelib.aws.email import send_email
from chalicelib.aws.log import logger
from chalicelib.core.errors import (
    ApiError,
    ErrorCode,
)
from chalicelib.core.principal import ROLE_ADMINISTRATOR, Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import add_event, to_realm, to_users
from chalicelib.models.base import (
    MAX_TRANSACTION_ITEMS,
    is_condition_failure,
    transact_get,
    transaction,
)
from chalicelib.models.counters import Counter
from chalicelib.models.ids import allocate_id, allocate_ids, realm_scope
from chalicelib.models.invitations import Invitation, InvitationKey
from chalicelib.models.rate_limits import check_email_allowed
from chalicelib.models.realms import Realm, UniqueName, email_key
from chalicelib.models.users import User
from chalicelib.rules.rate_limits import RateLimitedError
from chalicelib.rules.secrets import random_alphanumeric
from chalicelib.rules.timeutil import now_seconds

KEY_LENGTH = 32                      # ~190 random bits, like API keys
# Used and revoked invitations stay this long (their link says why it fails), then TTL.
KEEP_AFTER_USE = timedelta(days=1)
# Per transaction: an invitation and its key each, plus the daily counter and 2 events.
INVITES_PER_TRANSACTION = (MAX_TRANSACTION_ITEMS - 3) // 2
# As the reference's form ("up to 100 at a time"): bounded writes and emails per request.
MAX_INVITEES_PER_REQUEST = 100
SOME_SKIPPED = ("Invitations went to every other address; the ones listed already have an "
                "account in this organization.")
NONE_SENT = "No invitations were sent."
EMAIL_NOT_SENT = "The invitation email could not be sent; resend it later."
NOT_STORED = "Not invited: the server failed part way; invite this address again."
DAILY_LIMIT = ("This organization has reached its daily limit of invitations, so "
               "none were sent; try again tomorrow.")


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def is_expired(invitation: Invitation) -> bool:
    # TTL deletes expired items lazily (moto: never), so every read checks.
    return invitation.expires_at is not None and invitation.expires_at <= datetime.now(
        UTC)


def new_key() -> tuple[str, str]:
    """A link's secret and the hash that is stored instead of it."""
    key = random_alphanumeric(KEY_LENGTH)
    return key, hash_key(key)


def invitation_failed(msg: str, errors: list[list[Any]], sent: bool,
                      daily_limit_reached: bool = False) -> ApiError:
    return ApiError(msg, code=ErrorCode.INVITATION_FAILED, errors=errors, sent_invitations=sent,
                    daily_limit_reached=daily_limit_reached, license_limit_reached=False)


# ---- shared pieces ----------------------------------------------------------------------

def new_invitation(realm_id: int, invite_id: int, kind: str, invited_by: int,
                   terms: InviteTerms, *, email: str | None = None,
                   parent_id: int | None = None) -> tuple[Invitation, InvitationKey, str]:
    """The invitation, the record that finds it by its key, and the key (never stored)."""
    key, key_hash = new_key()
    invitation = Invitation(
        realm_id, invite_id, kind=kind, email=email, key_hash=key_hash, invited_by=invited_by,
        invite_as=terms.invite_as, stream_ids=terms.stream_ids, group_ids=terms.group_ids,
        include_realm_default_subscriptions=terms.include_realm_default_subscriptions,
        notify_referrer_on_join=terms.notify_referrer_on_join,
        welcome_message_custom_text=terms.welcome_message_custom_text, created=now_seconds(),
        expires_at=terms.expires_at, parent_id=parent_id)
    return invitation, InvitationKey(key_hash, realm_id=realm_id, invite_id=invite_id,
                                     expires_at=terms.expires_at), key


def save_new(tx: TransactWrite, invitation: Invitation, key_record: InvitationKey) -> None:
    tx.save(invitation, condition=Invitation.invite_id.does_not_exist())
    tx.save(key_record, condition=InvitationKey.key_hash.does_not_exist())


def invite_link(realm: Realm, invitation: Invitation, key: str) -> str:
    base = config.realm_url(realm.subdomain)
    if invitation.kind == "multiuse":
        return f"{base}/join/{key}"
    return f"{base}/accounts/do_confirm/{key}"


class InvitesChangedEvent(TypedDict):
    """Invitations changed: clients that list them fetch them again."""

    type: Literal["invites_changed"]


class InviteLinkResult(TypedDict):
    invite_link: str


def add_invites_changed(tx: TransactWrite, realm_id: int, inviter_id: int,
                        inviter_is_admin: bool) -> None:
    """Tells those who can see the invitation (administrators and its creator) to refetch."""
    event: InvitesChangedEvent = {"type": "invites_changed"}
    add_event(tx, realm_id, event, to_realm(max_role=ROLE_ADMINISTRATOR))
    if not inviter_is_admin:
        add_event(tx, realm_id, event, to_users([inviter_id]))


def daily_invite_limit(realm: Realm) -> int:
    """How many people the organization may invite by email a UTC day (the reference's
    max_invites: the deployment's default unless an operator set the organization's)."""
    return config.invites_daily_limit() if realm.max_invites is None else realm.max_invites


def add_daily_count(tx: TransactWrite, realm: Realm, count: int) -> None:
    """Counts invitees against the organization's daily limit; fails the transaction if
    over. This is what bounds invitation email, not how often anyone asks."""
    limit = daily_invite_limit(realm)
    if count > limit:
        raise invitation_failed(DAILY_LIMIT, [], False, daily_limit_reached=True)
    count_today(tx, f"invites:{realm.realm_id}", count, limit)


def count_today(tx: TransactWrite, scope: str, count: int, limit: int) -> None:
    """Adds `count` to today's (UTC) counter of `scope`; the transaction fails on its
    condition if that would take the counter past `limit`."""
    day = datetime.now(UTC).strftime("%Y-%m-%d")
    tx.update(Counter(f"{scope}:{day}"), actions=[Counter.invitations_sent.add(count)],
              condition=Counter.invitations_sent.does_not_exist()
              | (Counter.invitations_sent <= limit - count))


def load_realm_and_user(realm_id: int, user_id: int) -> tuple[Realm, User]:
    with transact_get() as tg:
        realm_future = tg.get(Realm, realm_id)
        user_future = tg.get(User, realm_id, user_id)
    return realm_future.get(), user_future.get()


def send_invitation_email(realm: Realm, inviter_name: str, invitation: Invitation,
                          key: str) -> bool:
    invited = f"{inviter_name} invited you to join {realm.name}"
    return email_link(realm, invitation, key, subject=invited, intro=invited + ".")


def email_link(realm: Realm, invitation: Invitation, key: str, *, subject: str,
               intro: str) -> bool:
    """Emails the invitation's link; False (and a log line) when SES refuses it."""
    base = config.realm_url(realm.subdomain)
    validity = ("" if invitation.expires_at is None else
                " before " + invitation.expires_at.strftime("%Y-%m-%d %H:%M UTC"))
    body = (f"Hi,\n\n{intro}\n\nTo create your account, open this link{validity}:\n\n"
            f"{invite_link(realm, invitation, key)}\n\n"
            f"(API clients: POST key, full_name and password to {base}/accounts/register, "
            "where key is the last part of the link.)\n")
    try:
        check_email_allowed(invitation.email or "")
        send_email(invitation.email or "", subject, body)
    except RateLimitedError:
        logger.warning("invitation email over the recipient's limit",
                       extra={"invite_id": invitation.invite_id})
        return False
    except (ClientError, BotoCoreError):
        logger.exception("invitation email not sent", extra={"invite_id": invitation.invite_id})
        return False
    return True


# ---- POST /invites and POST /invites/multiuse --------------------------------------------

def existing_accounts(realm_id: int, emails: list[str]) -> dict[str, User]:
    """The accounts that already use these addresses: two BatchGetItems per 100 addresses."""
    keys = {email: email_key(realm_id, email) for email in emails}
    claims = {claim.name: claim.target_id
              for claim in UniqueName.batch_get(list(keys.values()))}
    users = {u.user_id: u for u in User.batch_get(
        [(realm_id, user_id) for user_id in set(claims.values())])}
    return {email: users[claims[key]] for email, (_, key) in keys.items()
            if claims.get(key) in users}


def do_invite_users(caller: Principal, *, invitee_emails: str, **terms: Any) -> EmptyResult:
    realm, inviter = load_realm_and_user(caller.realm_id, caller.user_id)
    check_can_invite(caller, realm, "can_invite_users_group")
    emails = parse_invitee_emails(invitee_emails)
    if len(emails) > daily_invite_limit(realm):
        # Refused before the addresses are looked up, so a request's reads stay bounded.
        raise invitation_failed(DAILY_LIMIT, [], False, daily_limit_reached=True)
    if len(emails) > MAX_INVITEES_PER_REQUEST:
        raise ApiError(f"Too many addresses: at most {MAX_INVITEES_PER_REQUEST} at a time. "
                       "No invitations were sent.")
    checked = check_invite_terms(caller, realm, **terms)
    errors: list[list[Any]] = []
    for email, user in existing_accounts(caller.realm_id, emails).items():
        errors.append([email, "This person has an account already." if user.is_active
                       else "This person's account is deactivated.", not user.is_active])
    skipped = {entry[0] for entry in errors}
    to_invite = [email for email in emails if email not in skipped]
    stored, sent = _create_and_send(caller, realm, inviter, checked, to_invite)
    errors += [[email, EMAIL_NOT_SENT if email in stored else NOT_STORED, False]
               for email in to_invite if email not in sent]
    if errors:
        raise invitation_failed(SOME_SKIPPED if sent else NONE_SENT, errors, bool(sent))
    return {}


def _create_and_send(caller: Principal, realm: Realm, inviter: User, terms: InviteTerms,
                     emails: list[str]) -> tuple[set[str], set[str]]:
    """Stores the invitations (the first transaction counts them against the daily limit;
    a later one failing stops there) and emails those stored: the addresses of each."""
    if not emails:
        return set(), set()
    ids = allocate_ids(realm_scope(caller.realm_id), "invite", len(emails))
    created = [new_invitation(caller.realm_id, invite_id, "email", caller.user_id, terms,
                              email=email)
               for invite_id, email in zip(ids, emails, strict=True)]
    stored: list[tuple[Invitation, InvitationKey, str]] = []
    for start in range(0, len(created), INVITES_PER_TRANSACTION):
        batch = created[start:start + INVITES_PER_TRANSACTION]
        try:
            with transaction() as tx:
                if start == 0:
                    add_daily_count(tx, realm, len(created))
                for invitation, key_record, _ in batch:
                    save_new(tx, invitation, key_record)
                add_invites_changed(tx, caller.realm_id, caller.user_id, caller.is_admin)
        except TransactWriteError as error:
            if start == 0 and is_condition_failure(error):
                raise invitation_failed(DAILY_LIMIT, [], False, daily_limit_reached=True) from None
            if start == 0 or not is_transient(error):
                raise
            break
        stored.extend(batch)
    return ({invitation.email or "" for invitation, _, _ in stored},
            {invitation.email or "" for invitation, _, key in stored
             if send_invitation_email(realm, inviter.full_name, invitation, key)})


def do_create_multiuse_invite(caller: Principal, **terms: Any) -> InviteLinkResult:
    realm = Realm.get(caller.realm_id)
    check_can_invite(caller, realm, "create_multiuse_invite_group")
    # A link has no referrer to notify: whoever uses it confirms their own address.
    checked = check_invite_terms(caller, realm, notify_referrer_on_join=False, **terms)
    invitation, key_record, key = new_invitation(
        caller.realm_id, allocate_id(caller.realm_id, "invite"), "multiuse", caller.user_id,
        checked)
    invitation.link_key = key
    with transaction() as tx:
        save_new(tx, invitation, key_record)
        add_invites_changed(tx, caller.realm_id, caller.user_id, caller.is_admin)
    return {"invite_link": invite_link(realm, invitation, key)}

