"""Who can access a user (can_access_all_users_group): the one rule for people, its
reads, placeholders, and event audiences (docs/visibility.md).

With the default, role:everyone, every user of the realm can access every other. With
role:members (the only other value allowed), a guest can access themself, bots, the
active users who share a channel subscription with them, and, as the reference, the
users they have a direct conversation with (their own conversation items, one Query).
In user lists the others are "Unknown user" placeholders (left out for clients with the
user_list_incomplete capability), reading one answers "No such person in this organization.", direct messages
and typing to them are refused, mentions of them do not resolve, and events about them
do not reach the guest (or reach it with the user as a placeholder).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from chalicelib.core.feature_levels import level_reached
from chalicelib.core.principal import ROLE_MEMBER, Principal
from chalicelib.delivery.filters import capabilities
from chalicelib.delivery.outbox import Audience, to_users_who_can_access
from chalicelib.models.base import transact_get
from chalicelib.models.channels import Subscription, subscriber_ids, user_key
from chalicelib.models.conversations import RecentConversation
from chalicelib.models.events import EventQueue
from chalicelib.models.realms import Realm, realm_group_setting
from chalicelib.models.user_rows import UserRow
from chalicelib.models.users import User
from chalicelib.rules.email_visibility import stand_in_email
from chalicelib.rules.realm_settings import system_group_id
from chalicelib.rules.timeutil import iso_from_seconds

SETTING = "can_access_all_users_group"
INACCESSIBLE_USER_NAME = "Unknown user"
# The same picture for every inaccessible user: a placeholder reveals nothing but the id.
INACCESSIBLE_AVATAR_URL = "https://secure.gravatar.com/avatar/?d=mp&version=1"


class ProfileDataValue(TypedDict):
    value: str
    rendered_value: NotRequired[str]   # Markdown-capable field types only


class PersonFields(TypedDict):
    """What every shape of a person shows, registration's lists included (which leave
    out is_active: the list says it)."""

    user_id: int
    email: str
    full_name: str
    date_joined: str
    is_owner: bool
    is_admin: bool
    is_guest: bool
    is_bot: bool
    role: int
    timezone: str
    # null: a Gravatar the client computes (client_gravatar); left out of a registration
    # for long-idle people when the client can do without (user_avatar_url_field_optional)
    avatar_url: NotRequired[str | None]
    avatar_version: int
    bot_type: NotRequired[int | None]       # bots only
    bot_owner_id: NotRequired[int | None]   # bots only
    profile_data: NotRequired[dict[str, ProfileDataValue]]   # users only, by field id


class UserFields(PersonFields):
    """What every shape of a user shows (GET /users, GET /users/me)."""

    is_active: bool
    is_imported_stub: NotRequired[bool]   # level 433: sent once the level reaches it


class UserDict(UserFields):
    """A user as GET /users shows it; an inaccessible one is an "Unknown user"."""

    delivery_email: str | None   # null for an inaccessible user


def user_access_audience(user_id: int) -> Audience:
    """Everyone who can access this user; the fan-out applies the realm's policy."""
    return to_users_who_can_access(user_id)


def realm_restricts_access(realm: Realm | None) -> bool:
    return realm is not None and realm_group_setting(realm, SETTING) != system_group_id(
        "role:everyone")


def may_be_limited(role: int | None) -> bool:
    """Members and above always access everyone (queues of unknown role too, as before)."""
    return role is not None and role > ROLE_MEMBER


def limited_can_access(viewer_id: int, user: User | UserRow, shares_channel: Callable[[], bool],
                       talked_with: Callable[[], bool], *, active_only: bool = True) -> bool:
    """The rule for a limited viewer: themself, bots, active users sharing a channel,
    and anyone they have a direct conversation with (the cheaper tests first).
    `active_only` False: a deactivated channel peer too (the news of a deactivation
    reaches those who could access the user until then)."""
    return user.is_bot or user.user_id == viewer_id or (
        (user.is_active or not active_only) and shares_channel()) or talked_with()


def channel_ids(realm_id: int, user_id: int) -> set[int]:
    """The channels the user is subscribed to: one Query."""
    return {s.stream_id for s in Subscription.query(user_key(realm_id, user_id)) if s.active}


def conversation_partner_ids(realm_id: int, user_id: int) -> set[int]:
    """Everyone the user has a direct conversation with: one Query of their own
    conversation items (the fan-out writes one per participant of each conversation)."""
    return {int(u) for item in RecentConversation.query(
        user_key(realm_id, user_id), attributes_to_get=["user_key", "conversation"])
        for u in item.conversation.split(",")} - {user_id}


