"""The initial state POST /register returns: which builder (registration/state/) serves which
fetch types, and the shape they compose. Unknown fetch types are ignored, as the
reference ignores them, so one client serves servers of several versions.

The builders whose reads take long (the realm's users, the subscriber lists, the
unread markers, presence: pages and batches that grow with the organization or the
reader) start first, side by side on a pool of their own, while the others run here:
their reads are independent, so a registration waits about as long as its longest
chain of reads, not for all of them one after another. The reads they share are read
once (registration/state/context.py); the state is assembled in the builders' order."""
from __future__ import annotations

import contextvars
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, cast

from chalicelib.actions.channels.reads.subscribers import IncludeSubscribers
from chalicelib.core.principal import Principal
from chalicelib.models.users import User
from chalicelib.registration.state.channels import (
    DefaultStreamsState,
    StreamState,
    SubscriptionState,
    default_streams_state,
    stream_state,
    subscription_state,
)
from chalicelib.registration.state.context import PresenceOptions, StateContext
from chalicelib.registration.state.devices import DevicesState, user_devices_state
from chalicelib.registration.state.integrations import (
    IncomingWebhookBotsState,
    incoming_webhook_bots_state,
)
from chalicelib.registration.state.navigation import (
    NavigationViewsState,
    user_navigation_views_state,
)
from chalicelib.registration.state.organization import (
    ChannelFoldersState,
    CustomProfileFieldsState,
    RealmEmojiState,
    RealmPlaygroundsState,
    RealmUserGroupsState,
    channel_folders_state,
    custom_profile_fields_state,
    realm_emoji_state,
    realm_playgrounds_state,
    realm_user_groups_state,
)
from chalicelib.registration.state.personal import (
    AlertWordsState,
    DraftsState,
    MutedTopicsState,
    MutedUsersState,
    RemindersState,
    SavedSnippetsState,
    ScheduledMessagesState,
    UserStatusState,
    UserTopicState,
    alert_words_state,
    drafts_state,
    muted_users_state,
    reminders_state,
    saved_snippets_state,
    scheduled_messages_state,
    user_status_state,
    user_topic_state,
)
from chalicelib.registration.state.presence import PresenceState, presence_state
from chalicelib.registration.state.read_state import (
    MessageState,
    RecentPrivateConversationsState,
    StarredMessagesState,
    UnreadMsgsState,
    message_state,
    recent_private_conversations_state,
    starred_messages_state,
    unread_msgs_state,
)
from chalicelib.registration.state.realm import RealmState, realm_state
from chalicelib.registration.state.realm_config import (
    RealmFiltersState,
    RealmLinkifiersState,
    RealmUserSettingsDefaultsState,
    realm_filters_state,
    realm_linkifiers_state,
    user_settings_defaults_state,
)
from chalicelib.registration.state.server import ServerState, server_state
from chalicelib.registration.state.settings import (
    LegacyDisplaySettingsState,
    LegacyNotificationSettingsState,
    UserSettingsState,
    legacy_settings_state,
    user_settings_state,
)
from chalicelib.registration.state.users import (
    RealmBotState,
    RealmUserState,
    realm_bot_state,
    realm_user_state,
)


class InitialState(
    RealmUserState, RealmBotState, UserSettingsState, LegacyDisplaySettingsState,
    LegacyNotificationSettingsState, RealmState, ServerState, SubscriptionState,
    StreamState, DefaultStreamsState, MessageState, UnreadMsgsState,
    StarredMessagesState, RecentPrivateConversationsState, PresenceState,
    AlertWordsState, MutedUsersState, UserStatusState, UserTopicState, MutedTopicsState,
    SavedSnippetsState, ScheduledMessagesState, RemindersState, DraftsState, RealmEmojiState,
    RealmPlaygroundsState, CustomProfileFieldsState, RealmUserGroupsState, ChannelFoldersState,
    RealmLinkifiersState, RealmFiltersState, RealmUserSettingsDefaultsState,
    NavigationViewsState, IncomingWebhookBotsState, DevicesState, total=False):
    """Every key some fetch type brings; each part is present when its types are asked."""


Builder = Callable[[StateContext], Mapping[str, Any]]


