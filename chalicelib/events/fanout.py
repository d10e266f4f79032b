"""The outbox stream handler: resolves each event's audience to live queues and appends.

Safe to run twice on the same records: appends are deduplicated per queue by the
outbox id. A record that fails is reported alone (partial batch failure), so one
poison record does not hold back the ones after it.
"""
from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.batch import (BatchProcessor, EventType,
                                                   process_partial_response)
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import (
    DynamoDBRecord)

from chalicelib.events.filters import forms_for_queue
from chalicelib.events.queues import append_events, queues_of_realm, queues_of_users
from chalicelib.lib.log import logger, metrics
from chalicelib.models.events import EventQueue, Outbox

# Chalice needs a literal ARN when app.py is imported; the merge template replaces it
# with the outbox table's real stream ARN (infra/template.json), and the local stack's
# poller maps it to the local outbox table.
OUTBOX_STREAM_ARN_PLACEHOLDER = (
    "arn:aws:dynamodb:us-east-1:000000000000:table/teamchat-outbox/stream/placeholder")

processor = BatchProcessor(event_type=EventType.DynamoDBStreams)


def handle_stream_batch(raw_event: dict[str, Any], context: Any = None) -> dict[str, Any]:
    result = process_partial_response(event=raw_event, record_handler=fan_out_record,
                                      processor=processor, context=context)
    metrics.flush_metrics()
    return result


def fan_out_record(record: DynamoDBRecord) -> None:
    raw = record.raw_event
    image = raw.get("dynamodb", {}).get("NewImage")
    # Only a full INSERT is an outbox record; moto also emits key-only INSERTs and
    # no-op MODIFYs, and TTL expiry emits REMOVEs.
    if raw.get("eventName") != "INSERT" or not image or "event" not in image:
        return
    outbox = Outbox.from_raw_data(image)
    delivered = deliver(outbox.outbox_id, outbox.realm_id, outbox.event, outbox.audience)
    metrics.add_metric(name="EventsFannedOut", unit="Count", value=delivered)


def deliver(outbox_id: str, realm_id: int, event: dict[str, Any],
            audience: dict[str, Any]) -> int:
    """Appends the event to every live queue of its audience; returns how many queues."""
    user_flags = audience.get("user_flags") or {}
    delivered = 0
    for queue in audience_queues(realm_id, audience):
        forms = forms_for_queue(event, queue.options or {}, queue.user_id, user_flags)
        if not forms:
            continue
        items = [(f"{outbox_id}:{i}", form) for i, form in enumerate(forms)]
        append_events(queue, items)
        delivered += 1
    logger.debug("fanned out", extra={"outbox_id": outbox_id, "queues": delivered})
    return delivered


def audience_queues(realm_id: int, audience: dict[str, Any]) -> list[EventQueue]:
    if audience.get("realm"):
        return queues_of_realm(realm_id)
    if "stream" in audience:
        return _channel_queues(realm_id, int(audience["stream"]), audience)
    return queues_of_users(realm_id, [int(u) for u in audience.get("users", [])])


def _channel_queues(realm_id: int, stream_id: int, audience: dict[str, Any]
                    ) -> list[EventQueue]:
    from chalicelib.actions.streams import get_stream, subscriber_ids

    subscribers = set(subscriber_ids(realm_id, stream_id))
    is_public = audience.get("public")
    if is_public is None:
        stream = get_stream(realm_id, stream_id)
        is_public = stream is not None and not stream.invite_only
    if not is_public:
        return queues_of_users(realm_id, sorted(subscribers))
    # Public channel: subscribers, plus queues that asked for every public channel.
    return [q for q in queues_of_realm(realm_id)
            if q.user_id in subscribers or (q.options or {}).get("all_public_streams")]
