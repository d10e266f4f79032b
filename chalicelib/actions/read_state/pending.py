"""Writes of the read state of messages in flight: a reader recorded before the fan-out
(`read_in_flight`), and the fan-out's end of a message's flight (`settle_delivery`).
How readers see messages in flight: actions/read_state/reads/pending.py."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pynamodb.exceptions import TransactWriteError
from pynamodb.expressions.update import Action
from pynamodb.transactions import TransactWrite

from chalicelib.models.base import transaction
from chalicelib.models.channels import user_key
from chalicelib.models.message_flags import UnreadMessage
from chalicelib.models.pending_deliveries import PendingDelivery
from chalicelib.models.races import retry_lost_races


def read_in_flight(pending: PendingDelivery, user_id: int, read: bool
                   ) -> Callable[[TransactWrite], None]:
    """A transaction item: adds the user to (or removes them from) the message's early
    readers, only while the fan-out has not finished it."""
    item = PendingDelivery(pending.realm_id, pending.message_id)
    listed = PendingDelivery.read_by.contains(user_id)
    condition: Any = PendingDelivery.message_id.exists() & (
        (PendingDelivery.read_by.does_not_exist() | ~listed) if read else listed)
    actions: list[Action] = [PendingDelivery.read_by.add({user_id}) if read
               else PendingDelivery.read_by.delete({user_id}),
               PendingDelivery.changes.add(1)]

    def write(tx: TransactWrite) -> None:
        tx.update(item, actions=actions, condition=condition)
    return write


SETTLE_ATTEMPTS = 10
SETTLED_PER_TRANSACTION = 100   # DynamoDB's limit of items in one transaction
MarkerOf = Callable[[int], UnreadMessage | None]


def settle_delivery(realm_id: int, message_id: int,
                    marker_of: Callable[[int], UnreadMessage | None]) -> None:
    """Ends a message's flight once the fan-out has written its markers: deletes the
    markers of those who marked it read meanwhile, then the pending item, conditioned on
    its early readers being those just handled (a reader who came or left meanwhile is
    handled on the next round; `marker_of(user_id)` rebuilds the marker of one who left
    after theirs was deleted). Safe to repeat: a settled message has no pending item."""
    deleted: set[int] = set()
    def attempt() -> None:
        nonlocal deleted
        item = PendingDelivery.get_or_none(realm_id, message_id)
        if item is None:
            return
        readers = set(item.read_by or ())
        restored = [m for m in (marker_of(u) for u in sorted(deleted - readers))
                    if m is not None]
        with UnreadMessage.batch_write() as batch:
            for user_id in sorted(readers - deleted):
                batch.delete(UnreadMessage(user_key(realm_id, user_id), message_id))
            for marker in restored:
                batch.save(marker)
        deleted = readers
        item.delete(condition=_unchanged(item))

    retry_lost_races(attempt, conflict="Early readers of a message kept changing; the "
                     "fan-out retries.", attempts=SETTLE_ATTEMPTS)


def settle_deliveries(settles: Sequence[tuple[int, int, MarkerOf]]) -> None:
    """`settle_delivery` for many messages (realm id, message id, marker_of) in a few
    requests: one read of their pending items, then the items nobody read early are
    deleted in transactions of conditional deletes (the same condition as one by one).
    A message someone read early, or whose transaction was refused (a reader came
    meanwhile), goes through `settle_delivery`."""
    if not settles:
        return
    by_key = {(realm_id, message_id): marker_of for realm_id, message_id, marker_of in settles}
    items = list(PendingDelivery.batch_get(list(by_key), consistent_read=True))
    alone = [item for item in items if item.read_by]
    unread = [item for item in items if not item.read_by]
    for start in range(0, len(unread), SETTLED_PER_TRANSACTION):
        chunk = unread[start:start + SETTLED_PER_TRANSACTION]
        try:
            with transaction() as tx:
                for item in chunk:
                    tx.delete(item, condition=_unchanged(item))
        except TransactWriteError:
            alone += chunk
    for item in alone:
        key = (item.realm_id, item.message_id)
        settle_delivery(key[0], key[1], by_key[key])


def _unchanged(item: PendingDelivery) -> Any:
    return (PendingDelivery.changes.does_not_exist() if item.changes is None
            else PendingDelivery.changes == item.changes)
