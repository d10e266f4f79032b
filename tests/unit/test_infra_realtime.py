"""The merge template gives the long-poll and the push channel what they need on AWS."""
from __future__ import annotations

from infra.resources import load_template


def test_get_events_runs_in_its_own_small_function_with_reserved_concurrency():
    resources = load_template()["Resources"]
    longpoll = resources["LongPollHandler"]["Properties"]
    assert longpoll["Architectures"] == ["arm64"] and longpoll["MemorySize"] == 128
    assert longpoll["ReservedConcurrentExecutions"] == {"Ref": "LongPollConcurrency"}
    assert longpoll["Timeout"] < 29   # API Gateway's integration timeout
    paths = resources["RestAPI"]["Properties"]["DefinitionBody"]["paths"]
    assert set(paths) == {"/api/v1/events"} and set(paths["/api/v1/events"]) == {"get"}
    uri = paths["/api/v1/events"]["get"]["x-amazon-apigateway-integration"]["uri"]["Fn::Sub"]
    assert "${LongPollHandler.Arn}" in uri


def test_push_channel_and_wake_queues_are_wired():
    template = load_template()
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["WEBSOCKET_URL"]["Fn::Sub"].startswith("wss://${WebsocketAPI}")
    assert variables["WEBSOCKET_MANAGEMENT_URL"]["Fn::Sub"].startswith("https://${WebsocketAPI}")
    statements = template["Resources"]["DefaultRole"]["Properties"]["Policies"][0][
        "PolicyDocument"]["Statement"]
    actions = {a for s in statements for a in s["Action"]}
    assert {"execute-api:ManageConnections", "sqs:CreateQueue", "sqs:ReceiveMessage",
            "sqs:DeleteQueue", "dynamodb:Scan"} <= actions
    scan = next(s for s in statements if s["Action"] == ["dynamodb:Scan"])
    assert scan["Resource"] == {"Fn::GetAtt": ["WsConnectionsTable", "Arn"]}
