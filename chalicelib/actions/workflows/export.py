"""Organization exports: POST/GET /export/realm, GET /export/realm/consents, and the worker
that writes an export to the uploads bucket (format: docs/realm-export.md).

POST writes the pending export, its `realm_export` event (to the requester) and a job
record in one transaction; the fan-out hands the job to the background queue (the one
outgoing webhooks use), whose worker writes `<realm_id>/exports/<id>/<random>.json`,
marks the export succeeded (or failed) and tells the requester again. GET lists the
exports with a presigned link to each finished one. A public export (type 1) holds the
public channels and their messages; a standard one (type 2) adds the private channels'
messages and direct messages sent by users who consented (`allow_private_data_export`).
"""
from __future__ import annotations

import base64
import json
import secrets
import time
from typing import Any, Literal, TypedDict

from chalicelib import config
from chalicelib.actions.messages.uploads import upload_path_ids
from chalicelib.actions.read_state.reads.pending import Recipient, unread_in_flight
from chalicelib.aws import aws_clients
from chalicelib.aws.log import logger
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import add_event
from chalicelib.delivery.records import OUTGOING_WEBHOOK_RECORD
from chalicelib.models.base import transaction
from chalicelib.models.channels import Stream, Subscription, stream_key, user_key
from chalicelib.models.ids import allocate_id
from chalicelib.models.linkifiers import realm_linkifiers
from chalicelib.models.message_flags import UnreadMessage
from chalicelib.models.messages import Message
from chalicelib.models.realm_emoji import RealmEmoji
from chalicelib.models.realm_exports import RealmExport
from chalicelib.models.realms import Realm
from chalicelib.models.uploads import Attachment
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import User
from chalicelib.rules.user_settings import effective_settings

REALM_EXPORT_JOB = "realm_export"
EXPORT_FORMAT = "teamchat-realm-export"
EXPORT_VERSION = 1
PUBLIC, STANDARD = 1, 2
EXPORT_URL_SECONDS = 7 * 24 * 3600   # the longest a presigned S3 link may live


class RealmExportDict(TypedDict):
    id: int
    acting_user_id: int
    export_time: float
    deleted_timestamp: float | None
    failed_timestamp: float | None
    export_url: str | None
    pending: bool
    export_type: int


class RealmExportEvent(TypedDict):
    """To the requester: every export of the organization, after one changed."""

    type: Literal["realm_export"]
    exports: list[RealmExportDict]


class ExportCreatedResult(TypedDict):
    id: int


class ExportsResult(TypedDict):
    exports: list[RealmExportDict]


class ExportConsent(TypedDict):
    user_id: int
    consented: bool


class ExportConsentsResult(TypedDict):
    export_consents: list[ExportConsent]


def _require_admin(caller: Principal) -> None:
    if not caller.is_admin:
        raise ApiError("Must be an organization administrator")


def export_dict(item: RealmExport) -> RealmExportDict:
    url = None
    if item.status == "succeeded" and item.s3_key:
        # A browser that follows the link saves the file rather than showing it.
        url = aws_clients.presigned_get_url(
            item.s3_key, EXPORT_URL_SECONDS, ResponseContentDisposition=(
                f'attachment; filename="realm-{item.realm_id}-export-{item.export_id}.json"'))
    return {"id": item.export_id, "acting_user_id": item.acting_user_id,
            "export_time": float(item.export_time),
            "deleted_timestamp": item.deleted_timestamp,
            "failed_timestamp": item.failed_timestamp, "export_url": url,
            "pending": item.status == "pending", "export_type": item.export_type}


def _exports(realm_id: int) -> list[RealmExport]:
    return sorted(RealmExport.query(realm_id, consistent_read=True),
                  key=lambda e: e.export_id)


def _event(items: list[RealmExport]) -> RealmExportEvent:
    return {"type": "realm_export", "exports": [export_dict(i) for i in items]}


