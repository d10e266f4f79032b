"""Local-only fixes to moto's DynamoDB backend, applied where moto is started.

moto's TransactWriteItems deep-copies every touched table for rollback, so a
transaction's cost grows with table size (seconds on a few thousand items). This
patch backs up only the touched items and the stream records they emit, and runs
every write and read under one lock so transactions are atomic against concurrent
writers and readers, as DynamoDB's are. The AWS code path is untouched: only moto's backend class changes.
"""
from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import os
import re
import threading
from collections.abc import Iterator
from typing import Any

_LOCK = threading.RLock()
# SQS changes share no state with DynamoDB's and S3's, so they hold a lock of their own:
# a wake-up sent while the DynamoDB lock was taken by BatchWriteItems and Queries waited
# 26 ms at the median (107 ms at p95) under load, to hold the lock for 0.1 ms.
_QUEUE_LOCK = threading.RLock()
_applied = False


def write_lock() -> threading.RLock:
    """The lock every patched DynamoDB and S3 call holds."""
    return _LOCK


def queue_lock() -> threading.RLock:
    """The lock every SQS change holds."""
    return _QUEUE_LOCK


@contextlib.contextmanager
def every_lock() -> Iterator[None]:
    """Both locks (always in this order): nothing changes while they are held, for a
    consistent copy of every backend or a journal switching files."""
    with _LOCK, _QUEUE_LOCK:
        yield


def apply() -> None:
    global _applied
    if _applied:
        return
    from moto.dynamodb.models import DynamoDBBackend

    from infra import moto_indexes, moto_items
    from infra.moto_updates import plain_updates

    original_transact = DynamoDBBackend.transact_write_items
    # Plain update expressions without moto's parser and validators (innermost, so the
    # key checks and the lock below wrap it too).
    DynamoDBBackend.update_item = plain_updates(  # type: ignore[method-assign]
        DynamoDBBackend.update_item)
    # Index partitions kept in step with writes (inside the key checks and the lock).
    moto_indexes.apply()
    # DynamoDB refuses an empty or oversized string key on every operation; moto checks
    # puts and transactions but lets UpdateItem, GetItem and DeleteItem through, which
    # hid keys that AWS would refuse. (Before the lock, so that the
    # transaction code's unlocked `__wrapped__` calls are checked too.)
    for name in ("update_item", "get_item", "delete_item"):
        setattr(DynamoDBBackend, name, _refusing_invalid_keys(getattr(DynamoDBBackend, name)))
    # Reads take the lock too: moto applies a transaction item by item, and a read in
    # between would see writes that a failing condition later rolls back (DynamoDB's
    # reads never see uncommitted transactions).
    for name in ("put_item", "update_item", "delete_item", "batch_write_item", "get_item",
                 "query", "scan", "batch_get_item", "transact_get_items"):
        if hasattr(DynamoDBBackend, name):
            setattr(DynamoDBBackend, name, _locked(getattr(DynamoDBBackend, name)))
    DynamoDBBackend.transact_write_items = _transact_write_items  # type: ignore[method-assign]
    DynamoDBBackend._original_transact_write_items = original_transact  # type: ignore[attr-defined]
    _writes_answer_their_own_state()
    _serialize_wire_answers_directly()
    _parse_wire_json_requests_directly()
    _cheap_result_conversion()
    _query_one_partition()
    _remember_backend_hosts()
    _remember_method_names()
    _partiql_inserts()
    _cheap_request_ids()
    _request_id_tags_only_in_xml()
    _cheap_projections()
    _query_answers_without_deep_copies()
    _cheap_sqs_clock()
    _expiring_shard_iterators()
    _stream_reads_that_wait()
    _private_multipart_uploads()
    moto_items.apply()
    _applied = True


