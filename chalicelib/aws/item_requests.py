"""DynamoDB item requests written as the JSON they are, without walking the service model.

botocore serializes a request by walking its input shape value by value (and, before
that, validating it the same way). For the item operations the walk changes nothing
but binary values (bytes become base64 text), so a request without any is already the
body the walk would write. A fan-out batch for a large channel sends a thousand markers
and a thousand queue chunks; the two walks were a sixth of its process's CPU.

Requests with binary values (or anything else `json` cannot write as is) and every
other operation keep botocore's serializer and its validation; DynamoDB validates what
it receives in any case. tests/unit/test_item_requests.py holds both ways to the same
bytes. Installed on a session by `install_item_requests` (models/sessions.py).
"""
from __future__ import annotations

import json
from typing import Any

from botocore.model import OperationModel
from botocore.serialize import JSONSerializer
from botocore.session import Session

from chalicelib.aws.item_answers import ITEM_OPERATIONS

# Keys of binary attribute values. A quote inside a string value is escaped (\"), so
# these appear in the body only as keys; a false match costs only the slow path.
_BINARY_KEYS = ('"B"', '"BS"')


class _NotPlainJson(Exception):
    pass


def _refuse(value: Any) -> Any:
    raise _NotPlainJson(type(value).__name__)


class ItemRequestSerializer:
    """botocore's serializer for a DynamoDB client, with the item-request shortcut."""

    def __init__(self, botocore_serializer: Any) -> None:   # a Serializer, or its validator
        self._botocore = botocore_serializer
        self._envelope = JSONSerializer()   # method, target and headers of a request

    def serialize_to_request(self, parameters: dict[str, Any],
                             operation_model: OperationModel) -> dict[str, Any]:
        if operation_model.name in ITEM_OPERATIONS:
            try:
                body = json.dumps(parameters, default=_refuse)
            except (_NotPlainJson, ValueError):
                body = None
            if body is not None and not any(key in body for key in _BINARY_KEYS):
                request: dict[str, Any] = self._envelope.serialize_to_request(
                    {}, operation_model)
                request["body"] = body.encode("utf-8")
                return request
        result: dict[str, Any] = self._botocore.serialize_to_request(
            parameters, operation_model)
        return result


class _ItemRequestsClient:
    """Mixed into the session's DynamoDB client class."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        botocore_serializer: Any = getattr(self, "_serializer")   # noqa: B009 - set by BaseClient
        self._serializer = ItemRequestSerializer(botocore_serializer)


def _add_mixin(**event: Any) -> None:
    """creating-client-class: `base_classes` is the list the class is made of."""
    event["base_classes"].insert(0, _ItemRequestsClient)


def install_item_requests(session: Session) -> None:
    """The DynamoDB clients this session creates from now on take the shortcut."""
    session.register("creating-client-class.dynamodb", _add_mixin,
                     unique_id="teamchat-item-requests")
