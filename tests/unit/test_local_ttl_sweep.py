"""The local TTL sweep deletes what DynamoDB's TTL would, from moto's tables in memory,
with the stream records and journal effects of a delete (infra/local/ttl_sweep.py)."""
from __future__ import annotations

import time
from typing import Any

import boto3
import pytest
from moto import mock_aws

from infra.local import effects, ttl_sweep


@pytest.fixture
def dynamodb() -> Any:
    with mock_aws():
        effects.install()
        client = boto3.client("dynamodb", region_name="us-east-1")
        for name, keys in (("hashed", [("pk", "HASH")]),
                           ("ranged", [("pk", "HASH"), ("sk", "RANGE")])):
            client.create_table(
                TableName=name, BillingMode="PAY_PER_REQUEST",
                KeySchema=[{"AttributeName": a, "KeyType": t} for a, t in keys],
                AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                                      for a, _ in keys],
                StreamSpecification={"StreamEnabled": True,
                                     "StreamViewType": "NEW_AND_OLD_IMAGES"})
            client.update_time_to_live(TableName=name, TimeToLiveSpecification={
                "Enabled": True, "AttributeName": "expires"})
        client.create_table(
            TableName="no-ttl", BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        yield client


# This test's tables alone: the functional tests' moto may still hold theirs.
MINE = ("hashed", "ranged", "no-ttl")


def keys(client: Any, table: str) -> set[str]:
    return {item["pk"]["S"] + item.get("sk", {"S": ""})["S"]
            for item in client.scan(TableName=table)["Items"]}


def test_only_items_past_their_number_ttl_are_deleted(dynamodb):
    now = int(time.time())
    past, future = {"N": str(now - 5)}, {"N": str(now + 3600)}
    for pk, expires in (("gone", past), ("kept", future), ("text", {"S": "1"}),
                        ("none", None)):
        item = {"pk": {"S": pk}} | ({"expires": expires} if expires else {})
        dynamodb.put_item(TableName="hashed", Item=item)
        dynamodb.put_item(TableName="no-ttl", Item=item)
    for sk, expires in (("a", past), ("b", future), ("c", past)):
        dynamodb.put_item(TableName="ranged", Item={"pk": {"S": "p"}, "sk": {"S": sk},
                                                    "expires": expires})
    journaled: list[Any] = []
    effects.start(journaled.extend)
    try:
        # WHEN the sweep runs
        assert ttl_sweep.sweep_once(only=MINE) == 3
    finally:
        effects.start(None)
    # THEN the expired items are gone, a string or absent TTL never expires, and a
    # table without TTL is left alone
    assert keys(dynamodb, "hashed") == {"kept", "text", "none"}
    assert keys(dynamodb, "ranged") == {"pb"}
    assert keys(dynamodb, "no-ttl") == {"gone", "kept", "text", "none"}
    # AND each deletion was journaled with its stream REMOVE record
    deleted = [e for e in journaled if e[0] == "ddb-item" and e[-1] is None
               and e[3] in ("hashed", "ranged")]
    assert len(deleted) == 3
    removes = [r for e in journaled if e[0] == "ddb-stream" for r in e[-1]]
    assert len(removes) == 3 and {r.record["eventName"] for r in removes} == {"REMOVE"}
    assert ttl_sweep.sweep_once(only=MINE) == 0
