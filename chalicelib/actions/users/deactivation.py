"""DELETE /users/{id} (§4.19) and POST /users/{id}/reactivate.

Deactivating writes, in one transaction, the user's flag, every API-key record (so the
next request is refused) and the realm_user event (for an owner, with a check that
another owner stays active), conditioned on the user's groups (`User.group_ids`) being
those read; then removes the user from those groups in batches (each batch with its
events and the user's reverse index), tells the peers of the user's channels
(peer_remove), deactivates the bots they own, deletes their event queues and sends the
optional notification email. Group additions are
conditioned on the user being active, so once the flag is written the groups read are
all the user is in: no Query of the realm's groups. The steps after the flag can be
repeated: if a request dies midway, deactivating the user again finishes them.
"""
from __future__ import annotations

from typing import Any, Literal, TypedDict

from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.groups.membership import (
    EVERYONE,
    lost_race,
    removed_members_event,
)
from chalicelib.actions.users.reads.access import user_access_audience
from chalicelib.actions.users.reads.events import RealmUserUpdateEvent
from chalicelib.actions.users.reads.users import access_user_by_id
from chalicelib.aws.email import send_email
from chalicelib.aws.log import logger
from chalicelib.core.errors import NOT_PERMITTED, OWNER_REQUIRED, ApiError, ErrorCode
from chalicelib.core.feature_levels import level_reached
from chalicelib.core.principal import ROLE_OWNER, Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import Audience, add_event, to_channel, to_realm, to_users
from chalicelib.delivery.queues import delete_queue, queues_of_users
from chalicelib.delivery.records import (
    OUTGOING_WEBHOOK_RECORD,
    SENDER_DELETION_JOB,
    SenderDeletionJob,
)
from chalicelib.delivery.types import EventBody
from chalicelib.models.base import (
    MAX_TRANSACTION_ITEMS,
    cancellation_reasons,
    is_condition_failure,
    transaction,
)
from chalicelib.models.channels import Stream, Subscription, user_key
from chalicelib.models.presence import forget_presence
from chalicelib.models.races import LostRace, retry_lost_races
from chalicelib.models.rate_limits import check_email_allowed
from chalicelib.models.realms import Realm, get_realm
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import ApiKey, User, bot_owner_key, name_key, role_key

MAX_COMMENT_LENGTH = 2000



GROUPS_PER_TRANSACTION = 45   # each group is one update and one event; plus the user
MAX_ATTEMPTS = 3
DELETED_USER_NAME = "Deleted user"
DEACTIVATION_ACTIONS_LEVEL = 459


class DeactivationActions(TypedDict, total=False):
    """What DELETE /users/{id} does beside deactivating (level 459), in the same
    transaction: the profile's name replaced, and a job deleting the user's messages of
    the kinds asked (actions/messages/sender_deletion.py)."""

    delete_profile: bool
    delete_public_channel_messages: bool
    delete_private_channel_messages: bool
    delete_direct_messages: bool


_MESSAGE_KINDS = {"delete_public_channel_messages": "public",
                  "delete_private_channel_messages": "private",
                  "delete_direct_messages": "direct"}


# The user's update actions, and the outbox records with their audiences.
Writes = tuple[list[Any], list[tuple[EventBody, Audience]]]


def _action_writes(caller: Principal, user: User, actions: DeactivationActions) -> Writes:
    """The user's update actions and the outbox records (events, job) of the actions."""
    updates: list[Any] = []
    records: list[tuple[EventBody, Audience]] = []
    if actions.get("delete_profile") and user.full_name != DELETED_USER_NAME:
        # Every avatar here is the Gravatar of the API address: nothing uploaded to remove.
        updates += [User.full_name.set(DELETED_USER_NAME),
                    User.name_key.set(name_key(user.realm_id, DELETED_USER_NAME))]
        event: RealmUserUpdateEvent = {"type": "realm_user", "op": "update", "person": {
            "user_id": user.user_id, "full_name": DELETED_USER_NAME}}
        records.append((event, user_access_audience(user.user_id)))
    kinds = [kind for name, kind in _MESSAGE_KINDS.items() if actions.get(name)]
    if kinds:
        job: SenderDeletionJob = {
            "type": OUTGOING_WEBHOOK_RECORD, "job": SENDER_DELETION_JOB,
            "realm_id": user.realm_id, "user_id": user.user_id, "actor_id": caller.user_id,
            "kinds": kinds}
        records.append((job, to_users([])))
    return updates, records


