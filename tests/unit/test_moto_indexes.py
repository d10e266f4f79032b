"""Index Queries read the index partition kept beside the table (infra/moto_indexes.py):
after every kind of write they answer what a walk of the whole table answers."""
from __future__ import annotations

import random
import uuid

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from infra import moto_indexes, moto_patches


@pytest.fixture
def table():
    moto_patches.apply()
    name = f"idx-{uuid.uuid4().hex[:8]}"
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(
            TableName=name, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": a, "AttributeType": t} for a, t in
                                  (("p", "S"), ("s", "N"), ("g", "S"), ("r", "N"))],
            KeySchema=[{"AttributeName": "p", "KeyType": "HASH"},
                       {"AttributeName": "s", "KeyType": "RANGE"}],
            GlobalSecondaryIndexes=[
                {"IndexName": "by_g", "Projection": {"ProjectionType": "ALL"},
                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}]},
                {"IndexName": "by_gr", "Projection": {"ProjectionType": "KEYS_ONLY"},
                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                               {"AttributeName": "r", "KeyType": "RANGE"}]}])
        yield client, name


def _index_keys(client, name, index, group):
    items, start = [], {}
    while True:
        page = client.query(TableName=name, IndexName=index, Limit=3,
                            KeyConditionExpression="g = :g",
                            ExpressionAttributeValues={":g": {"S": group}}, **start)
        items += [(i["p"]["S"], int(i["s"]["N"])) for i in page["Items"]]
        if "LastEvaluatedKey" not in page:
            return sorted(items)
        start = {"ExclusiveStartKey": page["LastEvaluatedKey"]}


def _expected(client, name, group, needs_r):
    return sorted((i["p"]["S"], int(i["s"]["N"])) for i in client.scan(TableName=name)["Items"]
                  if i.get("g", {}).get("S") == group and (not needs_r or "r" in i))


def test_index_partitions_follow_every_kind_of_write(table):
    client, name = table
    rng = random.Random(7)
    groups = ["x", "y", "z"]

    def check():
        for group in groups:
            assert _index_keys(client, name, "by_g", group) == _expected(
                client, name, group, False)
            assert _index_keys(client, name, "by_gr", group) == _expected(
                client, name, group, True)

    def key(p, s):
        return {"p": {"S": p}, "s": {"N": str(s)}}

    # GIVEN items in three index partitions, and the indexes built by a first Query
    for n in range(30):
        item = {**key(rng.choice("abc"), n), "g": {"S": rng.choice(groups)}}
        if n % 3:
            item["r"] = {"N": str(rng.randint(0, 9))}
        client.put_item(TableName=name, Item=item)
    reads = moto_patches.index_partition_reads
    check()
    assert moto_patches.index_partition_reads > reads   # served from the partitions
    # WHEN items are replaced, moved by an update, given or stripped of a key attribute,
    # deleted, written in batches and in a transaction that rolls back: THEN each Query
    # still answers what the table holds
    for _ in range(40):
        p, s = rng.choice("abc"), rng.randrange(35)
        kind = rng.choice(["put", "update", "strip", "delete", "batch", "transact"])
        if kind == "put":
            client.put_item(TableName=name, Item={**key(p, s), "g": {"S": rng.choice(groups)}})
        elif kind == "update":
            client.update_item(TableName=name, Key=key(p, s),
                               UpdateExpression="SET g = :g, r = :r",
                               ExpressionAttributeValues={":g": {"S": rng.choice(groups)},
                                                          ":r": {"N": "3"}})
        elif kind == "strip":
            client.update_item(TableName=name, Key=key(p, s), UpdateExpression="REMOVE g")
        elif kind == "delete":
            client.delete_item(TableName=name, Key=key(p, s))
        elif kind == "batch":
            client.batch_write_item(RequestItems={name: [
                {"PutRequest": {"Item": {**key(p, s), "g": {"S": "z"}}}},
                {"DeleteRequest": {"Key": key(p, (s + 1) % 35)}}]})
        else:
            with pytest.raises(ClientError):   # the second item's condition fails
                client.transact_write_items(TransactItems=[
                    {"Put": {"TableName": name, "Item": {**key(p, s), "g": {"S": "y"}}}},
                    {"Put": {"TableName": name, "Item": {**key("q", 99), "g": {"S": "y"}},
                             "ConditionExpression": "attribute_exists(p)"}}])
        check()


def test_forgotten_indexes_are_built_again(table):
    client, name = table
    client.put_item(TableName=name, Item={"p": {"S": "a"}, "s": {"N": "1"}, "g": {"S": "x"}})
    assert _index_keys(client, name, "by_g", "x") == [("a", 1)]
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    moto_table = dynamodb_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].get_table(name)
    # WHEN an item is changed behind the index (as the journal's replay does) and the
    # index is forgotten, THEN the next Query sees it
    moto_table.items[next(iter(moto_table.items))].clear()
    moto_indexes.forget(moto_table)
    assert _index_keys(client, name, "by_g", "x") == []


def test_key_queries_page_through_the_sorted_partition_as_a_walk_would(table):
    """A key Query is handed the window of its sorted partition a page can reach: every
    condition, direction, limit and start key gives what the table holds, also after
    writes between pages."""
    client, name = table
    rng = random.Random(11)
    stored: dict[tuple[str, int], dict] = {}

    def put(p: str, s: int) -> None:
        item = {"p": {"S": p}, "s": {"N": str(s)}, "g": {"S": "x"},
                "pad": {"S": "x" * rng.randint(0, 300)}}
        client.put_item(TableName=name, Item=item)
        stored[(p, s)] = item

    for s in rng.sample(range(1000), 120):
        put(rng.choice("ab"), s)
    windows = moto_indexes.key_windows
    conditions = [("", {}), ("AND s = :a", {":a": 500}), ("AND s < :a", {":a": 400}),
                  ("AND s <= :a", {":a": 401}), ("AND s > :a", {":a": 700}),
                  ("AND s >= :a", {":a": 699}), ("AND s BETWEEN :a AND :b",
                                                 {":a": 200, ":b": 650})]
    checks = {"": lambda s, v: True, "=": lambda s, v: s == v[":a"],
              "<": lambda s, v: s < v[":a"], "<=": lambda s, v: s <= v[":a"],
              ">": lambda s, v: s > v[":a"], ">=": lambda s, v: s >= v[":a"],
              "BETWEEN": lambda s, v: v[":a"] <= s <= v[":b"]}
    for condition, values in conditions:
        for forward in (True, False):
            for limit in (None, 9):
                partition = rng.choice("ab")
                got, start = [], {}
                while True:
                    page = client.query(
                        TableName=name, KeyConditionExpression=f"p = :p {condition}",
                        ExpressionAttributeValues={":p": {"S": partition}, **{
                            k: {"N": str(v)} for k, v in values.items()}},
                        ScanIndexForward=forward, **({"Limit": limit} if limit else {}),
                        **start)
                    got += [int(i["s"]["N"]) for i in page["Items"]]
                    if "LastEvaluatedKey" not in page:
                        break
                    start = {"ExclusiveStartKey": page["LastEvaluatedKey"]}
                    put(partition, rng.randrange(1000, 2000))   # a write between pages
                op = condition.split()[2] if condition else ""
                expected = sorted((s for (p, s) in stored if p == partition
                                   and checks[op](s, values)), reverse=not forward)
                # Items written while paging may or may not be seen (as on DynamoDB);
                # those there from the start are each seen once, in order.
                assert [s for s in got if s < 1000] == [s for s in expected if s < 1000]
                assert len(got) == len(set(got))
    assert moto_indexes.key_windows > windows   # the windows were what moto walked
