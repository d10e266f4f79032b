"""Writing an organization export in parts that outlive the invocation writing them.

A million messages do not fit one invocation of the background worker (60 s, 256 MB):
read and encoded they are minutes of work and far more memory. So the document
(docs/realm-export.md) is written as an S3 multipart upload: the organization's people,
channels and subscriptions, then the messages in id order, each part of at least
PART_BYTES uploaded as soon as it is full, and after each part the export's progress
(the upload, its parts, the last message read) is saved on its item. When the
invocation's time is nearly up it saves and hands the job back to the queue; the next
invocation goes on from the saved message (the part being filled is read again). An
invocation killed before it saved comes back with the queue's redelivery and goes on
from the last part saved. The end (uploads, groups, emoji, linkifiers, read state) is
the last part; completing the upload makes the object.

What an export holds is fixed when it starts: the channels, and who consented
(`allow_private_data_export`), are stored on the item with the first part.
"""
from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from chalicelib import config
from chalicelib.actions.messages.uploads import upload_path_ids
from chalicelib.actions.read_state.reads.pending import Recipient, unread_in_flight
from chalicelib.aws import aws_clients
from chalicelib.models.channels import Stream, Subscription, stream_key, user_key
from chalicelib.models.linkifiers import realm_linkifiers
from chalicelib.models.message_flags import UnreadMessage
from chalicelib.models.messages import Message
from chalicelib.models.realm_emoji import RealmEmoji
from chalicelib.models.realm_exports import RealmExport
from chalicelib.models.realms import Realm
from chalicelib.models.side_by_side import read_all, side_by_side
from chalicelib.models.uploads import Attachment
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import User
from chalicelib.rules.user_settings import effective_settings

EXPORT_FORMAT = "teamchat-realm-export"
EXPORT_VERSION = 1
PUBLIC, STANDARD = 1, 2
PART_BYTES = 8 * 1024 * 1024   # S3 wants every part but the last to be 5 MiB or more


class Parts(Protocol):
    """Where the document's parts go (an S3 multipart upload, or memory)."""

    def upload(self, number: int, data: bytes) -> str: ...   # returns the part's ETag


@dataclass
class Progress:
    """What the item keeps between invocations."""

    parts: list[list[Any]] = field(default_factory=list)   # [number, etag, bytes]
    cursor: int = 0       # the last message read into an uploaded part
    written: int = 0      # messages in the uploaded parts
    exported_at: float = 0.0
    channels: list[int] = field(default_factory=list)   # exported channels
    private: list[int] = field(default_factory=list)    # of them, the private ones
    consenting: list[int] = field(default_factory=list)
    finished: bool = False   # the last part is uploaded: only the completion is left

    @classmethod
    def of(cls, item: RealmExport) -> Progress:
        return cls(**(item.progress or {})) if item.progress else cls()

    @property
    def size(self) -> int:
        return sum(int(size) for _, _, size in self.parts)


def consented(user: User) -> bool:
    return bool(effective_settings(user.stored_settings()).get("allow_private_data_export"))


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


