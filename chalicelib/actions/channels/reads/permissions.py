"""Who may see, administer and add subscribers to a channel, as the reference decides
(docs/visibility.md); the part decided by role alone is rules/channel_access.py.

Content access: reading the channel's messages (subscribed, `readable_unsubscribed`: a
web-public channel for everyone, a public one for members and above, or a private one
through its `can_add_subscribers_group`). Metadata access: knowing the channel exists
and its settings (content access, organization administrators, and the channel's
`can_administer_channel_group`). Guests get neither through group settings. The
predicates serve requests (reads, registration, channel administration, subscribing
others, invitations, message access); `channel_viewers` and `follows_public_channels`
decide the fan-out's audiences with them, so a request never lists the organization's
users and the fan-out reads nothing per person.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from chalicelib.actions.groups.reads.settings import (
    caller_has_realm_permission,
    group_setting_members,
    user_has_group_setting,
)
from chalicelib.core.principal import (
    ROLE_ADMINISTRATOR,
    ROLE_MEMBER,
    ROLE_MODERATOR,
    ROLE_OWNER,
    Principal,
)
from chalicelib.delivery.outbox import Audience, to_channel_viewers
from chalicelib.models.channels import Stream, channel_group_setting, get_stream
from chalicelib.models.events import EventQueue
from chalicelib.models.realms import Realm
from chalicelib.models.users import User, role_key
from chalicelib.rules.channel_access import (
    PRIVATE,
    PUBLIC,
    WEB_PUBLIC,
    readable_unsubscribed,
    reads_public_channels,
    visibility,
)


def _holds(caller: Principal, stream: Stream, setting: str) -> bool:
    return user_has_group_setting(caller.realm_id, caller.user_id, caller.role,
                                  channel_group_setting(stream, setting))


def has_content_access(caller: Principal, stream: Stream, subscribed: bool) -> bool:
    if subscribed or readable_unsubscribed(caller.role, stream):
        return True
    if caller.is_guest or not stream.invite_only:
        return False
    return _holds(caller, stream, "can_add_subscribers_group")


def can_administer_channel(caller: Principal, stream: Stream) -> bool:
    """Organization administrators, and the channel's administer group (never guests)."""
    if caller.is_admin:
        return True
    return not caller.is_guest and _holds(caller, stream, "can_administer_channel_group")


def can_move_messages_out_of_channel(caller: Principal, stream: Stream) -> bool:
    """The channel's administrators and its `can_move_messages_out_of_channel_group`
    (besides the organization's setting, which the caller asks first)."""
    return can_administer_channel(caller, stream) or _holds(
        caller, stream, "can_move_messages_out_of_channel_group")


def can_move_messages_within_channel(caller: Principal, stream: Stream) -> bool:
    """The channel's administrators and its `can_move_messages_within_channel_group`
    (level 396; besides the organization's setting, which the caller asks first)."""
    return can_administer_channel(caller, stream) or _holds(
        caller, stream, "can_move_messages_within_channel_group")


def holds_channel_setting(caller: Principal, stream: Stream, setting: str) -> bool:
    """Whether the caller is in one of the channel's group settings that may include
    everyone, guests too (can_resolve_topics_group, can_create_topic_group)."""
    return _holds(caller, stream, setting)


def holds_channel_permission(caller: Principal, stream: Stream, setting: str) -> bool:
    """Whether the caller is in one of the channel's group settings (e.g. the channel's
    can_delete_any_message_group); never guests, as the other channel permissions."""
    return not caller.is_guest and _holds(caller, stream, setting)


def has_metadata_access(caller: Principal, stream: Stream, subscribed: bool) -> bool:
    return has_content_access(caller, stream, subscribed) or can_administer_channel(caller,
                                                                                    stream)


def realm_default_stream_ids(realm: Realm) -> set[int]:
    """The organization's default channels (new users join them; invitations may name
    them without permission to add subscribers)."""
    return {int(s) for s in realm.default_stream_ids or ()}


def can_add_subscribers(caller: Principal, stream: Stream, subscribed: bool, realm: Realm
                        ) -> bool:
    """Whether the caller may subscribe other users to the channel (§4.4, §4.8).

    Needs content access and one of: the organization's `can_add_subscribers_group`,
    administering the channel, or the channel's `can_add_subscribers_group`.
    """
    if stream.is_archived or caller.is_guest or not has_content_access(caller, stream,
                                                                       subscribed):
        return False
    if caller.is_admin or caller_has_realm_permission(realm, caller.user_id, caller.role,
                                                      "can_add_subscribers_group"):
        return True
    return _holds(caller, stream, "can_administer_channel_group") or _holds(
        caller, stream, "can_add_subscribers_group")


def can_remove_subscribers(caller: Principal, stream: Stream, subscribed: bool) -> bool:
    """Whether the caller may unsubscribe other users: organization administrators
    always; others with access to the channel who administer it or are in its
    `can_remove_subscribers_group`."""
    if caller.is_admin:
        return True
    if caller.is_guest or not has_content_access(caller, stream, subscribed):
        return False
    return _holds(caller, stream, "can_administer_channel_group") or _holds(
        caller, stream, "can_remove_subscribers_group")


