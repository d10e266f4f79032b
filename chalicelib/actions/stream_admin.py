"""Channel administration: updating a channel (PATCH /streams/{id}, §4.4) and archiving it."""
from __future__ import annotations

from typing import Any

from pynamodb.attributes import MapAttribute
from pynamodb.exceptions import TransactWriteError

from chalicelib import config
from chalicelib.actions.channel_folders import get_usable_folder
from chalicelib.actions.group_settings import (caller_has_realm_permission,
                                               check_group_setting_change, normalize,
                                               user_has_group_setting)
from chalicelib.actions.realm_settings import realm_setting
from chalicelib.actions.realms import get_realm
from chalicelib.actions.streams import (get_stream, get_subscription, stream_api_dict,
                                        stream_id_by_name, subscriber_ids)
from chalicelib.actions.subscriptions import check_stream_name
from chalicelib.actions.users import list_realm_users
from chalicelib.events.outbox import Audience, add_event
from chalicelib.http.auth import ROLE_ADMINISTRATOR, ROLE_GUEST, ROLE_MEMBER, Principal
from chalicelib.http.errors import ApiError
from chalicelib.lib.markdown import render_markdown
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.invitations import ChannelFolder
from chalicelib.models.realms import UniqueName, stream_name_key
from chalicelib.models.streams import Stream, stream_key
from chalicelib.models.topics import Topic

# The channel-level group settings PATCH /streams/{id} changes (§4.4), as stream_api_dict
# reports them.
GROUP_SETTINGS = ("can_add_subscribers_group", "can_remove_subscribers_group",
                  "can_administer_channel_group", "can_delete_any_message_group",
                  "can_delete_own_message_group", "can_move_messages_out_of_channel_group")
PRIVACY = ("is_private", "is_web_public", "history_public_to_subscribers")
# Changes that need content access (for a private channel: a subscription), as the
# reference says; the rest need metadata access, which administrators always have.
CONTENT_ACCESS = frozenset(PRIVACY) | {
    "can_add_subscribers_group", "can_delete_any_message_group",
    "can_delete_own_message_group", "can_move_messages_out_of_channel_group"}
RETENTION_SPECIAL = {"unlimited": -1, "realm_default": None}
EMPTY_TOPIC_ONLY = "empty_topic_only"


def access_stream_for_administering(caller: Principal, stream_id: int, *,
                                    require_content_access: bool) -> Stream:
    """The channel, if the caller may administer it; missing and unseen look the same."""
    stream = get_stream(caller.realm_id, stream_id)
    if stream is None:
        raise ApiError("Invalid channel ID")
    subscribed = get_subscription(caller.realm_id, caller.user_id, stream_id) is not None
    administers = caller.is_admin or user_has_group_setting(
        caller.realm_id, caller.user_id, caller.role,
        normalize(stream_api_dict(stream)["can_administer_channel_group"]))
    content_access = subscribed or (not stream.invite_only and not caller.is_guest)
    # Organization and channel administrators see a private channel's metadata.
    if not content_access and not administers:
        raise ApiError("Invalid channel ID")
    if not administers:
        raise ApiError("You do not have permission to administer this channel.")
    if require_content_access and not content_access:
        raise ApiError("You must be subscribed to this private channel to change its "
                       "permissions.")
    return stream


def metadata_audiences(realm_id: int, stream_id: int, public: bool) -> list[Audience]:
    """Everyone who can see that the channel exists (its metadata), each once."""
    subscribers = set(subscriber_ids(realm_id, stream_id))
    users = [u for u in list_realm_users(realm_id) if u.is_active]
    if public:
        # Every member; guests only through a subscription.
        guests = sorted(u.user_id for u in users
                        if u.role >= ROLE_GUEST and u.user_id in subscribers)
        audiences: list[Audience] = [{"realm": True, "max_role": ROLE_MEMBER}]
        return audiences + ([{"users": guests}] if guests else [])
    admins = {u.user_id for u in users if u.role <= ROLE_ADMINISTRATOR}
    return [{"users": sorted(subscribers | admins)}]


def _default_streams_event(changed: Stream) -> dict[str, Any]:
    # Default channels are few; listing the realm's channels is one Query.
    streams = [changed if s.stream_id == changed.stream_id else s
               for s in Stream.query(changed.realm_id)]
    return {"type": "default_streams", "default_streams": [
        stream_api_dict(s) for s in streams if s.is_default and not s.is_archived]}


def _retention_days(value: int | str) -> int | None:
    if isinstance(value, str):
        if value not in RETENTION_SPECIAL:
            raise ApiError(f"Bad value for 'message_retention_days': {value}")
        return RETENTION_SPECIAL[value]
    if value < 1:
        raise ApiError(f"Bad value for 'message_retention_days': {value}")
    return value


def _only_empty_topic(stream: Stream) -> bool:
    # The channel's topic items, one Query: as many as it has topics, not messages.
    return all(t.topic_key == "" for t in Topic.query(
        stream_key(stream.realm_id, stream.stream_id)))