def do_start_export(caller: Principal, export_type: int) -> ExportCreatedResult:
    _require_admin(caller)
    if export_type not in (PUBLIC, STANDARD):
        raise ApiError("Invalid export_type")
    realm_id = caller.realm_id
    item = RealmExport(realm_id, allocate_id(realm_id, "export"), acting_user_id=caller.user_id,
                       export_type=export_type, export_time=time.time(), status="pending")
    job = {"type": OUTGOING_WEBHOOK_RECORD, "job": REALM_EXPORT_JOB, "realm_id": realm_id,
           "export_id": item.export_id}
    with transaction() as tx:
        tx.save(item, condition=RealmExport.export_id.does_not_exist())
        add_event(tx, realm_id, _event([*_exports(realm_id), item]),
                  {"users": [caller.user_id]})
        add_event(tx, realm_id, job, {"users": []})
    return {"id": item.export_id}


def get_exports(caller: Principal) -> ExportsResult:
    _require_admin(caller)
    return {"exports": [export_dict(i) for i in _exports(caller.realm_id)]}


def consented(user: User) -> bool:
    return bool(effective_settings(user.stored_settings()).get("allow_private_data_export"))


def get_export_consents(caller: Principal) -> ExportConsentsResult:
    _require_admin(caller)
    users = [u for u in User.query(caller.realm_id) if u.is_active and not u.is_bot]
    return {"export_consents": [{"user_id": u.user_id, "consented": consented(u)}
                                for u in sorted(users, key=lambda u: u.user_id)]}


# ---- the worker ---------------------------------------------------------------------

def run_background_job(data: dict[str, Any]) -> None:
    """A job of the background queue other than a webhook delivery."""
    if data.get("job") == REALM_EXPORT_JOB:
        run_export_job(data)
    else:
        logger.error("unknown background job", extra={"job": data.get("job")})


def run_export_job(data: dict[str, Any]) -> None:
    """Writes the export (safe to run twice: a finished export is left alone)."""
    realm_id, export_id = int(data["realm_id"]), int(data["export_id"])
    item = RealmExport.get_or_none(realm_id, export_id)
    if item is None or item.status != "pending":
        return
    values: dict[str, Any]
    try:
        document = build_export(realm_id, item.export_type)
        body = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
        key = f"{realm_id}/exports/{export_id}/{secrets.token_hex(12)}.json"
        aws_clients.s3().put_object(Bucket=config.upload_bucket(), Key=key, Body=body,
                                    ContentType="application/json")
        values = {"status": "succeeded", "s3_key": key, "size": len(body)}
    except Exception:   # noqa: BLE001 - the export is marked failed and the requester told
        logger.exception("realm export failed", extra={"realm_id": realm_id,
                                                       "export_id": export_id})
        values = {"status": "failed", "failed_timestamp": time.time()}
    after = _exports(realm_id)
    for other in after:
        if other.export_id == export_id:
            for name, value in values.items():
                setattr(other, name, value)
    with transaction() as tx:
        tx.update(RealmExport(realm_id, export_id),
                  actions=[getattr(RealmExport, n).set(v) for n, v in values.items()],
                  condition=RealmExport.status == "pending")
        add_event(tx, realm_id, _event(after), {"users": [item.acting_user_id]})


