"""The local moto patch: transactions stay atomic and roll back only what they touched."""
from __future__ import annotations

import json
import threading
import time
import uuid

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from infra import moto_patches

TABLE = "t"


@pytest.fixture
def dynamodb():
    moto_patches.apply()
    global TABLE
    # A fresh name per test: another tier's moto may already be running in this process.
    TABLE = f"patch-{uuid.uuid4().hex[:8]}"
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(
            TableName=TABLE, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
        yield client


def stream_records(client) -> list[dict]:
    streams = boto3.client("dynamodbstreams", region_name="us-east-1")
    arn = client.describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    return streams.get_records(ShardIterator=iterator)["Records"]


def test_failed_transaction_changes_nothing_and_emits_no_records(dynamodb):
    # GIVEN an existing item
    dynamodb.put_item(TableName=TABLE, Item={"k": {"S": "a"}, "v": {"N": "1"}})
    before = len(stream_records(dynamodb))
    # WHEN a transaction writes two items and then fails a condition
    with pytest.raises(ClientError) as raised:
        dynamodb.transact_write_items(TransactItems=[
            {"Put": {"TableName": TABLE, "Item": {"k": {"S": "b"}}}},
            {"Update": {"TableName": TABLE, "Key": {"k": {"S": "a"}},
                        "UpdateExpression": "SET v = :two",
                        "ExpressionAttributeValues": {":two": {"N": "2"}}}},
            {"Put": {"TableName": TABLE, "Item": {"k": {"S": "a2"}},
                     "ConditionExpression": "attribute_exists(k)"}},
        ])
    # THEN it is cancelled, nothing it wrote remains, and its stream records are gone
    assert raised.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert "Item" not in dynamodb.get_item(TableName=TABLE, Key={"k": {"S": "b"}})
    assert dynamodb.get_item(TableName=TABLE, Key={"k": {"S": "a"}})["Item"]["v"] == {"N": "1"}
    assert len(stream_records(dynamodb)) == before


def test_successful_transaction_writes_everything(dynamodb):
    dynamodb.transact_write_items(TransactItems=[
        {"Put": {"TableName": TABLE, "Item": {"k": {"S": "x"}},
                 "ConditionExpression": "attribute_not_exists(k)"}},
        {"Put": {"TableName": TABLE, "Item": {"k": {"S": "y"}}}},
    ])
    assert "Item" in dynamodb.get_item(TableName=TABLE, Key={"k": {"S": "y"}})
    assert len(stream_records(dynamodb)) == 2


def test_same_item_twice_is_refused(dynamodb):
    with pytest.raises(ClientError):
        dynamodb.transact_write_items(TransactItems=[
            {"Put": {"TableName": TABLE, "Item": {"k": {"S": "z"}}}},
            {"Put": {"TableName": TABLE, "Item": {"k": {"S": "z"}}}},
        ])
    assert "Item" not in dynamodb.get_item(TableName=TABLE, Key={"k": {"S": "z"}})


@pytest.mark.parametrize("read", ["get_item", "query"])
def test_reads_wait_for_a_transaction_in_progress(dynamodb, read):
    # GIVEN a transaction in progress (it holds the backend's lock while applying items)
    dynamodb.put_item(TableName=TABLE, Item={"k": {"S": "a"}})
    calls = {"get_item": lambda: dynamodb.get_item(TableName=TABLE, Key={"k": {"S": "a"}}),
             "query": lambda: dynamodb.query(
                 TableName=TABLE, KeyConditionExpression="k = :k",
                 ExpressionAttributeValues={":k": {"S": "a"}})}
    done = threading.Event()
    reader = threading.Thread(target=lambda: (calls[read](), done.set()))
    with moto_patches.write_lock():
        # WHEN a read arrives meanwhile
        reader.start()
        # THEN it does not see the half-applied state: it waits for the transaction
        assert not done.wait(0.3)
    assert done.wait(5)
    reader.join()


@pytest.mark.parametrize("call", ["update_item", "get_item", "delete_item"])
def test_empty_string_keys_are_refused_as_dynamodb_refuses_them(dynamodb, call):
    # GIVEN a key whose string value is empty (moto alone accepts it for these calls)
    extra = {"update_item": {"UpdateExpression": "SET v = :v",
                             "ExpressionAttributeValues": {":v": {"S": "x"}}}}.get(call, {})
    # WHEN it is used THEN the call fails as it would on AWS
    with pytest.raises(ClientError, match="empty string"):
        getattr(dynamodb, call)(TableName=TABLE, Key={"k": {"S": ""}}, **extra)


def test_oversized_string_keys_are_refused_as_dynamodb_refuses_them(dynamodb):
    with pytest.raises(ClientError, match="exceeds the maximum of 2048 bytes"):
        dynamodb.get_item(TableName=TABLE, Key={"k": {"S": "x" * 2049}})
    assert "Item" not in dynamodb.get_item(TableName=TABLE, Key={"k": {"S": "x" * 2048}})


def test_item_reads_and_writes_answer_what_moto_s_serializer_would(dynamodb, monkeypatch):
    from moto.core.responses import ActionResult

    # GIVEN items with every kind of attribute value
    item = {"k": {"S": "a"}, "n": {"N": "1.5"}, "b": {"BOOL": True}, "z": {"NULL": True},
            "l": {"L": [{"S": "x"}, {"N": "2"}]}, "m": {"M": {"inner": {"S": "y"}}},
            "ss": {"SS": ["p", "q"]}, "ns": {"NS": ["3", "4"]}, "bin": {"B": b"\x00\x01"}}
    dynamodb.put_item(TableName=TABLE, Item=item)
    dynamodb.put_item(TableName=TABLE, Item={"k": {"S": "b"}})
    capacity = {"ReturnConsumedCapacity": "TOTAL"}

    def calls(round_: str) -> list:
        key = {"k": {"S": f"w-{round_}"}}
        return [dynamodb.get_item(TableName=TABLE, Key={"k": {"S": "a"}}, ConsistentRead=True),
                dynamodb.scan(TableName=TABLE, Limit=1),
                dynamodb.query(TableName=TABLE, KeyConditionExpression="k = :k",
                               ExpressionAttributeValues={":k": {"S": "a"}}),
                dynamodb.batch_get_item(RequestItems={TABLE: {"Keys": [{"k": {"S": "a"}}]}}),
                dynamodb.transact_get_items(TransactItems=[
                    {"Get": {"TableName": TABLE, "Key": {"k": {"S": "b"}}}}]),
                dynamodb.put_item(TableName=TABLE, Item={**item, **key}, ReturnValues="NONE",
                                  **capacity),
                dynamodb.put_item(TableName=TABLE, Item={**item, **key},
                                  ReturnValues="ALL_OLD"),
                dynamodb.update_item(TableName=TABLE, Key=key, ReturnValues="ALL_NEW",
                                     UpdateExpression="SET n = :n ADD ns :s REMOVE z",
                                     ExpressionAttributeValues={":n": {"N": "7"},
                                                                ":s": {"NS": ["9"]}},
                                     **capacity),
                dynamodb.update_item(TableName=TABLE, Key=key, ReturnValues="UPDATED_OLD",
                                     UpdateExpression="SET bin = :b",
                                     ExpressionAttributeValues={":b": {"B": b"\x02"}}),
                dynamodb.batch_write_item(RequestItems={TABLE: [
                    {"PutRequest": {"Item": {"k": {"S": f"x-{round_}"}}}}]}, **capacity),
                dynamodb.transact_write_items(TransactItems=[
                    {"Put": {"TableName": TABLE, "Item": {"k": {"S": f"y-{round_}"}}}}]),
                dynamodb.execute_statement(Statement=f'SELECT * FROM "{TABLE}" WHERE k = ?',
                                           Parameters=[{"S": "a"}]),
                dynamodb.batch_execute_statement(Statements=[
                    {"Statement": f'INSERT INTO "{TABLE}" VALUE {{\'k\': ?}}',
                     "Parameters": [{"S": f"z-{round_}"}]}]),
                dynamodb.delete_item(TableName=TABLE, Key=key, ReturnValues="ALL_OLD",
                                     **capacity),
                _all_records(dynamodb)]

    # WHEN the same calls go through the patch and through moto's own serializer
    fast = calls("fast")
    monkeypatch.setattr(ActionResult, "execute_result", ActionResult.execute_result.__wrapped__)
    slow = calls("slow")
    # THEN the answers are the same (but for each round's own keys)
    for patched, original in zip(fast, slow, strict=True):
        patched.pop("ResponseMetadata"), original.pop("ResponseMetadata")
        assert _renamed(patched, "-fast") == _renamed(original, "-slow")
    assert fast[7]["Attributes"]["n"] == {"N": "7"}


def test_item_requests_parse_as_moto_s_parser_parses_them(dynamodb, monkeypatch):
    from moto.core.parse import JSONParser
    from moto.core.responses import BaseResponse
    from moto.dynamodb.responses import DynamoHandler

    patched = DynamoHandler.parse_parameters
    seen: list[tuple[str, bool]] = []
    moto_parses: list[int] = []
    real_parse = JSONParser._do_parse
    monkeypatch.setattr(JSONParser, "_do_parse", lambda *a: (moto_parses.append(1),
                                                            real_parse(*a))[1])

    def both(self, request):
        # WHEN a request is parsed by the patch and by moto's own parser
        before = len(moto_parses)
        patched(self, request)
        ours, short = self.params, len(moto_parses) == before
        BaseResponse.parse_parameters(self, request)
        # THEN both give the same parameters
        assert ours == self.params, self._get_action()
        seen.append((self._get_action(), short))

    monkeypatch.setattr(DynamoHandler, "parse_parameters", both)
    item = {"k": {"S": "a"}, "n": {"N": "1.5"}, "b": {"BOOL": True}, "z": {"NULL": True},
            "l": {"L": [{"S": "x"}, {"N": "2"}]}, "m": {"M": {"inner": {"S": "y"}}},
            "ss": {"SS": ["p", "q"]}, "ns": {"NS": ["3", "4"]}}
    dynamodb.put_item(TableName=TABLE, Item=item, ReturnConsumedCapacity="TOTAL",
                      ConditionExpression="attribute_not_exists(k)")
    dynamodb.put_item(TableName=TABLE, Item={"k": {"S": "bin"}, "v": {"B": b"\x00"}})
    dynamodb.get_item(TableName=TABLE, Key={"k": {"S": "a"}}, ConsistentRead=True,
                      ProjectionExpression="#n", ExpressionAttributeNames={"#n": "n"})
    dynamodb.query(TableName=TABLE, KeyConditionExpression="k = :k", Limit=5,
                   ScanIndexForward=False, ExpressionAttributeValues={":k": {"S": "a"}})
    dynamodb.update_item(TableName=TABLE, Key={"k": {"S": "a"}}, ReturnValues="ALL_NEW",
                         UpdateExpression="SET n = :n", ExpressionAttributeValues={
                             ":n": {"N": "7"}})
    dynamodb.batch_write_item(RequestItems={TABLE: [
        {"PutRequest": {"Item": {"k": {"S": "c"}}}},
        {"DeleteRequest": {"Key": {"k": {"S": "c2"}}}}]})
    dynamodb.transact_write_items(TransactItems=[
        {"Put": {"TableName": TABLE, "Item": {"k": {"S": "d"}}}},
        {"ConditionCheck": {"TableName": TABLE, "Key": {"k": {"S": "a"}},
                            "ConditionExpression": "attribute_exists(k)"}}])
    dynamodb.batch_execute_statement(Statements=[
        {"Statement": f'INSERT INTO "{TABLE}" VALUE {{\'k\': ?}}',
         "Parameters": [{"S": "e"}]}])
    dynamodb.delete_item(TableName=TABLE, Key={"k": {"S": "d"}}, ReturnValues="ALL_OLD")
    # AND requests without binary values took the short way, the binary one moto's
    short = dict(seen)
    assert short["PutItem"] is False   # the last PutItem held a binary value
    assert all(short[a] for a in ("GetItem", "Query", "UpdateItem", "BatchWriteItem",
                                  "TransactWriteItems", "BatchExecuteStatement",
                                  "DeleteItem"))


def _all_records(client) -> dict:
    """GetRecords of the two puts before both rounds (timestamps and binary values
    included), less the next iterator, which differs on every call."""
    streams = boto3.client("dynamodbstreams", region_name="us-east-1")
    arn = client.describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    answer = streams.get_records(ShardIterator=iterator, Limit=2)
    assert answer.pop("NextShardIterator")
    return answer


def _renamed(answer: dict, suffix: str) -> object:
    """The answer with a round's key suffix made common (numbers compare by value)."""
    return json.loads(json.dumps(answer, default=repr).replace(suffix, "-R"))


def test_a_query_reads_its_partition_and_answers_as_before(dynamodb):
    # GIVEN a table with a sort key, an index, and items in three partitions
    name = f"{TABLE}-range"
    dynamodb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                              for a in ("p", "s", "g")],
        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"},
                   {"AttributeName": "s", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g", "Projection": {"ProjectionType": "ALL"},
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}]}])
    for partition in ("a", "b", "c"):
        for n in range(5):
            dynamodb.put_item(TableName=name, Item={
                "p": {"S": partition}, "s": {"S": f"e#{n}"}, "g": {"S": "all"}})

    def keys(**kwargs):
        return [(i["p"]["S"], i["s"]["S"]) for i in dynamodb.query(TableName=name, **kwargs)[
            "Items"]]

    # THEN a key Query sees only its partition, in order, with conditions and paging
    used = moto_patches.partition_queries
    assert keys(KeyConditionExpression="p = :p", ExpressionAttributeValues={
        ":p": {"S": "b"}}) == [("b", f"e#{n}") for n in range(5)]
    assert keys(KeyConditionExpression="p = :p AND s > :s", ScanIndexForward=False, Limit=2,
                ExpressionAttributeValues={":p": {"S": "c"}, ":s": {"S": "e#1"}}) == [
        ("c", "e#4"), ("c", "e#3")]
    page = dynamodb.query(TableName=name, KeyConditionExpression="p = :p", Limit=3,
                          ExpressionAttributeValues={":p": {"S": "a"}})
    rest = dynamodb.query(TableName=name, KeyConditionExpression="p = :p",
                          ExclusiveStartKey=page["LastEvaluatedKey"],
                          ExpressionAttributeValues={":p": {"S": "a"}})
    assert [i["s"]["S"] for i in page["Items"] + rest["Items"]] == [f"e#{n}" for n in range(5)]
    assert keys(KeyConditionExpression="p = :p", ExpressionAttributeValues={
        ":p": {"S": "none"}}) == []
    assert moto_patches.partition_queries == used + 5   # every key Query read one partition
    # AND index queries and scans still see every partition
    assert len(keys(IndexName="by_g", KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": {"S": "all"}})) == 15
    assert len(dynamodb.scan(TableName=name)["Items"]) == 15


def test_an_index_query_answers_in_index_order_without_sorting_the_table(dynamodb):
    name = "indexed"
    dynamodb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": t}
                              for a, t in (("p", "S"), ("s", "N"), ("g", "S"), ("r", "N"))],
        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"},
                   {"AttributeName": "s", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[
            {"IndexName": "by_g", "Projection": {"ProjectionType": "ALL"},
             "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}]},
            {"IndexName": "by_gr", "Projection": {"ProjectionType": "ALL"},
             "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                           {"AttributeName": "r", "KeyType": "RANGE"}]}])
    # GIVEN items written out of key order, two index partitions, some without `r`
    for p, s, g, r in [("b", 2, "x", 5), ("a", 10, "x", 1), ("a", 9, "y", 3),
                       ("c", 1, "x", 5), ("a", 2, "x", None), ("b", 1, "x", 0)]:
        item = {"p": {"S": p}, "s": {"N": str(s)}, "g": {"S": g}}
        if r is not None:
            item["r"] = {"N": str(r)}
        dynamodb.put_item(TableName=name, Item=item)

    def keys(index, **kwargs):
        pages, start = [], {}
        while True:
            answer = dynamodb.query(TableName=name, IndexName=index, Limit=2,
                                    KeyConditionExpression="g = :g",
                                    ExpressionAttributeValues={":g": {"S": "x"}},
                                    **start, **kwargs)
            pages += [(i["p"]["S"], int(i["s"]["N"])) for i in answer["Items"]]
            if "LastEvaluatedKey" not in answer:
                return pages
            start = {"ExclusiveStartKey": answer["LastEvaluatedKey"]}

    reads = moto_patches.index_partition_reads
    # THEN moto's order for the index, page by page (without a range key: the table's
    # range key, then its hash key), as moto gave it before the patch
    assert keys("by_g") == [("b", 1), ("c", 1), ("a", 2), ("b", 2), ("a", 10)]
    assert keys("by_g", ScanIndexForward=False) == [
        ("a", 10), ("b", 2), ("a", 2), ("c", 1), ("b", 1)]
    # AND by the index's range key, ties by the table's key, items without it left out
    assert keys("by_gr") == [("b", 1), ("a", 10), ("b", 2), ("c", 1)]
    assert keys("by_gr", ScanIndexForward=False) == [("c", 1), ("b", 2), ("a", 10), ("b", 1)]
    assert moto_patches.index_partition_reads > reads   # one index partition each


def test_an_update_answers_its_own_result_while_another_update_races_it(dynamodb):
    # GIVEN a counter at 1, and a second increment that starts while the first one's
    # answer is being serialised (where moto used to read the live item unlocked)
    from moto.dynamodb.models.dynamo_type import Item

    dynamodb.put_item(TableName=TABLE, Item={"k": {"S": "c"}, "n": {"N": "1"}})

    def increment():
        return dynamodb.update_item(
            TableName=TABLE, Key={"k": {"S": "c"}}, UpdateExpression="ADD n :one",
            ExpressionAttributeValues={":one": {"N": "1"}},
            ReturnValues="UPDATED_NEW")["Attributes"]["n"]["N"]

    racer_answers: list[str] = []
    racer = threading.Thread(target=lambda: racer_answers.append(increment()))
    original = Item.to_json

    def to_json_racing(self):
        if not racer.is_alive() and not racer_answers:
            racer.start()
            racer.join(0.3)   # the racer either finishes now (the bug) or waits for us
        return original(self)

    Item.to_json = to_json_racing
    try:
        # WHEN the first increment answers
        first = increment()
    finally:
        Item.to_json = original
    racer.join(5)
    # THEN each increment reports its own result, as DynamoDB's atomic updates do
    assert sorted([first, *racer_answers]) == ["2", "3"]
    assert first == "2"


@pytest.mark.parametrize("projection", ["a, b", "a, absent", "k", "m.x, a", "l[1], a"])
def test_a_projection_answers_what_moto_s_own_would(dynamodb, projection):
    from moto.dynamodb.models.dynamo_type import Item

    item = {"k": {"S": "p"}, "a": {"S": "one"}, "b": {"N": "2"}, "c": {"S": "three"},
            "m": {"M": {"x": {"S": "in"}, "y": {"S": "out"}}},
            "l": {"L": [{"S": "l0"}, {"S": "l1"}]}}
    dynamodb.put_item(TableName=TABLE, Item=item)

    def read() -> dict:
        return dynamodb.batch_get_item(RequestItems={TABLE: {
            "Keys": [{"k": {"S": "p"}}], "ProjectionExpression": projection,
            "ConsistentRead": True}})["Responses"][TABLE][0]

    patched = read()
    Item.project, fast = Item.project.__wrapped__, Item.project
    try:
        assert read() == patched
    finally:
        Item.project = fast
    assert dynamodb.get_item(TableName=TABLE, Key={"k": {"S": "p"}})["Item"] == item


def test_query_and_scan_answer_as_moto_s_deep_copies_would(dynamodb):
    from moto.dynamodb.responses import DynamoHandler

    for n in range(3):
        dynamodb.put_item(TableName=TABLE, Item={
            "k": {"S": f"q{n}"}, "n": {"N": str(n)},
            "m": {"M": {"x": {"L": [{"S": "a"}, {"N": "1"}]}}}, "s": {"SS": ["u", "v"]}})

    def answers() -> tuple[dict, dict, dict]:
        query = dynamodb.query(TableName=TABLE, KeyConditionExpression="k = :k",
                               ExpressionAttributeValues={":k": {"S": "q1"}})
        projected = dynamodb.query(TableName=TABLE, KeyConditionExpression="k = :k",
                                   ExpressionAttributeValues={":k": {"S": "q2"}},
                                   ProjectionExpression="n, m")
        scan = dynamodb.scan(TableName=TABLE, FilterExpression="n >= :one",
                             ExpressionAttributeValues={":one": {"N": "1"}})
        return (query["Items"], projected["Items"],
                sorted(scan["Items"], key=lambda i: i["k"]["S"]))

    patched = answers()
    wrapped = {name: getattr(DynamoHandler, name) for name in ("query", "scan")}
    try:
        for name, method in wrapped.items():
            setattr(DynamoHandler, name, method.__wrapped__)
        assert answers() == patched
    finally:
        for name, method in wrapped.items():
            setattr(DynamoHandler, name, method)
    assert patched[0][0]["m"] == {"M": {"x": {"L": [{"S": "a"}, {"N": "1"}]}}}
    assert len(patched[2]) == 2


def test_sqs_reads_the_same_clock_and_keeps_delays_and_visibility():
    moto_patches.apply()
    from moto.sqs import models

    # The patched clock reads what moto's own does
    assert abs(models.unix_time_millis() - models.unix_time_millis.__wrapped__()) < 100
    with mock_aws():
        sqs = boto3.client("sqs", region_name="us-east-1")
        url = sqs.create_queue(QueueName=f"clock-{uuid.uuid4().hex[:8]}")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=1)
        sqs.send_message(QueueUrl=url, MessageBody="now")
        # A delayed message stays hidden; a received one is in flight for its timeout
        first = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=1)
        assert [m["Body"] for m in first["Messages"]] == ["now"]
        assert "Messages" not in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)
        # Both show up once their second has passed
        seen: list[str] = []
        for _ in range(30):
            seen += [m["Body"] for m in sqs.receive_message(
                QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=30).get("Messages", [])]
            if len(seen) == 2:
                break
            time.sleep(0.1)
        assert sorted(seen) == ["later", "now"]


def test_shard_iterators_expire_after_15_minutes_as_on_aws(dynamodb, monkeypatch):
    from moto.dynamodbstreams.models import dynamodbstreams_backends

    streams = boto3.client("dynamodbstreams", region_name="us-east-1")
    arn = dynamodb.describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]
    dynamodb.put_item(TableName=TABLE, Item={"k": {"S": "a"}})
    old = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                     ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    answer = streams.get_records(ShardIterator=old)
    assert len(answer["Records"]) == 1
    held = dynamodbstreams_backends["123456789012"]["us-east-1"].shard_iterators
    assert {old, answer["NextShardIterator"]} <= set(held)
    # WHEN those two were handed out 16 minutes ago, and the minute's sweep is due
    for stale in (old, answer["NextShardIterator"]):
        held[stale].handed_out -= 16 * 60
    monkeypatch.setattr(moto_patches, "_next_sweep", 0.0)
    fresh = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                       ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    assert len(streams.get_records(ShardIterator=fresh)["Records"]) == 1
    # THEN the old ones are gone, and reading with one is refused as AWS refuses it
    assert old not in held and answer["NextShardIterator"] not in held
    with pytest.raises(ClientError) as refused:
        streams.get_records(ShardIterator=answer["NextShardIterator"])
    assert refused.value.response["Error"]["Code"] == "ExpiredIteratorException"


@pytest.mark.parametrize("body", ['{"Items": [{"k": {"S": "<x>"}}]}',
                                  "<R><RequestId>old</RequestId></R>", b"\x00bytes", ""])
def test_answers_get_their_request_id_as_moto_gives_it(body):
    moto_patches.apply()
    import re

    from moto.core import responses

    patched = responses.BaseResponse._enrich_response
    assert patched.__qualname__.startswith("_request_id_tags_only_in_xml")
    fixed = "f" * 52
    ours_headers, ours = patched({"status": 200}, body)
    # what moto's own does, with the same request id

    expected = body
    if isinstance(body, str):
        expected = re.sub(r"(?<=<RequestId>).*(?=<\/RequestId>)", ours_headers[
            "x-amzn-requestid"], body)
    assert ours == expected and ours_headers["status"] == "200"
    assert len(ours_headers["x-amzn-requestid"]) == len(fixed)
    if isinstance(body, str) and "<RequestId>" in body:
        assert ours_headers["x-amzn-requestid"] in ours


def test_a_stream_read_that_asks_to_wait_returns_the_next_record_when_it_comes(dynamodb):
    streams = boto3.client("dynamodbstreams", region_name="us-east-1")
    arn = dynamodb.describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                          ShardIteratorType="LATEST")["ShardIterator"]
    # An ordinary read of an idle stream answers at once, with nothing
    started = time.monotonic()
    assert streams.get_records(ShardIterator=iterator)["Records"] == []
    assert time.monotonic() - started < 1

    waiting = boto3.client("dynamodbstreams", region_name="us-east-1")

    def ask(request, **_):
        request.headers[moto_patches.STREAM_WAIT_HEADER] = "4000"

    waiting.meta.events.register("before-sign.dynamodbstreams.GetRecords", ask)
    # WHEN a waiting read is made and a record comes 0.3 s later
    threading.Timer(0.3, lambda: dynamodb.put_item(
        TableName=TABLE, Item={"k": {"S": "late"}})).start()
    started = time.monotonic()
    answer = waiting.get_records(ShardIterator=iterator)
    # THEN it answers with that record as soon as it is written, not at its deadline
    assert [r["dynamodb"]["Keys"]["k"]["S"] for r in answer["Records"]] == ["late"]
    assert time.monotonic() - started < 3
    # AND with nothing coming, it answers empty at its deadline
    started = time.monotonic()
    assert waiting.get_records(ShardIterator=answer["NextShardIterator"])["Records"] == []
    assert time.monotonic() - started >= 3.5


