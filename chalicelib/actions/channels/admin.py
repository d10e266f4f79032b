"""Channel administration: updating a channel (PATCH /streams/{id}, §4.4) and archiving it.

A request is a fixed number of reads (the channel, the caller's subscription, the realm
when privacy or default channels change) and one transaction: the channel's update
conditioned on every value it read, the name claim, the realm's default-channel set,
and the events, whose audiences the fan-out resolves (channel_permissions.py).
"""
from __future__ import annotations

from typing import Any, Literal, TypedDict

from pynamodb.exceptions import TransactWriteError
from pynamodb.expressions.update import Action

from chalicelib import config
from chalicelib.actions.channels.folders import get_usable_folder
from chalicelib.actions.channels.reads.channels import (
    channel_already_exists,
    stream_create_event,
    stream_deleted_event,
)
from chalicelib.actions.channels.reads.permissions import (
    can_administer_channel,
    has_content_access,
    realm_default_stream_ids,
    viewers_audience,
)
from chalicelib.actions.channels.update import StreamUpdate, StreamUpdateEvent
from chalicelib.actions.groups.reads.settings import (
    caller_has_realm_permission,
    check_group_setting_change,
)
from chalicelib.core.errors import (
    ADMINISTRATOR_REQUIRED,
    NOT_PERMITTED,
    OWNER_REQUIRED,
    UNKNOWN_CHANNEL_ID,
    ApiError,
    ConflictError,
)
from chalicelib.core.principal import ROLE_MEMBER, Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import add_event, to_realm
from chalicelib.delivery.types import EventBody, EventFacts
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.channel_folders import ChannelFolder
from chalicelib.models.channels import (
    Stream,
    channel_group_setting,
    get_stream,
    get_subscription,
    stream_id_by_name,
    stream_key,
)
from chalicelib.models.realms import Realm, get_realm, move_name, realm_setting, stream_name_key
from chalicelib.models.topics import Topic, topic_item_key
from chalicelib.rules.channel_access import visibility
from chalicelib.rules.group_settings import CHANNEL_GROUP_SETTINGS
from chalicelib.rules.markdown import render_markdown
from chalicelib.rules.names import check_stream_name
from chalicelib.rules.realm_settings import system_group_id

PRIVACY = ("is_private", "is_web_public", "history_public_to_subscribers")
# Changes that need content access (for a private channel: a subscription or its
# add-subscribers group), as §4.4 says; the rest need metadata access only.
CONTENT_ACCESS = frozenset(PRIVACY) | {
    "can_add_subscribers_group", "can_delete_any_message_group",
    "can_move_messages_out_of_channel_group"}
RETENTION_SPECIAL = {"unlimited": -1, "realm_default": None}
# Changes that organization administrators make, and channel administrators who are in
# the organization's setting for them too (levels 392 and 407).
REALM_GATED = {"topics_policy": "can_set_topics_policy_group",
               "can_delete_any_message_group": "can_set_delete_message_policy_group",
               "can_delete_own_message_group": "can_set_delete_message_policy_group"}
EMPTY_TOPIC_ONLY = "empty_topic_only"
CONTENT_ACCESS_REQUIRED = "Channel content access is required."


class DefaultStreamsEvent(TypedDict):
    """The realm's default channels, after a change (ids)."""

    type: Literal["default_streams"]
    default_streams: list[int]


def access_stream_for_administering(caller: Principal, stream_id: int
                                    ) -> tuple[Stream, bool]:
    """The channel and whether the caller is subscribed, if the caller may administer it;
    a channel the caller cannot see looks like a missing one."""
    stream = get_stream(caller.realm_id, stream_id)
    if stream is None:
        raise ApiError(UNKNOWN_CHANNEL_ID)
    subscribed = get_subscription(caller.realm_id, caller.user_id, stream_id) is not None
    if can_administer_channel(caller, stream):
        return stream, subscribed
    if has_content_access(caller, stream, subscribed):
        raise ApiError("You do not have permission to administer this channel.")
    raise ApiError(UNKNOWN_CHANNEL_ID)


def _retention_days(value: int | str) -> int | None:
    if isinstance(value, str):
        if value not in RETENTION_SPECIAL:
            raise ApiError(f"'message_retention_days' cannot be {value}")
        return RETENTION_SPECIAL[value]
    if value < 1:
        raise ApiError(f"'message_retention_days' cannot be {value}")
    return value


