"""Loads an organization export (actions/workflows/export.py, docs/realm-export.md) into a new
organization: `python -m chalicelib.admin import-realm`.

Ids are allocated afresh in the new realm and every reference is mapped (senders,
recipients, reactions and their custom emoji, subscriptions, default channels, group
members, subgroups and group-setting values, upload links in contents). Linkifiers come
before messages, which are rendered again in the new realm (mentions resolve to the new
ids, linkifiers link) and written in batches; imported messages are read except where
the export's read state lists them unread. Users get new API keys and no password (they
set one, or an administrator fetches a key for them).
"""
from __future__ import annotations

import base64
import re
import secrets
from collections.abc import Mapping
from typing import Any, TypedDict

from chalicelib import config
from chalicelib.actions.channels.access_events import GuestAccess
from chalicelib.actions.channels.add_subscribers import do_add_subscribers
from chalicelib.actions.channels.topics import note_topic_message
from chalicelib.actions.messages.prepare import new_channel_message
from chalicelib.actions.messages.reads.dicts import recipient_id_for
from chalicelib.actions.messages.reads.rendering import (
    RenderedContent,
    check_content,
    resolve_mentions,
)
from chalicelib.actions.messages.uploads import sanitize_filename
from chalicelib.actions.read_state.reads.pending import WILDCARD_BITS, new_marker
from chalicelib.actions.realm.linkifiers import check_add_linkifier
from chalicelib.actions.realm.reads.emoji import emoji_name_key
from chalicelib.actions.realm.reads.linkifiers import linkifier_rules
from chalicelib.actions.users.users import NewUser, do_create_user
from chalicelib.actions.workflows.export_writer import EXPORT_FORMAT, EXPORT_VERSION
from chalicelib.actions.workflows.realms import do_create_realm
from chalicelib.aws import aws_clients
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import ROLE_OWNER, Principal
from chalicelib.models.base import transaction
from chalicelib.models.channels import Stream
from chalicelib.models.ids import allocate_ids, realm_scope
from chalicelib.models.message_flags import MENTIONED_BIT, UnreadMessage
from chalicelib.models.message_properties import (
    MessageProperty,
    property_key,
    stored_properties,
)
from chalicelib.models.messages import Message, dm_key
from chalicelib.models.realm_emoji import RealmEmoji
from chalicelib.models.realms import Realm, claim_name, get_realm, group_name_key, stream_name_key
from chalicelib.models.uploads import Attachment
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import ApiKey, User
from chalicelib.rules.markdown import render_message
from chalicelib.rules.mentions import find_mentions
from chalicelib.rules.realm_settings import GROUP_SETTING_DEFAULTS, SYSTEM_GROUPS, system_group_id
from chalicelib.rules.reverse_linkifiers import ReverseLinkification

_UPLOAD_LINK = re.compile(r"/user_uploads/(\d+/[0-9a-f]{24}/[^\s)\]\"'<>?#]+)")


class ImportResult(TypedDict):
    realm_id: int
    subdomain: str
    owner_email: str
    owner_api_key: str
    users: int
    channels: int
    messages: int
    uploads: int