@dataclass(frozen=True)
class Part:
    """A builder, run when all of `all_of` are asked for, or any of `any_of`; `waits`
    when its reads are long (started first, on the builders' pool)."""

    build: Builder
    all_of: tuple[str, ...] = ()
    any_of: tuple[str, ...] = ()
    waits: bool = False

    def wanted(self, ctx: StateContext) -> bool:
        return (all(ctx.wants(t) for t in self.all_of)
                and (not self.any_of or any(ctx.wants(t) for t in self.any_of)))


def _realm_and_server(ctx: StateContext) -> Mapping[str, Any]:
    realm = realm_state(ctx)
    return {**realm, **server_state(realm.get("realm_jitsi_server_url"))}


PARTS: tuple[Part, ...] = (
    Part(realm_user_state, ("realm_user",), waits=True),
    Part(realm_bot_state, ("realm_bot",)),
    Part(user_settings_state, ("user_settings",)),
    Part(legacy_settings_state, any_of=("update_display_settings",
                                        "update_global_notifications")),
    Part(_realm_and_server, ("realm",)),
    Part(subscription_state, ("subscription",), waits=True),
    Part(stream_state, ("stream",)),
    Part(default_streams_state, ("default_streams",)),
    Part(message_state, ("message",)),
    Part(unread_msgs_state, ("message", "update_message_flags"), waits=True),
    Part(starred_messages_state, ("starred_messages",)),
    Part(recent_private_conversations_state, ("recent_private_conversations",)),
    Part(presence_state, ("presence",), waits=True),
    Part(alert_words_state, ("alert_words",)),
    Part(muted_users_state, ("muted_users",)),
    Part(user_status_state, ("user_status",)),
    Part(user_topic_state, any_of=("user_topic", "muted_topics")),
    Part(saved_snippets_state, ("saved_snippets",)),
    Part(drafts_state, ("drafts",)),
    Part(scheduled_messages_state, ("scheduled_messages",)),
    Part(reminders_state, ("reminders",)),
    Part(realm_emoji_state, ("realm_emoji",)),
    Part(realm_playgrounds_state, ("realm_playgrounds",)),
    Part(custom_profile_fields_state, ("custom_profile_fields",)),
    Part(realm_user_groups_state, ("realm_user_groups",)),
    # The event type is channel_folder; the state key's name is accepted as well.
    Part(channel_folders_state, any_of=("channel_folder", "channel_folders")),
    Part(realm_linkifiers_state, ("realm_linkifiers",)),
    Part(realm_filters_state, ("realm_filters",)),
    Part(user_settings_defaults_state, ("realm_user_settings_defaults",)),
    Part(user_navigation_views_state, ("navigation_view",)),
    Part(incoming_webhook_bots_state, ("realm_incoming_webhook_bots",)),
    Part(user_devices_state, ("device",)),
)


def fetch_initial_state(caller: Principal, me: User, types: list[str] | None,
                        capabilities: dict[str, Any], include_subscribers: IncludeSubscribers,
                        presence: PresenceOptions | None = None,
                        client_gravatar: bool = False) -> InitialState:
    ctx = StateContext(caller, me, None if types is None else frozenset(types),
                       capabilities, include_subscribers, presence or PresenceOptions(),
                       client_gravatar)
    wanted = [part for part in PARTS if part.wanted(ctx)]
    # Each on a copy of this context: the request's deadline holds there too.
    started = {id(part): _builders.submit(contextvars.copy_context().run, part.build, ctx)
               for part in wanted if part.waits}
    built: dict[int, Mapping[str, Any] | BaseException] = {}
    for part in wanted:
        if part.waits:
            continue
        try:
            built[id(part)] = part.build(ctx)
        except Exception as error:  # noqa: BLE001 - raised below, once the pool's are done
            built[id(part)] = error
            break
    built.update((key, _outcome(future)) for key, future in started.items())
    state: dict[str, Any] = {}
    for part in wanted:
        outcome = built.get(id(part), {})
        if isinstance(outcome, BaseException):
            raise outcome
        state.update(outcome)
    return cast(InitialState, state)   # each part declares the keys it adds


# Four: as many as there are parts that wait (a registration never queues behind its
# own builders). They use models/side_by_side.py's pool in turn, so not that one.
_builders = ThreadPoolExecutor(max_workers=4, thread_name_prefix="register")


def _outcome(future: Future[Mapping[str, Any]]) -> Mapping[str, Any] | BaseException:
    """The builder's state, or what it raised (waited for either way)."""
    error = future.exception()
    return future.result() if error is None else error
