"""What each mutation of moto's backends changed, captured as it happens, and applied again.

`install()` wraps the mutating methods of moto's DynamoDB, SQS and S3 backends; while a
sink is set (`start`), each call hands it, under its backend's lock and before the
call returns, the effects it had: the touched items as they now are (or their absence)
with the stream records they emitted, the region's SQS queues, an S3 object's versions.
`apply()` sets one effect on the live backends (replaying them in order rebuilds the
state exactly, stream sequence numbers included). The journal (journal.py) is the sink.
"""
from __future__ import annotations

import _thread
import copyreg
import threading
import time
from collections.abc import Callable
from typing import Any

from chalicelib.config import WAKE_QUEUE_MARK
from infra import moto_patches

Effect = tuple[Any, ...]

_sink: Callable[[list[Effect]], None] | None = None
_installed = False


def start(sink: Callable[[list[Effect]], None] | None) -> None:
    """Hands every mutation's effects to `sink` from now on (None: to nobody)."""
    global _sink
    install()
    _sink = sink


def _record(effects: list[Effect]) -> None:
    if _sink is not None and effects:
        _sink(effects)


def register_lock_reducers() -> None:
    """moto's objects hold locks: a lock pickles as a fresh, unlocked one of its kind."""
    copyreg.pickle(type(threading.RLock()), lambda _lock: (threading.RLock, ()))
    copyreg.pickle(_thread.LockType, lambda _lock: (threading.Lock, ()))


def install() -> None:
    """Wraps moto's mutating backend methods (once); they journal while a journal is set."""
    global _installed
    if _installed:
        return
    register_lock_reducers()
    moto_patches.apply()
    from moto.dynamodb.models import DynamoDBBackend
    from moto.s3.models import S3Backend
    from moto.sqs.models import SQSBackend

    for name, key_of in (("put_item", _put_key), ("update_item", _given_key),
                         ("delete_item", _given_key)):
        _wrap(DynamoDBBackend, name, _dynamodb_item_write(key_of))
    _wrap(DynamoDBBackend, "transact_write_items", _dynamodb_transaction)
    for name in ("create_table", "update_table", "update_time_to_live", "delete_table"):
        _wrap(DynamoDBBackend, name, _dynamodb_table_change)
    for name in ("create_queue", "set_queue_attributes", "purge_queue"):
        _wrap(SQSBackend, name, _sqs_change)
    for name in ("delete_queue", "tag_queue", "untag_queue"):
        _wrap(SQSBackend, name, _sqs_queue_change(messages_only=False))
    for name in ("send_message", "send_message_batch", "delete_message",
                 "delete_message_batch", "change_message_visibility",
                 "change_message_visibility_batch"):
        _wrap(SQSBackend, name, _sqs_queue_change(messages_only=True))
    _wrap(SQSBackend, "receive_message", _sqs_receive)
    for name in ("put_object", "delete_object"):
        _wrap(S3Backend, name, _s3_object_change)
    _wrap(S3Backend, "copy_object", _s3_copy)
    _wrap(S3Backend, "delete_objects", _s3_delete_objects)
    for name in ("create_bucket", "delete_bucket"):
        _wrap(S3Backend, name, _s3_bucket_change)
    _installed = True


def _wrap(cls: type, name: str, make: Callable[[Any], Any]) -> None:
    method = getattr(cls, name)
    wrapper = make(method)
    wrapper.__wrapped__ = method
    setattr(cls, name, wrapper)


# DynamoDB: the touched items as they are after the call, and the stream records it added.

def _put_key(backend: Any, table_name: str, args: tuple, kwargs: dict) -> dict[str, Any]:
    table = backend.get_table(table_name)
    item = args[0] if args else kwargs["item_attrs"]
    key = {table.hash_key_attr: item[table.hash_key_attr]}
    if table.range_key_attr is not None:
        key[table.range_key_attr] = item[table.range_key_attr]
    return key


def _given_key(_backend: Any, _table_name: str, args: tuple, kwargs: dict) -> dict[str, Any]:
    return args[0] if args else kwargs["key"]


def _stream_length(backend: Any, table_name: str) -> int:
    shard = getattr(backend.get_table(table_name), "stream_shard", None)
    return len(shard.items) if shard is not None else 0


