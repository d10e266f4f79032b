"""GET /messages/{id}/read_receipts: who has read a message, derived from the read state.

Read state is stored by exception (models/message_flags.py): a delivered message is
read for a recipient unless an unread marker says otherwise. A message the fan-out has
not reached yet (a `PendingDelivery`, read_state/reads/pending.py) is unread for each recipient
the fan-out will give a marker to, unless they marked it read early (`read_by`); for
the others (those who muted the sender) the fan-out writes no marker, so none decides.
The pending item is read before the markers: once it is gone, markers are final.

So the readers are the message's recipients (a direct message's participants; a
channel's subscribers who were there when it was sent and may see its history) that
the read state shows as read, which costs batched reads of the recipients' markers and
user items, two Queries of the caller's mutes and one of the sender's muters, and no
write per reader. As the reference does, the sender, deactivated users, users who turned
`send_read_receipts` off, users the caller muted and users who muted the caller are
never listed; nor, to a guest the organization limits (can_access_all_users_group),
the readers it may not access (actions/users/reads/access.py: its channels' subscribers
and its conversations, read only for such a guest).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict

from chalicelib.actions.messages.reads.access import access_message
from chalicelib.actions.read_state.reads.pending import pending_of
from chalicelib.actions.users.reads.access import viewer_access
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.channels import Subscription, stream_key, user_key
from chalicelib.models.message_flags import UnreadMessage
from chalicelib.models.messages import Message
from chalicelib.models.muted_users import muted_by, muted_user_ids
from chalicelib.models.pending_deliveries import PendingDelivery
from chalicelib.models.realms import get_realm, realm_setting
from chalicelib.models.users import User
from chalicelib.rules.user_settings import effective_settings


class ReadReceiptsResult(TypedDict):
    user_ids: list[int]


def get_read_receipts(caller: Principal, message_id: int) -> ReadReceiptsResult:
    # As the reference: a message the caller cannot see is refused before the setting.
    message = access_message(caller, message_id).message
    realm = get_realm(caller.realm_id)
    if not realm_setting(realm, "enable_read_receipts"):
        raise ApiError("This organization has turned read receipts off.")
    realm_id = caller.realm_id
    candidates = _recipients(realm_id, message) - {message.sender_id}
    # Mutes either way hide a reader: otherwise a sender muted by someone would see
    # them read each of the sender's messages at once (they arrive read).
    candidates -= muted_by(realm_id, caller.user_id)
    candidates -= set(muted_user_ids(realm_id, caller.user_id))
    sharing = _sharing_receipts(realm_id, candidates)
    access = viewer_access(caller, lambda: realm)   # reads nothing for members and above
    candidates = {u.user_id for u in sharing if access.can_access(u)}
    pending = pending_of(realm_id, [message_id]).get(message_id)   # before the markers
    unread = _with_marker(realm_id, candidates, message_id)
    if pending is not None:
        unread |= _unread_in_flight(realm_id, message, pending, candidates)
    return {"user_ids": sorted(candidates - unread)}


def _recipients(realm_id: int, message: Message) -> set[int]:
    if message.type == "private":
        return set(message.recipient_ids)
    # Subscribers since before the message (one Query, paged): later ones never
    # received it, and a protected history hides older messages from them.
    return {int(s.user_id) for s in Subscription.by_stream.query(
                stream_key(realm_id, int(message.stream_id)))
            if s.active and s.date_subscribed <= message.date_sent
            and s.first_visible_message_id <= message.message_id}


def _sharing_receipts(realm_id: int, user_ids: Iterable[int]) -> list[User]:
    """The active users among these who share read receipts (BatchGet, 100 keys each)."""
    users = User.batch_get([(realm_id, u) for u in sorted(user_ids)])
    return [u for u in users
            if u.is_active and effective_settings(u.stored_settings())["send_read_receipts"]]


def _with_marker(realm_id: int, user_ids: set[int], message_id: int) -> set[int]:
    keys = [(user_key(realm_id, u), message_id) for u in sorted(user_ids)]
    return {int(m.user_id) for m in UnreadMessage.batch_get(keys, consistent_read=True)}


def _unread_in_flight(realm_id: int, message: Message, pending: PendingDelivery,
                      recipients: set[int]) -> set[int]:
    """The recipients for whom a message in flight is unread though no marker says so
    yet: all those the fan-out gives a marker (all but who muted the sender), less those
    who marked it read early."""
    will_have_marker = recipients - muted_by(realm_id, message.sender_id)
    return will_have_marker - set(pending.read_by or ())