def key_hashes(user: User) -> list[str]:
    return [user.api_key_hash, *sorted(user.extra_api_key_hashes or ())]


def do_deactivate_user(caller: Principal, user_id: int,
                       deactivation_notification_comment: str | None,
                       actions: DeactivationActions | None = None) -> EmptyResult:
    """`actions` (level 459; ignored below it) are done with the deactivation, atomically."""
    if not caller.is_admin:
        raise ApiError(NOT_PERMITTED)
    if not level_reached(DEACTIVATION_ACTIONS_LEVEL):
        actions = None
    comment = (deactivation_notification_comment or "").strip()
    def attempt() -> User:
        target = _deactivation_target(caller, user_id, comment)
        try:
            _deactivate(target, _action_writes(caller, target, actions or {}))
        except _UserChanged:
            raise LostRace() from None   # e.g. added to a group meanwhile: read the user again
        return target

    target = retry_lost_races(attempt, conflict="The user changed meanwhile; reload and try "
                              "again.", attempts=MAX_ATTEMPTS)
    _finish_deactivation(target)
    if deactivation_notification_comment is not None:
        _notify(get_realm(caller.realm_id), target, comment)
    return {}


def _deactivation_target(caller: Principal, user_id: int, comment: str) -> User:
    target = access_user_by_id(caller, user_id, allow_bots=False)
    if target.role == ROLE_OWNER and not caller.is_owner:
        raise ApiError(OWNER_REQUIRED)
    if not target.is_active:
        _finish_deactivation(target)   # in case an earlier request died after the flag
        raise ApiError("User is already deactivated")
    if len(comment) > MAX_COMMENT_LENGTH:
        raise ApiError("deactivation_notification_comment is over the limit of "
                       f"{MAX_COMMENT_LENGTH} characters")
    return target


def do_reactivate_user(caller: Principal, user_id: int) -> EmptyResult:
    if not caller.is_admin:
        raise ApiError(NOT_PERMITTED)
    target = access_user_by_id(caller, user_id)
    if target.is_active:
        raise ApiError("User is already active")
    _set_active(target, True)
    tell_channel_peers(target, joined=True)
    return {}


def _other_active_owner(realm_id: int, user_id: int) -> int | None:
    """Another active owner, from the index of owners (not the whole realm)."""
    for owner in User.by_role.query(role_key(realm_id, ROLE_OWNER)):
        if owner.user_id != user_id and owner.is_active:
            return int(owner.user_id)
    return None


def _deactivate_owner(target: User, extra: Writes | None = None) -> None:
    """An owner goes only while another stays: the transaction checks that the other
    owner is still an active owner, so two owners deactivating each other at the same
    time cannot both succeed (the index may lag; the check reads the user itself)."""
    def attempt() -> None:
        other = _other_active_owner(target.realm_id, target.user_id)
        if other is None:
            raise ApiError("The organization's only owner cannot be deactivated")
        _set_active(target, False, keep_owner=other, extra=extra)

    retry_lost_races(attempt, conflict="The organization's owners changed meanwhile; reload "
                     "and try again.", attempts=MAX_ATTEMPTS)


class _OwnerGone(LostRace):
    """The owner counted on to stay was deactivated (or demoted) meanwhile."""


class _UserChanged(Exception):
    """The user's groups (or state) changed between the read and the deactivation. Not a
    LostRace: the owner's retry would try again with the same stale user; the callers
    that read the user retry on it."""


