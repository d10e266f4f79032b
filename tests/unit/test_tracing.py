"""X-Ray on every function (issue 25): each function of the packaged template has tracing
active, and its Lambda entry point runs inside powertools' capture_lambda_handler
(chalicelib/aws/tracing.py); tests themselves run with tracing disabled."""
from __future__ import annotations

import json
import os
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

PACKAGED = Path(__file__).resolve().parents[2] / "build" / "package" / "sam.json"

SQS_EVENT = {"Records": []}
EVENTS: dict[str, dict[str, Any]] = {   # a minimal event of each function's trigger
    "DynamoDBEvent": {"Records": []},
    "SQSEvent": SQS_EVENT,
    "SNSEvent": {"Records": [{"Sns": {"Message": "{}", "Subject": None,
                                      "MessageAttributes": {}}}]},
    "CloudWatchEvent": {"version": "0", "id": "e1", "detail-type": "Scheduled Event",
                        "source": "aws.events", "account": "123456789012",
                        "time": "2026-11-25T00:00:00Z", "region": "us-east-1",
                        "resources": [], "detail": {}},
    "LambdaFunctionEvent": {"scheduled_message_id": 1},
    "WebsocketEvent": {"requestContext": {"routeKey": "$default", "connectionId": "c1",
                                          "domainName": "abc.execute-api.us-east-1.amazonaws.com",
                                          "stage": "chat", "apiId": "abc",
                                          "eventType": "MESSAGE"},
                       "body": "{}"},
}
# A REST request answered without AWS (a method the path does not serve: 405), through the
# same middleware as every route.
REST_EVENT = {"httpMethod": "PUT", "path": "/api/v1/users/me", "headers": {},
              "queryStringParameters": None, "multiValueQueryStringParameters": None,
              "pathParameters": None, "stageVariables": None, "body": None,
              "isBase64Encoded": False,
              "requestContext": {"httpMethod": "PUT", "resourcePath": "/api/v1/users/me",
                                 "path": "/chat/api/v1/users/me", "stage": "chat",
                                 "requestId": "r1", "identity": {"sourceIp": "127.0.0.1"}}}


class RecordingProvider:
    """Stands in for the X-Ray recorder: records the subsegments opened."""

    def __init__(self) -> None:
        self.subsegments: list[str] = []
        self.annotations: dict[str, Any] = {}

    @contextmanager
    def in_subsegment(self, name: str, **_: Any):
        self.subsegments.append(name)
        yield SimpleNamespace(put_annotation=self.annotate, put_metadata=lambda **kw: None)

    def annotate(self, key: str, value: Any) -> None:
        self.annotations[key] = value


def functions() -> dict[str, str]:
    if not PACKAGED.exists():
        pytest.skip("run `make package` first")
    resources = json.loads(PACKAGED.read_text())["Resources"]
    return {name: res["Properties"] for name, res in resources.items()
            if res["Type"] in ("AWS::Serverless::Function", "AWS::Lambda::Function")}


def test_tests_run_with_tracing_disabled():
    from chalicelib.aws.tracing import tracer

    assert os.environ["POWERTOOLS_TRACE_DISABLED"] == "true"
    assert tracer.disabled


def test_every_function_has_active_tracing_and_may_write_traces():
    found = functions()
    assert len(found) == 11
    assert {name for name, props in found.items() if props.get("Tracing") != "Active"} == set()


def test_every_functions_handler_is_captured(monkeypatch):
    # GIVEN every function's handler as the packaged template names it, with what it
    # delegates to stubbed (no AWS here)
    import importlib

    from chalice.app import Chalice

    from chalicelib import handlers
    from chalicelib.aws.tracing import tracer
    from chalicelib.handlers import (
        keepalive,
        message_schedules,
        notification_queue,
        ses_events,
        stream_fanout,
        webhook_queue,
    )
    from chalicelib.handlers import websocket as websocket_entry

    provider = RecordingProvider()
    monkeypatch.setattr(tracer, "provider", provider)
    for module, name in ((stream_fanout, "handle_stream_batch"),
                         (webhook_queue, "handle_webhook_batch"),
                         (notification_queue, "handle_notifier_batch"),
                         (ses_events, "record_mail_event"),
                         (message_schedules, "deliver_scheduled_message"),
                         (keepalive, "run_keepalive")):
        monkeypatch.setattr(module, name, lambda *args: None)
    for name in ("on_connect", "on_message", "on_disconnect"):
        monkeypatch.setattr(websocket_entry.websocket, name, lambda *args: None)
    events = {stream_fanout: EVENTS["DynamoDBEvent"], webhook_queue: SQS_EVENT,
              notification_queue: SQS_EVENT, ses_events: EVENTS["SNSEvent"],
              message_schedules: EVENTS["LambdaFunctionEvent"],
              keepalive: EVENTS["CloudWatchEvent"], websocket_entry: EVENTS["WebsocketEvent"]}
    for function, props in sorted(functions().items()):
        module_name, _, attribute = props["Handler"].rpartition(".")
        module = importlib.import_module(module_name)
        entry = getattr(module, attribute)
        context = SimpleNamespace(function_name=function, aws_request_id="r1")
        if isinstance(entry, Chalice):
            event = REST_EVENT if module_name == "app" else {
                **REST_EVENT, "httpMethod": "GET", "path": "/api/v1/events",
                "requestContext": {**REST_EVENT["requestContext"], "httpMethod": "GET",
                                   "resourcePath": "/api/v1/events"}}
        else:
            assert module.__name__.startswith(handlers.__name__), props["Handler"]
            event = events[module]
        provider.subsegments.clear()
        # WHEN Lambda invokes it
        answer = entry(event, context)
        # THEN the invocation ran in its handler subsegment
        assert provider.subsegments == [f"## {function}"], function
        assert provider.annotations["Service"] == "teamchat"
        if isinstance(entry, Chalice):
            # the API: a method its path does not serve; the long-poll: no credentials
            assert answer["statusCode"] == (405 if module_name == "app" else 401), function


def test_the_xray_sdks_sampling_clients_are_made_only_if_used():
    """They cost most of the SDK's import and a Lambda function never uses them."""
    from aws_xray_sdk.core import xray_recorder

    from chalicelib.aws import tracing
    from chalicelib.aws.xray_sampling import LazyClient

    assert tracing.tracer is not None
    client = xray_recorder.sampler._connector._xray_client
    assert isinstance(client, LazyClient) and "_client" not in vars(client)
    # Used, it is a real X-Ray client
    assert client.meta.service_model.service_name == "xray"
