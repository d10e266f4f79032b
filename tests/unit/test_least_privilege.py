"""Least privilege per function (issue 25 item 3), proven on what the suite's calls needed.

tests/iam_recorder.py records, for each Lambda function, every AWS call its code made in
this pytest session; collected last, test_every_recorded_call_is_allowed_by_its_role checks
each against that function's role in the packaged template (infra/iam_policy.py evaluates
Allow statements with wildcards) and lists what a role allows that no call used. Run it with
the tests whose calls it should judge (the whole suite: `make test`).
"""
from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

from infra.iam_policy import (
    Resolver,
    Statement,
    allowed,
    calls_of,
    function_roles,
    queue_arn,
    role_statements,
    table_arn,
)
from tests.iam_recorder import CALLS

PACKAGED = Path(__file__).resolve().parents[2] / "build" / "package" / "sam.json"
REPORT = PACKAGED.parents[1] / "iam-report.json"
# Statements the AWS services use on the function's behalf, not its code: no test call
# can show them used (they are checked by test_event_sources_can_be_read_and_dead_lettered).
SERVICE_SIDE = {"OwnLogs", "Traces", "EventSource", "FailureDestination", "DataKey",
                "RestoredTables"}
# Inside chalice.test.Client requests the dev stage's TABLE_PREFIX applies to names read at
# call time (wake queues, the webhook queue); models keep the tests' prefix.
PREFIXES = ("teamchat-local-",)
TEST_PREFIX = "test-"


def packaged() -> dict:
    if not PACKAGED.exists():
        pytest.skip("run `make package` first")
    return json.loads(PACKAGED.read_text())


def resolver(template: dict) -> Resolver:
    return Resolver(template, {"TablePrefix": TEST_PREFIX,
                               "UploadsBucket": os.environ["UPLOAD_BUCKET"],
                               "WebsocketAPI": "local",
                               # the functional tier's verified sender (its SES identity)
                               "MailIdentity": "noreply@localhost",
                               "MailConfigurationSet": "test-mail"})


def normalized(resource: str) -> str:
    for prefix in PREFIXES:
        resource = resource.replace(f"/{prefix}", f"/{TEST_PREFIX}").replace(
            f":{prefix}", f":{TEST_PREFIX}")
    return resource


def roles_of(template: dict) -> dict[str, list[Statement]]:
    resolve = resolver(template)
    return {function: role_statements(template, role, resolve)
            for function, role in function_roles(template).items()}


def test_every_recorded_call_is_allowed_by_its_role():
    template = packaged()
    if not CALLS:
        pytest.skip("no function ran in this session: run this file after (with) the suite")
    roles = roles_of(template)
    denied, used, seen = [], defaultdict(set), defaultdict(set)
    for (function, (action, resource)), count in sorted(CALLS.items()):
        call = (action, normalized(resource))
        seen[function].add(call)
        statement = allowed(roles[function], call)
        if statement is None:
            denied.append(f"{function}: {action} on {call[1]} (x{count})")
        else:
            used[function].add((statement.sid, action))
    unused = {}
    for function, statements in roles.items():
        granted = {(s.sid, a) for s in statements if s.sid not in SERVICE_SIDE
                   for a in s.actions}
        unused[function] = sorted(f"{sid}: {a}" for sid, a in granted - used[function])
    REPORT.write_text(json.dumps({
        "calls": {f: len(c) for f, c in seen.items()},
        "actions_used": {f: sorted({a for a, _ in c}) for f, c in seen.items()},
        "calls_used": {f: sorted({f"{a} {r.split(':', 5)[-1]}" for a, r in c})
                       for f, c in seen.items()},
        "allowed_but_unused": unused, "denied": denied}, indent=2))
    for function, items in unused.items():
        if items:
            print(f"{function} allows, no recorded call used: {items}")
    assert not denied, "calls the roles would refuse:\n" + "\n".join(denied)