def import_realm(document: Mapping[str, Any], subdomain: str) -> ImportResult:
    if document.get("format") != EXPORT_FORMAT or document.get("version") != EXPORT_VERSION:
        raise ApiError("Not an organization export this server can read.")
    exported = document["realm"]
    people = sorted(document["users"], key=lambda u: u["user_id"])
    owner = next((u for u in people if u["role"] == 100 and u["is_active"]
                  and not u["is_bot"]), None)
    if owner is None:
        raise ApiError("The export has no active owner.")
    realm, owner_id, owner_key = do_create_realm(
        exported["name"], subdomain,
        NewUser(email=owner["email"], full_name=owner["full_name"], role=100))
    realm_id = realm.realm_id
    users = {owner["user_id"]: owner_id}
    # Humans first, so bots find their owners.
    for person in sorted(people, key=lambda u: (u["is_bot"], u["user_id"])):
        if person["user_id"] in users:
            continue
        user, _ = do_create_user(realm_id, NewUser(
            email=person["email"], full_name=person["full_name"], role=person["role"],
            is_bot=person["is_bot"], bot_type=person.get("bot_type"),
            bot_owner_id=users.get(person.get("bot_owner_id") or -1),
            # People join here when they first log in (level 475), as the reference's
            # imported accounts do.
            joined_at_first_login=not person["is_bot"]))
        users[person["user_id"]] = user.user_id
    for person in people:
        _restore_user(realm_id, users[person["user_id"]], person)
    channels = _import_channels(realm_id, owner_id, document["channels"])
    _import_subscriptions(realm_id, channels, users, document["subscriptions"])
    groups = _import_groups(realm_id, users, document.get("user_groups") or [])
    emoji = _import_emoji(realm_id, users, document.get("custom_emoji") or [])
    owner_principal = Principal(realm_id=realm_id, user_id=owner_id, email=owner["email"],
                                role=ROLE_OWNER, is_bot=False)
    for linkifier in document.get("linkifiers") or []:   # in their processing order
        check_add_linkifier(owner_principal, linkifier["pattern"], linkifier["url_template"],
                            ReverseLinkification(
                                linkifier.get("example_input"),
                                linkifier.get("reverse_template"),
                                tuple(linkifier.get("alternative_url_templates") or ())))
    Realm(realm_id).update(actions=[
        Realm.description.set(exported.get("description") or ""),
        Realm.settings.set(_map_realm_settings(exported.get("settings") or {}, users,
                                               groups)),
        *([Realm.default_stream_ids.set({channels[i] for i in exported["default_stream_ids"]
                                         if i in channels})]
          if any(i in channels for i in exported.get("default_stream_ids", [])) else [])])
    uploads = _import_uploads(realm_id, users, document["uploads"])
    messages = _import_messages(realm_id, users, channels, uploads, emoji,
                                document["messages"])
    _import_read_state(realm_id, users, messages, document.get("read_state") or {})
    count = len(messages)
    return {"realm_id": realm_id, "subdomain": realm.subdomain,
            "owner_email": owner["email"], "owner_api_key": owner_key, "users": len(users),
            "channels": len(channels), "messages": count, "uploads": len(uploads)}


def _restore_user(realm_id: int, user_id: int, person: Mapping[str, Any]) -> None:
    # Not logged in since the import (level 433); bots never log in.
    actions: list[Any] = [User.timezone.set(person.get("timezone") or ""),
                          User.is_imported_stub.set(not person["is_bot"])]
    if person.get("settings"):
        actions.append(User.settings.set(person["settings"]))
    user = User.get(realm_id, user_id)
    with transaction() as tx:
        if not person["is_active"]:
            actions.append(User.is_active.set(False))
            for key_hash in [user.api_key_hash, *sorted(user.extra_api_key_hashes or ())]:
                tx.update(ApiKey(key_hash), actions=[ApiKey.is_active.set(False)])
        tx.update(User(realm_id, user_id), actions=actions)


def _import_channels(realm_id: int, owner_id: int, records: list[Mapping[str, Any]]
                     ) -> dict[int, int]:
    ids = iter(allocate_ids(realm_scope(realm_id), "stream", max(1, len(records))))
    mapping: dict[int, int] = {}
    for record in records:
        stream = Stream(realm_id, next(ids), name=record["name"],
                        description=record.get("description") or "",
                        rendered_description=record.get("description") or "",
                        invite_only=record["invite_only"],
                        history_public_to_subscribers=record["history_public_to_subscribers"],
                        is_archived=record.get("is_archived", False),
                        date_created=record["date_created"], creator_id=owner_id)
        with transaction() as tx:
            tx.save(stream, condition=Stream.stream_id.does_not_exist())
            claim_name(tx, stream_name_key(realm_id, record["name"]), stream.stream_id)
        mapping[record["stream_id"]] = stream.stream_id
    return mapping


def _import_subscriptions(realm_id: int, channels: dict[int, int], users: dict[int, int],
                          records: list[Mapping[str, Any]]) -> None:
    by_channel: dict[int, list[int]] = {}
    for record in records:
        if record["stream_id"] in channels and record["user_id"] in users:
            by_channel.setdefault(channels[record["stream_id"]], []).append(
                users[record["user_id"]])
    for stream_id, user_ids in by_channel.items():
        stream = Stream.get(realm_id, stream_id)
        members = list(User.batch_get([(realm_id, u) for u in user_ids]))
        do_add_subscribers(realm_id, stream, members, guests=GuestAccess.nobody(realm_id))


def _import_uploads(realm_id: int, users: dict[int, int], records: list[Mapping[str, Any]]
                    ) -> dict[str, Attachment]:
    """Old path id -> the new attachment (its file stored again under the new realm)."""
    found: dict[str, Attachment] = {}
    ids = iter(allocate_ids(realm_scope(realm_id), "upload", max(1, len(records))))
    s3 = aws_clients.s3()
    for record in records:
        if record["owner_id"] not in users:
            continue
        path_id = (f"{realm_id}/{secrets.token_hex(12)}/"
                   f"{sanitize_filename(record['path_id'].rsplit('/', 1)[-1])}")
        s3.put_object(Bucket=config.upload_bucket(), Key=path_id,
                      Body=base64.b64decode(record["data_base64"]),
                      ContentType=record.get("content_type") or "application/octet-stream")
        attachment = Attachment(realm_id, path_id, attachment_id=next(ids),
                                owner_id=users[record["owner_id"]], name=record["name"],
                                size=record["size"], content_type=record.get("content_type"),
                                create_time=record["create_time"])
        attachment.save()
        found[record["path_id"]] = attachment
    return found