def inaccessible_user_dict(user_id: int, realm: Realm) -> UserDict:
    """The "Unknown user" record: the usual shape, only the id varies."""
    shown: UserDict = {
        "user_id": user_id,
        "email": stand_in_email(user_id, realm.subdomain),
        "delivery_email": None,
        "full_name": INACCESSIBLE_USER_NAME,
        "date_joined": iso_from_seconds(0),
        "is_active": True,
        "is_owner": False,
        "is_admin": False,
        "is_guest": False,
        "is_bot": False,
        "role": ROLE_MEMBER,
        "timezone": "",
        "avatar_url": INACCESSIBLE_AVATAR_URL,
        "avatar_version": 1,
        "profile_data": {},
    }
    if level_reached(433):
        shown["is_imported_stub"] = False
    return shown


def hide_sender(message: Mapping[str, Any], realm: Realm) -> dict[str, Any]:
    """A message as someone who cannot access its sender sees it: the sender's id with
    the "Unknown user" name, address and picture, as the reference shows it."""
    return {**message, "sender_full_name": INACCESSIBLE_USER_NAME,
            "sender_email": stand_in_email(int(message["sender_id"]), realm.subdomain),
            "avatar_url": INACCESSIBLE_AVATAR_URL}


@dataclass(frozen=True)
class UserAccess:
    """Which of the realm's users one viewer can access, for reads of many users."""

    viewer_id: int
    realm: Realm | None = None          # set only when the viewer is limited
    peer_ids: frozenset[int] = field(default_factory=frozenset)      # channel peers
    partner_ids: frozenset[int] = field(default_factory=frozenset)   # conversations

    def can_access(self, user: User | UserRow) -> bool:
        return self.realm is None or limited_can_access(
            self.viewer_id, user, lambda: user.user_id in self.peer_ids,
            lambda: user.user_id in self.partner_ids)

    def can_access_user_id(self, user_id: int) -> bool:
        """As can_access, for data about active humans known only by id (presence): the
        viewer themself and the users who share a channel or a conversation with them."""
        return self.realm is None or user_id == self.viewer_id or user_id in self.peer_ids \
            or user_id in self.partner_ids

    def placeholder(self, user_id: int) -> UserDict:
        assert self.realm is not None  # nosec B101 # type narrowing (set above)
        return inaccessible_user_dict(user_id, self.realm)


def viewer_access(caller: Principal,
                  load_realm: Callable[[], Realm | None] | None = None) -> UserAccess:
    """The caller's access. Reads nothing for members and above; for a guest, the realm
    and, if it limits them, their channels' subscribers (a Query per channel) and their
    conversations (one Query)."""
    if not may_be_limited(caller.role):
        return UserAccess(caller.user_id)
    realm = load_realm() if load_realm is not None else Realm.get_or_none(caller.realm_id)
    if realm is None or not realm_restricts_access(realm):
        return UserAccess(caller.user_id)
    peers = {user_id for stream_id in channel_ids(caller.realm_id, caller.user_id)
             for user_id in subscriber_ids(caller.realm_id, stream_id)}
    return UserAccess(caller.user_id, realm, frozenset(peers), frozenset(
        conversation_partner_ids(caller.realm_id, caller.user_id)))


def load_user_for(caller: Principal, user_id: int) -> User | None:
    """The user if it exists and the caller can access it (missing and inaccessible look
    the same). Members and above: one GetItem, as before; a guest reads the user and the
    realm in one request, and if the realm limits them, what the rule needs of their
    channels, the user's and their conversations."""
    if not may_be_limited(caller.role):
        return User.get_or_none(caller.realm_id, user_id)
    with transact_get() as tg:
        user_future = tg.get(User, caller.realm_id, user_id)
        realm_future = tg.get(Realm, caller.realm_id)
    try:
        user = user_future.get()
    except User.DoesNotExist:
        return None
    try:
        realm: Realm | None = realm_future.get()
    except Realm.DoesNotExist:
        realm = None
    access = AccessCache()
    access.realms[caller.realm_id] = realm
    access.remember(user)
    return user if access.viewer_may_access(caller.realm_id, caller.user_id, caller.role,
                                            user_id) else None


def caller_access(caller: Principal) -> Callable[[User], bool]:
    """The rule for one caller and the few users a request names (recipients, mentions,
    senders), users already read: nothing more is read for members and above; for a
    guest, the realm once, then only what each user needs."""
    if not may_be_limited(caller.role):
        return lambda user: True
    cache = AccessCache()

    def allows(user: User) -> bool:
        cache.remember(user)
        return cache.viewer_may_access(caller.realm_id, caller.user_id, caller.role,
                                       user.user_id)
    return allows


def inaccessible_ids(caller: Principal, users: Iterable[User]) -> set[int]:
    """Those of these users (already read) the caller may not access."""
    allows = caller_access(caller)
    return {u.user_id for u in users if not allows(u)}


