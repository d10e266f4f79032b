"""The account parts of PATCH /settings (§4.2): name, email (confirmed by a link), password;
and POST /fetch_api_key, which trades an email and password for an API key."""
from __future__ import annotations

import hashlib
import time
from datetime import UTC, datetime, timedelta
from typing import Any, TypedDict

from pynamodb.exceptions import TransactWriteError
from pynamodb.expressions.update import Action
from pynamodb.transactions import TransactWrite

from chalicelib import config
from chalicelib.actions.users.email_visibility import api_email_events, delivery_email_event
from chalicelib.actions.users.first_login import note_first_login
from chalicelib.actions.users.reads.events import RealmUserUpdateEvent
from chalicelib.actions.users.users import check_email
from chalicelib.aws.email import send_email
from chalicelib.core.errors import ACCOUNT_DEACTIVATED, ApiError, ErrorCode, UnauthorizedError
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import add_event
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.confirmations import Confirmation
from chalicelib.models.races import retry_lost_races
from chalicelib.models.rate_limits import (
    check_email_allowed,
    check_login_allowed,
    check_password_attempt,
    record_auth_failure,
)
from chalicelib.models.realms import email_key, get_realm, get_realm_by_subdomain, move_name
from chalicelib.models.users import (
    ApiKey,
    User,
    api_key_record,
    get_user_by_email,
    key_fields_current,
    key_set_current,
    name_key,
)
from chalicelib.rules.passwords import MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, check_password
from chalicelib.rules.rate_limits import RateLimitedError
from chalicelib.rules.secrets import hash_api_key, new_api_key, random_alphanumeric

EMAIL_CHANGE_VALIDITY = timedelta(days=1)
MAX_EXTRA_API_KEYS = 20
MAX_ATTEMPTS = 5


def check_new_password(old_password: str | None, new_password: str | None,
                       user: User) -> None:
    if new_password is None:
        if old_password is not None:
            raise ApiError("old_password needs new_password.")
        return
    if old_password is None:
        raise ApiError("Changing your password requires old_password.")
    # Guesses count against the login's limit, as the reference's password check does
    # (a 400, not a 429, as its settings page shows it).
    try:
        right = check_password_attempt(
            user.delivery_email, lambda: check_password(old_password, user.password_hash))
    except RateLimitedError as error:
        raise ApiError(f"Too many wrong passwords; try again in "
                       f"{error.extra['retry-after']} seconds.") from None
    if not right:
        raise ApiError("That password is not correct.")
    if not MIN_PASSWORD_LENGTH <= len(new_password) <= MAX_PASSWORD_LENGTH:
        raise ApiError(f"The new password must be {MIN_PASSWORD_LENGTH} to "
                       f"{MAX_PASSWORD_LENGTH} characters long.")


class ConfirmEmailChangeResult(TypedDict):
    email: str


class FetchApiKeyResult(TypedDict):
    api_key: str
    email: str
    user_id: int


def full_name_writes(caller: Principal, user: User, full_name: str
                     ) -> tuple[list[Any], list[RealmUserUpdateEvent]]:
    """The update actions and realm_user event of a name change (none if unchanged)."""
    if full_name == user.full_name:
        return [], []
    return ([User.full_name.set(full_name),
             User.name_key.set(name_key(caller.realm_id, full_name))],
            [{"type": "realm_user", "op": "update", "person": {
                "user_id": user.user_id, "full_name": full_name}}])


def check_email_change(caller: Principal, user: User, new_email: str) -> str:
    new_email = check_email(new_email)
    if new_email.lower() == user.delivery_email.lower():
        raise ApiError("New email is the same as your current one.")
    if get_user_by_email(caller.realm_id, new_email) is not None:
        raise ApiError(f"The email '{new_email}' belongs to another account")
    return new_email


def start_email_change(caller: Principal, user: User, new_email: str) -> None:
    """Sends a confirmation link to the new address; the change happens when it is used."""
    check_email_allowed(new_email)
    key = random_alphanumeric(40)
    Confirmation(hashlib.sha256(key.encode()).hexdigest(), kind="email_change",
                 realm_id=caller.realm_id, user_id=user.user_id,
                 data={"old_email": user.delivery_email, "new_email": new_email},
                 expires_at=datetime.now(UTC) + EMAIL_CHANGE_VALIDITY).save()
    realm = get_realm(caller.realm_id)
    link = f"{config.realm_url(realm.subdomain)}/accounts/confirm_new_email/{key}"
    send_email(new_email, f"Confirm your new email for {realm.name}",
               f"Hi {user.full_name},\n\nTo use {new_email} for your account in "
               f"{realm.name}, open this link within 24 hours:\n\n{link}\n\n"
               "If you did not ask for this, ignore this email.\n")


