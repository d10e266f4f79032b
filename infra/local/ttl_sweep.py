"""Deletes expired TTL items locally, since moto never does (AWS does within ~48 h).

It runs in the database process and walks moto's tables in memory: the sweep was a
Scan with a filter over HTTP from the workers, which made moto evaluate the filter on
every item of every TTL table once a minute (a seventh of the database's time under
`make load`, in bursts that stalled every request behind the write lock). Each expired
item is deleted through the backend's own delete, so it is journaled and leaves a
stream REMOVE record, as a TTL deletion does on AWS.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Container, Iterator
from decimal import Decimal, InvalidOperation
from typing import Any

from infra import moto_patches

SWEEP_EVERY_SECONDS = 60.0
DELETES_PER_LOCK = 100    # expired items deleted before letting other writers in


def sweep_once(now: float | None = None, only: Container[str] | None = None) -> int:
    """Deletes every item whose TTL attribute (a number of epoch seconds) is before
    `now`, in every TTL-enabled table (or those of them named in `only`) of this
    process's DynamoDB backends; returns how many."""
    from moto.dynamodb.models import dynamodb_backends

    cutoff = Decimal(time.time() if now is None else now)
    deleted = 0
    for regions in list(dynamodb_backends.values()):
        for backend in list(regions.values()):
            for name, table in list(backend.tables.items()):
                ttl = getattr(table, "ttl", None) or {}
                if (ttl.get("TimeToLiveStatus") == "ENABLED" and ttl.get("AttributeName")
                        and (only is None or name in only)):
                    deleted += _sweep_table(backend, table, ttl["AttributeName"], cutoff)
    return deleted


def _sweep_table(backend: Any, table: Any, attribute: str, cutoff: Decimal) -> int:
    with moto_patches.write_lock():   # the items may not change while they are listed
        expired = [_key(table, item) for item in _items(table) if _expired(item, attribute,
                                                                           cutoff)]
    for start in range(0, len(expired), DELETES_PER_LOCK):
        with moto_patches.write_lock():
            for key in expired[start:start + DELETES_PER_LOCK]:
                backend.delete_item(table.name, key)
    return len(expired)


def _items(table: Any) -> Iterator[Any]:
    if table.range_key_attr is None:
        yield from table.items.values()
    else:
        for partition in table.items.values():
            yield from partition.values()


def _expired(item: Any, attribute: str, cutoff: Decimal) -> bool:
    # As DynamoDB: only a Number attribute expires an item; any other type never does.
    value = item.attrs.get(attribute)
    if value is None or value.type != "N":
        return False
    try:
        return Decimal(value.value) < cutoff
    except InvalidOperation:
        return False


def _key(table: Any, item: Any) -> dict[str, Any]:
    key = {table.hash_key_attr: item.hash_key.to_json()}
    if table.range_key_attr is not None:
        key[table.range_key_attr] = item.range_key.to_json()
    return key


def start_sweeper(stop: threading.Event,
                  every_seconds: float = SWEEP_EVERY_SECONDS) -> threading.Thread:
    def run() -> None:
        while not stop.wait(every_seconds):
            sweep_once()

    thread = threading.Thread(target=run, name="ttl-sweeper", daemon=True)
    thread.start()
    return thread