class ExportRun:
    """One invocation's share of an export: `run` returns True once the document is
    complete (its parts all uploaded), False when it stopped at `deadline` with its
    progress saved through `save`."""

    def __init__(self, realm_id: int, export_type: int, progress: Progress, parts: Parts,
                 save: Callable[[Progress], None], deadline: float | None = None) -> None:
        self.realm_id, self.export_type = realm_id, export_type
        self.progress, self.parts, self.save = progress, parts, save
        self.deadline = deadline
        self.buffer = bytearray()

    def run(self) -> bool:
        if self.progress.finished:
            return True
        if not self.progress.parts and not self.progress.channels:
            self.buffer += self._head()
        last = self.progress.cursor
        for message in Message.query(self.realm_id, Message.message_id > last):
            last = int(message.message_id)
            if self._exported(message):
                self.buffer += (b"," if self.progress.written else b"") + \
                    _json(_message_record(message))
                self.progress.written += 1
            if len(self.buffer) >= PART_BYTES:
                self._upload(last)
                if self.deadline is not None and time.monotonic() > self.deadline:
                    return False
        self.buffer += self._tail()
        self.progress.finished = True
        self._upload(last)
        return True

    def _upload(self, cursor: int) -> None:
        number = len(self.progress.parts) + 1
        etag = self.parts.upload(number, bytes(self.buffer))
        self.progress.parts.append([number, etag, len(self.buffer)])
        self.progress.cursor = cursor
        self.buffer = bytearray()
        self.save(self.progress)

    def _exported(self, message: Message) -> bool:
        consenting = self._consenting
        if message.type == "stream":
            stream_id = int(message.stream_id or 0)
            return stream_id in self._channels and (
                stream_id not in self._private or int(message.sender_id) in consenting)
        return int(message.sender_id) in consenting

    @property
    def _channels(self) -> set[int]:
        if not hasattr(self, "_channel_set"):
            self._channel_set = set(self.progress.channels)
            self._private_set = set(self.progress.private)
            self._consenting_set = set(self.progress.consenting)
        return self._channel_set

    @property
    def _private(self) -> set[int]:
        self._channels   # noqa: B018 - fills the sets
        return self._private_set

    @property
    def _consenting(self) -> set[int]:
        self._channels   # noqa: B018 - fills the sets
        return self._consenting_set

    # ---- the document's head and tail ---------------------------------------------

    def _head(self) -> bytes:
        """Everything before the messages; fixes what the export holds."""
        realm_id = self.realm_id
        realm = Realm.get(realm_id)
        users = sorted(User.query(realm_id), key=lambda u: u.user_id)
        consenting = {u.user_id for u in users if consented(u)} \
            if self.export_type == STANDARD else set()
        streams = sorted(Stream.query(realm_id), key=lambda s: s.stream_id)
        exported = [s for s in streams if not s.invite_only or self.export_type == STANDARD]
        self.progress.exported_at = time.time()
        self.progress.channels = [int(s.stream_id) for s in exported]
        self.progress.private = [int(s.stream_id) for s in exported if s.invite_only]
        self.progress.consenting = sorted(consenting)
        subscriptions = [
            {"user_id": int(sub.user_id), "stream_id": int(sub.stream_id), "color": sub.color,
             "is_muted": bool(sub.is_muted), "pin_to_top": bool(sub.pin_to_top)}
            for found in side_by_side(lambda s: list(Subscription.by_stream.query(
                stream_key(realm_id, s.stream_id))), exported)
            for sub in found if sub.active]
        head = {
            "format": EXPORT_FORMAT, "version": EXPORT_VERSION,
            "export_type": self.export_type, "exported_at": self.progress.exported_at,
            "realm": {"name": realm.name, "subdomain": realm.subdomain,
                      "description": realm.description, "date_created": realm.date_created,
                      "settings": realm.settings.as_dict() if realm.settings else {},
                      "default_stream_ids": sorted(int(i) for i in
                                                   realm.default_stream_ids or ())},
            "users": [{"user_id": u.user_id, "email": u.delivery_email, "full_name": u.full_name,
                       "role": u.role, "is_active": u.is_active, "is_bot": u.is_bot,
                       "bot_type": u.bot_type, "bot_owner_id": u.bot_owner_id,
                       "timezone": u.timezone, "date_joined": u.date_joined,
                       "settings": u.stored_settings() if u.user_id in consenting else {}}
                      for u in users],
            "channels": [{"stream_id": s.stream_id, "name": s.name,
                          "description": s.description, "invite_only": s.invite_only,
                          "history_public_to_subscribers": s.history_public_to_subscribers,
                          "is_archived": bool(s.is_archived), "date_created": s.date_created,
                          "creator_id": s.creator_id} for s in exported],
            "subscriptions": subscriptions,
        }
        return _json(head)[:-1] + b',"messages":['

    def _tail(self) -> bytes:
        """Everything after the messages."""
        realm_id = self.realm_id
        tail = {
            "uploads": [_upload_record(a) for a in sorted(
                Attachment.query(realm_id), key=lambda a: a.path_id) if self._linked(a)],
            "user_groups": [_group_record(g) for g in sorted(
                UserGroup.query(realm_id), key=lambda g: g.group_id)
                if not g.is_system_group],
            "custom_emoji": [_emoji_record(e) for e in sorted(
                RealmEmoji.query(realm_id), key=lambda e: e.emoji_id)],
            "linkifiers": [{"pattern": i.pattern, "url_template": i.url_template,
                            "example_input": i.example_input,
                            "reverse_template": i.reverse_template,
                            "alternative_url_templates": list(
                                i.alternative_url_templates or ())}
                           for i in realm_linkifiers(realm_id)],
            "read_state": self.unread_of_exported(),
        }
        return b"]," + _json(tail)[1:]

    def _linked(self, attachment: Attachment) -> bool:
        """Whether an exported message links the upload (as its content says)."""
        ids = sorted(int(i) for i in attachment.message_ids or ())
        linking = read_all(Message, [(self.realm_id, i) for i in ids])
        return any(self._exported(m) and attachment.path_id in upload_path_ids(m.content)
                   for m in linking)

    def unread_of_exported(self) -> dict[str, list[int]]:
        """Each consenting person's unread exported messages: their markers (a Query
        each, side by side) and the messages the fan-out has not reached yet. A marker
        carries its channel and sender, so what is exported is decided from it."""
        def unread(user_id: int) -> list[int]:
            ids = {int(m.message_id) for m in UnreadMessage.query(
                user_key(self.realm_id, user_id), consistent_read=True)
                if self._marked_exported(m)}
            ids |= {m.message_id for m, _ in unread_in_flight(Recipient(self.realm_id, user_id))
                    if self._exported(m)}
            return sorted(ids)

        people = sorted(self._consenting)
        return {str(u): ids for u, ids in zip(people, side_by_side(unread, people),
                                               strict=True) if ids}

    def _marked_exported(self, marker: UnreadMessage) -> bool:
        if marker.stream_id is not None:
            stream_id = int(marker.stream_id)
            return stream_id in self._channels and (
                stream_id not in self._private or int(marker.sender_id) in self._consenting)
        return int(marker.sender_id) in self._consenting