def _only_empty_topic(stream: Stream) -> bool:
    # Topic items sort by name and the empty topic first: two tell whether another exists.
    return all(t.topic_key == topic_item_key("") for t in Topic.query(
        stream_key(stream.realm_id, stream.stream_id), limit=2))


def do_update_stream(caller: Principal, stream_id: int, requested: dict[str, Any],
                     changed: dict[str, tuple[Any, Any]] | None = None) -> EmptyResult:
    """`changed` collects what the update changed: attribute -> (before, after)."""
    if not requested:
        raise ApiError("No channel properties to change were given.")
    stream, subscribed = access_stream_for_administering(caller, stream_id)
    _check_update_allowed(caller, stream, subscribed, requested)
    gated = [REALM_GATED[n] for n in requested if n in REALM_GATED and not caller.is_admin]
    realm = get_realm(caller.realm_id) if gated or any(
        n in requested for n in (*PRIVACY, "is_default_stream")) else None
    if realm is not None and not all(caller_has_realm_permission(
            realm, caller.user_id, caller.role, setting) for setting in gated):
        raise ApiError(NOT_PERMITTED)
    update = StreamUpdate(stream)
    _update_name(caller, stream, requested, update)
    _update_description(stream, requested, update)
    if realm is not None:
        _check_privacy(caller, realm, stream, requested, update)
        _check_default(stream, requested, update, realm)
    _update_retention_and_archival(stream, requested, update)
    _update_folder_and_topics(caller, stream, requested, update)
    for name in CHANNEL_GROUP_SETTINGS:
        if name in requested:
            current = channel_group_setting(stream, name)
            new = check_group_setting_change(caller.realm_id, name, requested[name], current)
            if new != current:
                update.set_group_setting(name, new)
    _check_topic_creation_setting(stream, update)
    if update.changed:
        _write(caller, stream, update)
        if changed is not None:
            changed.update({name: (getattr(stream, name), value)
                            for name, value in update.values.items()})
    return {}


def _check_topic_creation_setting(stream: Stream, update: StreamUpdate) -> None:
    """A private channel with protected history lets everyone who may post create
    topics, as the reference requires (level 441)."""
    private = update.values.get("invite_only", stream.invite_only)
    history = update.values.get("history_public_to_subscribers",
                                stream.history_public_to_subscribers)
    creators = update.groups.get("can_create_topic_group",
                                 channel_group_setting(stream, "can_create_topic_group"))
    if private and not history and creators != system_group_id("role:everyone"):
        raise ApiError("In a private channel with protected history, can_create_topic_group "
                       "must be role:everyone.")


def _check_update_allowed(caller: Principal, stream: Stream, subscribed: bool,
                          requested: dict[str, Any]) -> None:
    """The role each requested property needs, before anything is read for it."""
    if any(n in CONTENT_ACCESS for n in requested) and not has_content_access(
            caller, stream, subscribed):
        raise ApiError(CONTENT_ACCESS_REQUIRED)
    if "message_retention_days" in requested and not caller.is_owner:
        raise ApiError(OWNER_REQUIRED)
    if "is_default_stream" in requested and not caller.is_admin:
        raise ApiError(ADMINISTRATOR_REQUIRED)
    if requested.get("is_archived") is True:
        raise ApiError("Channels are archived with DELETE /streams/{stream_id}; only "
                       "unarchiving is supported here.")


def _update_name(caller: Principal, stream: Stream, requested: dict[str, Any],
                 update: StreamUpdate) -> None:
    if "new_name" not in requested:
        return
    new_name = check_stream_name(requested["new_name"])
    if new_name == stream.name:
        raise ApiError("The channel is already called that.")
    if new_name.lower() != stream.name.lower() and stream_id_by_name(
            caller.realm_id, new_name) is not None:
        raise channel_already_exists(new_name)
    update.set("name", new_name)


def _update_description(stream: Stream, requested: dict[str, Any],
                        update: StreamUpdate) -> None:
    if "description" not in requested:
        return
    # Channel descriptions are one line, as the reference keeps them.
    description = requested["description"].replace("\n", " ").strip()
    if len(description) > config.MAX_STREAM_DESCRIPTION_LENGTH:
        raise ApiError("Channel description too long (limit: "
                       f"{config.MAX_STREAM_DESCRIPTION_LENGTH} characters).")
    if description != stream.description:
        rendered = render_markdown(description)
        update.set("description", description, rendered_description=rendered)
        update.values["rendered_description"] = rendered


