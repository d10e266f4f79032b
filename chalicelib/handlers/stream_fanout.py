"""The outbox stream's function; it also takes the slices of its own large batches."""
from __future__ import annotations

from typing import Any

from chalicelib.aws.cold_start import handler_imports

with handler_imports():
    from chalicelib.aws.partial_batch import PartialBatchResponse
    from chalicelib.aws.tracing import traced
    from chalicelib.fanout.audience_slices import RANGE_KEY
    from chalicelib.fanout.batch import handle_range, handle_stream_batch
    from chalicelib.fanout.slices import (
        SLICE_EVENT_KEY,
        WRITES_KEY,
        SliceResponse,
        handle_slice,
    )
    from chalicelib.fanout.write_slices import handle_write_slice


@traced
def handler(event: dict[str, Any], context: Any) -> PartialBatchResponse | SliceResponse:
    if SLICE_EVENT_KEY in event:   # another invocation's slice (fanout/slices.py)
        payload = event[SLICE_EVENT_KEY]
        if WRITES_KEY in payload:   # of recipients' rows (fanout/write_slices.py)
            return handle_write_slice(payload)
        if RANGE_KEY in payload:   # a range of people (fanout/audience_slices.py)
            return handle_range(payload[RANGE_KEY])
        return handle_slice(payload)
    return handle_stream_batch(event, context)