def _set_active(user: User, active: bool, keep_owner: int | None = None,
                extra: Writes | None = None) -> None:
    """`extra`: more of the user's update actions and outbox records, in the same
    transaction (a deactivation's actions)."""
    updates, records = extra or ([], [])
    condition = User.is_active == (not active)
    if not active and not user.is_bot:
        # The groups to leave are those read: an addition committed since fails this.
        groups = set(user.group_ids or ())
        condition &= (User.group_ids == groups) if groups else User.group_ids.does_not_exist()
    try:
        with transaction() as tx:
            if keep_owner is not None:   # condition checks are a transaction's first items
                tx.condition_check(User, user.realm_id, keep_owner, condition=(
                    (User.role == ROLE_OWNER) & (User.is_active == True)))
            tx.update(user, actions=[User.is_active.set(active), *updates],
                      condition=condition)
            for record, audience in records:
                add_event(tx, user.realm_id, record, audience)
            for key_hash in key_hashes(user):
                tx.update(ApiKey(key_hash), actions=[ApiKey.is_active.set(active)],
                          condition=ApiKey.key_hash.exists())
            event: RealmUserUpdateEvent = {"type": "realm_user", "op": "update", "person": {
                "user_id": user.user_id, "is_active": active}}
            add_event(tx, user.realm_id, event, user_access_audience(user.user_id))
    except TransactWriteError as error:
        reasons = cancellation_reasons(error)
        if keep_owner is not None and reasons and reasons[0] == "ConditionalCheckFailed":
            raise _OwnerGone() from None
        if not active and not user.is_bot and lost_race(error):
            raise _UserChanged() from None   # reading the user again tells what changed
        if is_condition_failure(error):
            raise ApiError("The user was (de)activated meanwhile; reload and try again.") \
                from None
        raise


def _finish_deactivation(user: User) -> None:
    """What follows the flag, each step safe to repeat: tell the user's channels, leave
    the groups, deactivate the bots the user owns, delete the user's event queues."""
    tell_channel_peers(user, joined=False)
    _leave_groups(user)
    for bot in User.by_bot_owner.query(bot_owner_key(user.realm_id, user.user_id)):
        if bot.is_active:
            try:
                _set_active(bot, False)
            except ApiError:
                pass   # (de)activated meanwhile by someone else: theirs stands
    for queue in queues_of_users(user.realm_id, [user.user_id]):
        delete_queue(queue)
    forget_presence(user.realm_id, user.user_id)


class PeerChange(TypedDict):
    """The shape of the channels area's peer_add and peer_remove events (its
    subscriptions.py and unsubscribe.py declare them; that area sits above this one)."""

    type: Literal["subscription"]
    op: Literal["peer_add", "peer_remove"]
    stream_ids: list[int]
    user_ids: list[int]


def tell_channel_peers(user: User, *, joined: bool) -> None:
    """peer_remove (deactivated) or peer_add (reactivated) for every channel the user is
    subscribed to, archived ones included (levels 377, 428): one event for the public
    channels to the organization, one per private channel to its subscribers, in
    transactions of at most 100 (a repeat only tells the same again)."""
    subscribed = [int(s.stream_id) for s in Subscription.query(
        user_key(user.realm_id, user.user_id), attributes_to_get=["stream_id", "active"])
        if s.active]
    if not subscribed:
        return
    streams = Stream.batch_get([(user.realm_id, i) for i in subscribed],
                               attributes_to_get=["stream_id", "invite_only"])
    private = sorted(int(s.stream_id) for s in streams if s.invite_only)
    public = sorted(set(subscribed) - set(private))
    op: Literal["peer_add", "peer_remove"] = "peer_add" if joined else "peer_remove"
    told: list[tuple[list[int], Audience]] = [([i], to_channel(i, public=False))
                                              for i in private]
    if public:
        told.append((public, to_realm()))
    for start in range(0, len(told), MAX_TRANSACTION_ITEMS):
        with transaction() as tx:
            for stream_ids, audience in told[start:start + MAX_TRANSACTION_ITEMS]:
                event: PeerChange = {"type": "subscription", "op": op,
                                          "stream_ids": stream_ids, "user_ids": [user.user_id]}
                add_event(tx, user.realm_id, event, audience)


