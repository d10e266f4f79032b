"""Level 475: an account an administrator created through the API (POST /users), or an
import created (chalicelib.admin import-realm), joins when its owner first logs in:
date_joined becomes that time, and everyone who can see the user is told (a realm_user
update). Below the level, date_joined stays the time the account was created."""
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
    """After a successful login: the first one of an API-created account sets its
    date_joined (once: the write is conditioned on the mark it removes)."""
    if not user.joined_at_first_login or not level_reached(JOINED_AT_FIRST_LOGIN_LEVEL):
        return
    joined = now_seconds()
    event: RealmUserUpdateEvent = {"type": "realm_user", "op": "update", "person": {
        "user_id": user.user_id, "date_joined": iso_from_seconds(joined)}}
    try:
        with transaction() as tx:
            tx.update(user, actions=[User.date_joined.set(joined),
                                     User.joined_at_first_login.remove()],
                      condition=User.joined_at_first_login == True)
            add_event(tx, user.realm_id, dict(event), user_access_audience(user.user_id))
    except TransactWriteError as error:   # another login set it first
        if not is_condition_failure(error):
            raise
