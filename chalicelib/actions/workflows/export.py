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

import json
import secrets
import time
from dataclasses import asdict
from typing import Any, Literal, NotRequired, TypedDict

from botocore.exceptions import ClientError

from chalicelib import config
from chalicelib.actions.messages.sender_deletion import run_sender_deletion
from chalicelib.actions.workflows.export_writer import (
    PUBLIC,
    STANDARD,
    ExportRun,
    Progress,
    consented,
)
from chalicelib.aws import aws_clients
from chalicelib.aws.log import logger
from chalicelib.core.errors import ADMINISTRATOR_REQUIRED, ApiError
from chalicelib.core.feature_levels import at_advertised_level, level_reached
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import add_event, to_users
from chalicelib.delivery.records import (
    OUTGOING_WEBHOOK_RECORD,
    SENDER_DELETION_JOB,
    BackgroundJobRecord,
)
from chalicelib.models.base import transaction
from chalicelib.models.ids import allocate_id
from chalicelib.models.realm_exports import RealmExport
from chalicelib.models.users import User
from chalicelib.rules.user_settings import effective_settings

REALM_EXPORT_JOB = "realm_export"
# Level 449 names the export types; full_without_consent (3) needs the organization's
# owner_full_content_access, which no organization here has, so it is refused.
EXPORT_TYPE_NAMES_LEVEL = 449
FULL_WITHOUT_CONSENT = 3
EXPORT_TYPE_NAMES = {PUBLIC: "public", STANDARD: "full_with_consent",
                     FULL_WITHOUT_CONSENT: "full_without_consent"}
EXPORT_URL_SECONDS = 7 * 24 * 3600   # the longest a presigned S3 link may live


class RealmExportDict(TypedDict):
    id: int
    acting_user_id: int
    export_time: float
    deleted_timestamp: float | None
    failed_timestamp: float | None
    export_url: str | None
    pending: bool
    export_type: int | str   # its name from level 449 (EXPORT_TYPE_NAMES)
    # Level 499: an export record carried across an import (its file stayed on the old
    # server). An import here carries no export records, so it is always false.
    export_from_prior_server: NotRequired[bool]


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
    email_address_visibility: NotRequired[int]   # level 430: the user's setting


class ExportConsentsResult(TypedDict):
    export_consents: list[ExportConsent]


def _require_admin(caller: Principal) -> None:
    if not caller.is_admin:
        raise ApiError(ADMINISTRATOR_REQUIRED)


def export_dict(item: RealmExport) -> RealmExportDict:
    url = None
    if item.status == "succeeded" and item.s3_key:
        # A browser that follows the link saves the file rather than showing it.
        url = aws_clients.presigned_get_url(
            item.s3_key, EXPORT_URL_SECONDS, ResponseContentDisposition=(
                f'attachment; filename="realm-{item.realm_id}-export-{item.export_id}.json"'))
    shown: RealmExportDict = {
        "id": item.export_id, "acting_user_id": item.acting_user_id,
        "export_time": float(item.export_time), "deleted_timestamp": item.deleted_timestamp,
        "failed_timestamp": item.failed_timestamp, "export_url": url,
        "pending": item.status == "pending",
        "export_type": EXPORT_TYPE_NAMES[int(item.export_type)]
        if level_reached(EXPORT_TYPE_NAMES_LEVEL) else int(item.export_type),
        "export_from_prior_server": False}
    return at_advertised_level("realm_export", shown)


def _exports(realm_id: int) -> list[RealmExport]:
    return sorted(RealmExport.query(realm_id, consistent_read=True),
                  key=lambda e: e.export_id)


def _event(items: list[RealmExport]) -> RealmExportEvent:
    return {"type": "realm_export", "exports": [export_dict(i) for i in items]}


def export_type_number(requested: int | str) -> int:
    """The stored number of a requested type: its number, or from level 449 its name."""
    if isinstance(requested, str):
        numbers = {name: number for number, name in EXPORT_TYPE_NAMES.items()}
        if requested not in numbers or not level_reached(EXPORT_TYPE_NAMES_LEVEL):
            raise ApiError("export_type has an unacceptable value")
        requested = numbers[requested]
    if requested == FULL_WITHOUT_CONSENT and level_reached(EXPORT_TYPE_NAMES_LEVEL):
        raise ApiError("A full export without consent needs the organization's owners "
                       "to have access to all private content, which they have not.")
    if requested not in (PUBLIC, STANDARD):
        raise ApiError("export_type has an unacceptable value")
    return requested


def do_start_export(caller: Principal, requested_type: int | str) -> ExportCreatedResult:
    _require_admin(caller)
    export_type = export_type_number(requested_type)
    realm_id = caller.realm_id
    item = RealmExport(realm_id, allocate_id(realm_id, "export"), acting_user_id=caller.user_id,
                       export_type=export_type, export_time=time.time(), status="pending")
    job: BackgroundJobRecord = {"type": OUTGOING_WEBHOOK_RECORD, "job": REALM_EXPORT_JOB,
                                "realm_id": realm_id, "export_id": item.export_id}
    with transaction() as tx:
        tx.save(item, condition=RealmExport.export_id.does_not_exist())
        add_event(tx, realm_id, _event([*_exports(realm_id), item]),
                  to_users([caller.user_id]))
        add_event(tx, realm_id, job, to_users([]))
    return {"id": item.export_id}