def _leave_groups(user: User) -> None:
    """Removes the deactivated user from every group on their item, in batches, each with
    its events and the user's reverse index. Nothing can add the user any more; a
    concurrent removal makes a batch fail, and the user is read again for what is left."""
    realm_id, user_id = user.realm_id, user.user_id
    def attempt() -> None:
        nonlocal user
        try:
            pending = sorted(int(g) for g in user.group_ids or ())
            for start in range(0, len(pending), GROUPS_PER_TRANSACTION):
                batch = pending[start:start + GROUPS_PER_TRANSACTION]
                with transaction() as tx:
                    for group_id in batch:
                        # The version bump makes writers of whole member sets read again.
                        tx.update(UserGroup(realm_id, group_id), actions=[
                            UserGroup.direct_members.delete({user_id}),
                            UserGroup.version.add(1)],
                            condition=UserGroup.direct_members.contains(user_id))
                        add_event(tx, realm_id, removed_members_event(group_id, [user_id]),
                                  EVERYONE)
                    tx.update(user, actions=[User.group_ids.delete(set(batch))])
        except TransactWriteError as error:
            if not lost_race(error):
                raise
            user = User.get(realm_id, user_id)
            raise LostRace() from None

    retry_lost_races(attempt, conflict="The user's groups changed meanwhile; some may "
                     "remain until the user is deactivated again.", attempts=MAX_ATTEMPTS)


def _notify(realm: Realm, user: User, comment: str) -> None:
    body = (f"Your account in the organization {realm.name} has been deactivated.\n")
    if comment:
        body += f"\nA message from the administrator:\n\n{comment}\n"
    try:
        check_email_allowed(user.delivery_email)
        send_email(user.delivery_email, f"Your account in {realm.name} was deactivated", body)
    except Exception:  # noqa: BLE001 - the deactivation stands; the log says what failed
        logger.exception("deactivation email failed", extra={"user_id": user.user_id})


def _deactivate(target: User, extra: Writes | None = None) -> None:
    """An owner goes through the last-owner check; anyone else is simply deactivated."""
    if target.role == ROLE_OWNER:
        _deactivate_owner(target, extra)
    else:
        _set_active(target, False, extra=extra)


def do_deactivate_own_user(caller: Principal) -> EmptyResult:
    """DELETE /users/me: anyone may leave, except the organization's last owner (who is
    told whether other users remain, as the reference tells)."""
    def attempt() -> User:
        target = access_user_by_id(caller, caller.user_id)
        try:
            _deactivate(target)
        except _UserChanged:
            raise LostRace() from None
        except ApiError:
            if target.role != ROLE_OWNER or _other_active_owner(
                    caller.realm_id, caller.user_id) is not None:
                raise
            if _others_active(target):
                raise ApiError("The organization's only owner cannot be deactivated",
                               code=ErrorCode.CANNOT_DEACTIVATE_LAST_USER,
                               entity="organization owner", is_last_owner=True) from None
            raise ApiError("The organization's only user cannot be deactivated.",
                           code=ErrorCode.CANNOT_DEACTIVATE_LAST_USER,
                           entity="user", is_last_owner=False) from None
        return target

    target = retry_lost_races(attempt, conflict="Your account changed meanwhile; try again.",
                              attempts=MAX_ATTEMPTS)
    _finish_deactivation(target)
    return {}


def _others_active(user: User) -> bool:
    """Whether another active human is in the realm (one small Query per role at most)."""
    for role in (200, 300, 400, 600):
        for other in User.by_role.query(role_key(user.realm_id, role)):
            if other.is_active and other.user_id != user.user_id:
                return True
    return False
