"""Changing who sees a person's real address (the email_address_visibility setting, in
PATCH /settings) and what follows a change of their API address.

The writes join the settings transaction: the setting, the API address when it moves
between the real address and the stand-in (only a change to or from "everyone" moves
it), each API-key record's copy of it, and the events, as the reference sends them:
the real address (or null) to each viewer whose access to it changed (the fan-out
decides per queue, actions/users/reads/email_access.email_form), and, when the API
address moved, the new one and the picture made from it to everyone who can access
the person. The stored presence keeps the API address for legacy clients; it follows
once the change is committed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pynamodb.exceptions import UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.transactions import TransactWrite

from chalicelib.actions.users.reads.access import user_access_audience
from chalicelib.actions.users.reads.email_access import api_email, visibility_of
from chalicelib.actions.users.reads.events import RealmUserUpdateEvent
from chalicelib.delivery.outbox import OutboxEntry
from chalicelib.models.base import is_write_condition_failure
from chalicelib.models.presence import Presence
from chalicelib.models.realms import get_realm
from chalicelib.models.users import ApiKey, User, key_fields_current, key_set_current
from chalicelib.rules.avatars import AVATAR_SOURCE_GRAVATAR, AVATAR_SOURCE_JDENTICON, gravatar_url
from chalicelib.rules.email_visibility import EVERYONE


@dataclass
class AddressWrites:
    """What a change adds to the transaction that changes the user item."""

    actions: list[Any] = field(default_factory=list)          # on the user item
    condition: Condition | None = None                        # on the user item
    events: list[OutboxEntry] = field(default_factory=list)
    new_api_email: str | None = None   # set when the API address moves

    def add_key_updates(self, tx: TransactWrite, user: User) -> None:
        """Each API-key record's copy of the API address, when it moves."""
        if self.new_api_email is None:
            return
        shown = None if self.new_api_email == user.delivery_email else self.new_api_email
        for key_hash in [user.api_key_hash, *sorted(user.extra_api_key_hashes or ())]:
            tx.update(ApiKey(key_hash), actions=[
                ApiKey.api_email.set(shown) if shown else ApiKey.api_email.remove()],
                condition=ApiKey.key_hash.exists())


def visibility_writes(user: User, new: int) -> AddressWrites:
    """The writes and events of the user changing their setting to `new` (a bot's
    setting never changes: PATCH /settings refuses bots)."""
    old = visibility_of(user)
    writes = AddressWrites()
    if new == old:
        return writes
    changed: RealmUserUpdateEvent = {"type": "realm_user", "op": "update", "person": {
        "user_id": user.user_id, "delivery_email": user.delivery_email}}
    writes.events.append(OutboxEntry(changed, user_access_audience(user.user_id), {
        "email_visibility": new, "email_visibility_was": old}))
    if EVERYONE not in (old, new):
        return writes   # the stand-in stays (no read of the organization's host)
    shown = api_email(user.user_id, user.delivery_email, new,
                      get_realm(user.realm_id).subdomain)
    if shown != user.email:
        writes.new_api_email = shown
        writes.actions.append(User.email.set(shown))
        # Keys issued or changed meanwhile would keep the old address: none may be.
        writes.condition = key_set_current(user) & key_fields_current(user)
        writes.events += api_email_events(user, shown)
    return writes


def api_email_events(user: User, new_api_email: str) -> list[OutboxEntry]:
    """The new API address and the picture made from it, for everyone who can access
    the person."""
    version = user.avatar_version
    renamed: RealmUserUpdateEvent = {"type": "realm_user", "op": "update", "person": {
        "user_id": user.user_id, "new_email": new_api_email}}
    pictured: RealmUserUpdateEvent = {"type": "realm_user", "op": "update", "person": {
        "user_id": user.user_id, "avatar_source": AVATAR_SOURCE_GRAVATAR,
        "avatar_url": gravatar_url(new_api_email, version),
        "avatar_url_medium": gravatar_url(new_api_email, version, medium=True),
        "avatar_version": version}}
    audience = user_access_audience(user.user_id)
    if user.avatar_source == AVATAR_SOURCE_JDENTICON:   # not drawn from the address
        return [OutboxEntry(renamed, audience)]
    return [OutboxEntry(renamed, audience), OutboxEntry(pictured, audience)]


def delivery_email_event(user: User, new_email: str) -> OutboxEntry:
    """A new real address, for those who may see it (the fan-out decides per queue)."""
    changed: RealmUserUpdateEvent = {"type": "realm_user", "op": "update", "person": {
        "user_id": user.user_id, "delivery_email": new_email}}
    return OutboxEntry(changed, user_access_audience(user.user_id),
                       {"email_visibility": visibility_of(user)})


def presence_follows(realm_id: int, user_id: int, new_api_email: str) -> None:
    """The stored presence's copy of the API address (legacy presence is keyed by it);
    no item, nothing to do."""
    try:
        Presence(realm_id, user_id).update(actions=[Presence.email.set(new_api_email)],
                                           condition=Presence.email.exists())
    except UpdateError as error:
        if not is_write_condition_failure(error):
            raise

