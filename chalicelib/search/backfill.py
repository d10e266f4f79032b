"""Backfill: indexes a realm's messages sent before the index existed (admin CLI only).

Reads the realm's messages with a Query on the messages table (newest first, a page at
a time, never a Scan) and indexes each page as the fan-out would. Safe to run again, and
while the realm is in use: a message indexed already is skipped, one changing
meanwhile is indexed from its stored state.
"""
from __future__ import annotations

from collections.abc import Callable

from chalicelib.models.messages import Message
from chalicelib.search.indexing import IndexStats, index_messages

PAGE = 100


def backfill_realm(realm_id: int, progress: Callable[[str], None] = lambda _: None
                   ) -> dict[str, int]:
    stats = IndexStats()
    seen = 0
    page: list[int] = []
    for message in Message.query(realm_id, scan_index_forward=False, page_size=PAGE,
                                 attributes_to_get=["message_id"]):
        page.append(message.message_id)
        if len(page) == PAGE:
            stats.add(index_messages(realm_id, page))
            seen += len(page)
            page = []
            progress(f"search index: {seen} messages read, {stats.messages} indexed")
    if page:
        stats.add(index_messages(realm_id, page))
        seen += len(page)
    progress(f"search index: {seen} messages read, {stats.messages} indexed, "
             f"{stats.postings_put} postings written")
    return {"messages_indexed": stats.messages, "postings_written": stats.postings_put}
