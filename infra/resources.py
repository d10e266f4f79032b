"""Creates the tables and queues of infra/template.json on a DynamoDB/SQS endpoint.

The AWS deployment and the local stack (and the tests) read the same template, so the
definitions exist once.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3

TEMPLATE_PATH = Path(__file__).with_name("template.json")
_TABLE_KEYS = ("TableName", "AttributeDefinitions", "KeySchema", "BillingMode",
               "GlobalSecondaryIndexes", "StreamSpecification")


def load_template() -> dict[str, Any]:
    return json.loads(TEMPLATE_PATH.read_text())


def resolve(value: Any, parameters: dict[str, str]) -> Any:
    """Resolves the few intrinsic functions the resource names use (Fn::Sub on parameters)."""
    if isinstance(value, dict) and set(value) == {"Fn::Sub"}:
        return re.sub(r"\$\{(\w+)\}", lambda m: parameters[m.group(1)], value["Fn::Sub"])
    return value


def resources_of_type(kind: str, template: dict[str, Any] | None = None) -> dict[str, dict]:
    template = template or load_template()
    return {name: res for name, res in template["Resources"].items() if res.get("Type") == kind}


def table_definitions(prefix: str) -> dict[str, dict[str, Any]]:
    """Logical id -> CreateTable arguments (plus TTL attribute under '_ttl')."""
    tables = {}
    for logical_id, res in resources_of_type("AWS::DynamoDB::Table").items():
        props = res["Properties"]
        args = {k: props[k] for k in _TABLE_KEYS if k in props}
        args["TableName"] = resolve(props["TableName"], {"TablePrefix": prefix})
        if "StreamSpecification" in args:
            args["StreamSpecification"] = {"StreamEnabled": True, **args["StreamSpecification"]}
        ttl = props.get("TimeToLiveSpecification", {})
        if ttl.get("Enabled"):
            args["_ttl"] = ttl["AttributeName"]
        tables[logical_id] = args
    return tables


def queue_names(prefix: str) -> dict[str, str]:
    return {logical_id: resolve(res["Properties"]["QueueName"], {"TablePrefix": prefix})
            for logical_id, res in resources_of_type("AWS::SQS::Queue").items()}


def _add_missing_indexes(dynamodb: Any, args: dict[str, Any],
                         progress: Callable[[str], None]) -> None:
    """Adds indexes the template gained since a saved local table was created."""
    current = dynamodb.describe_table(TableName=args["TableName"])["Table"]
    have = {i["IndexName"] for i in current.get("GlobalSecondaryIndexes", [])}
    for index in args.get("GlobalSecondaryIndexes", []):
        if index["IndexName"] in have:
            continue
        progress(f"index {args['TableName']}.{index['IndexName']}")
        dynamodb.update_table(TableName=args["TableName"],
                              AttributeDefinitions=args["AttributeDefinitions"],
                              GlobalSecondaryIndexUpdates=[{"Create": index}])


def create_all(prefix: str, *, progress: Callable[[str], None] = lambda _: None,
               session: boto3.session.Session | None = None) -> None:
    """Creates every table and queue that does not exist yet (idempotent)."""
    session = session or boto3.session.Session()
    dynamodb = session.client("dynamodb")
    existing = set(dynamodb.list_tables()["TableNames"])
    for args in table_definitions(prefix).values():
        args = dict(args)
        ttl_attribute = args.pop("_ttl", None)
        if args["TableName"] in existing:
            _add_missing_indexes(dynamodb, args, progress)
            continue
        progress(f"table {args['TableName']}")
        dynamodb.create_table(**args)
        if ttl_attribute:
            dynamodb.update_time_to_live(
                TableName=args["TableName"],
                TimeToLiveSpecification={"Enabled": True, "AttributeName": ttl_attribute})
    sqs = session.client("sqs")
    template = load_template()
    existing_queues = {url.rsplit("/", 1)[-1]
                       for url in sqs.list_queues(QueueNamePrefix=prefix).get("QueueUrls", [])}
    for res in resources_of_type("AWS::SQS::Queue", template).values():
        props = res["Properties"]
        name = resolve(props["QueueName"], {"TablePrefix": prefix})
        if name in existing_queues:
            continue
        attributes = {k: str(v) for k, v in props.items()
                      if k in ("VisibilityTimeout", "MessageRetentionPeriod")}
        progress(f"queue {name}")
        sqs.create_queue(QueueName=name, Attributes=attributes)
    for res in resources_of_type("AWS::SQS::Queue", template).values():
        redrive = res["Properties"].get("RedrivePolicy")
        if not redrive:
            continue
        name = resolve(res["Properties"]["QueueName"], {"TablePrefix": prefix})
        target = template["Resources"][redrive["deadLetterTargetArn"]["Fn::GetAtt"][0]]
        dlq_name = resolve(target["Properties"]["QueueName"], {"TablePrefix": prefix})
        dlq_url = sqs.get_queue_url(QueueName=dlq_name)["QueueUrl"]
        dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])[
            "Attributes"]["QueueArn"]
        sqs.set_queue_attributes(
            QueueUrl=sqs.get_queue_url(QueueName=name)["QueueUrl"],
            Attributes={"RedrivePolicy": json.dumps({
                "deadLetterTargetArn": dlq_arn,
                "maxReceiveCount": str(redrive["maxReceiveCount"])})})
