"""Checks responses and events against the generated OpenAPI document.

The functional tests pass every response through `ContractChecker.check_response` (in
`call_api`) and every event the fan-out delivers through `check_event`, so a field that
drifts from its declared TypedDict fails the test that produced it.
"""
from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

DOCUMENT_URI = "urn:teamchat:openapi"


class ContractError(AssertionError):
    """A response or event that the generated document does not allow."""


@dataclass(frozen=True)
class _Route:
    method: str
    pattern: re.Pattern[str]
    pointer: str   # JSON pointer of the operation in the document


# Paths whose last parameter takes the rest of the path, slashes and all, as the
# reference's does (chalicelib/api/navigation_views.py serves them so); OpenAPI cannot say it.
REST_OF_PATH = frozenset({"/api/v1/navigation_views/{fragment}"})


def path_pattern(path: str) -> str:
    one_segment = re.sub(r"\{\w+\}", "[^/]+", path)
    return one_segment.removesuffix("[^/]+") + ".+" if path in REST_OF_PATH else one_segment


def _escape(segment: str) -> str:
    return segment.replace("~", "~0").replace("/", "~1")


class ContractChecker:
    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document
        resource: Resource[Any] = Resource.from_contents(
            dict(document), default_specification=DRAFT202012)
        self.registry: Registry[Any] = Registry().with_resource(DOCUMENT_URI, resource)
        self.routes = [
            _Route(method.upper(), re.compile("^" + path_pattern(path) + "$"),
                   f"/paths/{_escape(path)}/{method}")
            for path, item in document["paths"].items() for method in item]

    @functools.cache  # noqa: B019 - one checker per session, a handful of pointers
    def _validator(self, pointer: str) -> Draft202012Validator:
        return Draft202012Validator({"$ref": f"{DOCUMENT_URI}#{pointer}"},
                                    registry=self.registry)

    def validate(self, pointer: str, value: Any, what: str) -> None:
        errors = list(self._validator(pointer).iter_errors(value))
        if errors:
            error = best_match(errors)
            where = "/".join(str(p) for p in error.absolute_path) or "(top)"
            raise ContractError(
                f"{what} does not match the generated schema at {where}: {error.message}\n"
                f"({len(errors)} error(s); value: {json.dumps(value)[:2000]})")

    def operation_pointer(self, method: str, path: str) -> str | None:
        path = path.split("?", 1)[0]
        for route in self.routes:
            if route.method == method.upper() and route.pattern.match(path):
                return route.pointer
        return None

    def check_response(self, method: str, path: str, status: int, body: bytes,
                       content_type: str) -> None:
        what = f"{method} {path} -> {status}"
        pointer = self.operation_pointer(method, path)
        if pointer is None:
            # An unknown route or method: it must still be the API's error envelope.
            if status < 400:
                raise ContractError(f"{what}: no such operation in the document")
            self.validate("/components/schemas/ErrorResult", _json(body, what), what)
            return
        responses = self.document_at(pointer)["responses"]
        key = str(status) if str(status) in responses else f"{str(status)[0]}XX"
        if key not in responses:
            raise ContractError(f"{what}: status {status} is not documented "
                                f"(documented: {sorted(responses)})")
        media = responses[key].get("content")
        if media is None:
            return   # a redirect: no body to check
        if not content_type.startswith("application/json"):
            raise ContractError(f"{what}: content type {content_type!r}, not JSON")
        self.validate(f"{pointer}/responses/{key}/content/application~1json/schema",
                      _json(body, what), what)

    def check_event(self, event: Mapping[str, Any], what: str = "event") -> None:
        """An event as a queue holds it (before the queue gives it an `id`)."""
        self.validate("/components/schemas/Event", {**event, "id": 0}, what)

    def document_at(self, pointer: str) -> Any:
        node: Any = self.document
        for part in pointer.strip("/").split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node


def _json(body: bytes, what: str) -> Any:
    try:
        return json.loads(body or b"null")
    except ValueError:
        raise ContractError(f"{what}: the body is not JSON: {body[:200]!r}") from None
