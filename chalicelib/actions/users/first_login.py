"""A person's first login, and what it changes for an account made for them.

Level 433: an imported account is a stub until then (is_imported_stub). Level 475: an
account an administrator created through the API (POST /users), or an import created
(chalicelib.admin import-realm), joins at that time: date_joined becomes it. Either way
everyone who can see the user is told (a realm_user update). Below the levels, the stub
mark is not shown and date_joined stays the time the account was created."""
from __future__ import annotations

from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.users.reads.access import user_access_audience
from chalicelib.actions.users.reads.events import RealmUserUpdateEvent
from chalicelib.core.feature_levels import level_reached
from chalicelib.delivery.outbox import add_event
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.users import User
from chalicelib.rules.timeutil import iso_from_seconds, now_seconds

JOINED_AT_FIRST_LOGIN_LEVEL = 475


def note_first_login(user: User) -> None:
    """After a successful login: an imported stub is claimed, and the first login of an
    API-created account sets its date_joined (each once: its write is conditioned on the
    mark it removes, so a concurrent login finds it done)."""
    if user.is_imported_stub:
        _claim_imported_account(user)
    if user.joined_at_first_login and level_reached(JOINED_AT_FIRST_LOGIN_LEVEL):
        _set_date_joined(user)


def _set_date_joined(user: User) -> None:
    joined = now_seconds()
    event: RealmUserUpdateEvent = {"type": "realm_user", "op": "update", "person": {
        "user_id": user.user_id, "date_joined": iso_from_seconds(joined)}}
    try:
        with transaction() as tx:
            tx.update(user, actions=[User.date_joined.set(joined),
                                     User.joined_at_first_login.remove()],
                      condition=User.joined_at_first_login == True)
            add_event(tx, user.realm_id, event, user_access_audience(user.user_id))
    except TransactWriteError as error:   # another login set it first
        if not is_condition_failure(error):
            raise


def _claim_imported_account(user: User) -> None:
    event: RealmUserUpdateEvent = {"type": "realm_user", "op": "update", "person": {
        "user_id": user.user_id, "is_imported_stub": False}}
    try:
        with transaction() as tx:
            tx.update(user, actions=[User.is_imported_stub.remove()],
                      condition=User.is_imported_stub == True)
            if level_reached(433):
                add_event(tx, user.realm_id, event, user_access_audience(user.user_id))
    except TransactWriteError as error:   # another login claimed it first
        if not is_condition_failure(error):
            raise