def _import_messages(realm_id: int, users: dict[int, int], channels: dict[int, int],
                     uploads: dict[str, Attachment], emoji: dict[int, int],
                     records: list[Mapping[str, Any]]) -> dict[int, Message]:
    """The messages written, by their id in the export."""
    realm = get_realm(realm_id)
    rules = linkifier_rules(realm_id)
    streams = {s.stream_id: s for s in Stream.query(realm_id)}
    records = [r for r in sorted(records, key=lambda r: r["id"])
               if r["sender_id"] in users and (r["type"] != "stream"
                                               or r["stream_id"] in channels)]
    ids = iter(allocate_ids(realm_scope(realm_id), "message", max(1, len(records))))
    latest: dict[tuple[int, str], int] = {}
    links: dict[str, set[int]] = {}
    written: dict[int, Message] = {}
    with Message.batch_write() as batch:
        for record in records:
            content = _UPLOAD_LINK.sub(
                lambda m: f"/user_uploads/{uploads[m.group(1)].path_id}"
                if m.group(1) in uploads else m.group(0), record["content"])
            rendered = _render(realm_id, content, rules)
            sender = users[record["sender_id"]]
            if record["type"] == "stream":
                stream = streams[channels[record["stream_id"]]]
                message = new_channel_message(realm, sender, stream, record["topic"],
                                              rendered, record.get("client") or "API")
            else:
                participants = {users[u] for u in record["recipient_ids"] if u in users}
                message = Message(realm_id, 0, sender_id=sender, type="private",
                                  date_sent=record["date_sent"], recipient_id=0,
                                  client=record.get("client") or "API")
                rendered.apply_to(message)
                message.recipient_ids = sorted(participants)
                message.dm_key = dm_key(realm_id, participants)
                message.recipient_id = recipient_id_for(f"dm:{message.dm_key}")
            message.message_id = next(ids)
            message.date_sent = record["date_sent"]
            message.last_edit_timestamp = record.get("last_edit_timestamp")
            reactions = _reactions(record.get("reactions") or {}, users, emoji)
            if reactions:
                message.reactions = reactions
            if record["type"] == "stream":
                latest[(message.stream_id, record["topic"])] = message.message_id
            for attachment in uploads.values():
                if f"/user_uploads/{attachment.path_id}" in content:
                    links.setdefault(attachment.path_id, set()).add(message.message_id)
            batch.save(message)
            written[int(record["id"])] = message
    with MessageProperty.batch_write() as rows:   # the has: index of what was imported
        for message in written.values():
            for name in sorted(stored_properties(message)):
                rows.save(MessageProperty(property_key(realm_id, name), message.message_id))
    for (stream_id, topic), message_id in latest.items():
        note_topic_message(realm_id, stream_id, topic, message_id)
    for path_id, message_ids in links.items():
        Attachment(realm_id, path_id).update(actions=[Attachment.message_ids.add(message_ids)])
    return written


def _render(realm_id: int, content: str, rules: Any) -> RenderedContent:
    content = check_content(content)
    mentions = find_mentions(content)
    resolved = resolve_mentions(realm_id, mentions)
    return RenderedContent(content, render_message(content, resolved.targets, rules),
                           mentions, resolved, rules)


def _reactions(stored: Mapping[str, Any], users: dict[int, int], emoji: dict[int, int]
               ) -> dict[str, Any]:
    """{"type:code:user_id": {...}} with the user ids (and custom emoji ids) mapped."""
    mapped = {}
    for key, value in stored.items():
        kind, code, user_id = key.rsplit(":", 2)
        if kind == "realm_emoji":
            if not code.isdigit() or int(code) not in emoji:
                continue
            code = str(emoji[int(code)])
        if int(user_id) in users:
            mapped[f"{kind}:{code}:{users[int(user_id)]}"] = value
    return mapped


