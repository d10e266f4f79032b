"""PATCH /settings (§4.2): validate, write what changed in one transaction, tell clients."""
from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.users.account import (
    check_email_change,
    check_new_password,
    full_name_writes,
    start_email_change,
)
from chalicelib.actions.users.email_visibility import (
    AddressWrites,
    presence_follows,
    visibility_writes,
)
from chalicelib.actions.users.reads.access import user_access_audience
from chalicelib.actions.users.reads.email_access import SETTING as EMAIL_SETTING
from chalicelib.actions.users.reads.events import RealmUserUpdateEvent
from chalicelib.actions.users.users import check_full_name, get_own_user
from chalicelib.core.errors import ApiError, ConflictError
from chalicelib.core.feature_levels import withheld
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import OutboxEntry, add_event, to_users
from chalicelib.delivery.queues import set_receives_typing_notifications
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.drafts import delete_all_drafts
from chalicelib.models.presence import set_presence_hidden
from chalicelib.models.users import User
from chalicelib.rules.passwords import hash_password
from chalicelib.rules.setting_choices import (
    check_setting,
    language_name,
    shown_setting,
)
from chalicelib.rules.user_settings import own_settings


class UserSettingsUpdateEvent(TypedDict):
    type: Literal["user_settings"]
    op: Literal["update"]
    property: str
    value: bool | int | str
    language_name: NotRequired[str]   # only for default_language: the English name


def update_own_settings(caller: Principal, account: dict[str, str | None],
                        requested: dict[str, Any]) -> EmptyResult:
    """PATCH /settings: everything is checked first; then the name, password and settings
    change with their events in one transaction; then what follows from them."""
    if caller.is_bot:   # a bot's settings are its owner's business (PATCH /bots/{id})
        raise ApiError("Bots cannot use this endpoint.")
    for name, value in requested.items():
        check_setting(name, value)
    requested = {name: shown_setting(name, value) for name, value in requested.items()}
    user = get_own_user(caller)
    full_name = account["full_name"]
    if full_name is not None:
        full_name = check_full_name(full_name)
    check_new_password(account["old_password"], account["new_password"], user)
    new_email = account["email"]
    if new_email is not None:
        new_email = check_email_change(caller, user, new_email)
    _write(caller, user, requested, full_name, account["new_password"])
    # What follows is done whenever asked, changed or not, so the same request again
    # finishes what a request that died after the write left undone.
    if EMAIL_SETTING in requested:
        presence_follows(caller.realm_id, caller.user_id, get_own_user(caller).email)
    if "receives_typing_notifications" in requested:
        set_receives_typing_notifications(caller.realm_id, caller.user_id,
                                          requested["receives_typing_notifications"])
    if requested.get("enable_drafts_synchronization") is False:
        # As the reference: the drafts go without events (deleting one by one is for DELETE).
        delete_all_drafts(caller.realm_id, caller.user_id)
    if new_email is not None:   # only once the rest is stored: the email cannot be unsent
        start_email_change(caller, user, new_email)
    return {}


def do_update_settings(caller: Principal, requested: dict[str, Any]) -> EmptyResult:
    """Settings only (no account changes), as PATCH /settings writes them."""
    return update_own_settings(caller, dict.fromkeys(
        ("full_name", "email", "old_password", "new_password")), requested)


def _write(caller: Principal, user: User, requested: dict[str, Any], full_name: str | None,
           new_password: str | None) -> None:
    """One update of the user item, with an event for each setting that changed."""
    current = own_settings(user.stored_settings(), user.timezone)
    changed = {name: value for name, value in requested.items() if current.get(name) != value}
    condition = User.user_id.exists()
    # A setting the advertised level does not know yet changes without an event.
    events: list[OutboxEntry] = [
        settings_event(caller, name, value) for name, value in changed.items()
        if name not in withheld("user_setting")]
    # One path per setting (every user is created with the map): concurrent requests
    # changing other settings keep theirs.
    actions: list[Any] = [User.settings[name].set(value) for name, value in changed.items()]
    if changed:   # chosen by the user: a bulk change may leave it (bulk_settings.py)
        actions.append(User.self_edited_settings.add(set(changed)))
    if "timezone" in changed:
        actions.append(User.timezone.set(changed["timezone"]))
        timezone: RealmUserUpdateEvent = {"type": "realm_user", "op": "update", "person": {
            "user_id": caller.user_id, "email": caller.email,
            "timezone": changed["timezone"]}}
        events.append(OutboxEntry(timezone, user_access_audience(caller.user_id)))
    if full_name is not None:
        name_actions, name_events = full_name_writes(caller, user, full_name)
        actions += name_actions
        events += [OutboxEntry(event, user_access_audience(caller.user_id))
                   for event in name_events]
    if new_password is not None:
        actions.append(User.password_hash.set(hash_password(new_password)))
        # The old password was checked against this hash.
        condition &= User.password_hash == user.password_hash
    address = visibility_writes(user, changed[EMAIL_SETTING]) if EMAIL_SETTING in changed \
        else AddressWrites()
    actions += address.actions
    events += address.events
    if address.condition is not None:
        condition &= address.condition
    if not actions:
        return
    try:
        with transaction() as tx:
            tx.update(User(caller.realm_id, caller.user_id), actions=actions,
                      condition=condition)
            address.add_key_updates(tx, user)
            if "presence_enabled" in changed:   # the presence table hides them too
                set_presence_hidden(tx, caller.realm_id, caller.user_id,
                                    not changed["presence_enabled"])
            for entry in events:
                add_event(tx, caller.realm_id, *entry)
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ConflictError("Your account changed meanwhile; try again.") from None
        raise


def settings_event(caller: Principal, name: str, value: bool | int | str) -> OutboxEntry:
    """The user_settings event of one changed setting, for the user's own queues."""
    event: UserSettingsUpdateEvent = {"type": "user_settings", "op": "update",
                                      "property": name, "value": value}
    if name == "default_language":
        event["language_name"] = language_name(str(value))
    # For the deprecated forms the fan-out derives for old clients (delivery/filters.py).
    return OutboxEntry(event, to_users([caller.user_id]), {"user_email": caller.email})