class _Update:
    """The attribute changes of one request and the update events they produce."""

    def __init__(self, stream: Stream) -> None:
        self.stream = stream
        self.values: dict[str, Any] = {}        # Stream attribute name -> new value
        self.groups: dict[str, Any] = {}        # group setting -> new value
        self.events: list[dict[str, Any]] = []

    def set(self, attribute: str, prop: str, value: Any, **extra: Any) -> None:
        self.values[attribute] = value
        self.events.append({"type": "stream", "op": "update",
                            "stream_id": self.stream.stream_id, "name": self.stream.name,
                            "property": prop, "value": value, **extra})

    def actions(self) -> list[Any]:
        actions = [getattr(Stream, name).remove() if value is None
                   else getattr(Stream, name).set(value) for name, value in self.values.items()]
        if self.groups:
            if "group_settings" in self.stream.attribute_values:
                # One path per setting: concurrent changes to other settings keep theirs.
                actions += [Stream.group_settings[n].set(v) for n, v in self.groups.items()]
            else:
                actions.append(Stream.group_settings.set(self._merged_groups()))
        return actions

    def _merged_groups(self) -> dict[str, Any]:
        stored = self.stream.group_settings.as_dict() if self.stream.group_settings else {}
        return {**stored, **self.groups}

    def applied(self) -> Stream:
        """The channel as it is after the change (for events that carry whole channels)."""
        stream = Stream.from_raw_data(self.stream.serialize())
        for name, value in self.values.items():
            setattr(stream, name, value)
        if self.groups:
            stream.group_settings = MapAttribute(**self._merged_groups())
        return stream


def do_update_stream(caller: Principal, stream_id: int, requested: dict[str, Any]
                     ) -> dict[str, Any]:
    if not requested:
        raise ApiError("No channel properties to change were given.")
    stream = access_stream_for_administering(
        caller, stream_id, require_content_access=any(n in CONTENT_ACCESS for n in requested))
    if "message_retention_days" in requested and not caller.is_owner:
        raise ApiError("Must be an organization owner")
    if "is_default_stream" in requested and not caller.is_admin:
        raise ApiError("Must be an organization administrator")
    if requested.get("is_archived") is True:
        raise ApiError("Channels are archived with DELETE /streams/{stream_id}; only "
                       "unarchiving is supported here.")
    update = _Update(stream)
    old_name = stream.name
    if "new_name" in requested:
        new_name = check_stream_name(requested["new_name"])
        if new_name == stream.name:
            raise ApiError("Channel already has that name.")
        if new_name.lower() != stream.name.lower() and stream_id_by_name(
                caller.realm_id, new_name) is not None:
            raise ApiError("Channel name already in use.")
        update.set("name", "name", new_name)
        stream.name = new_name   # later events name the channel by its new name
    if "description" in requested:
        # Channel descriptions are one line, as the reference keeps them.
        description = requested["description"].replace("\n", " ").strip()
        if len(description) > config.MAX_STREAM_DESCRIPTION_LENGTH:
            raise ApiError("Channel description too long (limit: "
                           f"{config.MAX_STREAM_DESCRIPTION_LENGTH} characters).")
        if description != stream.description:
            rendered = render_markdown(description)
            update.set("description", "description", description,
                       rendered_description=rendered)
            update.values["rendered_description"] = rendered
    public_before = not stream.invite_only
    _check_privacy(caller, stream, requested, update)
    if "is_default_stream" in requested and requested["is_default_stream"] != stream.is_default:
        update.values["is_default"] = requested["is_default_stream"]
    if update.values.get("is_default", stream.is_default) and update.values.get(
            "invite_only", stream.invite_only):
        raise ApiError("A default channel cannot be private.")
    if "message_retention_days" in requested:
        days = _retention_days(requested["message_retention_days"])
        if days != stream.message_retention_days:
            update.set("message_retention_days", "message_retention_days", days)
    unarchive = requested.get("is_archived") is False
    if unarchive:
        if not stream.is_archived:
            raise ApiError("Channel is not archived.")
        update.values["is_archived"] = False
    folder_id = requested.get("folder_id", stream.folder_id)
    if "folder_id" in requested:
        if folder_id is not None:
            get_usable_folder(caller.realm_id, folder_id)
        if folder_id != stream.folder_id:
            update.set("folder_id", "folder_id", folder_id)
    policy = requested.get("topics_policy", stream.topics_policy)
    if policy != stream.topics_policy:
        if policy == EMPTY_TOPIC_ONLY and not _only_empty_topic(stream):
            raise ApiError("To enable this configuration, all messages in this channel must "
                           "be in the empty topic. Consider renaming or deleting other topics.")
        update.set("topics_policy", "topics_policy", policy)
    current = stream_api_dict(stream)
    for name in GROUP_SETTINGS:
        if name in requested:
            new = check_group_setting_change(caller.realm_id, name, requested[name],
                                             current[name])
            if new != normalize(current[name]):
                update.groups[name] = new
                update.events.append({"type": "stream", "op": "update",
                                      "stream_id": stream_id, "name": stream.name,
                                      "property": name, "value": new})
    if not update.values and not update.groups:
        return {}
    stream.name = old_name
    _write(caller, stream, update, requested, public_before, unarchive)
    return {}


