"""The OpenAPI document generated from the views: complete, valid, committed up to date."""
from __future__ import annotations

import json
from typing import Literal, NotRequired, TypedDict

import pytest
from chalice import Chalice
from openapi_spec_validator import validate

from app import app
from chalicelib.apidocs import DOCUMENT
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.openapi import OpenApiError, event_types, openapi_document, render
from chalicelib.http.params import Json
from chalicelib.http.type_schemas import typeddict_fields


@pytest.fixture(scope="module")
def document() -> dict:
    return openapi_document(app)


def test_the_committed_document_is_the_generated_one(document):
    # GIVEN the document generated from the code as it is now
    expected = render(document)
    # THEN the committed file says the same (else: `make openapi` and commit the result)
    assert DOCUMENT.read_text(encoding="utf-8") == expected, (
        "chalicelib/apidocs/openapi.json is stale: run `make openapi`")


def test_the_document_is_valid_openapi_3_1(document):
    validate(document)   # raises on any violation of the OpenAPI 3.1 schema
    assert document["openapi"] == "3.1.0"


def test_the_naming_rule_holds_and_names_are_unique(document):
    text = json.dumps(document).lower()
    assert "zulip" not in text
    ids = [op["operationId"] for item in document["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids))


def test_every_view_is_described_with_its_result(document):
    # Every route that ApiBlueprint made is in the document, with a 200 or a redirect.
    routes = {(path, method.lower()) for path, methods in app.routes.items()
              for method, entry in methods.items()
              if hasattr(entry.view_function, "public")}
    described = {(path, method) for path, item in document["paths"].items()
                 for method in item}
    assert routes == described
    for path, item in document["paths"].items():
        for method, operation in item.items():
            assert {"200", "302"} & set(operation["responses"]), (method, path)


def test_parameters_follow_the_view_signatures(document):
    send = document["paths"]["/api/v1/messages"]["post"]
    form = send["requestBody"]["content"]["application/x-www-form-urlencoded"]
    # The wire alias, the Literal choices, the required ones.
    assert form["schema"]["properties"]["type"]["enum"] == ["stream", "channel", "private",
                                                            "direct"]
    assert set(form["schema"]["required"]) == {"type", "to", "content"}
    fetch = {p["name"]: p for p in document["paths"]["/api/v1/messages"]["get"]["parameters"]}
    # Json[...] parameters are JSON-encoded in the query string; defaults are shown.
    assert fetch["narrow"]["content"]["application/json"]["schema"]["type"] == "array"
    assert fetch["anchor"]["schema"] == {"type": "string", "default": "newest"}
    assert fetch["num_before"]["required"] is True
    edit = document["paths"]["/api/v1/messages/{message_id}"]["patch"]
    assert edit["parameters"] == [{"name": "message_id", "in": "path", "required": True,
                                   "schema": {"type": "integer"}}]
    assert document["paths"]["/api/v1/server_settings"]["get"]["security"] == []
    assert "security" not in document["paths"]["/api/v1/users/me"]["get"]


def test_results_are_closed_objects_in_the_envelope(document):
    schemas = document["components"]["schemas"]
    own = schemas["OwnUserResult"]
    assert own["additionalProperties"] is False
    assert {"result", "msg", "user_id", "max_message_id"} <= set(own["required"])
    assert "ignored_parameters_unsupported" not in own["required"]
    assert "profile_data" in own["properties"] and "profile_data" not in own["required"]
    # Present but maybe null: required, with null allowed.
    assert "avatar_url" in schemas["MessageDict"]["required"]
    assert schemas["MessageDict"]["properties"]["avatar_url"]["type"] == ["string", "null"]


def test_events_are_one_of_the_declared_shapes(document):
    events = document["components"]["schemas"]["Event"]["oneOf"]
    names = {ref["$ref"].rsplit("/", 1)[1] for ref in events}
    assert {"MessageEvent", "UserStatusEvent", "HeartbeatEvent",
            "DeleteMessageLegacyEvent"} <= names
    assert len(names) == len(event_types())
    get_events = document["paths"]["/api/v1/events"]["get"]["responses"]["200"]
    # One answer whether a queue is named or registered (§4.5: events and queue_id)
    schema = get_events["content"]["application/json"]["schema"]
    assert "anyOf" not in schema and "GetEventsResult" in json.dumps(schema)


def _app_with(view_module_setup) -> Chalice:
    test_app = Chalice(app_name="openapi-test")
    bp = ApiBlueprint("test_views")
    view_module_setup(bp)
    test_app.register_blueprint(bp, url_prefix="/api/v1")
    return test_app


def test_a_view_without_a_declared_result_fails_loudly():
    def views(bp: ApiBlueprint) -> None:
        @bp.endpoint("/things", "GET")
        def list_things(caller: object) -> dict:
            return {}

    with pytest.raises(OpenApiError, match="list_things declares no result TypedDict"):
        openapi_document(_app_with(views))


class Thing(TypedDict):
    name: str


OtherThing = TypedDict("Thing", {"other": int})  # type: ignore[misc]  # noqa: UP013 - the same name on purpose


class FirstResult(TypedDict):
    thing: Thing


class SecondResult(TypedDict):
    thing: OtherThing


def test_two_types_of_one_name_fail_loudly():
    def views(bp: ApiBlueprint) -> None:
        @bp.endpoint("/a", "GET")
        def get_a(caller: object) -> FirstResult:
            return {"thing": {"name": ""}}

        @bp.endpoint("/b", "POST")
        def get_b(caller: object, *, ids: Json[list[int]]) -> SecondResult:
            return {"thing": {"other": 1}}

    with pytest.raises(OpenApiError, match="two types named Thing"):
        openapi_document(_app_with(views))


class Sample(TypedDict):
    kind: Literal["a"]
    maybe: NotRequired[str]
    nullable: int | None


def test_not_required_is_read_from_string_annotations():
    # Python 3.11 misses NotRequired under `from __future__ import annotations`.
    fields = typeddict_fields(Sample)
    assert fields["maybe"] == (str, False)
    assert fields["kind"][1] is True and fields["nullable"][1] is True
