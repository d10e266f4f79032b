"""Local-only: moto's UpdateItem for the update expressions the app writes, without its
expression machinery.

moto parses every update expression into a syntax tree and walks it with ten validators
before applying it: about 0.7 ms of an UpdateItem's 1 ms in the backend, the database
process's busiest write under load (a topic's latest message, the message id counter,
an event queue's acknowledgement, rate-limit buckets). The app's updates are plain:
`SET #a = :v`, `ADD #n :v` and `REMOVE #a` on top-level attributes, named through
placeholders. Those are applied here directly, with moto's own condition evaluation,
item creation, stream records and number arithmetic. Anything else, and anything a
check here is unsure of (a key or index attribute, a type that ADD refuses, an item
near the size limit, DELETE, functions, paths), goes to moto's own code, which then
answers or refuses exactly as before. tests/unit/test_moto_updates.py compares both.
"""
from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_TOKEN = re.compile(r"\s*(?:(?P<keyword>SET|ADD|REMOVE)\b|(?P<name>#[A-Za-z0-9_]+)|"
                    r"(?P<value>:[A-Za-z0-9_]+)|(?P<symbol>[=,]))", re.IGNORECASE)
_SET_TYPES = {"SS", "NS", "BS"}
_SIZE_MARGIN = 400_000   # moto refuses items over 405,000 bytes; stay clear of it


@dataclass
class _Plan:
    """The actions of a plain update expression, by attribute name."""

    sets: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    adds: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    removes: list[str] = field(default_factory=list)

    def names(self) -> list[str]:
        return [n for n, _ in self.sets] + [n for n, _ in self.adds] + self.removes


def _tokens(expression: str) -> list[tuple[str, str]] | None:
    tokens: list[tuple[str, str]] = []
    position = 0
    while position < len(expression):
        match = _TOKEN.match(expression, position)
        if match is None:
            return None if expression[position:].strip() else tokens
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


def plain_plan(expression: str | None, names: dict[str, str] | None,
               values: dict[str, Any] | None) -> _Plan | None:
    """The plan of an expression of SET/ADD/REMOVE clauses on placeholders, each clause
    at most once, or None for anything else."""
    tokens = _tokens(expression or "")
    if not tokens or names is None:
        return None
    plan, seen, index = _Plan(), set(), 0
    while index < len(tokens):
        kind, word = tokens[index]
        keyword = word.upper()
        if kind != "keyword" or keyword in seen:
            return None
        seen.add(keyword)
        index += 1
        while True:
            shape = {"SET": ["name", "=", "value"], "ADD": ["name", "value"],
                     "REMOVE": ["name"]}[keyword]
            part = tokens[index:index + len(shape)]
            if [k if k != "symbol" else w for k, w in part] != shape:
                return None
            name = names.get(part[0][1])
            if name is None:
                return None
            if keyword == "REMOVE":
                plan.removes.append(name)
            else:
                value = (values or {}).get(part[-1][1])
                if not isinstance(value, dict) or len(value) != 1 or \
                        (next(iter(value)) in _SET_TYPES and not next(iter(value.values()))):
                    return None   # malformed, or an empty set: moto's error
                (plan.sets if keyword == "SET" else plan.adds).append((name, value))
            index += len(shape)
            if index < len(tokens) and tokens[index] == ("symbol", ","):
                index += 1
                continue
            break
    touched = plan.names()
    if len(set(touched)) != len(touched):
        return None   # overlapping paths: moto's error
    return plan


def _addable(value: dict[str, Any], existing: Any) -> bool:
    """Whether ADD takes this value onto that attribute without an error."""
    kind, raw = next(iter(value.items()))
    if kind == "N":
        return existing is None or existing.type == "N"
    return kind in _SET_TYPES and bool(raw) and (existing is None or existing.type == kind)


def _key_values(table: Any, key: dict[str, Any]) -> tuple[Any, Any] | None:
    from moto.dynamodb.models.dynamo_type import DynamoType

    wanted = {table.hash_key_attr} | ({table.range_key_attr} if table.range_key_attr else set())
    if set(key) != wanted:
        return None
    return (DynamoType(key[table.hash_key_attr]),
            DynamoType(key[table.range_key_attr]) if table.range_key_attr else None)


def _added(existing: Any, value: dict[str, Any]) -> Any:
    """ADD as moto applies it: numbers summed by its own arithmetic, sets extended in
    order without duplicates."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    addition = DynamoType(value)
    if addition.type == "N":
        return (existing if existing is not None else DynamoType({"N": "0"})) + addition
    current = existing if existing is not None else DynamoType({addition.type: []})
    for element in addition.value:
        if element not in current.value:
            current.value.append(element)
    return current


def plain_updates(original: Callable[..., Any]) -> Callable[..., Any]:
    """Wraps DynamoDBBackend.update_item: plain updates here, the rest to `original`."""
    from moto.dynamodb.comparisons import create_condition_expression_parser
    from moto.dynamodb.exceptions import ConditionalCheckFailed
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.utilities import bytesize

    def update_item(self: Any, table_name: str, key: dict[str, Any],
                    update_expression: str, expression_attribute_names: dict[str, Any],
                    expression_attribute_values: dict[str, Any],
                    attribute_updates: dict[str, Any] | None = None,
                    expected: dict[str, Any] | None = None,
                    condition_expression: str | None = None,
                    return_values_on_condition_check_failure: str | None = None) -> Any:
        def moto_s_own() -> Any:
            return original(self, table_name, key, update_expression,
                            expression_attribute_names, expression_attribute_values,
                            attribute_updates, expected, condition_expression,
                            return_values_on_condition_check_failure)

        plan = None if attribute_updates or expected else plain_plan(
            update_expression, expression_attribute_names, expression_attribute_values)
        table = self.tables.get(table_name) if plan is not None else None
        keys = _key_values(table, key) if table is not None else None
        if plan is None or table is None or keys is None or \
                {a["AttributeName"] for a in table.attr} & set(plan.names()):
            return moto_s_own()
        item = table.get_item(*keys)
        condition = create_condition_expression_parser(
            condition_expression, expression_attribute_names,
            expression_attribute_values).parse()
        if not condition.expr(item):
            if return_values_on_condition_check_failure == "ALL_OLD" and item is not None:
                raise ConditionalCheckFailed(item=item.to_json()["Attributes"])
            raise ConditionalCheckFailed
        attrs = item.attrs if item is not None else {}
        growth = sum(bytesize(n) + DynamoType(v).size() for n, v in plan.sets + plan.adds)
        if not all(_addable(v, attrs.get(n)) for n, v in plan.adds) or \
                (item.size() if item is not None else 0) + growth > _SIZE_MARGIN:
            return moto_s_own()
        before = copy.deepcopy(item)
        if item is None:   # created with its key first, as moto does (a key-only record)
            data = {table.hash_key_attr: key[table.hash_key_attr]}
            if table.range_key_attr:
                data[table.range_key_attr] = key[table.range_key_attr]
            table.put_item(data)
            item = table.get_item(*keys)
        for name, value in plan.sets:
            item.attrs[name] = DynamoType(value)
        for name, value in plan.adds:
            item.attrs[name] = _added(item.attrs.get(name), value)
        for name in plan.removes:
            item.attrs.pop(name, None)
        if table.stream_shard is not None:
            table.stream_shard.add(before, item)
        return item

    update_item.__wrapped__ = original  # type: ignore[attr-defined]
    return update_item