def test_event_sources_can_be_read_and_dead_lettered():
    """What the Lambda service does with the function's role: poll its event source, send
    failed batches to the on-failure destination or dead-letter queue, write its logs."""
    template = packaged()
    resources = template["Resources"]
    roles = roles_of(template)
    resolve = resolver(template)
    for function, statements in roles.items():
        props = resources[function]["Properties"]
        group = resolve.value({"Fn::GetAtt": [f"{function}LogGroup", "Arn"]})
        needed = [("logs:PutLogEvents", group.replace(":*", ":log-stream:x")),
                  ("xray:PutTraceSegments", "*")]
        for event in props.get("Events", {}).values():
            source = event["Properties"]
            if event["Type"] == "DynamoDB":
                stream = table_arn(TEST_PREFIX + "outbox") + "/stream/2026-01-01T00:00:00.000"
                needed += [(f"dynamodb:{a}", stream) for a in
                           ("DescribeStream", "GetRecords", "GetShardIterator", "ListStreams")]
                target = source["DestinationConfig"]["OnFailure"]["Destination"]
                needed.append(("sqs:SendMessage", resolve.value(target)))
            if event["Type"] == "SQS":
                # Chalice names each handler's queue literally, with the prod stage's prefix.
                name = str(source["Queue"]["Fn::Sub"]).rsplit(":", 1)[-1]
                queue = queue_arn(TEST_PREFIX + name.removeprefix("teamchat-prod-"))
                needed += [(f"sqs:{a}", queue) for a in
                           ("ReceiveMessage", "DeleteMessage", "GetQueueAttributes")]
        if "DeadLetterQueue" in props:
            needed.append(("sqs:SendMessage", resolve.value(props["DeadLetterQueue"]["TargetArn"])))
        missing = [call for call in needed if allowed(statements, call) is None]
        assert not missing, f"{function}: {missing}"


def test_roles_are_separate_and_smaller_than_the_old_shared_one():
    template = packaged()
    roles = function_roles(template)
    assert len(set(roles.values())) == len(roles) == 11
    statements = roles_of(template)
    assert "DefaultRole" not in template["Resources"]
    # the push channel's functions cannot touch the messages
    messages = table_arn(TEST_PREFIX + "messages")
    for function in ("WebsocketConnect", "WebsocketMessage", "WebsocketDisconnect",
                     "EventsKeepalive", "LongPollHandler"):
        assert allowed(statements[function], ("dynamodb:PutItem", messages)) is None, function
        assert allowed(statements[function], ("dynamodb:DeleteItem", messages)) is None
    assert allowed(statements["APIHandler"], ("dynamodb:PutItem", messages)) is not None
    assert allowed(statements["APIHandler"],
                   ("dynamodb:PutItem", table_arn("other-app-messages"))) is None


def test_calls_map_to_the_actions_iam_checks():
    transact = calls_of("dynamodb", "TransactWriteItems", {"TransactItems": [
        {"Put": {"TableName": "t-a"}}, {"Update": {"TableName": "t-b"}},
        {"ConditionCheck": {"TableName": "t-a"}}]})
    assert transact == [("dynamodb:PutItem", table_arn("t-a")),
                        ("dynamodb:UpdateItem", table_arn("t-b")),
                        ("dynamodb:ConditionCheckItem", table_arn("t-a"))]
    partiql = calls_of("dynamodb", "BatchExecuteStatement", {"Statements": [
        {"Statement": 'INSERT INTO "t-q" VALUE {\'a\': ?}'},
        {"Statement": 'select * from "t-r" where a = ?'}]})
    assert partiql == [("dynamodb:PartiQLInsert", table_arn("t-q")),
                       ("dynamodb:PartiQLSelect", table_arn("t-r"))]
    assert calls_of("dynamodb", "Query", {"TableName": "t", "IndexName": "by_x"}) == [
        ("dynamodb:Query", table_arn("t") + "/index/by_x")]
    assert calls_of("sqs", "SendMessage", {
        "QueueUrl": "https://sqs.us-east-1.amazonaws.com/123456789012/q1"}) == [
        ("sqs:SendMessage", queue_arn("q1"))]
    assert calls_of("sqs", "SendMessageBatch", {
        "QueueUrl": "https://sqs.us-east-1.amazonaws.com/123456789012/q1"}) == [
        ("sqs:SendMessage", queue_arn("q1"))]
    assert calls_of("s3", "HeadObject", {"Bucket": "b", "Key": "k/1"}) == [
        ("s3:GetObject", "arn:aws:s3:::b/k/1")]
    assert calls_of("apigatewaymanagementapi", "PostToConnection", {"ConnectionId": "c1"},
                    "https://abc123.execute-api.us-east-1.amazonaws.com/chat") == [
        ("execute-api:ManageConnections",
         "arn:aws:execute-api:us-east-1:123456789012:abc123/chat/POST/@connections/c1")]


def test_evaluator_wildcards():
    statements = [Statement("A", ("dynamodb:Get*",), (table_arn("p-*"),)),
                  Statement("B", ("sqs:SendMessage",), (queue_arn("p-wake-?"),))]
    assert allowed(statements, ("dynamodb:GetItem", table_arn("p-users"))).sid == "A"
    assert allowed(statements, ("DynamoDB:getitem", table_arn("p-users"))) is not None
    assert allowed(statements, ("dynamodb:PutItem", table_arn("p-users"))) is None
    assert allowed(statements, ("dynamodb:GetItem", table_arn("q-users"))) is None
    assert allowed(statements, ("sqs:SendMessage", queue_arn("p-wake-1"))).sid == "B"
    assert allowed(statements, ("sqs:SendMessage", queue_arn("p-wake-12"))) is None