def _update_retention_and_archival(stream: Stream, requested: dict[str, Any],
                                   update: StreamUpdate) -> None:
    if "message_retention_days" in requested:
        days = _retention_days(requested["message_retention_days"])
        if days != stream.message_retention_days:
            update.set("message_retention_days", days)
    if requested.get("is_archived") is False:
        if not stream.is_archived:
            raise ApiError("Channel is not archived.")
        update.unarchive()


def _update_folder_and_topics(caller: Principal, stream: Stream, requested: dict[str, Any],
                              update: StreamUpdate) -> None:
    if "folder_id" in requested:
        folder_id = requested["folder_id"]
        if folder_id is not None:
            get_usable_folder(caller.realm_id, folder_id)
        if folder_id != stream.folder_id:
            update.set("folder_id", folder_id)
    policy = requested.get("topics_policy", stream.topics_policy)
    if policy != stream.topics_policy:
        if policy == EMPTY_TOPIC_ONLY and not _only_empty_topic(stream):
            raise ApiError("To enable this configuration, all messages in this channel must "
                           "be in the empty topic. Consider renaming or deleting other topics.")
        update.set("topics_policy", policy)


def _check_privacy(caller: Principal, realm: Realm, stream: Stream,
                   requested: dict[str, Any], update: StreamUpdate) -> None:
    """The reference's rules for is_private, is_web_public and the history setting."""
    if not any(n in requested for n in PRIVACY):
        return
    private = requested.get("is_private", stream.invite_only)
    web_public = requested.get("is_web_public", stream.is_web_public)
    if "history_public_to_subscribers" in requested:
        history = requested["history_public_to_subscribers"]
    elif private != stream.invite_only:
        history = not private   # private channels protect their history by default
    else:
        history = stream.history_public_to_subscribers
    if (web_public and (private or not history)) or (not private and not history):
        raise ApiError("Those settings cannot be combined.")
    if "is_private" in requested:
        setting = ("can_create_private_channel_group" if private
                   else "can_create_public_channel_group")
        if not caller_has_realm_permission(realm, caller.user_id, caller.role, setting):
            raise ApiError(NOT_PERMITTED)
    if requested.get("is_web_public"):
        if not config.web_public_streams_enabled() or not realm_setting(
                realm, "enable_spectator_access"):
            raise ApiError("This organization does not allow web-public channels.")
        if not caller_has_realm_permission(realm, caller.user_id, caller.role,
                                           "can_create_web_public_channel_group"):
            raise ApiError(NOT_PERMITTED)
    if private != stream.invite_only:
        update.set("invite_only", private, history_public_to_subscribers=history,
                   is_web_public=web_public)
    if web_public != stream.is_web_public:
        update.set("is_web_public", web_public)
    if history != stream.history_public_to_subscribers:
        update.set("history_public_to_subscribers", history)


def _check_default(stream: Stream, requested: dict[str, Any], update: StreamUpdate,
                   realm: Realm) -> None:
    defaults = realm_default_stream_ids(realm)
    is_default = requested.get("is_default_stream", stream.stream_id in defaults)
    if is_default and update.values.get("invite_only", stream.invite_only):
        raise ApiError("Private channels cannot be default channels.")
    if is_default and stream.is_archived and requested.get("is_archived") is not False:
        raise ApiError("An archived channel cannot be a default channel.")
    if is_default != (stream.stream_id in defaults):
        update.set_default(is_default, defaults)
    elif is_default != stream.is_default:
        update.values["is_default"] = is_default   # repairs the channel's copy


def _write(caller: Principal, stream: Stream, update: StreamUpdate) -> None:
    realm_id, stream_id = caller.realm_id, stream.stream_id
    after = update.applied()
    renamed = "name" in update.values
    old_key, new_key = (stream_name_key(realm_id, stream.name),
                        stream_name_key(realm_id, after.name))
    try:
        with transaction() as tx:
            tx.update(stream, actions=update.actions(), condition=update.condition())
            if renamed:   # the name claim moves with the name, so names stay unique
                move_name(tx, old_key, new_key, stream_id)
            if "folder_id" in update.values:
                _move_between_folders(tx, realm_id, stream.folder_id, after.folder_id)
            if update.new_defaults is not None:
                _write_defaults(tx, realm_id, update.old_defaults, update.new_defaults)
            _add_update_events(tx, realm_id, stream, after, update)
    except TransactWriteError as error:
        if not is_condition_failure(error):
            raise
        if renamed and stream_id_by_name(realm_id, after.name) not in (None, stream_id):
            raise channel_already_exists(after.name) from None
        if "folder_id" in update.values and after.folder_id is not None:
            get_usable_folder(realm_id, after.folder_id)   # archived meanwhile: say so
        raise ConflictError("The channel changed at the same time; try again.") from None