def get_exports(caller: Principal) -> ExportsResult:
    _require_admin(caller)
    return {"exports": [export_dict(i) for i in _exports(caller.realm_id)]}


def get_export_consents(caller: Principal) -> ExportConsentsResult:
    _require_admin(caller)
    users = [u for u in User.query(caller.realm_id) if u.is_active and not u.is_bot]
    consents: list[ExportConsent] = []
    for user in sorted(users, key=lambda u: u.user_id):
        consent: ExportConsent = {"user_id": user.user_id, "consented": consented(user)}
        if level_reached(430):   # what an export may show of their address
            consent["email_address_visibility"] = int(effective_settings(
                user.stored_settings())["email_address_visibility"])
        consents.append(consent)
    return {"export_consents": consents}


# ---- the worker ---------------------------------------------------------------------

def run_background_job(data: dict[str, Any]) -> None:
    """A job of the background queue other than a webhook delivery."""
    if data.get("job") == REALM_EXPORT_JOB:
        run_export_job(data)
    elif data.get("job") == SENDER_DELETION_JOB:
        if not run_sender_deletion(data):   # the rest in the next invocation
            aws_clients.sqs().send_message(
                QueueUrl=aws_clients.queue_url(config.webhook_queue_name()),
                MessageBody=json.dumps(data))
    else:
        logger.error("unknown background job", extra={"job": data.get("job")})


def run_export_job(data: dict[str, Any]) -> None:
    """Writes the export, or as much of it as this invocation has time for, then hands
    the job back to the queue (export_writer.py). Safe to run twice: a finished export
    is left alone, a running one goes on from its saved progress."""
    realm_id, export_id = int(data["realm_id"]), int(data["export_id"])
    item = RealmExport.get_or_none(realm_id, export_id, consistent_read=True)
    if item is None or item.status != "pending":
        return
    values: dict[str, Any]
    try:
        if not _write(item, time.monotonic() + config.export_invocation_seconds()):
            _requeue(realm_id, export_id)
            return
        values = {"status": "succeeded", "s3_key": item.s3_key,
                  "size": Progress.of(item).size}
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
        add_event(tx, realm_id, _event(after), to_users([item.acting_user_id]))


class _S3Parts:
    def __init__(self, key: str, upload_id: str) -> None:
        self.key, self.upload_id = key, upload_id

    def upload(self, number: int, data: bytes) -> str:
        answer = aws_clients.s3().upload_part(
            Bucket=config.upload_bucket(), Key=self.key, UploadId=self.upload_id,
            PartNumber=number, Body=data)
        return str(answer["ETag"])


def _write(item: RealmExport, deadline: float) -> bool:
    """True once the export's object exists; False when time ran out (progress saved)."""
    s3 = aws_clients.s3()
    if item.upload_id is None:
        key = f"{item.realm_id}/exports/{item.export_id}/{secrets.token_hex(12)}.json"
        upload = s3.create_multipart_upload(Bucket=config.upload_bucket(), Key=key,
                                            ContentType="application/json")
        item.update(actions=[RealmExport.s3_key.set(key),
                             RealmExport.upload_id.set(upload["UploadId"])],
                    condition=RealmExport.upload_id.does_not_exist())

    def save(progress: Progress) -> None:
        item.update(actions=[RealmExport.progress.set(asdict(progress))],
                    condition=RealmExport.status == "pending")

    assert item.s3_key is not None and item.upload_id is not None  # nosec B101 # set above
    run = ExportRun(item.realm_id, item.export_type, Progress.of(item),
                    _S3Parts(item.s3_key, item.upload_id), save, deadline)
    if not run.run():
        return False
    try:
        s3.complete_multipart_upload(
            Bucket=config.upload_bucket(), Key=item.s3_key, UploadId=item.upload_id,
            MultipartUpload={"Parts": [{"PartNumber": int(n), "ETag": str(etag)}
                                       for n, etag, _ in run.progress.parts]})
    except ClientError as error:   # completed by an invocation that died after it
        if error.response.get("Error", {}).get("Code") != "NoSuchUpload":
            raise
        s3.head_object(Bucket=config.upload_bucket(), Key=item.s3_key)
    return True


def _requeue(realm_id: int, export_id: int) -> None:
    """The next invocation goes on from the saved progress."""
    body = json.dumps({"job": REALM_EXPORT_JOB, "realm_id": realm_id, "export_id": export_id})
    aws_clients.sqs().send_message(
        QueueUrl=aws_clients.queue_url(config.webhook_queue_name()), MessageBody=body)


class _MemoryParts:
    def __init__(self) -> None:
        self.data: list[bytes] = []

    def upload(self, number: int, data: bytes) -> str:
        self.data.append(data)
        return str(number)


def build_export(realm_id: int, export_type: int) -> dict[str, Any]:
    """The realm as one JSON document, in memory (format: docs/realm-export.md)."""
    parts = _MemoryParts()
    ExportRun(realm_id, export_type, Progress(), parts, lambda _progress: None).run()
    document: dict[str, Any] = json.loads(b"".join(parts.data))
    return document
