"""Direct members of user groups and their reverse index on users (`User.group_ids`): the
writes that change both in one transaction, split into consecutive ones when many users
change at once.

Every write of a group's direct members also updates each affected user's `group_ids` in
the same transaction; an addition is conditioned on the user being active, so a user
deactivated meanwhile makes it fail instead of joining (deactivation then finds every
group it must leave on the user item). A change naming more users than one transaction
holds is written in batches, each conditioned on the group's version the previous one
left and complete on its own with its events; a batch that lost a race leaves the earlier
ones committed and the caller reads again.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, TypedDict

from pynamodb.exceptions import TransactWriteError
from pynamodb.transactions import TransactWrite

from chalicelib.core.errors import ApiError
from chalicelib.delivery.outbox import Audience, add_event, to_realm
from chalicelib.models.base import (
    MAX_TRANSACTION_ITEMS,
    cancellation_reasons,
    transaction,
)
from chalicelib.models.races import LostRace, retry_lost_races
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import User

EVERYONE: Audience = to_realm()
MAX_MEMBERS_PER_REQUEST = 1000
# Beside a batch's users: the group's update and its add_members and remove_members events.
USERS_PER_TRANSACTION = MAX_TRANSACTION_ITEMS - 3
ATTEMPTS = 3   # reads and writes again when a concurrent change won

Batch = tuple[list[int], list[int]]   # users added, users removed


class UserGroupAddMembersEvent(TypedDict):
    type: Literal["user_group"]
    op: Literal["add_members"]
    group_id: int
    user_ids: list[int]


class UserGroupRemoveMembersEvent(TypedDict):
    type: Literal["user_group"]
    op: Literal["remove_members"]
    group_id: int
    user_ids: list[int]


def removed_members_event(group_id: int, user_ids: Sequence[int]
                          ) -> UserGroupRemoveMembersEvent:
    return {"type": "user_group", "op": "remove_members", "group_id": group_id,
            "user_ids": sorted(user_ids)}


def version_condition(group: UserGroup, *, deactivated_ok: bool = False) -> Any:
    """The group is at the version read (every change bumps it), and still active unless
    `deactivated_ok` (its members may change while deactivated, level 391)."""
    read = UserGroup.version.does_not_exist() if group.version is None else \
        UserGroup.version == group.version
    return read if deactivated_ok else read & (UserGroup.deactivated == False)


def lost_race(error: TransactWriteError) -> bool:
    """A condition failed, or DynamoDB cancelled the transaction for a concurrent one on
    the same item (users' items are written by other requests too): read and try again."""
    reasons = cancellation_reasons(error)
    return "ConditionalCheckFailed" in reasons or "TransactionConflict" in reasons


def check_users(realm_id: int, user_ids: list[int]) -> None:
    """Every id names an active user (bots included) of the realm: one BatchGet per 100."""
    if len(user_ids) > MAX_MEMBERS_PER_REQUEST:
        raise ApiError(f"Too many users: at most {MAX_MEMBERS_PER_REQUEST} at a time.")
    found = {u.user_id for u in User.batch_get([(realm_id, u) for u in set(user_ids)])
             if u.is_active}
    for user_id in user_ids:
        if user_id not in found:
            raise ApiError(f"No user with ID {user_id} exists")


def batches(added: Sequence[int], removed: Sequence[int], first_room: int) -> list[Batch]:
    """The users' changes in order, `first_room` of them in the first batch (which may
    carry other writes) and USERS_PER_TRANSACTION in each later one; at least one batch."""
    changes = [(user_id, True) for user_id in added] + [(user_id, False) for user_id in removed]
    result: list[Batch] = []
    room = max(first_room, 0)
    while changes or not result:
        chunk, changes = changes[:room], changes[room:]
        result.append(([u for u, add in chunk if add], [u for u, add in chunk if not add]))
        room = USERS_PER_TRANSACTION
    return result


def stage_users(tx: TransactWrite, realm_id: int, group_id: int, added: Sequence[int],
                removed: Sequence[int]) -> None:
    """The reverse index of one batch: added users gain the group (only while active),
    removed ones lose it."""
    for user_id in added:
        tx.update(User(realm_id, user_id), actions=[User.group_ids.add({group_id})],
                  condition=User.is_active == True)
    for user_id in removed:   # never creates an item for a user that does not exist
        tx.update(User(realm_id, user_id), actions=[User.group_ids.delete({group_id})],
                  condition=User.user_id.exists())


def stage_events(tx: TransactWrite, realm_id: int, group_id: int, added: Sequence[int],
                 removed: Sequence[int]) -> None:
    if added:
        event: UserGroupAddMembersEvent = {"type": "user_group", "op": "add_members",
                                           "group_id": group_id, "user_ids": sorted(added)}
        add_event(tx, realm_id, event, EVERYONE)
    if removed:
        add_event(tx, realm_id, removed_members_event(group_id, removed), EVERYONE)


def write_members(group: UserGroup, added: Sequence[int], removed: Sequence[int],
                  first_room: int = USERS_PER_TRANSACTION,
                  first: Callable[[TransactWrite, list[Any]], None] | None = None,
                  deactivated_ok: bool = False) -> bool:
    """Writes the change in batches (see the module docstring); `first` adds the request's
    other writes (and group update actions) to the first. Updates `group` as it goes.
    False when a batch lost a race: the batches before it stay committed."""
    realm_id, group_id = group.realm_id, group.group_id
    members = {int(u) for u in group.direct_members or ()}
    for index, (add_batch, remove_batch) in enumerate(batches(added, removed, first_room)):
        after = (members | set(add_batch)) - set(remove_batch)
        actions: list[Any] = [UserGroup.version.add(1)]
        if after != members:
            actions.append(UserGroup.direct_members.set(after) if after
                           else UserGroup.direct_members.remove())
        try:
            with transaction() as tx:
                stage_users(tx, realm_id, group_id, add_batch, remove_batch)
                stage_events(tx, realm_id, group_id, add_batch, remove_batch)
                if index == 0 and first is not None:
                    first(tx, actions)
                tx.update(group, actions=actions, condition=version_condition(
                    group, deactivated_ok=deactivated_ok))
        except TransactWriteError as error:
            if not lost_race(error):
                raise
            return False
        # The condition held, so the group is exactly what this batch made of it.
        group.version = (group.version or 0) + 1
        group.direct_members = after or None
        members = after
    return True


def join_group(realm_id: int, group_id: int, user_id: int) -> bool:
    """Adds a new user to an invited group; False (nothing written) when the group was
    deactivated, the user is already in it (a resumed signup) or was deactivated.

    ADD commutes with other changes; the version bump makes writers that set whole
    member sets from an older read try again."""
    def attempt() -> bool:
        try:
            with transaction() as tx:
                tx.update(UserGroup(realm_id, group_id),
                          actions=[UserGroup.direct_members.add({user_id}),
                                   UserGroup.version.add(1)],
                          condition=(UserGroup.deactivated == False)
                          & ~UserGroup.direct_members.contains(user_id))
                stage_users(tx, realm_id, group_id, [user_id], [])
                stage_events(tx, realm_id, group_id, [user_id], [])
        except TransactWriteError as error:
            reasons = cancellation_reasons(error)
            if "ConditionalCheckFailed" in reasons:
                return False   # a condition, not a race: nothing to join
            if "TransactionConflict" in reasons:
                raise LostRace() from None   # a concurrent transaction on an item
            raise
        return True

    return retry_lost_races(attempt, conflict="A user group changed meanwhile; try again.",
                            attempts=ATTEMPTS)
