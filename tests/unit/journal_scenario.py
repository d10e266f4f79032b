"""Run in a subprocess by test_local_persistence: writes through a journaled moto and dies
without saving (as `kill -9` would), or restores and describes what it finds.

    python -m tests.unit.journal_scenario write STATE_DIR   # prints the state it wrote
    python -m tests.unit.journal_scenario read STATE_DIR    # prints the state it restored
    python -m tests.unit.journal_scenario compact STATE_DIR GENERATION
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.update({"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x",
                   "AWS_DEFAULT_REGION": "us-east-1", "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled"})
for _name in ("AWS_ENDPOINT_URL", "AWS_PROFILE"):
    os.environ.pop(_name, None)

import boto3
from moto import mock_aws
from moto.core import DEFAULT_ACCOUNT_ID
from moto.sqs.models import sqs_backends

from infra.local import snapshot

TABLE, BUCKET = "journaled", "uploads"


def create(dynamodb: Any, sqs: Any, s3: Any) -> None:
    dynamodb.create_table(
        TableName=TABLE, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "N"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    dlq = sqs.create_queue(QueueName="dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])[
        "Attributes"]["QueueArn"]
    sqs.create_queue(QueueName="jobs", Attributes={"RedrivePolicy": json.dumps(
        {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "1"}), "VisibilityTimeout": "0"})
    s3.create_bucket(Bucket=BUCKET)


def write(state_dir: Path) -> dict[str, Any]:
    dynamodb, sqs, s3 = (boto3.client(s, region_name="us-east-1")
                         for s in ("dynamodb", "sqs", "s3"))
    persistence = snapshot.Persistence(state_dir, snapshot.restore(state_dir))
    create(dynamodb, sqs, s3)
    for n in range(5):
        dynamodb.put_item(TableName=TABLE, Item={"pk": {"S": "a"}, "sk": {"N": str(n)},
                                                 "v": {"S": f"value {n}"}})
    persistence.checkpoint()          # part of the state goes into a snapshot
    persistence.wait()
    dynamodb.update_item(TableName=TABLE, Key={"pk": {"S": "a"}, "sk": {"N": "1"}},
                         UpdateExpression="SET v = :v",
                         ExpressionAttributeValues={":v": {"S": "changed"}})
    dynamodb.delete_item(TableName=TABLE, Key={"pk": {"S": "a"}, "sk": {"N": "2"}})
    dynamodb.transact_write_items(TransactItems=[
        {"Put": {"TableName": TABLE, "Item": {"pk": {"S": "b"}, "sk": {"N": "1"}}}},
        {"Update": {"TableName": TABLE, "Key": {"pk": {"S": "a"}, "sk": {"N": "3"}},
                    "UpdateExpression": "SET w = :w",
                    "ExpressionAttributeValues": {":w": {"N": "7"}}}}])
    try:   # a cancelled transaction leaves nothing, in the journal either
        dynamodb.transact_write_items(TransactItems=[
            {"Put": {"TableName": TABLE, "Item": {"pk": {"S": "c"}, "sk": {"N": "1"}}}},
            {"ConditionCheck": {"TableName": TABLE,
                                "Key": {"pk": {"S": "a"}, "sk": {"N": "0"}},
                                "ConditionExpression": "attribute_not_exists(pk)"}}])
    except dynamodb.exceptions.TransactionCanceledException:
        pass
    jobs = sqs.get_queue_url(QueueName="jobs")["QueueUrl"]
    for body in ("one", "two", "three"):
        sqs.send_message(QueueUrl=jobs, MessageBody=body)
    received = sqs.receive_message(QueueUrl=jobs, MaxNumberOfMessages=1)["Messages"]
    sqs.delete_message(QueueUrl=jobs, ReceiptHandle=received[0]["ReceiptHandle"])
    # Received once and visible again at once: the next receives move messages to the
    # dead-letter queue (journaled with the queue they left).
    for _ in range(2):
        sqs.receive_message(QueueUrl=jobs, MaxNumberOfMessages=1)
    # Journaled alone: after a replay, "jobs" must still point at this very queue.
    sqs.send_message(QueueUrl=sqs.get_queue_url(QueueName="dlq")["QueueUrl"],
                     MessageBody="straight to the dead letters")
    s3.put_object(Bucket=BUCKET, Key="f/1.txt", Body=b"first upload")
    s3.put_object(Bucket=BUCKET, Key="f/2.txt", Body=b"gone")
    s3.delete_object(Bucket=BUCKET, Key="f/2.txt")
    return describe()


def describe() -> dict[str, Any]:
    dynamodb, s3 = (boto3.client(s, region_name="us-east-1") for s in ("dynamodb", "s3"))
    items = sorted(json.dumps(i, sort_keys=True)
                    for i in dynamodb.scan(TableName=TABLE, ConsistentRead=True)["Items"])
    streams = boto3.client("dynamodbstreams", region_name="us-east-1")
    arn = dynamodb.describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    records = [(r["eventName"], r["dynamodb"]["SequenceNumber"],
                json.dumps(r["dynamodb"].get("NewImage"), sort_keys=True))
               for r in streams.get_records(ShardIterator=iterator)["Records"]]
    # Read without receiving (a receive changes what it reads).
    backend = sqs_backends[DEFAULT_ACCOUNT_ID]["us-east-1"]
    queues = {name: sorted((m.body, m.approximate_receive_count)
                           for m in backend.queues[name]._messages)
              for name in ("jobs", "dlq")}
    objects = {o["Key"]: s3.get_object(Bucket=BUCKET, Key=o["Key"])["Body"].read().decode()
               for o in s3.list_objects_v2(Bucket=BUCKET).get("Contents", [])}
    return {"items": items, "stream": records, "queues": queues, "objects": objects,
            "dead_letters_linked": backend.queues["jobs"].dead_letter_queue
            is backend.queues["dlq"]}


def main() -> None:
    command, state_dir = sys.argv[1], Path(sys.argv[2])
    with mock_aws():
        if command == "write":
            print(json.dumps(write(state_dir)), flush=True)
            os._exit(0)   # no clean stop: what is on disk is all the next process gets
        if command == "compact":
            snapshot.compact(state_dir, int(sys.argv[3]))
            return
        assert snapshot.restore(state_dir).saved
        print(json.dumps(describe()))


if __name__ == "__main__":
    main()