def _move_between_folders(tx: Any, realm_id: int, old: int | None, new: int | None) -> None:
    """Keeps each folder's count of channels (folder_admin.py archives only empty ones);
    the new folder must still be unarchived."""
    if old is not None:
        tx.update(ChannelFolder(realm_id, old), actions=[ChannelFolder.channel_count.add(-1)],
                  condition=ChannelFolder.folder_id.exists())
    if new is not None:
        tx.update(ChannelFolder(realm_id, new), actions=[ChannelFolder.channel_count.add(1)],
                  condition=ChannelFolder.is_archived == False)


def _add_update_events(tx: Any, realm_id: int, stream: Stream, after: Stream,
                       update: StreamUpdate) -> None:
    """Each change to everyone who can see the channel now; a privacy change also
    creates the channel for those who gain sight of it and deletes it for those who lose
    it (guests, when it stops being web-public), as the reference does."""
    before_level, after_level = visibility(stream), visibility(after)
    audience = viewers_audience(stream.stream_id, after_level)
    if after_level < before_level:
        add_event(tx, realm_id, stream_deleted_event(stream.stream_id),
                  viewers_audience(stream.stream_id, before_level, minus=after_level))
    if after_level > before_level:
        add_event(tx, realm_id, stream_create_event(after),
                  viewers_audience(stream.stream_id, after_level, minus=before_level))
    for event in update.events:
        add_event(tx, realm_id, event, audience)
    if update.unarchived:
        # Clients without archived_channels see the channel created again.
        add_event(tx, realm_id, _archived_event(after, False), audience,
                  _older_form(stream_create_event(after)))


def _write_defaults(tx: Any, realm_id: int, old: set[int], new: set[int]) -> None:
    """The realm's default-channel set, conditioned on the set that was read, so the
    default_streams event lists exactly the set that results."""
    added, removed = new - old, old - new
    actions = ([Realm.default_stream_ids.add(added)] if added else []) + (
        [Realm.default_stream_ids.delete(removed)] if removed else [])
    condition = (Realm.default_stream_ids == old) if old else \
        Realm.default_stream_ids.does_not_exist()
    tx.update(Realm(realm_id), actions=actions, condition=condition)
    event: DefaultStreamsEvent = {"type": "default_streams", "default_streams": sorted(new)}
    add_event(tx, realm_id, event, to_realm(max_role=ROLE_MEMBER))


def _archived_event(stream: Stream, archived: bool) -> StreamUpdateEvent:
    return {"type": "stream", "op": "update", "stream_id": stream.stream_id,
            "name": stream.name, "property": "is_archived", "value": archived}


def _older_form(event: EventBody) -> EventFacts:
    """Clients without archived_channels see the channel created or deleted instead."""
    return {"without_capability": {"capability": "archived_channels", "event": event}}


def do_archive_stream(caller: Principal, stream_id: int) -> EmptyResult:
    """DELETE /streams/{id}: archives the channel (it stops being a default channel)."""
    stream, _ = access_stream_for_administering(caller, stream_id)
    if stream.is_archived:
        raise ApiError("Channel is already archived.")
    realm = get_realm(caller.realm_id)
    defaults = realm_default_stream_ids(realm)
    actions: list[Action] = [Stream.is_archived.set(True), Stream.is_default.set(False)]
    event = _archived_event(stream, True)
    try:
        with transaction() as tx:
            tx.update(stream, actions=actions,
                      condition=Stream.is_archived == False)
            add_event(tx, caller.realm_id, event,
                      viewers_audience(stream_id, visibility(stream)),
                      _older_form(stream_deleted_event(stream_id)))
            if stream_id in defaults:
                _write_defaults(tx, caller.realm_id, defaults, defaults - {stream_id})
            else:   # not made default meanwhile: an archived channel is never one
                tx.condition_check(Realm, caller.realm_id, condition=~Realm.default_stream_ids
                                   .contains(stream_id))
    except TransactWriteError as error:
        if not is_condition_failure(error):
            raise
        current = get_stream(caller.realm_id, stream_id)
        if current is None or current.is_archived:
            raise ApiError("Channel is already archived.") from None
        raise ConflictError("The default channels changed at the same time; try again."
                            ) from None
    return {}