def _check_privacy(caller: Principal, stream: Stream, requested: dict[str, Any],
                   update: _Update) -> None:
    if not any(n in requested for n in PRIVACY):
        return
    private = requested.get("is_private", stream.invite_only)
    web_public = requested.get("is_web_public", stream.is_web_public)
    # Asking for one of the two implies leaving the other.
    if "is_web_public" not in requested and private:
        web_public = False
    if "is_private" not in requested and web_public:
        private = False
    if private and web_public:
        raise ApiError("Invalid parameters: a channel cannot be both private and web-public.")
    history = requested.get("history_public_to_subscribers",
                            stream.history_public_to_subscribers if private else True)
    if not private and not history:
        raise ApiError("Invalid parameters: a public or web-public channel's history is "
                       "always public to its subscribers.")
    if requested.get("is_web_public"):
        realm = get_realm(caller.realm_id)
        if not realm_setting(realm, "enable_spectator_access"):
            raise ApiError("Web-public channels are not enabled.")
        if not caller_has_realm_permission(realm, caller.user_id, caller.role,
                                           "can_create_web_public_channel_group"):
            raise ApiError("Insufficient permission")
    if private != stream.invite_only:
        update.set("invite_only", "invite_only", private,
                   history_public_to_subscribers=history, is_web_public=web_public)
    if web_public != stream.is_web_public:
        update.set("is_web_public", "is_web_public", web_public)
    if history != stream.history_public_to_subscribers:
        update.set("history_public_to_subscribers", "history_public_to_subscribers", history)


def _write(caller: Principal, stream: Stream, update: _Update, requested: dict[str, Any],
           public_before: bool, unarchive: bool) -> None:
    realm_id, stream_id = caller.realm_id, stream.stream_id
    after = update.applied()
    # A privacy change is told to everyone who could see the channel before or after.
    audiences = metadata_audiences(realm_id, stream_id, public_before or not after.invite_only)
    condition = Stream.stream_id.exists()
    renamed = "name" in update.values
    old_key, new_key = stream_name_key(realm_id, stream.name), stream_name_key(realm_id,
                                                                               after.name)
    if renamed:
        condition &= Stream.name == stream.name
    if unarchive:
        condition &= Stream.is_archived == True  # noqa: E712 - a DynamoDB condition
    try:
        with transaction() as tx:
            tx.update(stream, actions=update.actions(), condition=condition)
            if renamed and old_key != new_key:
                # The name claim moves with the name, so names stay unique.
                tx.delete(UniqueName(*old_key), condition=UniqueName.target_id == stream_id)
                tx.save(UniqueName(*new_key, target_id=stream_id),
                        condition=UniqueName.name.does_not_exist())
            if after.folder_id is not None and "folder_id" in update.values:
                tx.condition_check(ChannelFolder, realm_id, after.folder_id,
                                   condition=ChannelFolder.is_archived == False)  # noqa: E712
            for audience in audiences:
                for event in update.events:
                    add_event(tx, realm_id, event, audience)
                if unarchive:
                    # As for clients without the archived_channels capability.
                    add_event(tx, realm_id, {"type": "stream", "op": "create",
                                             "streams": [stream_api_dict(after)]}, audience)
            if "is_default" in update.values:
                add_event(tx, realm_id, _default_streams_event(after),
                          {"realm": True, "max_role": ROLE_MEMBER})
    except TransactWriteError as error:
        if not is_condition_failure(error):
            raise
        if renamed:
            raise ApiError("Channel name already in use.") from None
        if "folder_id" in requested:
            raise ApiError("Invalid channel folder ID") from None
        raise ApiError("The channel changed at the same time; try again.") from None


def do_archive_stream(caller: Principal, stream_id: int) -> dict[str, Any]:
    stream = access_stream_for_administering(caller, stream_id, require_content_access=False)
    if stream.is_archived:
        raise ApiError("Channel is already archived.")
    actions = [Stream.is_archived.set(True)]
    if stream.is_default:
        actions.append(Stream.is_default.set(False))   # archived channels are not defaults
    after = Stream.from_raw_data(stream.serialize())
    after.is_archived, after.is_default = True, False
    event = {"type": "stream", "op": "delete", "streams": [{"stream_id": stream_id}],
             "stream_ids": [stream_id]}
    try:
        with transaction() as tx:
            tx.update(stream, actions=actions,
                      condition=Stream.is_archived == False)  # noqa: E712
            for audience in metadata_audiences(caller.realm_id, stream_id,
                                               not stream.invite_only):
                add_event(tx, caller.realm_id, event, audience)
            if stream.is_default:
                add_event(tx, caller.realm_id, _default_streams_event(after),
                          {"realm": True, "max_role": ROLE_MEMBER})
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ApiError("Channel is already archived.") from None
        raise
    return {}