def _private_multipart_uploads() -> None:
    """An object written by a multipart upload without an ACL is private, as S3 makes
    every object; moto left its ACL unset, and an unset ACL let anyone read it without
    a signature (the export is written in parts: its link's bare URL answered 200)."""
    from moto.s3.models import S3Backend, get_canned_acl

    original = S3Backend.create_multipart_upload

    def create_multipart_upload(self: Any, *args: Any, **kwargs: Any) -> Any:
        given = inspect.signature(original).bind(self, *args, **kwargs)
        if given.arguments.get("acl") is None:
            given.arguments["acl"] = get_canned_acl("private")
        return original(*given.args, **given.kwargs)

    S3Backend.create_multipart_upload = create_multipart_upload  # type: ignore[method-assign]


_INSERT = re.compile(r'^INSERT INTO "(?P<table>[^"]+)" VALUE \{(?P<names>[^}]*)\}$')
_INSERT_NAME = re.compile(r"^'(?P<name>[A-Za-z0-9_]+)': \?$")


def parse_insert(statement: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """(table, item) of a BatchExecuteStatement INSERT with `?` parameters, the form
    delivery/batch_append.py writes; None for any other statement."""
    match = _INSERT.match(statement["Statement"].strip())
    if match is None:
        return None
    names = [_INSERT_NAME.match(part.strip()) for part in match["names"].split(",")]
    values = statement.get("Parameters", [])
    if any(name is None for name in names) or len(names) != len(values):
        return None
    return match["table"], {n["name"]: v for n, v in zip(names, values, strict=True) if n}


def _partiql_inserts() -> None:
    """moto runs a PartiQL statement by converting every item of every table to JSON
    (seconds per statement on a few thousand items), and its INSERT overwrites an item
    that exists. BatchExecuteStatement of INSERTs with `?` parameters (the only PartiQL
    the app sends, delivery/batch_append.py) becomes, per statement, a put on the
    condition that the key is new, failing with DuplicateItem as DynamoDB's does."""
    from moto.dynamodb.exceptions import ConditionalCheckFailed
    from moto.dynamodb.models import DynamoDBBackend

    original = DynamoDBBackend.batch_execute_statement

    def batch_execute_statement(self: Any, statements: list[dict[str, Any]]) -> Any:
        inserts = [parse_insert(statement) for statement in statements]
        if not statements or any(insert is None for insert in inserts):
            return original(self, statements)
        responses: list[dict[str, Any]] = []
        for table_name, item in (i for i in inserts if i is not None):
            table = self.get_table(table_name)
            key_names = [n for n in (table.hash_key_attr, table.range_key_attr) if n]
            try:
                if not all(n in item for n in key_names):
                    # moto's conditional put answers this one (with its own error)
                    self.put_item(table_name, item,
                                  condition_expression="attribute_not_exists(#key)",
                                  expression_attribute_names={"#key": table.hash_key_attr})
                else:
                    # The key looked up, not the condition parsed: moto parsed the same
                    # expression for every statement (a fifth of a fan-out's appends).
                    with _LOCK:
                        if self.get_item(table_name, {n: item[n] for n in key_names}):
                            raise ConditionalCheckFailed
                        self.put_item(table_name, item)
            except ConditionalCheckFailed:
                responses.append({"TableName": table_name, "Error": {
                    "Code": "DuplicateItem", "Message": "Duplicate primary key exists in table"}})
                continue
            responses.append({"TableName": table_name})
        return responses

    DynamoDBBackend.batch_execute_statement = batch_execute_statement  # type: ignore[method-assign]


def _remember_backend_hosts() -> None:
    """moto's server finds the backend of every request under one global lock, by
    listing its package directory (a stat per service) and trying every service's URL
    pattern: on the local stack, requests queued on that lock (a profile of a load run
    showed it as the top wait). The answer for a host never changes: remember it."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication

    original = DomainDispatcherApplication.get_backend_for_host
    known: dict[str | None, Any] = {}

    def get_backend_for_host(self: Any, host: str | None) -> Any:
        if host not in known:
            known[host] = original(self, host)
        return known[host]

    DomainDispatcherApplication.get_backend_for_host = get_backend_for_host  # type: ignore[method-assign]


def _cheap_request_ids() -> None:
    """moto makes every response's request id of 52 `random.choice` calls: a tenth of a
    GetItem's time in the local database. Random bytes in hex look the same to a client."""
    from moto.core import responses

    def request_id(headers: dict[str, Any] | None = None) -> str:
        value = os.urandom(26).hex()
        if isinstance(headers, dict):
            headers["x-amzn-requestid"] = value
        return value

    responses.gen_amzn_requestid_long = request_id  # type: ignore[attr-defined]


def _request_id_tags_only_in_xml() -> None:
    """moto puts the request id into every answer's XML <RequestId> with a regular
    expression run over the whole body, JSON answers included (a Query's page is up to
    1 MB): 4 % of the local database's time. A body without the tag is left as the
    expression would leave it, without running it."""
    from moto.core import responses

    original = responses.BaseResponse._enrich_response

    def enrich(headers: dict[str, Any], body: Any) -> tuple[dict[str, Any], Any]:
        if isinstance(body, str) and "<RequestId>" in body:
            return original(headers, body)
        if "status" in headers:
            headers["status"] = str(headers["status"])
        responses.gen_amzn_requestid_long(headers)  # type: ignore[attr-defined]
        return headers, body

    responses.BaseResponse._enrich_response = staticmethod(enrich)  # type: ignore[method-assign,assignment]


def _cheap_projections() -> None:
    """moto projects an item (a ProjectionExpression, attributes_to_get, an index's
    INCLUDE) by converting all of it to plain JSON and back, attribute by attribute: a
    projected BatchGetItem of 100 messages took 100 to 900 ms against 50 unprojected (the
    fan-out's current-state read spent half a loaded batch there). Top-level names, the
    projections the app uses, are picked directly; the answer is the same."""
    from moto.dynamodb.models.dynamo_type import Item

    original = Item.project

    def project(self: Any, projection_expressions: list[list[str]]) -> Any:
        if not all(len(path) == 1 and "[" not in path[0] for path in projection_expressions):
            return original(self, projection_expressions)
        return _item_with(self, {name: self.attrs[name] for [name] in projection_expressions
                                 if name in self.attrs})

    project.__wrapped__ = original  # type: ignore[attr-defined]
    Item.project = project  # type: ignore[method-assign]


_copies = threading.local()


def _query_answers_without_deep_copies() -> None:
    """moto deep-copies every item a Query or Scan returns, so that building the answer
    outside its backend call cannot see a later write: 1,000 subscriptions of a channel
    cost the fan-out half a second. Here the whole Query and Scan handler runs under the
    backend lock, answer included: moto turns the items into plain dicts before
    returning, and nothing between reads them but projections and filters, which build
    new items. So no write can come between, and the items are answered uncopied (a
    shallow copy of each was still a sixth of a 1,000-subscriber Query). Item sizes,
    which the page limit sums twice per item, are computed once per handler call."""
    from moto.dynamodb.models import table as table_module
    from moto.dynamodb.models.dynamo_type import Item
    from moto.dynamodb.responses import DynamoHandler

    from infra.moto_items import sizes_remembered

    real_copy = table_module.copy

    class _Copy:
        @staticmethod
        def deepcopy(value: Any, memo: Any = None) -> Any:
            if getattr(_copies, "uncopied", False) and (isinstance(value, Item) or (
                    isinstance(value, list) and all(isinstance(v, Item) for v in value))):
                return value
            return real_copy.deepcopy(value, memo)

        def __getattr__(self, name: str) -> Any:
            return getattr(real_copy, name)

    table_module.copy = _Copy()  # type: ignore[assignment]

    def answering_uncopied(method: Any) -> Any:
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            _copies.uncopied = True
            try:
                with sizes_remembered():
                    return method(self, *args, **kwargs)
            finally:
                _copies.uncopied = False
        return wrapper

    for name in ("query", "scan"):
        method = getattr(DynamoHandler, name)
        locked = _locked(answering_uncopied(method))
        locked.__wrapped__ = method  # the unpatched handler, for tests
        setattr(DynamoHandler, name, locked)


def _item_with(item: Any, attrs: dict[str, Any]) -> Any:
    """A moto Item with `item`'s key and these attribute values (shared, not copied).
    Built from a plain dict in one update: moto's dict re-sums its size on each set."""
    from moto.dynamodb.models.dynamo_type import Item, LimitedSizeDict

    copied = Item.__new__(Item)
    copied.hash_key, copied.range_key = item.hash_key, item.range_key
    copied.attrs = LimitedSizeDict(attrs)
    return copied


def _remember_method_names() -> None:
    """moto lists a response class's methods (inspect.getmembers) on every request to
    find the action's handler: 5 % of the local database's time under load. A class's
    methods never change: list them once."""
    from moto.core import responses, utils

    responses.method_names_from_class = functools.cache(utils.method_names_from_class)  # type: ignore[attr-defined]


_partition = threading.local()
partition_queries = 0   # how many Queries read one partition (the tests check it is used)
unsorted_index_walks = 0   # how many index Queries walked the table unsorted (likewise)
index_partition_reads = 0   # how many index Queries read one index partition (likewise)


def _query_one_partition() -> None:
    """moto answers a Query on a table's key by sorting every item of the table and
    filtering on the hash key, so a Query costs as much as the table is large (event
    chunks: every append reads its queue's tail). DynamoDB reads one partition; so does
    this: during a Query without an index, `all_items` lists that partition only.

    A Query on an index reads that index's partition (infra/moto_indexes.py); an index
    it cannot serve walks the whole table, without sorting it first: moto sorts what
    matched by the index's full key (unique, so the order it started from cannot show),
    and sorting every item of a table by its own key was most of the Query's cost."""
    from moto.dynamodb.models.table import Table

    from infra import moto_indexes

    original_query, original_all_items = Table.query, Table.all_items

    def all_items(self: Any) -> list[Any]:
        if getattr(_partition, "table", None) is not self:
            return original_all_items(self)
        served = getattr(_partition, "items", None)
        if served is not None:   # an index Query: that index partition (moto_indexes)
            return served
        hash_key = getattr(_partition, "hash_key", None)
        if hash_key is None:   # an index Query: every item, in no particular order
            global unsorted_index_walks
            unsorted_index_walks += 1
            if not self.range_key_attr:
                return list(self.items.values())
            return [item for items in self.items.values() for item in items.values()]
        found = self.items.get(hash_key)
        if found is None:
            return []
        items = list(found.values()) if self.range_key_attr else [found]
        return sorted(items, key=lambda x: (x.hash_key, x.range_key) if x.range_key
                      else x.hash_key)

    def query(self: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        # moto's backend passes index_name as the eighth positional argument.
        index_name = args[6] if len(args) > 6 else kwargs.get("index_name")
        if not index_name and hash_key is None:
            return original_query(self, hash_key, *args, **kwargs)
        global partition_queries
        if not index_name:
            partition_queries += 1
        _partition.table, _partition.hash_key = self, None if index_name else hash_key
        _partition.items = None
        known = {"consistent_read", "filter_expression", "hash_key_conditions",
                 "range_key_conditions", "index_name"}
        if not index_name and len(args) >= 5 and not set(kwargs) - known and \
                len(kwargs.get("range_key_conditions") or ()) <= 1:
            _partition.items = moto_indexes.key_window(
                self, hash_key, args[0], args[1], args[2], args[3], args[4] is not False)
        if index_name:
            conditions = kwargs.get("hash_key_conditions") or []
            value = conditions[0][1] if len(conditions) == 1 else hash_key
            if value is not None:
                _partition.items = moto_indexes.index_partition(self, index_name, value)
            if _partition.items is not None:
                global index_partition_reads
                index_partition_reads += 1
        try:
            return original_query(self, hash_key, *args, **kwargs)
        finally:
            _partition.table = _partition.hash_key = _partition.items = None

    Table.all_items = all_items  # type: ignore[method-assign]
    Table.query = query  # type: ignore[method-assign]


# Answers that are already the wire JSON: items of typed attribute values, the writes'
# old or new attributes, capacities and unprocessed requests, and stream records (their
# one timestamp travels as epoch seconds).
_WIRE_JSON_ANSWERS = {
    "dynamodb": {"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems", "PutItem",
                 "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems",
                 "ExecuteStatement", "BatchExecuteStatement"},
    "dynamodbstreams": {"GetRecords"},
}


def _parse_wire_json_requests_directly() -> None:
    """moto parses every request by walking the operation's input shape over the JSON,
    8 % of the local database's time under load. For DynamoDB's item operations the
    walk changes nothing but binary values (base64 text to bytes): a request without a
    "B" or "BS" token anywhere (an attribute of that name included) is the JSON as it
    is; any other goes through moto's parser (tests/unit/test_moto_patches.py compares
    them)."""
    import json

    from moto.dynamodb.responses import DynamoHandler

    original = DynamoHandler.parse_parameters
    plain = _WIRE_JSON_ANSWERS["dynamodb"]

    def parse_parameters(self: Any, request: Any) -> None:
        body = request.data
        if (self._get_action() in plain and isinstance(body, bytes)
                and b'"B"' not in body and b'"BS"' not in body):
            try:
                parsed = json.loads(body) if body else {}
            except ValueError:
                parsed = None
            if isinstance(parsed, dict):
                self.params = parsed
                return
        original(self, request)

    DynamoHandler.parse_parameters = parse_parameters  # type: ignore[method-assign]


def _cheap_result_conversion() -> None:
    """moto turns every answer's attribute values into plain dicts with a function that
    asks each value what it is through a chain of isinstance checks: 8 % of the local
    database's time in a fan-out to 1,000 queues (a Query of 1,000 subscriptions). The
    same conversion dispatches on the exact type first and leaves every other case
    (binary values, items, datetimes, subclasses) to moto's function."""
    from moto.dynamodb import responses
    from moto.dynamodb.models import utilities
    from moto.dynamodb.models.dynamo_type import DynamoType, LimitedSizeDict

    original = utilities.dynamo_to_dict
    scalars = {"S", "N", "BOOL", "NULL"}
    unchanged = {str, int, float, bool, type(None)}

    def dynamo_to_dict(obj: Any) -> Any:
        kind = type(obj)
        if kind is DynamoType:
            if obj.type in scalars:
                return {obj.type: obj.value}
            if obj.type in ("SS", "NS"):
                return {obj.type: list(obj.value)}
            if obj.type in ("L", "M"):
                return {obj.type: dynamo_to_dict(obj.value)}
        elif kind is dict or kind is LimitedSizeDict:   # the latter: an item's attributes
            return {k: dynamo_to_dict(v) for k, v in obj.items()}
        elif kind is list:
            return [dynamo_to_dict(v) for v in obj]
        elif kind in unchanged:
            return obj
        return original(obj)

    responses.dynamo_to_dict = dynamo_to_dict  # type: ignore[attr-defined]


def _serialize_wire_answers_directly() -> None:
    """moto serializes every response value by walking the operation's shape model,
    about 10 ms per item: reading 10,000 small items took over 30 s, and the walk was a
    third of every small write's time. These answers already are the wire JSON, so they
    are dumped as they are (the equivalence is checked in tests/unit/test_moto_patches.py)."""
    import base64
    import calendar
    import datetime
    import json

    from moto.core.responses import ActionResult

    def wire(value: Any) -> Any:
        if isinstance(value, bytes):   # binary attribute values travel base64-encoded
            return base64.b64encode(value).decode()
        if isinstance(value, datetime.datetime):   # as moto's serializer: ms precision
            return calendar.timegm(value.timetuple()) + (value.microsecond // 1000) / 1000
        raise TypeError(f"cannot serialize {type(value).__name__}")

    original = ActionResult.execute_result

    def execute_result(self: Any, context: Any) -> Any:
        operations = _WIRE_JSON_ANSWERS.get(str(context.service_model.service_name), ())
        if str(context.operation_model.name) not in operations:
            return original(self, context)
        version = context.service_model.metadata.get("jsonVersion", "1.0")
        return 200, {"Content-Type": f"application/x-amz-json-{version}"}, json.dumps(
            self.result, default=wire)

    execute_result.__wrapped__ = original  # type: ignore[attr-defined]
    ActionResult.execute_result = execute_result  # type: ignore[method-assign]


SHARD_ITERATOR_LIFETIME_SECONDS = 15 * 60   # as on AWS
SHARD_ITERATOR_SWEEP_SECONDS = 60.0         # how often the expired ones are dropped
_next_sweep = 0.0


def _expiring_shard_iterators() -> None:
    """moto keeps every shard iterator it hands out, about 1.5 KB each, and a stream
    poller takes one per read (37 a second at rest: 200 MB an hour of `make run`).
    AWS lets an iterator expire 15 minutes after it is handed out; so does this: a read
    with an expired iterator is refused with AWS's error, and once a minute the expired
    ones are dropped."""
    import time

    from moto.core.exceptions import JsonRESTError
    from moto.dynamodbstreams.models import DynamoDBStreamsBackend, ShardIterator

    original_init = ShardIterator.__init__
    original_get_records = DynamoDBStreamsBackend.get_records

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        self.handed_out = time.monotonic()

    def expired(iterator: Any, now: float) -> bool:
        return now - getattr(iterator, "handed_out", now) > SHARD_ITERATOR_LIFETIME_SECONDS

    def get_records(self: Any, iterator_arn: str, limit: int) -> Any:
        global _next_sweep
        with _LOCK:
            now = time.monotonic()
            iterators = self.shard_iterators
            if now >= _next_sweep:
                _next_sweep = now + SHARD_ITERATOR_SWEEP_SECONDS
                for arn in [a for a, i in iterators.items() if expired(i, now)]:
                    del iterators[arn]
            iterator = iterators.get(iterator_arn)
            if iterator is None or expired(iterator, now):
                iterators.pop(iterator_arn, None)
                raise JsonRESTError("ExpiredIteratorException",
                                    "The shard iterator has expired or is unknown; ask for "
                                    "a new one with GetShardIterator.")
            return original_get_records(self, iterator_arn, limit)

    ShardIterator.__init__ = init  # type: ignore[method-assign]
    DynamoDBStreamsBackend.get_records = get_records  # type: ignore[method-assign]


# A GetRecords carrying this header (milliseconds, at most STREAM_WAIT_MAX_MS) waits that
# long for a record when it would answer none, as SQS's long poll does. Only the local
# stack's stream poller sends it; every other read answers at once, as on AWS.
STREAM_WAIT_HEADER = "x-local-stream-wait-ms"
STREAM_WAIT_MAX_MS = 5000
_stream_appended = threading.Condition()
_stream_generation = 0   # counts stream records appended (under _stream_appended)


def _stream_reads_that_wait() -> None:
    """The local stream poller read an idle stream 37 times a second: 17 % of a core in
    the workers and 8 % in the database at rest, and a record waited up to 20 ms
    between reads. A read that asks to wait sleeps until a record is appended instead."""
    import time

    from moto.dynamodb.models.table import StreamShard
    from moto.dynamodbstreams.responses import DynamoDBStreamsHandler

    original_add = StreamShard.add
    original_get = DynamoDBStreamsHandler.get_records

    def add(self: Any, old: Any, new: Any) -> None:
        global _stream_generation
        original_add(self, old, new)
        with _stream_appended:
            _stream_generation += 1
            _stream_appended.notify_all()

    def get_records(self: Any) -> Any:
        seen = _stream_generation
        result = original_get(self)
        try:
            wait_ms = min(float(self.headers.get(STREAM_WAIT_HEADER) or 0), STREAM_WAIT_MAX_MS)
        except ValueError:
            wait_ms = 0.0
        deadline = time.monotonic() + wait_ms / 1000
        while not result.result["Records"]:  # type: ignore[index]
            with _stream_appended:
                # Records appended since `seen` (even before this wait) end it at once.
                while seen == _stream_generation and (left := deadline - time.monotonic()) > 0:
                    _stream_appended.wait(left)
                if seen == _stream_generation:
                    return result
                seen = _stream_generation
            result = original_get(self)
        return result

    StreamShard.add = add  # type: ignore[method-assign]
    DynamoDBStreamsHandler.get_records = get_records  # type: ignore[method-assign]


def _cheap_sqs_clock() -> None:
    """moto's SQS reads the clock through datetime arithmetic (about 15 µs a call), and
    computes every queue attribute on each send, counting visible messages: two clock
    reads per message held. A wake queue holds a minute of wake-ups, so a send cost
    3.5 ms. The same wall clock in milliseconds, read directly."""
    import time

    from moto.sqs import models

    original = models.unix_time_millis

    def unix_time_millis(dt: Any = None) -> float:
        return time.time() * 1000.0 if dt is None else original(dt)

    unix_time_millis.__wrapped__ = original  # type: ignore[attr-defined]
    models.unix_time_millis = unix_time_millis  # type: ignore[assignment]


def _writes_answer_their_own_state() -> None:
    """moto's PutItem and UpdateItem answers read the old item before the write and
    serialise the live item after it, both outside the backend call. A concurrent update
    in between changed what they returned: two racing `ADD hits :1` both answered 3 (a
    rate-limit test caught it). DynamoDB returns each write's own before and after, so
    the whole answer is built under the lock."""
    from moto.dynamodb.responses import DynamoHandler

    for name in ("put_item", "update_item"):
        setattr(DynamoHandler, name, _locked(getattr(DynamoHandler, name)))


def _locked(method: Any) -> Any:
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        with _LOCK:
            return method(self, *args, **kwargs)
    wrapper.__wrapped__ = method  # type: ignore[attr-defined]
    return wrapper


# DynamoDB's limits on a key's values, in bytes.
_MAX_HASH_KEY_BYTES = 2048
_MAX_RANGE_KEY_BYTES = 1024


def _refusing_invalid_keys(method: Any) -> Any:
    def wrapper(self: Any, table_name: str, *args: Any, **kwargs: Any) -> Any:
        from moto.dynamodb.exceptions import MockValidationException

        key = args[0] if args else kwargs.get("key", kwargs.get("keys", {}))
        table = self.get_table(table_name)
        for name, value in (key or {}).items():
            kind, raw = next(iter(value.items()))
            if kind in ("S", "B") and raw == "":
                raise MockValidationException(
                    "One or more parameter values are not valid. The AttributeValue for a "
                    f"key attribute cannot contain an empty string value. Key: {name}")
            limit = (_MAX_HASH_KEY_BYTES if name == table.hash_key_attr
                     else _MAX_RANGE_KEY_BYTES)
            if kind == "S" and len(raw.encode()) > limit:
                raise MockValidationException(
                    f"One or more parameter values were invalid: Size of key {name} exceeds "
                    f"the maximum of {limit} bytes")
        return method(self, table_name, *args, **kwargs)
    wrapper.__wrapped__ = method  # type: ignore[attr-defined]
    return wrapper


class _ItemBackup:
    """The touched items of a transaction as they were, and each stream's length."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, Any, Any], Any] = {}
        self.stream_lengths: dict[str, int] = {}

    def remember(self, backend: Any, table_name: str, key: dict[str, Any]) -> None:
        from moto.dynamodb.models.dynamo_type import DynamoType

        table = backend.get_table(table_name)
        hash_value = DynamoType(key[table.hash_key_attr])
        range_value = (DynamoType(key[table.range_key_attr])
                       if table.range_key_attr is not None else None)
        slot = (table_name, hash_value, range_value)
        if slot not in self.items:
            current = (table.items.get(hash_value, {}).get(range_value)
                       if range_value is not None else table.items.get(hash_value))
            self.items[slot] = copy.deepcopy(current)
        shard = getattr(table, "stream_shard", None)
        if shard is not None and table_name not in self.stream_lengths:
            self.stream_lengths[table_name] = len(shard.items)

    def restore(self, backend: Any) -> None:
        from infra import moto_indexes

        for (table_name, hash_value, range_value), item in self.items.items():
            table = backend.get_table(table_name)
            moto_indexes.forget(table)   # items replaced behind the index
            if range_value is not None:
                bucket = table.items[hash_value]
                if item is None:
                    bucket.pop(range_value, None)
                    if not bucket:
                        table.items.pop(hash_value, None)
                else:
                    bucket[range_value] = item
            elif item is None:
                table.items.pop(hash_value, None)
            else:
                table.items[hash_value] = item
        for table_name, length in self.stream_lengths.items():
            shard = backend.get_table(table_name).stream_shard
            del shard.items[length:]


def _transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
    from moto.dynamodb.exceptions import (
        ConditionalCheckFailed,
        MockValidationException,
        MultipleTransactionsException,
        TooManyTransactionsException,
        TransactionCanceledException,
        TransactWriteSingleOpException,
    )

    if len(transact_items) > 100:
        raise TooManyTransactionsException()
    with _LOCK:
        backup = _ItemBackup()
        seen: set[tuple[str, str]] = set()
        errors: list[tuple[Any, Any, Any]] = []
        for entry in transact_items:
            if len(entry) > 1:
                raise TransactWriteSingleOpException
            op_type, op = next(iter(entry.items()))
            table_name = op["TableName"]
            table = self.get_table(table_name)
            if op_type == "Put":
                key = {table.hash_key_attr: op["Item"][table.hash_key_attr]}
                if table.range_key_attr is not None:
                    key[table.range_key_attr] = op["Item"][table.range_key_attr]
            else:
                key = op["Key"]
            marker = (str(table_name), str(dict(sorted(key.items()))))
            if marker in seen:
                raise MultipleTransactionsException()
            seen.add(marker)
            backup.remember(self, table_name, key)
        try:
            for entry in transact_items:
                errors.append(_apply_one(self, entry, ConditionalCheckFailed))
        except (MultipleTransactionsException, MockValidationException):
            backup.restore(self)
            raise
        if any(code is not None for code, _, _ in errors):
            backup.restore(self)
            raise TransactionCanceledException(errors)


def _apply_one(backend: Any, entry: dict[str, Any], condition_failed: type) -> tuple:
    from moto.dynamodb.comparisons import get_filter_expression
    from moto.dynamodb.exceptions import MockValidationException

    op_type, op = next(iter(entry.items()))
    table_name = op["TableName"]
    names = op.get("ExpressionAttributeNames")
    values = op.get("ExpressionAttributeValues")
    condition = op.get("ConditionExpression")
    original_item = None
    try:
        if op_type not in {"ConditionCheck", "Put", "Delete", "Update"}:
            raise ValueError("Unsupported transaction operation")
        table = backend.get_table(table_name)
        if op_type == "Put":
            key = {table.hash_key_attr: op["Item"][table.hash_key_attr]}
            if table.range_key_attr is not None:
                key[table.range_key_attr] = op["Item"][table.range_key_attr]
        else:
            key = op["Key"]
        current = backend.get_item(table_name, key)
        if condition is not None and \
                not get_filter_expression(condition, names, values).expr(current):
            if op.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD" and current:
                original_item = current.to_json()["Attributes"]
            raise condition_failed(item=original_item)
        if op_type == "Put":
            backend.put_item.__wrapped__(backend, table_name, op["Item"],
                                         condition_expression=condition,
                                         expression_attribute_names=names,
                                         expression_attribute_values=values)
        elif op_type == "Delete":
            backend.delete_item.__wrapped__(backend, table_name, key,
                                            condition_expression=condition,
                                            expression_attribute_names=names,
                                            expression_attribute_values=values)
        elif op_type == "Update":
            backend.update_item.__wrapped__(backend, table_name, key,
                                            update_expression=op["UpdateExpression"],
                                            condition_expression=condition,
                                            expression_attribute_names=names,
                                            expression_attribute_values=values)
        return (None, None, None)
    except MockValidationException:
        raise
    except condition_failed as error:
        return ("ConditionalCheckFailed", str(error.message), original_item)
    except Exception as error:  # noqa: BLE001 (moto reports any other failure per item, as AWS does)
        return (type(error).__name__, str(error), original_item)
