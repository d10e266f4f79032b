"""Backfills the has: index (models/message_properties.py) for messages sent before it
existed (admin CLI only: `python -m chalicelib.admin reindex`).

Reads the realm's messages newest first with a Query (a page at a time, never a Scan)
and puts a row for each property a message has. Puts only, so running it again, or
while the realm is in use, is safe: a row already there is written again unchanged,
and a row wrongly left (a property gone meanwhile) only costs a read, since reads check
every candidate; deleting rows here could race with a send or a first reaction and
hide a message. Resumable: each progress line names the oldest message done, and
`before_id` starts below it.
"""
from __future__ import annotations

from collections.abc import Callable

from chalicelib.models.message_properties import (
    MessageProperty,
    property_key,
    stored_properties,
)
from chalicelib.models.messages import Message

PAGE = 100
ATTRIBUTES = ["realm_id", "message_id", "type", "topic", "content", "rendered_content",
              "reactions"]


def backfill_properties(realm_id: int, before_id: int | None = None,
                        progress: Callable[[str], None] = lambda _: None) -> dict[str, int]:
    condition = Message.message_id < before_id if before_id is not None else None
    seen = written = 0
    page: list[Message] = []

    def flush() -> None:
        nonlocal seen, written, page
        with MessageProperty.batch_write() as batch:
            for message in page:
                for name in sorted(stored_properties(message)):
                    batch.save(MessageProperty(property_key(realm_id, name),
                                               message.message_id))
                    written += 1
        seen += len(page)
        progress(f"has: index: {seen} messages read, {written} rows put; to resume, "
                 f"--properties-before {page[-1].message_id}")
        page = []

    for message in Message.query(realm_id, condition, scan_index_forward=False,
                                 page_size=PAGE, attributes_to_get=ATTRIBUTES):
        page.append(message)
        if len(page) == PAGE:
            flush()
    if page:
        flush()
    return {"property_messages_read": seen, "property_rows_put": written}
