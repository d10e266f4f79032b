"""The local database process answers DynamoDB, its streams and SQS without moto's Flask
layer, as moto's own route would (infra/local/database.py `answered_directly`)."""
from __future__ import annotations

import json
import uuid
from typing import Any

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.test import Client

from infra import moto_patches
from infra.local.database import answered_directly

AUTH = ("AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/dynamodb/aws4_request, "
        "SignedHeaders=host, Signature=x")


def _dynamodb(client: Client, action: str, body: dict[str, Any],
              target: str = "DynamoDB_20120810", service: str = "dynamodb"
              ) -> tuple[int, dict[str, Any]]:
    answer = client.post("/", data=json.dumps(body), headers={
        "X-Amz-Target": f"{target}.{action}",
        "Authorization": AUTH.replace("/dynamodb/", f"/{service}/"),
        "Content-Type": "application/x-amz-json-1.0"})
    return answer.status_code, json.loads(answer.get_data() or b"{}")


def _sqs(client: Client, action: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return _dynamodb(client, action, body, "AmazonSQS", "sqs")


def _streams(client: Client, action: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return _dynamodb(client, action, body, "DynamoDBStreams_20120810", "dynamodb")


def _clients() -> tuple[Client, Client, list[str]]:
    """A client through `answered_directly`, one straight to moto's app, and the
    requests the first let through to moto's app (target, else path)."""
    moto_patches.apply()
    moto = DomainDispatcherApplication(create_backend_app)
    reached: list[str] = []

    def spy(environ: dict[str, Any], start_response: Any) -> Any:
        reached.append(environ.get("HTTP_X_AMZ_TARGET", environ["PATH_INFO"]))
        return moto(environ, start_response)

    return Client(answered_directly(spy)), Client(moto), reached


def test_dynamodb_answers_as_through_moto_and_other_services_still_reach_moto():
    fast, slow, reached = _clients()
    table = f"fast-{uuid.uuid4().hex[:8]}"
    status, created = _dynamodb(fast, "CreateTable", {
        "TableName": table, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}]})
    assert status == 200 and created["TableDescription"]["TableName"] == table
    item = {"k": {"S": "a"}, "v": {"N": "1"}}
    assert _dynamodb(fast, "PutItem", {"TableName": table, "Item": item})[0] == 200
    get = {"TableName": table, "Key": {"k": {"S": "a"}}}
    assert _dynamodb(fast, "GetItem", get) == _dynamodb(slow, "GetItem", get) == (
        200, {"Item": item})
    # An error keeps its status and type
    missing = {"TableName": "no-such-table", "Key": {"k": {"S": "a"}}}
    status, error = _dynamodb(fast, "GetItem", missing)
    assert (status, error) == _dynamodb(slow, "GetItem", missing)
    assert status == 400 and error["__type"].endswith("ResourceNotFoundException")
    # None of that went through moto's app
    assert reached == []


def test_sqs_and_streams_answer_as_through_moto_and_the_rest_still_reaches_moto():
    fast, slow, reached = _clients()
    # SQS (its JSON protocol): a message sent one way is received the other
    name = f"fast-{uuid.uuid4().hex[:8]}"
    status, created = _sqs(fast, "CreateQueue", {"QueueName": name})
    url = created["QueueUrl"]
    assert status == 200 and url.endswith(name)
    assert _sqs(fast, "SendMessage", {"QueueUrl": url, "MessageBody": "hi"})[0] == 200
    status, received = _sqs(slow, "ReceiveMessage", {"QueueUrl": url})
    assert status == 200 and [m["Body"] for m in received["Messages"]] == ["hi"]
    assert _sqs(slow, "SendMessage", {"QueueUrl": url, "MessageBody": "back"})[0] == 200
    status, received = _sqs(fast, "ReceiveMessage", {"QueueUrl": url})
    assert status == 200 and [m["Body"] for m in received["Messages"]] == ["back"]
    missing = {"QueueUrl": url + "-gone"}
    assert _sqs(fast, "ReceiveMessage", missing) == _sqs(slow, "ReceiveMessage", missing)
    assert _sqs(fast, "ReceiveMessage", missing)[0] == 400
    # Streams: the records of a write read the same both ways
    table = f"fast-{uuid.uuid4().hex[:8]}"
    arn = _dynamodb(fast, "CreateTable", {
        "TableName": table, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}],
        "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
    })[1]["TableDescription"]["LatestStreamArn"]
    _dynamodb(fast, "PutItem", {"TableName": table, "Item": {"k": {"S": "a"}}})
    shard = _streams(fast, "DescribeStream", {"StreamArn": arn})[1][
        "StreamDescription"]["Shards"][0]["ShardId"]

    def records(client: Client) -> list[dict[str, Any]]:
        iterator = _streams(client, "GetShardIterator", {
            "StreamArn": arn, "ShardId": shard,
            "ShardIteratorType": "TRIM_HORIZON"})[1]["ShardIterator"]
        status, answer = _streams(client, "GetRecords", {"ShardIterator": iterator})
        assert status == 200
        return [r["dynamodb"]["NewImage"] for r in answer["Records"]]

    assert records(fast) == records(slow) == [{"k": {"S": "a"}}]
    # None of the fast client's went through moto's app; a request without a target
    # (SQS's query protocol) still does
    assert reached == []
    answer = fast.post("/", data="Action=ListQueues&Version=2012-11-05", headers={
        "Content-Type": "application/x-www-form-urlencoded",
        "Authorization": AUTH.replace("/dynamodb/", "/sqs/")})
    assert answer.status_code == 200 and reached == ["/"]