def _item_effects(backend: Any, keys: list[tuple[str, dict[str, Any]]],
                  stream_lengths: dict[str, int]) -> list[tuple[Any, ...]]:
    from moto.dynamodb.models.dynamo_type import DynamoType

    where = (backend.account_id, backend.region_name)
    effects: list[tuple[Any, ...]] = []
    for table_name, key in keys:
        table = backend.get_table(table_name)
        hash_value = DynamoType(key[table.hash_key_attr])
        range_value = (DynamoType(key[table.range_key_attr])
                       if table.range_key_attr is not None else None)
        if range_value is None:
            item = table.items.get(hash_value)
        else:
            item = table.items.get(hash_value, {}).get(range_value)
        effects.append(("ddb-item", *where, table_name, hash_value, range_value, item))
    for table_name, before in stream_lengths.items():
        shard = getattr(backend.get_table(table_name), "stream_shard", None)
        if shard is not None and len(shard.items) > before:
            effects.append(("ddb-stream", *where, table_name, shard.items[before:]))
    return effects


def _dynamodb_item_write(key_of: Callable[..., dict[str, Any]]) -> Callable[[Any], Any]:
    def make(method: Any) -> Any:
        def wrapper(self: Any, table_name: str, *args: Any, **kwargs: Any) -> Any:
            with moto_patches.write_lock():
                before = _stream_length(self, table_name)
                result = method(self, table_name, *args, **kwargs)
                if _sink is not None:
                    _record(_item_effects(self, [(table_name, key_of(self, table_name, args,
                                                                     kwargs))],
                                          {table_name: before}))
                return result
        return wrapper
    return make


def _transaction_keys(backend: Any, transact_items: list[dict[str, Any]]
                      ) -> list[tuple[str, dict[str, Any]]]:
    keys = []
    for entry in transact_items:
        op_type, op = next(iter(entry.items()))
        if op_type == "ConditionCheck":
            continue
        table_name = op["TableName"]
        keys.append((table_name, _put_key(backend, table_name, (op["Item"],), {})
                     if op_type == "Put" else op["Key"]))
    return keys


def _dynamodb_transaction(method: Any) -> Any:
    def wrapper(self: Any, transact_items: list[dict[str, Any]], *args: Any,
                **kwargs: Any) -> Any:
        with moto_patches.write_lock():
            try:
                keys = _transaction_keys(self, transact_items)
            except (KeyError, TypeError, StopIteration, AttributeError):
                # Malformed: moto refuses it with its own error, and nothing is written.
                return method(self, transact_items, *args, **kwargs)
            before = {name: _stream_length(self, name) for name, _ in keys}
            result = method(self, transact_items, *args, **kwargs)
            if _sink is not None:   # all of a transaction's effects in one record
                _record(_item_effects(self, keys, before))
            return result
    return wrapper


def _dynamodb_table_change(method: Any) -> Any:
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        with moto_patches.write_lock():
            result = method(self, *args, **kwargs)
            name = args[0] if args else kwargs.get("name", kwargs.get("table_name"))
            # Table-level changes happen when the stack starts: the table goes whole.
            _record([("ddb-table", self.account_id, self.region_name, name,
                      self.tables.get(name))])
            return result
    return wrapper


# SQS: a change to one queue journals that queue alone (with the dead-letter queue a
# receive may have moved messages into); the rare changes that can relink queues to
# each other (create, attributes, purge) journal the region's queues whole. Before
# each change, the queue drops the messages its retention period has ended: moto keeps
# them forever, and the wake queues (chalicelib/delivery/wake.py) never delete theirs.
#
# A wake queue's messages are not journaled (the queue itself is). They only hurry a
# waiting GET /events, whose connection a restart ends anyway, and a lost one delays a
# waiter by one re-check at most. Journaling them pickled the whole queue on every
# wake-up: about a third of the database's time under load.

def _is_wake_queue(queue_name: str) -> bool:
    return WAKE_QUEUE_MARK in queue_name


def _sqs_effect(backend: Any) -> tuple[Any, ...]:
    return ("sqs", backend.account_id, backend.region_name, backend.queues)


def _sqs_queue_effects(backend: Any, queue_name: str) -> list[tuple[Any, ...]]:
    queue = backend.queues.get(queue_name)
    effects: list[tuple[Any, ...]] = [
        ("sqs-queue", backend.account_id, backend.region_name, queue_name, queue)]
    dead_letters = getattr(queue, "dead_letter_queue", None)
    if dead_letters is not None:
        effects.append(("sqs-queue", backend.account_id, backend.region_name,
                        dead_letters.name, dead_letters))
    return effects


def _sqs_change(method: Any) -> Any:
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        with moto_patches.queue_lock():
            result = method(self, *args, **kwargs)
            _record([_sqs_effect(self)])
            return result
    return wrapper