def build_export(realm_id: int, export_type: int) -> dict[str, Any]:
    """The realm as one JSON document (format: docs/realm-export.md)."""
    realm = Realm.get(realm_id)
    users = sorted(User.query(realm_id), key=lambda u: u.user_id)
    consenting = {u.user_id for u in users if consented(u)} if export_type == STANDARD else set()
    streams = sorted(Stream.query(realm_id), key=lambda s: s.stream_id)
    exported_streams = [s for s in streams if not s.invite_only or export_type == STANDARD]
    stream_ids = {s.stream_id for s in exported_streams}
    subscriptions = [
        {"user_id": int(sub.user_id), "stream_id": int(sub.stream_id),
         "color": sub.color, "is_muted": bool(sub.is_muted), "pin_to_top": bool(sub.pin_to_top)}
        for stream in exported_streams
        for sub in Subscription.by_stream.query(stream_key(realm_id, stream.stream_id))
        if sub.active]
    messages = []
    for message in Message.query(realm_id):
        if message.type == "stream":
            stream = next((s for s in exported_streams if s.stream_id == message.stream_id),
                          None) if message.stream_id in stream_ids else None
            if stream is None or (stream.invite_only and message.sender_id not in consenting):
                continue
        elif message.sender_id not in consenting:
            continue
        messages.append(_message_record(message))
    linked = {p for m in messages for p in m.pop("_uploads")}
    uploads = [_upload_record(a) for a in Attachment.query(realm_id)
               if a.path_id in linked]
    return {
        "format": EXPORT_FORMAT, "version": EXPORT_VERSION, "export_type": export_type,
        "exported_at": time.time(),
        "realm": {"name": realm.name, "subdomain": realm.subdomain,
                  "description": realm.description, "date_created": realm.date_created,
                  "settings": realm.settings.as_dict() if realm.settings else {},
                  "default_stream_ids": sorted(int(i) for i in realm.default_stream_ids or ())},
        "users": [{"user_id": u.user_id, "email": u.email, "full_name": u.full_name,
                   "role": u.role, "is_active": u.is_active, "is_bot": u.is_bot,
                   "bot_type": u.bot_type, "bot_owner_id": u.bot_owner_id,
                   "timezone": u.timezone, "date_joined": u.date_joined,
                   "settings": u.stored_settings() if u.user_id in consenting else {}}
                  for u in users],
        "channels": [{"stream_id": s.stream_id, "name": s.name, "description": s.description,
                      "invite_only": s.invite_only,
                      "history_public_to_subscribers": s.history_public_to_subscribers,
                      "is_archived": bool(s.is_archived), "date_created": s.date_created,
                      "creator_id": s.creator_id} for s in exported_streams],
        "subscriptions": subscriptions,
        "messages": messages,
        "uploads": uploads,
        "user_groups": [_group_record(g) for g in sorted(
            UserGroup.query(realm_id), key=lambda g: g.group_id) if not g.is_system_group],
        "custom_emoji": [_emoji_record(e) for e in sorted(
            RealmEmoji.query(realm_id), key=lambda e: e.emoji_id)],
        "linkifiers": [{"pattern": i.pattern, "url_template": i.url_template}
                       for i in realm_linkifiers(realm_id)],
        "read_state": _read_state(realm_id, sorted(consenting),
                                  {int(m["id"]) for m in messages}),
    }


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


def _read_state(realm_id: int, user_ids: list[int], message_ids: set[int]
                ) -> dict[str, list[int]]:
    """Each consenting user's unread exported messages (their markers, one Query each, and
    the messages the fan-out has not reached yet, as
    actions/read_state/reads/pending.py tells them)."""
    state: dict[str, list[int]] = {}
    for user_id in user_ids:
        unread = {int(m.message_id) for m in UnreadMessage.query(
            user_key(realm_id, user_id), consistent_read=True)} & message_ids
        unread |= {m.message_id for m, _ in unread_in_flight(
            Recipient(realm_id, user_id), message_ids=message_ids)}
        if unread:
            state[str(user_id)] = sorted(unread)
    return state


def _message_record(message: Message) -> dict[str, Any]:
    reactions = message.reactions.as_dict() if message.reactions else {}
    return {"id": message.message_id, "type": message.type, "sender_id": message.sender_id,
            "stream_id": message.stream_id, "topic": message.topic,
            "recipient_ids": sorted(int(i) for i in message.recipient_ids or ()),
            "content": message.content, "date_sent": message.date_sent,
            "client": message.client, "last_edit_timestamp": message.last_edit_timestamp,
            "reactions": reactions, "_uploads": sorted(upload_path_ids(message.content))}


def _upload_record(attachment: Attachment) -> dict[str, Any]:
    data = aws_clients.s3().get_object(Bucket=config.upload_bucket(),
                                       Key=attachment.path_id)["Body"].read()
    return {"path_id": attachment.path_id, "name": attachment.name,
            "owner_id": attachment.owner_id, "size": attachment.size,
            "content_type": attachment.content_type, "create_time": attachment.create_time,
            "data_base64": base64.b64encode(data).decode()}
