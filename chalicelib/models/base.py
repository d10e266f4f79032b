"""Shared pieces of the models: table naming, transactions, conflicts."""
from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Self, TypeVar

from pynamodb.attributes import MapAttribute
from pynamodb.connection import Connection
from pynamodb.constants import NULL
from pynamodb.exceptions import PynamoDBException, TransactWriteError
from pynamodb.expressions.update import Action
from pynamodb.models import Model
from pynamodb.transactions import TransactGet, TransactWrite

from chalicelib import config
from chalicelib.models import read_ahead, sessions

sessions.install()
M = TypeVar("M", bound="BaseModel")
MAX_TRANSACTION_ITEMS = 100


class BaseModel(Model):
    """A model whose table belongs to the current stage (TABLE_PREFIX)."""

    class Meta:
        abstract = True

    @classmethod
    def get(cls, hash_key: Any, range_key: Any = None, consistent_read: bool = False,
            attributes_to_get: Any = None) -> Self:
        """As PynamoDB's, but answered from a read ahead of this key (read_ahead.py)."""
        if attributes_to_get is None:
            ahead = read_ahead.take(cls, hash_key, range_key)
            if read_ahead.was_read(ahead):
                if ahead is None:
                    raise cls.DoesNotExist()
                return ahead  # type: ignore[no-any-return]
        return super().get(hash_key, range_key, consistent_read=consistent_read,
                           attributes_to_get=attributes_to_get)

    @classmethod
    def _instantiate(cls, attribute_values: dict[str, dict[str, Any]]) -> Self:
        """An item read from DynamoDB, as PynamoDB builds it, without running the
        model's __init__ and its defaults twice over (half the cost of reading a
        fan-out's thousand queues). Models with a discriminator keep PynamoDB's way."""
        if getattr(cls, "_discriminator", None) is not None:
            return super()._instantiate(attribute_values)
        instance = cls.__new__(cls)
        values: dict[str, Any] = {}
        instance.attribute_values = values
        for name, attr_name, attribute, is_map in _fields(cls):
            stored = attribute_values.get(attr_name)
            if stored and NULL not in stored:
                value = attribute.deserialize(attribute.get_value(stored))
            else:
                default = attribute.default
                value = default() if callable(default) else default
                if value is None:
                    continue
            if is_map is None:   # what the descriptor does, without its checks: 10,000
                values[name] = value   # users of a registration were 1.5 s of setattr
            elif is_map:   # a raw map: wrapped as its descriptor would, without the
                values[name] = _raw_map(value)   # constructor's argument checks
            else:   # a map of declared attributes: its descriptor builds it
                setattr(instance, name, value)
        return instance

    @classmethod
    def get_or_none(cls, hash_key: Any, range_key: Any = None,
                    consistent_read: bool = True) -> Self | None:
        try:
            return cls.get(hash_key, range_key, consistent_read=consistent_read)
        except cls.DoesNotExist:
            return None


@functools.cache
def _fields(cls: type[Model]) -> list[tuple[str, str, Any, bool | None]]:
    """A model's attributes once: (name, name in the item, attribute, None for a plain
    attribute, True for a raw map (a MapAttribute itself), False for a map of declared
    attributes). The item's name is a property of the attribute, read here once rather
    than for every attribute of every item (1.5 million times a registration did)."""
    return [(name, attribute.attr_name, attribute, type(attribute) is MapAttribute
             if isinstance(attribute, MapAttribute) else None)
            for name, attribute in cls.get_attributes().items()]


def _raw_map(value: Any) -> MapAttribute[Any, Any]:
    """A raw MapAttribute holding `value` (a mapping), as `MapAttribute(**value)` builds
    it: a container whose attribute_values are the mapping's items."""
    if isinstance(value, MapAttribute):
        return value
    wrapped: MapAttribute[Any, Any] = MapAttribute.__new__(MapAttribute)
    object.__setattr__(wrapped, "attribute_kwargs", {})
    object.__setattr__(wrapped, "attribute_values", dict(value))
    return wrapped


class _StageTable(type):
    """The metaclass of a model's Meta: the table's name and region are read from the
    environment when PynamoDB first needs them, not when the module is imported, so no
    module needs the environment configured before it is imported."""

    suffix: str

    @property
    def table_name(cls) -> str:
        return config.table_name(cls.suffix)

    @property
    def region(cls) -> str:
        return config.region()


def table_meta(suffix: str, **extra: Any) -> Any:
    """A Meta class for the table `<TABLE_PREFIX><suffix>` (typed Any: each model's Meta
    is its own class to PynamoDB, not a subclass of BaseModel.Meta)."""
    return _StageTable("Meta", (), {"suffix": suffix, "billing_mode": "PAY_PER_REQUEST",
                                    **extra})


@functools.lru_cache(maxsize=1)
def _connection() -> Connection:
    # One connection per process: building a botocore client costs ~0.2 s.
    # TransactWrite ignores Meta.host; endpoints come from AWS_ENDPOINT_URL(_DYNAMODB).
    return Connection(region=config.region())


def transaction() -> TransactWrite:
    return TransactWrite(connection=_connection())


def transact_get() -> TransactGet:
    return TransactGet(connection=_connection())


def cancellation_reasons(error: TransactWriteError) -> list[str | None]:
    """The per-item cancellation codes of a failed transaction (None where it passed)."""
    reasons = getattr(error, "cancellation_reasons", None) or []
    # DynamoDB reports items that did not fail with the code "None".
    return [reason.code if reason and reason.code not in (None, "None") else None
            for reason in reasons]


def is_condition_failure(error: TransactWriteError) -> bool:
    return "ConditionalCheckFailed" in cancellation_reasons(error)


def update_existing(updates: Sequence[tuple[Model, list[Action]]], condition: Any,
                    attempts: int = 5) -> int:
    """Applies each (item, update actions) where `condition` holds, in transactions of
    at most 100 items; items whose condition fails (e.g. deleted meanwhile) are skipped,
    those cancelled for another reason are retried. Returns how many were updated."""
    updated = 0
    for start in range(0, len(updates), MAX_TRANSACTION_ITEMS):
        chunk = updates[start:start + MAX_TRANSACTION_ITEMS]
        for _ in range(attempts):
            if not chunk:
                break
            try:
                with transaction() as tx:
                    for item, actions in chunk:
                        tx.update(item, actions=actions, condition=condition)
            except TransactWriteError as error:
                reasons = cancellation_reasons(error)
                if not any(reasons):
                    raise
                chunk = [u for u, reason in zip(chunk, reasons, strict=False)
                         if reason != "ConditionalCheckFailed"]
                continue
            updated += len(chunk)
            break
        else:
            raise TransactWriteError("updates kept conflicting")
    return updated


def is_write_condition_failure(error: PynamoDBException) -> bool:
    """Whether a single-item write (update, put, delete) failed on its condition, as
    opposed to throttling or a fault, which callers must not mistake for a lost race."""
    return getattr(error, "cause_response_code", None) == "ConditionalCheckFailedException"
