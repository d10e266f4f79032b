"""POST /register's people: the realm's users (`realm_user`), the caller's own record
and permissions, the system bots, and the bots the caller administers (`realm_bot`)."""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, NotRequired, TypedDict, cast

from chalicelib import config
from chalicelib.actions.groups.reads.settings import caller_has_realm_permission
from chalicelib.actions.users.reads.access import (
    INACCESSIBLE_AVATAR_URL,
    PersonFields,
    UserDict,
)
from chalicelib.actions.users.reads.bots import RealmBotDict, administered_bots
from chalicelib.actions.users.reads.system_bots import is_system_bot
from chalicelib.actions.users.users import realm_user_dicts, user_api_dict
from chalicelib.core.feature_levels import level_reached
from chalicelib.core.principal import ROLE_MODERATOR, ROLE_OWNER
from chalicelib.models.realms import realm_setting
from chalicelib.models.users import user_avatar_source, user_avatar_url
from chalicelib.registration.state.context import StateContext
from chalicelib.rules.avatars import for_client


class RegisteredUserDict(PersonFields):
    """A person as realm_users and realm_non_active_users list them: as GET /users shows
    them but without is_active (the list says it; the reference leaves it out of both),
    and is_imported_stub called is_imported, as in the reference (level 433)."""

    delivery_email: str | None
    is_imported: NotRequired[bool]


class RealmUserState(TypedDict, total=False):
    """Present when `realm_user` is among the fetch types (then every key is)."""

    realm_users: list[RegisteredUserDict]
    realm_non_active_users: list[RegisteredUserDict]
    # The server's own bots (notification and welcome bots), each with is_system_bot.
    cross_realm_bots: list[dict[str, Any]]
    user_id: int
    email: str
    delivery_email: str
    full_name: str
    avatar_source: str
    avatar_url: str
    avatar_url_medium: str
    is_admin: bool
    is_owner: bool
    is_moderator: bool
    is_guest: bool
    can_create_streams: bool
    can_create_public_streams: bool
    can_create_private_streams: bool
    can_create_web_public_streams: bool
    can_subscribe_other_users: bool
    can_invite_others_to_realm: bool


class RealmBotState(TypedDict, total=False):
    """Present when `realm_bot` is among the fetch types."""

    realm_bots: list[RealmBotDict]


def realm_user_state(ctx: StateContext) -> RealmUserState:
    """The users (one Query of the realm's users, shared with the other builders), the
    caller's record (already read) and permissions (the realm's item, read once)."""
    system_bots = [u for u in ctx.users if is_system_bot(u)]
    others = [u for u in ctx.users if not is_system_bot(u)]
    users = realm_user_dicts(others, ctx.access, ctx.caller,
                             omit_inaccessible=ctx.capable("user_list_incomplete"))
    if ctx.client_gravatar:   # the client computes Gravatar URLs itself: null here
        for user in users:
            if user["avatar_url"] != INACCESSIBLE_AVATAR_URL:
                user["avatar_url"] = for_client(user["avatar_url"], True)
    if ctx.capable("user_avatar_url_field_optional"):
        _leave_out_idle_avatars(ctx, users)
    me = ctx.me
    bots = [{**user_api_dict(bot, viewer=ctx.caller), "is_system_bot": True}
            for bot in system_bots]
    active: list[RegisteredUserDict] = []
    inactive: list[RegisteredUserDict] = []
    for user in users:   # the dicts were built for this answer: changed in place
        person = cast(dict[str, Any], user)
        (active if person.pop("is_active") else inactive).append(_registered(person))
    state: RealmUserState = {
        # "Unknown user" placeholders are active: the reference lists them in realm_users.
        "realm_users": active,
        "realm_non_active_users": inactive,
        "cross_realm_bots": [_registered(bot) for bot in bots],
        "user_id": int(me.user_id),
        "email": me.email,
        "delivery_email": me.delivery_email,
        "full_name": me.full_name,
        "avatar_source": user_avatar_source(me),
        # As every viewer's picture of them (a Gravatar from the API address).
        "avatar_url": user_avatar_url(me),
        "avatar_url_medium": user_avatar_url(me, medium=True),
        "is_admin": ctx.caller.is_admin,
        "is_owner": me.role == ROLE_OWNER,
        "is_moderator": is_moderator(me.role),
        "is_guest": ctx.caller.is_guest,
    }
    state.update(_permissions(ctx))
    return state


def _leave_out_idle_avatars(ctx: StateContext, users: list[UserDict]) -> None:
    """With `user_avatar_url_field_optional` the server may leave a user's avatar_url
    out (the client asks GET /avatar/{id}); the reference leaves out those of its
    long-idle people, and so does this: people with no presence in its two weeks (a
    presence item lives that long), read with the realm's presence (shared with the
    presence state). Bots keep theirs."""
    now = datetime.now(UTC)
    connected = {user_id for user_id, item in ctx.realm_presence.items.items()
                 if item.connected_at is not None
                 and (item.expires_at is None or item.expires_at > now)}
    for user in users:
        if not user["is_bot"] and user["user_id"] not in connected:
            user.pop("avatar_url", None)


def _registered(user: Any) -> Any:
    """A person as registration lists them (RegisteredUserDict, or a cross-realm bot):
    is_imported_stub called is_imported. Changes the dict, built for this answer."""
    if "is_imported_stub" in user:
        user["is_imported"] = user.pop("is_imported_stub")
    return user


def is_moderator(role: int) -> bool:
    """The reference's is_moderator: the moderator role alone until level 380, which made
    it true for administrators and owners too (as is_admin is for owners)."""
    return role <= ROLE_MODERATOR if level_reached(380) else role == ROLE_MODERATOR


def _permissions(ctx: StateContext) -> RealmUserState:
    """What the caller may do, by the realm's group settings, as the actions decide it.
    System groups follow from the role; user groups cost a BatchGet per nesting level."""
    caller, realm = ctx.caller, ctx.realm

    def holds(setting: str) -> bool:
        return caller_has_realm_permission(realm, caller.user_id, caller.role, setting)

    public = holds("can_create_public_channel_group")
    private = holds("can_create_private_channel_group")
    web_public = (config.web_public_streams_enabled()
                  and bool(realm_setting(realm, "enable_spectator_access"))
                  and holds("can_create_web_public_channel_group"))
    human = not caller.is_guest and not caller.is_bot
    return {
        "can_create_streams": public or private or web_public,
        "can_create_public_streams": public,
        "can_create_private_streams": private,
        "can_create_web_public_streams": web_public,
        "can_subscribe_other_users": not caller.is_guest and (
            caller.is_admin or holds("can_add_subscribers_group")),
        "can_invite_others_to_realm": human and holds("can_invite_users_group"),
    }


def realm_bot_state(ctx: StateContext) -> RealmBotState:
    # Administrators see every bot: the realm's users, read once for all builders.
    users = ctx.users if ctx.caller.is_admin else None
    return {"realm_bots": administered_bots(ctx.caller, users)}