def _queue_name(args: tuple, kwargs: dict) -> str:
    return str(args[0] if args else kwargs["queue_name"])


def _sqs_queue_change(messages_only: bool) -> Callable[[Any], Any]:
    def make(method: Any) -> Any:
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            name = _queue_name(args, kwargs)
            with moto_patches.queue_lock():
                _drop_expired(self.queues.get(name))
                result = method(self, *args, **kwargs)
                if not (messages_only and _is_wake_queue(name)):
                    _record(_sqs_queue_effects(self, name))
                return result
        return wrapper
    return make


def _drop_expired(queue: Any) -> None:
    """Removes the messages older than the queue's retention period (as SQS does)."""
    if queue is None or not queue._messages:
        return
    oldest_kept = (time.time() - int(queue.message_retention_period)) * 1000
    if queue._messages[0].sent_timestamp < oldest_kept:
        kept = [m for m in queue._messages if m.sent_timestamp >= oldest_kept]
        queue.pending_messages.difference_update(
            m for m in queue._messages if m.sent_timestamp < oldest_kept)
        queue._messages = kept


def _drop_never_visible_again(queue: Any, received: Any) -> None:
    """Drops received messages hidden until after their retention ends: no receive can
    see them again, as if deleted. The wake queues' waiters hide what they receive for
    longer than it lives instead of deleting it; kept, those messages made every send
    and receive on the queue walk a minute's worth of them (moto counts the in-flight
    messages for each queue's attributes)."""
    if not received:
        return
    retention_ms = int(queue.message_retention_period) * 1000
    # moto hands out copies: the queue's own messages are found by id.
    gone = {m.id for m in received if m.visible_at >= m.sent_timestamp + retention_ms}
    if gone:
        queue._messages = [m for m in queue._messages if m.id not in gone]
        queue.pending_messages.difference_update(
            [m for m in queue.pending_messages if m.id in gone])


def _lengths(queue: Any) -> tuple[int, int]:
    dead_letters = queue.dead_letter_queue
    return len(queue._messages), len(dead_letters._messages) if dead_letters else 0


def _sqs_receive(method: Any) -> Any:
    """A receive changes state only when it hands out messages or moves some to a DLQ.
    A long poll waits outside the lock on the queue's own arrivals (moto's condition,
    notified by every message added), looking again at least once a second for messages
    whose delay or visibility timeout has ended."""
    def wrapper(self: Any, queue_name: str, count: int, wait_seconds_timeout: int,
                *args: Any, **kwargs: Any) -> Any:
        deadline = time.monotonic() + wait_seconds_timeout
        while True:
            with moto_patches.queue_lock():
                queue = self.get_queue(queue_name)
                _drop_expired(queue)
                before = _lengths(queue)
                result = method(self, queue_name, count, 0, *args, **kwargs)
                _drop_never_visible_again(queue, result)
                if (result or _lengths(queue) != before) and not _is_wake_queue(queue_name):
                    _record(_sqs_queue_effects(self, queue_name))
            remaining = deadline - time.monotonic()
            if result or remaining <= 0:
                return result
            waited = time.monotonic()
            queue.wait_for_messages(min(remaining, 1.0))
            if time.monotonic() - waited < 0.01:
                # Visible messages this receive cannot take (a FIFO group in flight):
                # do not spin on them.
                time.sleep(0.05)
    return wrapper


# S3: an object's versions as they are after the call; a bucket whole when created.

def _s3_key_effect(backend: Any, bucket_name: str, key_name: str) -> tuple[Any, ...]:
    bucket = backend.buckets.get(bucket_name)
    versions = bucket.keys.getlist(key_name) if bucket is not None else None
    return ("s3-key", backend.account_id, bucket_name, key_name,
            list(versions) if versions else None)


def _s3_object_change(method: Any) -> Any:
    def wrapper(self: Any, bucket_name: str, key_name: str, *args: Any, **kwargs: Any) -> Any:
        with moto_patches.write_lock():
            result = method(self, bucket_name, key_name, *args, **kwargs)
            _record([_s3_key_effect(self, bucket_name, key_name)])
            return result
    return wrapper


def _s3_copy(method: Any) -> Any:
    def wrapper(self: Any, src_key: Any, dest_bucket_name: str, dest_key_name: str,
                *args: Any, **kwargs: Any) -> Any:
        with moto_patches.write_lock():
            result = method(self, src_key, dest_bucket_name, dest_key_name, *args, **kwargs)
            _record([_s3_key_effect(self, dest_bucket_name, dest_key_name)])
            return result
    return wrapper


