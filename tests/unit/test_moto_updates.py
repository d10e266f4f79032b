"""Plain update expressions applied without moto's parser answer, store and stream
exactly what moto's own update does, errors included (infra/moto_updates.py)."""
from __future__ import annotations

import json
import uuid
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from infra import moto_patches, moto_updates

# Each case: the item before (None: absent), then the UpdateItem parameters.
CASES: list[tuple[dict[str, Any] | None, dict[str, Any]]] = [
    ({"a": {"S": "x"}}, {"UpdateExpression": "SET #1 = :1, #0 = :2",
                         "ExpressionAttributeNames": {"#0": "a", "#1": "b"},
                         "ExpressionAttributeValues": {":1": {"N": "5"}, ":2": {"S": "y"}},
                         "ReturnValues": "ALL_NEW"}),
    (None, {"UpdateExpression": "SET #0 = :0", "ExpressionAttributeNames": {"#0": "a"},
            "ExpressionAttributeValues": {":0": {"L": [{"S": "x"}, {"M": {"m": {"N": "1"}}}]}},
            "ReturnValues": "ALL_NEW"}),
    (None, {"UpdateExpression": "ADD #0 :0", "ExpressionAttributeNames": {"#0": "n"},
            "ExpressionAttributeValues": {":0": {"N": "1"}}, "ReturnValues": "UPDATED_NEW"}),
    ({"n": {"N": "41"}}, {"UpdateExpression": "add #0 :0",
                          "ExpressionAttributeNames": {"#0": "n"},
                          "ExpressionAttributeValues": {":0": {"N": "1.5"}},
                          "ReturnValues": "ALL_OLD"}),
    ({"s": {"SS": ["p"]}}, {"UpdateExpression": "ADD #0 :0, #1 :1",
                            "ExpressionAttributeNames": {"#0": "s", "#1": "t"},
                            "ExpressionAttributeValues": {":0": {"SS": ["q", "p", "q"]},
                                                          ":1": {"NS": ["3"]}},
                            "ReturnValues": "ALL_NEW"}),
    ({"a": {"S": "x"}, "r": {"BOOL": True}},
     {"UpdateExpression": "SET #a = :a ADD #n :one REMOVE #r, #gone",
      "ExpressionAttributeNames": {"#a": "a", "#n": "n", "#r": "r", "#gone": "gone"},
      "ExpressionAttributeValues": {":a": {"S": "z"}, ":one": {"N": "1"}},
      "ReturnValues": "UPDATED_OLD"}),
    ({"n": {"N": "3"}}, {"UpdateExpression": "SET #1 = :1 ADD #0 :2",
                         "ConditionExpression": "attribute_not_exists(#0) OR #0 < :3",
                         "ExpressionAttributeNames": {"#0": "n", "#1": "at"},
                         "ExpressionAttributeValues": {":1": {"N": "9"}, ":2": {"N": "1"},
                                                       ":3": {"N": "5"}}}),
    # Refused: the condition, then errors moto's own code raises
    ({"n": {"N": "7"}}, {"UpdateExpression": "SET #0 = :0",
                         "ConditionExpression": "#0 < :0",
                         "ExpressionAttributeNames": {"#0": "n"},
                         "ExpressionAttributeValues": {":0": {"N": "5"}},
                         "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}),
    (None, {"UpdateExpression": "SET #0 = :0", "ConditionExpression": "attribute_exists(#0)",
            "ExpressionAttributeNames": {"#0": "n"},
            "ExpressionAttributeValues": {":0": {"N": "5"}}}),
    ({"n": {"N": "1"}}, {"UpdateExpression": "ADD #0 :0", "ExpressionAttributeNames": {"#0": "n"},
                         "ExpressionAttributeValues": {":0": {"S": "x"}}}),
    ({"n": {"S": "text"}}, {"UpdateExpression": "ADD #0 :0",
                            "ExpressionAttributeNames": {"#0": "n"},
                            "ExpressionAttributeValues": {":0": {"N": "1"}}}),
    (None, {"UpdateExpression": "SET #0 = :0", "ExpressionAttributeNames": {"#0": "k"},
            "ExpressionAttributeValues": {":0": {"S": "other"}}}),
    (None, {"UpdateExpression": "SET #0 = :0", "ExpressionAttributeNames": {"#0": "g"},
            "ExpressionAttributeValues": {":0": {"N": "1"}}}),
    (None, {"UpdateExpression": "SET #0 = :0, #0 = :1", "ExpressionAttributeNames": {"#0": "a"},
            "ExpressionAttributeValues": {":0": {"S": "x"}, ":1": {"S": "y"}}}),
    (None, {"UpdateExpression": "SET #0 = :0 SET #1 = :0",
            "ExpressionAttributeNames": {"#0": "a", "#1": "b"},
            "ExpressionAttributeValues": {":0": {"S": "x"}}}),
    (None, {"UpdateExpression": "SET #0 = :0", "ExpressionAttributeNames": {"#0": "a",
                                                                             "#9": "b"},
            "ExpressionAttributeValues": {":0": {"S": "x"}}}),
    (None, {"UpdateExpression": "SET #0 = :missing", "ExpressionAttributeNames": {"#0": "a"},
            "ExpressionAttributeValues": {":0": {"S": "x"}}}),
    ({"s": {"NS": ["1"]}}, {"UpdateExpression": "ADD #0 :0",
                            "ExpressionAttributeNames": {"#0": "s"},
                            "ExpressionAttributeValues": {":0": {"SS": ["x"]}}}),
    (None, {"UpdateExpression": "SET #0 = :0", "ExpressionAttributeNames": {"#0": "big"},
            "ExpressionAttributeValues": {":0": {"S": "x" * 410_000}}}),
    # Not plain: moto's own code throughout
    ({"n": {"N": "2"}}, {"UpdateExpression": "SET #0 = #0 + :0",
                         "ExpressionAttributeNames": {"#0": "n"},
                         "ExpressionAttributeValues": {":0": {"N": "3"}},
                         "ReturnValues": "ALL_NEW"}),
]


@pytest.fixture
def tables():
    moto_patches.apply()
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        names = []
        for _ in range(2):
            name = f"updates-{uuid.uuid4().hex[:8]}"
            client.create_table(
                TableName=name, BillingMode="PAY_PER_REQUEST",
                AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"},
                                      {"AttributeName": "g", "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                GlobalSecondaryIndexes=[{"IndexName": "by_g", "KeySchema": [
                    {"AttributeName": "g", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"}}],
                StreamSpecification={"StreamEnabled": True,
                                     "StreamViewType": "NEW_AND_OLD_IMAGES"})
            names.append(name)
        yield client, names


def _run(client: Any, table: str) -> list[Any]:
    """Each case on its own item: the answer (or error), the item after, its records."""
    outcomes: list[Any] = []
    for number, (before, params) in enumerate(CASES):
        key = {"k": {"S": f"case-{number}"}}
        if before is not None:
            client.put_item(TableName=table, Item={**key, **before})
        try:
            answer: Any = client.update_item(TableName=table, Key=key, **params)
            answer.pop("ResponseMetadata")
        except ClientError as error:
            answer = (error.response["Error"]["Code"], error.response["Error"]["Message"],
                      error.response.get("Item"))
        outcomes.append((number, answer, client.get_item(TableName=table, Key=key,
                                                         ConsistentRead=True).get("Item")))
    # The table's own name (in capacities) made common, numbers compared by value
    return json.loads(json.dumps([*outcomes, _records(client, table)], default=repr
                                 ).replace(table, "TABLE"))


def _records(client: Any, table: str) -> list[Any]:
    streams = boto3.client("dynamodbstreams", region_name="us-east-1")
    arn = client.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    return [(r["eventName"], r["dynamodb"].get("Keys"), r["dynamodb"].get("OldImage"),
             r["dynamodb"].get("NewImage"))
            for r in streams.get_records(ShardIterator=iterator, Limit=1000)["Records"]]


def test_plain_updates_answer_store_and_stream_what_moto_s_own_update_does(tables, monkeypatch):
    client, (fast_table, slow_table) = tables
    taken: list[str] = []
    plan = moto_updates.plain_plan
    monkeypatch.setattr(moto_updates, "plain_plan",
                        lambda *args: taken.append("plan") or plan(*args))
    fast = _run(client, fast_table)
    # WHEN the same updates go through moto's own code only
    monkeypatch.setattr(moto_updates, "plain_plan", lambda *args: None)
    slow = _run(client, slow_table)
    # THEN every answer, error, stored item and stream record is the same
    for patched, original in zip(fast, slow, strict=True):
        assert patched == original
    assert taken   # (and the fast path did run)


def test_the_plain_path_takes_what_the_app_writes_and_leaves_the_rest():
    names = {"#0": "n", "#1": "at"}
    values = {":0": {"N": "1"}, ":1": {"N": "2"}}
    assert moto_updates.plain_plan("SET #1 = :1 ADD #0 :0", names, values) is not None
    assert moto_updates.plain_plan("REMOVE #0, #1", names, values) is not None
    for expression in ("SET #0 = #0 + :0", "SET #0 = if_not_exists(#0, :0)",
                       "DELETE #0 :0", "SET #0.x = :0", "SET #0[1] = :0", "SET n = :0",
                       "ADD #0 :0 ADD #1 :1", "SET #0 = :0, #0 = :1", "SET #0 :0", ""):
        assert moto_updates.plain_plan(expression, names, values) is None, expression


def test_a_transaction_s_update_takes_the_plain_path_and_still_rolls_back(tables):
    client, (table, _) = tables
    key = {"k": {"S": "tx"}}
    client.put_item(TableName=table, Item={**key, "n": {"N": "1"}})
    client.transact_write_items(TransactItems=[{"Update": {
        "TableName": table, "Key": key, "UpdateExpression": "ADD #0 :0",
        "ExpressionAttributeNames": {"#0": "n"},
        "ExpressionAttributeValues": {":0": {"N": "2"}}}}])
    with pytest.raises(ClientError, match="TransactionCanceled"):
        client.transact_write_items(TransactItems=[
            {"Update": {"TableName": table, "Key": key, "UpdateExpression": "ADD #0 :0",
                        "ExpressionAttributeNames": {"#0": "n"},
                        "ExpressionAttributeValues": {":0": {"N": "10"}}}},
            {"ConditionCheck": {"TableName": table, "Key": {"k": {"S": "absent"}},
                                "ConditionExpression": "attribute_exists(k)"}}])
    assert client.get_item(TableName=table, Key=key)["Item"]["n"] == {"N": "3"}
