"""The realm_user events a guest whom the organization limits (can_access_all_users_group)
gets when joining or leaving a channel, or a direct message, changes whom it may access:
`add` with each person it may now access, `remove` with each it may no longer access, so
its client shows and forgets them, as the reference tells it (its user-creation events on
adding subscriptions, its user-remove events on removing them, and on a first message).

Whether a guest accesses a person is asked of the one rule, limited_can_access
(actions/users/reads/access.py), before and after the change, for each pair the change
can alter: a guest and a person of whom at least one joins or leaves. What the rule
needs of a pair (another channel shared, a conversation) is symmetric, so it is read for
one side only (`Reach`): every guest joining or leaving, and either the guests staying
in the channel or those joining or leaving besides, whichever are fewer. Reads: nothing
for an organization that does not limit guests; else its guests (one Query a page, once
a request), the channel's subscribers (its member set) and, only when a guest takes
part, per user whose side is read its subscriptions and its conversations (a Query each,
side by side), their channels and member sets (100 to a BatchGetItem), and the people a
joining guest meets (100 to a BatchGetItem). Writes: one outbox record per
PERSONS_PER_RECORD people named, whatever the number of guests (its persons_by_receiver
fact: each guest's share), in the change's own transaction.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from pynamodb.transactions import TransactWrite

from chalicelib.actions.channels.reads.subscribers import subscriber_lists
from chalicelib.actions.users.reads.access import (
    INACCESSIBLE_USER_NAME,
    channel_ids,
    conversation_partner_ids,
    limited_can_access,
    realm_restricts_access,
)
from chalicelib.actions.users.reads.email_access import visibility_of
from chalicelib.actions.users.users import user_api_dict
from chalicelib.core.principal import ROLE_GUEST
from chalicelib.delivery.outbox import OutboxEntry, add_event, to_users
from chalicelib.models.base import transaction
from chalicelib.models.channels import Stream
from chalicelib.models.realms import Realm
from chalicelib.models.side_by_side import read_all, side_by_side
from chalicelib.models.users import User, role_key
from chalicelib.rules.email_visibility import role_sees

Op = Literal["add", "remove"]
Record = OutboxEntry   # an outbox record: event, audience and facts


class PersonsRecord(TypedDict):
    """A realm_user add or remove before the fan-out gives each receiver its people (the
    persons_by_receiver fact): the event each of them gets adds `person`."""

    type: Literal["realm_user"]
    op: Op
# People one outbox record names: a user record is half a kilobyte, a removal a tenth.
PERSONS_PER_RECORD: dict[Op, int] = {"add": 250, "remove": 2000}
MAX_TRANSACTION_ITEMS = 100


class RemovedPerson(TypedDict):
    user_id: int
    full_name: str   # "Unknown user", as the reference sends it (deprecated there)


class RealmUserRemoveEvent(TypedDict):
    """To a guest that may no longer access the person (since the reference's 228)."""

    type: Literal["realm_user"]
    op: Literal["remove"]
    person: RemovedPerson


@dataclass(frozen=True)
class Reach:
    """What the rule asks of one user, besides the channel changing: whom it shares
    another channel with, and whom it has a direct conversation with."""

    peers: frozenset[int]
    partners: frozenset[int]


def accesses(guest: int, person: User, reach: dict[int, Reach], together: bool) -> bool:
    """The rule for a limited guest and a person, from the reach of either (`together`:
    both subscribed to the channel changing)."""
    known = reach.get(guest)
    other = person.user_id if known is not None else guest
    side = known if known is not None else reach[person.user_id]
    return limited_can_access(guest, person, lambda: together or other in side.peers,
                              lambda: other in side.partners)


@dataclass
class GuestAccess:
    """What one request reads once for all its changes: the organization and its guests
    (none when it does not limit them)."""

    realm_id: int
    realm: Realm | None = None
    _guests: set[int] | None = field(default=None, repr=False)

    @classmethod
    def nobody(cls, realm_id: int) -> GuestAccess:
        """Nobody to tell (an organization being imported: no one listens yet)."""
        return cls(realm_id, _guests=set())

    def guests(self) -> set[int]:
        if self._guests is None:
            realm = self.realm if self.realm is not None else Realm.get_or_none(self.realm_id)
            self._guests = {int(u.user_id) for u in User.by_role.query(
                role_key(self.realm_id, ROLE_GUEST)) if u.is_active} \
                if realm_restricts_access(realm) else set()
        return self._guests

    def partners(self, user_ids: Iterable[int]) -> dict[int, frozenset[int]]:
        """Everyone each user has a direct conversation with (a Query each)."""
        users = sorted(user_ids)
        return dict(zip(users, side_by_side(lambda u: frozenset(
            conversation_partner_ids(self.realm_id, u)), users), strict=True))

    def channel_peers(self, user_ids: Iterable[int], channel_id: int | None = None
                      ) -> dict[int, frozenset[int]]:
        """Everyone each user shares a channel with, `channel_id` aside."""
        users = sorted(user_ids)
        channels = dict(zip(users, side_by_side(
            lambda u: channel_ids(self.realm_id, u) - {channel_id}, users), strict=True))
        wanted = sorted(set().union(*channels.values())) if channels else []
        streams = read_all(Stream, [(self.realm_id, s) for s in wanted])
        lists = subscriber_lists(self.realm_id, streams, True)
        return {u: frozenset(p for s in channels[u] if s in lists for p in lists[s].user_ids)
                for u in users}

    def reach(self, user_ids: Iterable[int], channel_id: int | None = None
              ) -> dict[int, Reach]:
        users = set(user_ids)
        if not users:
            return {}
        partners = self.partners(users)
        return {u: Reach(peers, partners[u])
                for u, peers in self.channel_peers(users, channel_id).items()}


def met_in_conversation(realm: Realm, participants: Sequence[User]) -> list[Record]:
    """The records telling each limited guest among a direct message's participants of
    those it may now access (a conversation introduces its people): nothing read unless
    a guest takes part in a realm limiting guests; then its conversations (one Query
    each) and, only when it meets someone new, its channels."""
    guests = {u.user_id for u in participants if u.role == ROLE_GUEST and u.is_active}
    if not guests or not realm_restricts_access(realm):
        return []
    access = GuestAccess(realm.realm_id, realm)
    people = {u.user_id: u for u in participants}
    partners = access.partners(guests)
    # Someone it talked with already it accessed already: only the others may change.
    new = {g for g in guests if set(people) - partners[g] - {g}}
    before = {g: Reach(peers, partners[g]) for g, peers in access.channel_peers(new).items()}
    after = {g: Reach(r.peers, r.partners | set(people)) for g, r in before.items()}
    changes = {g: {p for p in people if p != g and accesses(g, people[p], after, False)
                   and not accesses(g, people[p], before, False)} for g in new}
    return access_records("add", changes, people)


def access_records(op: Op, changes: dict[int, set[int]], people: dict[int, User]
                   ) -> list[Record]:
    """The outbox records telling each guest its changes, PERSONS_PER_RECORD people a
    record."""
    named = sorted({p for persons in changes.values() for p in persons})
    records = []
    size = PERSONS_PER_RECORD[op]
    for start in range(0, len(named), size):
        part = set(named[start:start + size])
        receivers = {str(g): sorted(part & persons) for g, persons in changes.items()
                     if part & persons}
        shown = {str(p): _person(op, people[p]) for p in sorted(part)}
        event: PersonsRecord = {"type": "realm_user", "op": op}
        records.append(OutboxEntry(event, to_users(sorted(int(g) for g in receivers)), {
            "persons_by_receiver": {"persons": shown, "receivers": receivers}}))
    return records


def add_records(tx: TransactWrite, realm_id: int, records: list[Record], room: int
                ) -> list[Record]:
    """Adds to the change's transaction as many records as it has room for; returns the
    rest (a guest joining a channel of thousands), for write_records after it."""
    for record in records[:room]:
        add_event(tx, realm_id, *record)
    return records[room:]


def write_records(realm_id: int, records: list[Record]) -> None:
    """Records that did not fit in their change's transaction, in transactions of their
    own right after it."""
    for start in range(0, len(records), MAX_TRANSACTION_ITEMS):
        with transaction() as tx:
            for record in records[start:start + MAX_TRANSACTION_ITEMS]:
                add_event(tx, realm_id, *record)


def _person(op: Op, user: User) -> dict[str, Any]:
    if op == "remove":
        removed: RemovedPerson = {"user_id": user.user_id, "full_name": INACCESSIBLE_USER_NAME}
        return dict(removed)
    # As a guest sees them: the real address only where the person shows it to guests.
    shown = dict(user_api_dict(user, viewer=None))
    if not role_sees(ROLE_GUEST, visibility_of(user)):
        shown["delivery_email"] = None
    return shown


class ChannelAccessChanges:
    """One channel's subscription change, transaction by transaction: the records each
    carries (`next`), from what was read once at the start."""

    def __init__(self, access: GuestAccess, stream: Stream, users: Sequence[User],
                 op: Op, *, new: bool = False) -> None:
        """`new`: a channel being created, of no subscribers yet."""
        self.op = op
        self.subscribers: set[int] = set()
        self.guests: set[int] = set()
        self.reach: dict[int, Reach] = {}
        self.people: dict[int, User] = {u.user_id: u for u in users}
        all_guests = access.guests()
        if not all_guests:
            return
        stream_id = stream.stream_id
        if not new:
            self.subscribers = set(subscriber_lists(access.realm_id, [stream], True)[
                stream_id].user_ids)
        changing = set(self.people)
        self.guests = (self.subscribers | changing) & all_guests
        if not self.guests:
            return
        moving_guests = self.guests & changing
        staying_guests = self.guests - changing
        others = changing - moving_guests   # the other side of the staying guests' pairs
        read = moving_guests | (staying_guests if len(staying_guests) <= len(others)
                                else others)
        self.reach = access.reach(read, stream_id)
        if moving_guests:   # a guest joining or leaving meets everyone there
            missing = sorted(self.subscribers - changing)
            self.people.update((u.user_id, u) for u in read_all(
                User, [(access.realm_id, i) for i in missing]))

    def next(self, chunk: Sequence[User]) -> list[Record]:
        """The records of the transaction that subscribes (or unsubscribes) `chunk`."""
        if not self.guests:
            return []
        ids = {u.user_id for u in chunk}
        before = self.subscribers
        after = before | ids if self.op == "add" else before - ids
        changes: dict[int, set[int]] = {}
        for guest in sorted(self.guests & (before | after)):
            candidates = (before | after) if guest in ids else ids
            changed = {p for p in candidates - {guest} if self._changes(guest, p, before, after)}
            if changed:
                changes[guest] = changed
        self.subscribers = after
        return access_records(self.op, changes, self.people)

    def _changes(self, guest: int, person_id: int, before: set[int], after: set[int]
                 ) -> bool:
        """Whether the change gives (add) or takes (remove) the guest access to them."""
        person = self.people.get(person_id)
        if person is None:
            return False
        had = accesses(guest, person, self.reach, guest in before and person_id in before)
        has = accesses(guest, person, self.reach, guest in after and person_id in after)
        return has and not had if self.op == "add" else had and not has