def _message_record(message: Message) -> dict[str, Any]:
    reactions = message.reactions.as_dict() if message.reactions else {}
    return {"id": message.message_id, "type": message.type, "sender_id": message.sender_id,
            "stream_id": message.stream_id, "topic": message.topic,
            "recipient_ids": sorted(int(i) for i in message.recipient_ids or ()),
            "content": message.content, "date_sent": message.date_sent,
            "client": message.client, "last_edit_timestamp": message.last_edit_timestamp,
            "reactions": reactions}


def _group_record(group: UserGroup) -> dict[str, Any]:
    return {"group_id": group.group_id, "name": group.name, "description": group.description,
            "deactivated": bool(group.deactivated), "creator_id": group.creator_id,
            "date_created": group.date_created,
            "direct_members": sorted(int(u) for u in group.direct_members or ()),
            "direct_subgroups": sorted(int(g) for g in group.direct_subgroups or ()),
            "group_settings": group.group_settings.as_dict() if group.group_settings else {}}


def _emoji_record(emoji: RealmEmoji) -> dict[str, Any]:
    image = aws_clients.s3().get_object(Bucket=config.upload_bucket(), Key=emoji.path_id)
    return {"emoji_id": emoji.emoji_id, "name": emoji.name, "author_id": emoji.author_id,
            "deactivated": bool(emoji.deactivated),
            "file_name": emoji.path_id.rsplit("/", 1)[-1],
            "content_type": image.get("ContentType") or "application/octet-stream",
            "data_base64": base64.b64encode(image["Body"].read()).decode()}


def _upload_record(attachment: Attachment) -> dict[str, Any]:
    data = aws_clients.s3().get_object(Bucket=config.upload_bucket(),
                                       Key=attachment.path_id)["Body"].read()
    return {"path_id": attachment.path_id, "name": attachment.name,
            "owner_id": attachment.owner_id, "size": attachment.size,
            "content_type": attachment.content_type, "create_time": attachment.create_time,
            "data_base64": base64.b64encode(data).decode()}