def _group_value(value: Any, users: dict[int, int], groups: dict[int, int]) -> Any:
    """A group-setting value with its ids mapped: system groups keep theirs (the same in
    every realm), named groups and users get their new ones (dropped if not exported)."""
    if isinstance(value, int):
        if value <= len(SYSTEM_GROUPS):
            return value
        return groups.get(value, system_group_id("role:nobody"))
    return {"direct_members": [users[u] for u in value.get("direct_members") or ()
                               if u in users],
            "direct_subgroups": [_group_value(g, users, groups)
                                 for g in value.get("direct_subgroups") or ()
                                 if g <= len(SYSTEM_GROUPS) or g in groups]}


def _map_realm_settings(settings: Mapping[str, Any], users: dict[int, int],
                        groups: dict[int, int]) -> dict[str, Any]:
    return {name: _group_value(value, users, groups) if name in GROUP_SETTING_DEFAULTS
            else value for name, value in settings.items()}


def _import_groups(realm_id: int, users: dict[int, int], records: list[Mapping[str, Any]]
                   ) -> dict[int, int]:
    """The named user groups (old id -> new id): each group with its name claimed, then
    each member's reverse index (User.group_ids)."""
    ids = iter(allocate_ids(realm_scope(realm_id), "group", max(1, len(records))))
    groups = {int(r["group_id"]): next(ids) for r in records}
    joined: dict[int, set[int]] = {}
    for record in records:
        group_id = groups[int(record["group_id"])]
        members = {users[u] for u in record.get("direct_members") or () if u in users}
        subgroups = {_group_value(g, users, groups) for g in record.get("direct_subgroups")
                     or () if g <= len(SYSTEM_GROUPS) or g in groups}
        settings = {name: _group_value(value, users, groups)
                    for name, value in (record.get("group_settings") or {}).items()}
        creator = record.get("creator_id")
        group = UserGroup(realm_id, group_id, name=record["name"],
                          description=record.get("description") or "",
                          deactivated=bool(record.get("deactivated")),
                          direct_members=members or None, direct_subgroups=subgroups or None,
                          creator_id=users.get(creator) if creator is not None else None,
                          date_created=record["date_created"],
                          group_settings=settings or None, version=0)
        with transaction() as tx:
            tx.save(group, condition=UserGroup.group_id.does_not_exist())
            claim_name(tx, group_name_key(realm_id, record["name"]), group_id)
        for user_id in members:
            joined.setdefault(user_id, set()).add(group_id)
    for user_id, group_ids in sorted(joined.items()):
        User(realm_id, user_id).update(actions=[User.group_ids.add(group_ids)])
    return groups


def _import_emoji(realm_id: int, users: dict[int, int], records: list[Mapping[str, Any]]
                  ) -> dict[int, int]:
    """The custom emoji (old id -> new id), each image stored again under the new realm;
    only the active ones hold their name."""
    ids = iter(allocate_ids(realm_scope(realm_id), "emoji", max(1, len(records))))
    s3 = aws_clients.s3()
    mapping: dict[int, int] = {}
    for record in records:
        emoji_id = next(ids)
        extension = sanitize_filename(record["file_name"]).rsplit(".", 1)[-1]
        path_id = f"{realm_id}/emoji/images/{emoji_id}.{extension}"
        s3.put_object(Bucket=config.upload_bucket(), Key=path_id,
                      Body=base64.b64decode(record["data_base64"]),
                      ContentType=record.get("content_type") or "application/octet-stream")
        author = record.get("author_id")
        item = RealmEmoji(realm_id, emoji_id, name=record["name"], path_id=path_id,
                          author_id=users.get(author) if author is not None else None,
                          deactivated=bool(record.get("deactivated")))
        with transaction() as tx:
            if not item.deactivated:
                claim_name(tx, emoji_name_key(realm_id, record["name"]), emoji_id)
            tx.save(item, condition=RealmEmoji.emoji_id.does_not_exist())
        mapping[int(record["emoji_id"])] = emoji_id
    return mapping


def _import_read_state(realm_id: int, users: dict[int, int], messages: dict[int, Message],
                       state: Mapping[str, list[int]]) -> None:
    """The unread markers the export lists (of messages that were imported), with the
    mention bits that follow from each message."""
    with UnreadMessage.batch_write() as batch:
        for old_user, message_ids in sorted(state.items()):
            user_id = users.get(int(old_user))
            if user_id is None:
                continue
            for old_id in message_ids:
                message = messages.get(int(old_id))
                if message is None or message.sender_id == user_id:
                    continue
                bits = MENTIONED_BIT if user_id in (message.flagged_user_ids or ()) else 0
                if message.type == "stream" and message.wildcard_mention:
                    bits |= WILDCARD_BITS.get(message.wildcard_mention, 0)
                batch.save(new_marker(realm_id, user_id, message, bits))
