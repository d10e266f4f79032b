"""Items a request is about to read, fetched together in one BatchGetItem.

`POST /messages` reads the organization, the sender and the channel's name claim one
after another, though it could name all three before the first read; a channel's
access check reads the channel and the caller's subscription. `read_ahead` fetches such
keys in one request (several tables at once, strongly consistent like the gets it
replaces) and keeps the answers for this thread until its block ends. Each answer
serves the first `get` of its key and is then forgotten, so a read after the request's
own write of that item goes to the table again.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError
from pynamodb.exceptions import GetError
from pynamodb.models import Model

# (table, serialized hash key, serialized range key)
Key = tuple[str, Any, Any]
# (model, hash key, range key or None), as a get would name the item
ReadAhead = tuple[type[Model], Any, Any]
MAX_KEYS = 100   # BatchGetItem's limit

_ahead = threading.local()
_NOT_READ = object()


def key_of(model: type[Model], hash_key: Any, range_key: Any = None) -> Key:
    hash_value, range_value = model._serialize_keys(hash_key, range_key)
    return model.Meta.table_name, hash_value, range_value


@contextmanager
def read_ahead(wanted: Sequence[ReadAhead]) -> Iterator[None]:
    """Within the block, the first get of each (model, hash key, range key) is answered
    from one batched read made here (a missing item answers as missing)."""
    outer: dict[Key, Model | None] | None = getattr(_ahead, "items", None)
    outermost = outer is None
    held: dict[Key, Model | None] = {} if outer is None else outer
    _ahead.items = held
    # What an enclosing read ahead holds is not read again; what is taken inside this
    # block is gone for the enclosing one too (it is one store per thread).
    found: dict[Key, Model | None] = {}
    try:
        found = _read([w for w in wanted if key_of(*w) not in held])
        held.update(found)
        yield
    finally:
        if outermost:
            _ahead.items = None
        else:
            for key in found:
                held.pop(key, None)


def take(model: type[Model], hash_key: Any, range_key: Any = None) -> Any:
    """The item read ahead for this key (None if it does not exist), once; else a
    sentinel that `was_read` tells apart."""
    items = getattr(_ahead, "items", None)
    if not items:
        return _NOT_READ
    return items.pop(key_of(model, hash_key, range_key), _NOT_READ)


def was_read(answer: Any) -> bool:
    return answer is not _NOT_READ


def _read(wanted: Sequence[ReadAhead]) -> dict[Key, Model | None]:
    if not wanted:
        return {}
    if len(wanted) > MAX_KEYS:
        raise ValueError(f"read ahead at most {MAX_KEYS} keys")
    models: dict[Key, type[Model]] = {}
    request: dict[str, dict[str, Any]] = {}
    for model, hash_key, range_key in wanted:
        key = key_of(model, hash_key, range_key)
        if key in models:
            continue
        models[key] = model
        attributes = {model._hash_key_attribute().attr_name: {
            model._hash_key_attribute().attr_type: key[1]}}
        if key[2] is not None:
            attributes[model._range_key_attribute().attr_name] = {
                model._range_key_attribute().attr_type: key[2]}
        request.setdefault(key[0], {"Keys": [], "ConsistentRead": True})["Keys"].append(
            attributes)
    found: dict[Key, Model | None] = dict.fromkeys(models)
    connection = wanted[0][0]._get_connection().connection
    for table, item in _pages(connection, request):
        for key, model in models.items():
            if key[0] == table and _matches(model, item, key):
                found[key] = model.from_raw_data(item)
                break
    return found


def _matches(model: type[Model], item: dict[str, Any], key: Key) -> bool:
    hash_attribute = model._hash_key_attribute()
    if item.get(hash_attribute.attr_name, {}).get(hash_attribute.attr_type) != key[1]:
        return False
    if key[2] is None:
        return True
    range_attribute = model._range_key_attribute()
    return bool(item.get(range_attribute.attr_name, {}).get(range_attribute.attr_type)
                == key[2])


def _pages(connection: Any, request: dict[str, dict[str, Any]],
           attempts: int = 5) -> Iterator[tuple[str, dict[str, Any]]]:
    """(table, raw item) for each item found; keys DynamoDB leaves unprocessed are asked
    again. (Any model's connection serves every table: a BatchGetItem names its tables.)"""
    for attempt in range(attempts):
        if not request:
            return
        if attempt:
            time.sleep(0.05 * 2 ** attempt)   # what is left unprocessed was throttled
        try:
            answer = connection.dispatch("BatchGetItem", {"RequestItems": request})
        except (BotoCoreError, ClientError) as error:   # as PynamoDB's own reads raise
            raise GetError(f"a read ahead failed: {error}", error) from error
        for table, items in answer.get("Responses", {}).items():
            for item in items:
                yield table, item
        request = answer.get("UnprocessedKeys") or {}
    if request:
        raise GetError("a read ahead left keys unprocessed")