def do_confirm_email_change(key: str) -> ConfirmEmailChangeResult:
    record = Confirmation.get_or_none(hashlib.sha256(key.encode()).hexdigest())
    if record is None or record.kind != "email_change" or \
            record.expires_at < datetime.now(UTC):
        raise ApiError("This confirmation link is invalid or has expired; change your email "
                       "again to get a new one.")
    user = User.get(record.realm_id, record.user_id)
    old_email, new_email = record.data["old_email"], record.data["new_email"]
    if user.delivery_email != old_email:
        raise ApiError("Your email changed since this link was sent; change it again.")
    try:
        with transaction() as tx:
            tx.delete(Confirmation(record.key_hash),
                      condition=Confirmation.key_hash.exists())
            write_email_change(tx, user, new_email)
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ApiError(f"Email '{new_email}' is already in use, or this link was "
                           "already used.") from None
        raise
    return {"email": new_email}


def write_email_change(tx: TransactWrite, user: User, new_email: str) -> None:
    """Adds to the transaction a change of the user's real address: the realm-wide claim
    on it moves (a conditional put, so an address in use fails the transaction), the
    user item changes only if its address and keys are still the ones read, each
    API-key record follows, and the realm_user events go out: the new real address to
    those who may see it, and when it is also the API address, the new API address and
    picture to everyone who can access the user."""
    realm_id, old_email = user.realm_id, user.delivery_email
    public = user.email == user.delivery_email
    move_name(tx, email_key(realm_id, old_email), email_key(realm_id, new_email),
              user.user_id)
    actions: list[Action] = [User.delivery_email.set(new_email)]
    if public:
        actions.append(User.email.set(new_email))
    tx.update(User(realm_id, user.user_id), actions=actions,
              condition=key_fields_current(user) & key_set_current(user))
    for key_hash in [user.api_key_hash, *sorted(user.extra_api_key_hashes or ())]:
        tx.update(ApiKey(key_hash), actions=[ApiKey.email.set(new_email)],
                  condition=ApiKey.key_hash.exists())
    events = [delivery_email_event(user, new_email)]
    if public:
        events += api_email_events(user, new_email)
    for entry in events:
        add_event(tx, realm_id, *entry)


def do_fetch_api_key(subdomain: str | None, username: str, password: str,
                     source_ip: str = "") -> FetchApiKeyResult:
    """A new API key for the account (keys are stored hashed, so the old one can't be shown).
    Wrong passwords are limited per username and per source address (429 once used up)."""
    realm = get_realm_by_subdomain(subdomain) if subdomain else None
    if realm is None:
        raise ApiError("Log in at your organization's address "
                       f"(https://<subdomain>.{config.root_domain()}).")
    check_login_allowed(username, source_ip)
    user = get_user_by_email(realm.realm_id, username)
    if realm.deactivated:
        raise UnauthorizedError("This organization is deactivated",
                                code=ErrorCode.REALM_DEACTIVATED)
    if user is None or user.is_bot or not check_password(password, user.password_hash):
        record_auth_failure(username, source_ip)
        raise UnauthorizedError("That email and password do not match an account",
                                code=ErrorCode.AUTHENTICATION_FAILED)
    if not user.is_active:
        raise UnauthorizedError(ACCOUNT_DEACTIVATED, code=ErrorCode.USER_DEACTIVATED)
    api_key = add_api_key(user)
    note_first_login(user)
    # The real address: the one to authenticate with (as the reference answers).
    return {"api_key": api_key, "email": user.delivery_email, "user_id": user.user_id}


def add_api_key(user: User) -> str:
    """Issues the user a further API key (also for a resumed signup,
    actions/invitations/signup.py)."""
    api_key = new_api_key()
    key_hash = hash_api_key(api_key)
    def attempt() -> str:
        nonlocal user
        retired = _oldest_extra_key(user)
        condition = (User.is_active == True) & key_fields_current(user)
        user_actions: list[Action] = [User.extra_api_key_hashes.add({key_hash})]
        if retired is not None:
            # Each login adds a key; past the cap the oldest goes, as a session expiring.
            # (One update cannot both add to and delete from a set: set it whole, over
            # exactly the keys that were read.)
            held = set(user.extra_api_key_hashes or ())
            condition &= User.extra_api_key_hashes == held
            user_actions = [User.extra_api_key_hashes.set(held - {retired} | {key_hash})]
        try:
            with transaction() as tx:
                tx.save(api_key_record(key_hash, user, created=time.time_ns()),
                        condition=ApiKey.key_hash.does_not_exist())
                if retired is not None:
                    tx.delete(ApiKey(retired))
                tx.update(user, actions=user_actions, condition=condition)
        except TransactWriteError as error:
            if is_condition_failure(error):   # another login retired it first: read again
                user = User.get(user.realm_id, user.user_id)
                if not user.is_active:
                    raise UnauthorizedError(ACCOUNT_DEACTIVATED,
                                            code=ErrorCode.USER_DEACTIVATED) from None
            raise
        return api_key

    return retry_lost_races(attempt, conflict="Too many logins at once; try again.",
                            attempts=MAX_ATTEMPTS)


def _oldest_extra_key(user: User) -> str | None:
    """The extra key to retire before adding one, if the user holds the most allowed."""
    hashes = sorted(user.extra_api_key_hashes or ())
    if len(hashes) < MAX_EXTRA_API_KEYS:
        return None
    issued = {item.key_hash: item.created or 0 for item in ApiKey.batch_get(hashes)}
    return min(hashes, key=lambda h: (issued.get(h, -1), h))