def inaccessible_to(realm: Realm, viewers: Iterable[User], users: Iterable[User]
                    ) -> dict[int, set[int]]:
    """For each viewer the realm limits, those of these users (already read) it may not
    access; nothing read for members and above or where guests are not limited."""
    if not realm_restricts_access(realm):
        return {}
    cache = AccessCache()
    cache.realms[realm.realm_id] = realm
    people = list(users)
    for user in people:
        cache.remember(user)
    hidden = {viewer.user_id: {u.user_id for u in people if not cache.viewer_may_access(
        realm.realm_id, viewer.user_id, viewer.role, u.user_id)} for viewer in viewers}
    return {viewer: ids for viewer, ids in hidden.items() if ids}


class AccessCache:
    """The rule for many (viewer, user) pairs, each realm, user, user's channels and
    viewer's conversations read at most once, and only for viewers the realm may limit."""

    def __init__(self) -> None:
        self.realms: dict[int, Realm | None] = {}
        self._users: dict[tuple[int, int], User | None] = {}
        self._channels: dict[tuple[int, int], set[int]] = {}
        self._partners: dict[tuple[int, int], set[int]] = {}

    def remember(self, user: User) -> None:
        """A user already read, so it is not read again."""
        self._users[(user.realm_id, user.user_id)] = user

    def viewer_may_access(self, realm_id: int, viewer_id: int, role: int | None,
                          user_id: int, *, active_only: bool = True) -> bool:
        """Whether the viewer (of this role) can access `user_id` (see
        limited_can_access for `active_only`)."""
        if not may_be_limited(role) or viewer_id == user_id:
            return True
        if not realm_restricts_access(self._realm(realm_id)):
            return True
        user = self._user(realm_id, user_id)
        if user is None:
            return False
        return limited_can_access(
            viewer_id, user, lambda: bool(self._channel_ids(realm_id, user_id)
                                          & self._channel_ids(realm_id, viewer_id)),
            lambda: user_id in self._partner_ids(realm_id, viewer_id),
            active_only=active_only)

    def _realm(self, realm_id: int) -> Realm | None:
        if realm_id not in self.realms:
            self.realms[realm_id] = Realm.get_or_none(realm_id)
        return self.realms[realm_id]

    def _user(self, realm_id: int, user_id: int) -> User | None:
        if (realm_id, user_id) not in self._users:
            self._users[(realm_id, user_id)] = User.get_or_none(realm_id, user_id)
        return self._users[(realm_id, user_id)]

    def _channel_ids(self, realm_id: int, user_id: int) -> set[int]:
        if (realm_id, user_id) not in self._channels:
            self._channels[(realm_id, user_id)] = channel_ids(realm_id, user_id)
        return self._channels[(realm_id, user_id)]

    def _partner_ids(self, realm_id: int, user_id: int) -> set[int]:
        if (realm_id, user_id) not in self._partners:
            self._partners[(realm_id, user_id)] = conversation_partner_ids(realm_id, user_id)
        return self._partners[(realm_id, user_id)]


class EventAccess(AccessCache):
    """The rule for the queues of one fan-out batch (a queue's owner is the viewer)."""

    def may_access(self, realm_id: int, queue: EventQueue, user_id: int) -> bool:
        """Whether the queue's owner can access `user_id` (and so hears about them; of
        a deactivation too, if they could until then)."""
        return self.viewer_may_access(realm_id, queue.user_id, queue.role, user_id,
                                      active_only=False)

    def hidden_form(self, realm_id: int, event: dict[str, Any], queue: EventQueue
                    ) -> dict[str, Any] | None:
        """What a queue that cannot access the event's user gets instead: of a new user,
        an "Unknown user" unless its client declared user_list_incomplete; else nothing."""
        if event.get("type") != "realm_user" or event.get("op") != "add" or capabilities(
                queue.options or {}).get("user_list_incomplete"):
            return None
        realm = self._realm(realm_id)
        assert realm is not None  # nosec B101 # the realm limits access, so it was read
        return {**event, "person": inaccessible_user_dict(int(event["person"]["user_id"]),
                                                          realm)}

    def actor_hidden(self, realm_id: int, event: dict[str, Any]) -> dict[str, Any]:
        """The event as a queue that cannot access its actor (the actor_outside_channel
        fact) gets it: a message's sender, a reaction's user as "Unknown user", a typist
        by their id and stand-in address."""
        realm = self._realm(realm_id)
        assert realm is not None  # nosec B101 # the realm limits access, so it was read
        if event.get("type") == "message":
            return {**event, "message": hide_sender(event["message"], realm)}
        if event.get("type") == "reaction" and "user" in event:   # below level 484
            user_id = int(event["user_id"])
            return {**event, "user": {"user_id": user_id, "full_name": INACCESSIBLE_USER_NAME,
                                      "email": stand_in_email(user_id, realm.subdomain)}}
        if event.get("type") == "typing":
            user_id = int(event["sender"]["user_id"])
            return {**event, "sender": {"user_id": user_id,
                                        "email": stand_in_email(user_id, realm.subdomain)}}
        return event