# ---- event audiences -------------------------------------------------------------------
# Levels of visibility (rules/channel_access.py): PRIVATE < PUBLIC < WEB_PUBLIC.

def viewers_audience(stream_id: int, level: int, *, minus: int | None = None) -> Audience:
    """The outbox audience "everyone with metadata access to the channel, were it of
    this visibility"; `minus` leaves out who could see it at that narrower visibility
    (those gaining or losing sight of it when its privacy changes)."""
    assert minus is None or minus < level, "nothing is left"  # nosec B101 # caller's bug
    return to_channel_viewers(stream_id, public=level >= PUBLIC, web_public=level == WEB_PUBLIC,
                              minus_public=None if minus is None else minus >= PUBLIC)


def _levels(audience: Audience) -> tuple[int, int | None]:
    level = WEB_PUBLIC if audience.get("web_public") else PUBLIC if audience["public"] \
        else PRIVATE
    minus = None if "minus_public" not in audience else (
        PUBLIC if audience["minus_public"] else PRIVATE)
    return level, minus


@dataclass
class ViewerAudience:
    """A `viewers_audience`, decided at fan-out time: the test a queue must pass, and
    the users who can pass it (None: any user of the realm may)."""

    sees: Callable[[EventQueue], bool]
    candidates: set[int] | None


def channel_viewers(realm_id: int, audience: Audience, subscribers: Callable[[], set[int]]
                    ) -> ViewerAudience:
    """Subscribers; for a web-public channel everyone, for a public one every member and
    above, for a private one the organization administrators and non-guest members of
    its administer and add-subscribers groups. `subscribers` reads the channel's (as the
    caller reads them), only when needed: a public channel's matter only for queues of
    guests, a web-public one's never."""
    stream_id = int(audience["channel_viewers"])
    level, minus = _levels(audience)
    subscribers = cache(subscribers)   # read once, if at all
    sees, candidates = _viewer_test(realm_id, stream_id, subscribers, level)
    if minus is not None:
        other, _ = _viewer_test(realm_id, stream_id, subscribers, minus)
        return ViewerAudience(lambda q: sees(q) and not other(q), candidates)
    return ViewerAudience(sees, candidates)


@dataclass(frozen=True)
class UnsubscribedViewers:
    """Who knows of a channel without a subscription, were it of this visibility: by
    role (guests never, unless it is web-public), and for a private channel the
    organization administrators and the non-guest members of its administer and
    add-subscribers groups (read once, so the rule answers for many users without
    reading anything per user)."""

    level: int
    users: frozenset[int] = frozenset()   # named through the private channel's groups
    max_role: int = ROLE_ADMINISTRATOR    # and everyone of this role or higher

    def sees(self, user_id: int, role: int | None) -> bool:
        if self.level == WEB_PUBLIC:
            return True
        # Group settings never reach guests, as the reference's never do.
        if not reads_public_channels(role):
            return False
        return self.level == PUBLIC or user_id in self.users or (
            role is not None and int(role) <= self.max_role)

    def only_while_subscribed(self, users: list[User]) -> list[int]:
        """Those of these users who know of the channel only while subscribed: who
        learn of it by joining it (and forget it by leaving), as the reference tells
        them."""
        return [u.user_id for u in users if not self.sees(u.user_id, int(u.role))]


def unsubscribed_viewers(stream: Stream, level: int | None = None) -> UnsubscribedViewers:
    """The rule above for this channel at `level` (its own visibility by default); a
    private channel's groups cost a BatchGet per level of nesting, if they name groups."""
    level = visibility(stream) if level is None else level
    if level != PRIVATE:
        return UnsubscribedViewers(level)
    users: set[int] = set()
    max_role = ROLE_ADMINISTRATOR
    for setting in ("can_administer_channel_group", "can_add_subscribers_group"):
        members, role = group_setting_members(stream.realm_id,
                                              channel_group_setting(stream, setting))
        users |= members
        max_role = max(max_role, min(role, ROLE_MEMBER))   # never guests by role
    return UnsubscribedViewers(level, frozenset(users), max_role)


def _viewer_test(realm_id: int, stream_id: int, subscribers: Callable[[], set[int]],
                 level: int) -> tuple[Callable[[EventQueue], bool], set[int] | None]:
    if level == WEB_PUBLIC:
        return (lambda q: True), None
    if level == PUBLIC:
        return (lambda q: reads_public_channels(q.role) or q.user_id in subscribers()), None
    stream = get_stream(realm_id, stream_id)   # its groups decide who else knows of it
    viewers = unsubscribed_viewers(stream, PRIVATE) if stream is not None \
        else UnsubscribedViewers(PRIVATE)
    candidates = None if viewers.max_role >= ROLE_MEMBER else (
        subscribers() | viewers.users | users_with_role_at_most(realm_id, viewers.max_role))
    return (lambda q: q.user_id in subscribers() or viewers.sees(q.user_id, q.role)), \
        candidates


def users_with_role_at_most(realm_id: int, max_role: int) -> set[int]:
    """Active humans whose role is max_role or higher (one by_role Query per role)."""
    return {int(u.user_id) for role in (ROLE_OWNER, ROLE_ADMINISTRATOR, ROLE_MODERATOR)
            if role <= max_role
            for u in User.by_role.query(role_key(realm_id, role)) if u.is_active}