def test_answers_convert_their_values_as_moto_does():
    import datetime

    from moto.dynamodb import responses
    from moto.dynamodb.models import utilities
    from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict

    moto_patches.apply()
    fast = responses.dynamo_to_dict
    assert fast is not utilities.dynamo_to_dict
    values = {"s": {"S": "x"}, "n": {"N": "1.5"}, "t": {"BOOL": True}, "z": {"NULL": True},
              "ss": {"SS": ["a", "b"]}, "ns": {"NS": ["1"]}, "b": {"B": "AAE="},
              "bs": {"BS": ["AAE=", "Ag=="]},
              "l": {"L": [{"S": "y"}, {"M": {"in": {"N": "2"}, "bin": {"B": "AQ=="}}}]},
              "m": {"M": {"deep": {"L": [{"NULL": True}]}}}}
    typed = {name: DynamoType(value) for name, value in values.items()}
    item = Item(DynamoType({"S": "k"}), None, {"k": {"S": "k"}, **values})
    answers = [
        {"Items": [typed, dict(typed)], "Count": 2, "ScannedCount": 2,
         "LastEvaluatedKey": {"k": DynamoType({"S": "k"})}},
        {"Attributes": typed, "ConsumedCapacity": {"TableName": "t", "CapacityUnits": 1.0}},
        {"Responses": {"t": [typed, LimitedSizeDict(typed)]}, "UnprocessedKeys": {}},
        {"Item": item, "When": datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)},
        [typed, "text", 3, None],
    ]
    for answer in answers:
        assert fast(answer) == utilities.dynamo_to_dict(answer)
    # Set values are copies: an answer never shares a list with the stored item
    converted = fast(typed["ss"])
    converted["SS"].append("c")
    assert typed["ss"].value == ["a", "b"]


def test_a_partiql_insert_of_an_existing_key_is_refused_and_overwrites_nothing(dynamodb):
    dynamodb.put_item(TableName=TABLE, Item={"k": {"S": "taken"}, "v": {"S": "first"}})
    statement = f'INSERT INTO "{TABLE}" VALUE {{\'k\': ?, \'v\': ?}}'
    answer = dynamodb.batch_execute_statement(Statements=[
        {"Statement": statement, "Parameters": [{"S": "taken"}, {"S": "second"}]},
        {"Statement": statement, "Parameters": [{"S": "new"}, {"S": "third"}]}])
    assert [r.get("Error", {}).get("Code") for r in answer["Responses"]] == [
        "DuplicateItem", None]
    assert dynamodb.get_item(TableName=TABLE, Key={"k": {"S": "taken"}})["Item"]["v"] == {
        "S": "first"}
    assert dynamodb.get_item(TableName=TABLE, Key={"k": {"S": "new"}})["Item"]["v"] == {
        "S": "third"}