def _s3_delete_objects(method: Any) -> Any:
    def wrapper(self: Any, bucket_name: str, objects: list[dict[str, Any]], *args: Any,
                **kwargs: Any) -> Any:
        with moto_patches.write_lock():
            result = method(self, bucket_name, objects, *args, **kwargs)
            _record([_s3_key_effect(self, bucket_name, o["Key"]) for o in objects])
            return result
    return wrapper


def _s3_bucket_change(method: Any) -> Any:
    def wrapper(self: Any, bucket_name: str, *args: Any, **kwargs: Any) -> Any:
        with moto_patches.write_lock():
            result = method(self, bucket_name, *args, **kwargs)
            _record([("s3-bucket", self.account_id, bucket_name,
                      self.buckets.get(bucket_name))])
            return result
    return wrapper


def apply(effect: tuple[Any, ...]) -> None:
    """Applies one recorded effect to moto's live backends."""
    kind = effect[0]
    applier = _APPLIERS.get(kind)
    if applier is None:
        raise ValueError(f"unknown journal effect {kind!r}")
    applier(*effect[1:])


def _apply_item(account: str, region: str, table_name: str, hash_value: Any,
                range_value: Any, item: Any) -> None:
    from moto.dynamodb.models import dynamodb_backends

    from infra import moto_indexes

    table = dynamodb_backends[account][region].get_table(table_name)
    moto_indexes.forget(table)   # replayed behind the index: rebuilt when next queried
    if range_value is None:
        if item is None:
            table.items.pop(hash_value, None)
        else:
            table.items[hash_value] = item
    elif item is None:
        bucket = table.items.get(hash_value, {})
        bucket.pop(range_value, None)
        if not bucket:
            table.items.pop(hash_value, None)
    else:
        table.items[hash_value][range_value] = item


def _apply_stream(account: str, region: str, table_name: str, records: list[Any]) -> None:
    from moto.dynamodb.models import dynamodb_backends

    dynamodb_backends[account][region].get_table(table_name).stream_shard.items.extend(
        records)


def _apply_table(account: str, region: str, table_name: str, table: Any) -> None:
    from moto.dynamodb.models import dynamodb_backends

    _put_or_remove(dynamodb_backends[account][region].tables, table_name, table)


def _apply_queues(account: str, region: str, queues: dict[str, Any]) -> None:
    from moto.sqs.models import sqs_backends

    sqs_backends[account][region].queues = queues


def _apply_queue(account: str, region: str, queue_name: str, queue: Any) -> None:
    from moto.sqs.models import sqs_backends

    _put_or_remove(sqs_backends[account][region].queues, queue_name, queue)


def _put_or_remove(mapping: dict[str, Any], name: str, value: Any) -> None:
    """A journaled object as it now is; None: it is gone."""
    if value is None:
        mapping.pop(name, None)
    else:
        mapping[name] = value


def _apply_s3_key(account: str, bucket_name: str, key_name: str, versions: Any) -> None:
    from moto.s3.models import s3_backends

    bucket = s3_backends[account]["global"].buckets[bucket_name]
    if versions is None:
        if key_name in bucket.keys:
            bucket.keys.pop(key_name)
    else:
        bucket.keys.setlist(key_name, versions)


def _apply_s3_bucket(account: str, bucket_name: str, bucket: Any) -> None:
    from moto.s3.models import s3_backends

    backend = s3_backends[account]["global"]
    if bucket is None:
        backend.buckets.pop(bucket_name, None)
        s3_backends.bucket_accounts.pop(bucket_name, None)
    else:
        backend.buckets[bucket_name] = bucket
        s3_backends.bucket_accounts[bucket_name] = (bucket.partition, account)


_APPLIERS: dict[str, Callable[..., None]] = {
    "ddb-item": _apply_item, "ddb-stream": _apply_stream, "ddb-table": _apply_table,
    "sqs": _apply_queues, "sqs-queue": _apply_queue,
    "s3-key": _apply_s3_key, "s3-bucket": _apply_s3_bucket,
}


def relink_dead_letter_queues() -> None:
    """After a replay: a queue journaled alone carries its own copy of its dead-letter
    queue; every queue points again at the dead-letter queue that is in the region."""
    from moto.sqs.models import sqs_backends

    for regions in sqs_backends.values():
        for backend in regions.values():
            for queue in backend.queues.values():
                dead_letters = queue.dead_letter_queue
                if dead_letters is not None and dead_letters.name in backend.queues:
                    queue.dead_letter_queue = backend.queues[dead_letters.name]
