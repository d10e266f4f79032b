"""The restore drill on moto: restore a table, re-point the stack, the app reads the copy."""
from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import boto3
import pytest
from moto import mock_aws
from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.models import Model

from infra import restore_drill
from infra.resources import table_definitions

PREFIX = "drill-"
STACK_TEMPLATE = {
    "AWSTemplateFormatVersion": "2010-09-09",
    "Parameters": {"TablePrefix": {"Type": "String", "Default": PREFIX},
                   "TableNameOverrides": {"Type": "String", "Default": "{}"}},
    "Resources": {"Marker": {"Type": "AWS::SQS::Queue",
                             "Properties": {"QueueName": "drill-marker"}}},
}


def _create(client, suffix: str) -> None:
    args = next(dict(a) for a in table_definitions(PREFIX).values()
                if a["TableName"] == PREFIX + suffix)
    ttl = args.pop("_ttl", None)
    client.create_table(**args)
    if ttl:
        client.update_time_to_live(TableName=args["TableName"], TimeToLiveSpecification={
            "Enabled": True, "AttributeName": ttl})
    client.update_continuous_backups(
        TableName=args["TableName"],
        PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})


def _drop_drill_tables(client) -> None:
    # Every page: after the functional tier, the backend holds over 100 tables.
    for page in client.get_paginator("list_tables").paginate():
        for name in page["TableNames"]:
            if name.startswith(PREFIX):
                client.delete_table(TableName=name)


@pytest.fixture
def dynamodb():
    # A mock_aws nested in the functional tier's session mock shares its backend, which
    # is not reset between tests: each test starts and ends without drill tables.
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        _drop_drill_tables(client)
        _create(client, "messages")
        _create(client, "confirmations")
        _create(client, "outbox")
        yield client
        _drop_drill_tables(client)


def _put_messages(client, ids):
    for message_id in ids:
        client.put_item(TableName=PREFIX + "messages", Item={
            "realm_id": {"N": "1"}, "message_id": {"N": str(message_id)},
            "content": {"S": f"message {message_id}"}})


def test_restore_copies_items_and_gives_back_pitr_and_ttl(dynamodb):
    _put_messages(dynamodb, range(1, 8))
    with pytest.raises(SystemExit, match="earliest restorable"):
        restore_drill.restore(dynamodb, PREFIX, "messages", datetime.now(UTC) - timedelta(days=1))
    at = datetime.now(UTC)
    result = restore_drill.restore(dynamodb, PREFIX, "messages", at)
    target = result["target"]
    assert target == f"{PREFIX}messages-restored-{at:%Y%m%dt%H%M%S}"
    assert result["source_items"] == result["restored_items"] == 7
    described = dynamodb.describe_table(TableName=target)["Table"]
    assert described["TableStatus"] == "ACTIVE"
    # the indexes come along with the items
    assert {i["IndexName"] for i in described["GlobalSecondaryIndexes"]} == {
        "by_stream", "by_topic", "by_dm", "by_sender"}
    backups = dynamodb.describe_continuous_backups(TableName=target)[
        "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    assert backups["PointInTimeRecoveryStatus"] == "ENABLED"
    item = dynamodb.get_item(TableName=target, Key={
        "realm_id": {"N": "1"}, "message_id": {"N": "3"}})["Item"]
    assert item["content"] == {"S": "message 3"}

    confirmations = restore_drill.restore(dynamodb, PREFIX, "confirmations")
    ttl = dynamodb.describe_time_to_live(TableName=confirmations["target"])[
        "TimeToLiveDescription"]
    assert ttl["TimeToLiveStatus"] == "ENABLED" and ttl["AttributeName"] == "expires_at"


def test_restore_refuses_the_outbox_unknown_tables_and_tables_without_pitr(dynamodb):
    with pytest.raises(SystemExit, match="fan-out"):
        restore_drill.restore(dynamodb, PREFIX, "outbox")
    with pytest.raises(SystemExit, match="no table"):
        restore_drill.restore(dynamodb, PREFIX, "nonsense")
    dynamodb.update_continuous_backups(
        TableName=PREFIX + "messages",
        PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": False})
    with pytest.raises(SystemExit, match="no point-in-time recovery"):
        restore_drill.restore(dynamodb, PREFIX, "messages")


def test_repoint_sets_the_stack_parameter_and_the_app_reads_the_restored_table(
        dynamodb, monkeypatch):
    _put_messages(dynamodb, [1, 2])
    target = restore_drill.restore(dynamodb, PREFIX, "messages")["target"]
    _put_messages(dynamodb, [3])   # written after the restore point: not in the copy
    cfn = boto3.client("cloudformation", region_name="us-east-1")
    cfn.create_stack(StackName="drill", TemplateBody=json.dumps(STACK_TEMPLATE),
                     Parameters=[{"ParameterKey": "TablePrefix", "ParameterValue": PREFIX}])

    overrides = restore_drill.set_override(cfn, "drill", "messages", target)
    assert overrides == {"messages": target}
    parameters = {p["ParameterKey"]: p["ParameterValue"]
                  for p in cfn.describe_stacks(StackName="drill")["Stacks"][0]["Parameters"]}
    assert json.loads(parameters["TableNameOverrides"]) == {"messages": target}
    assert parameters["TablePrefix"] == PREFIX    # untouched

    # What the functions get as TABLE_NAME_OVERRIDES: models built now use the copy.
    monkeypatch.setenv("TABLE_NAME_OVERRIDES", parameters["TableNameOverrides"])
    from chalicelib import config
    from chalicelib.models.base import table_meta

    assert config.table_name("messages") == target
    assert config.table_name("users") == config.bound_table_prefix() + "users"

    class Restored(Model):
        Meta = table_meta("messages")
        realm_id = NumberAttribute(hash_key=True)
        message_id = NumberAttribute(range_key=True)
        content = UnicodeAttribute()

    assert [m.message_id for m in Restored.query(1)] == [1, 2]

    assert restore_drill.set_override(cfn, "drill", "messages", None) == {}


def test_repoint_refuses_a_stack_without_the_parameter(dynamodb):
    cfn = boto3.client("cloudformation", region_name="us-east-1")
    template = dict(STACK_TEMPLATE, Parameters={"TablePrefix": {"Type": "String"}})
    cfn.create_stack(StackName="old", TemplateBody=json.dumps(template),
                     Parameters=[{"ParameterKey": "TablePrefix", "ParameterValue": PREFIX}])
    with pytest.raises(SystemExit, match="no TableNameOverrides"):
        restore_drill.set_override(cfn, "old", "messages", "x")


def test_bad_overrides_are_refused(monkeypatch):
    from chalicelib import config

    monkeypatch.setenv("TABLE_NAME_OVERRIDES", '["messages"]')
    with pytest.raises(ValueError, match="JSON object"):
        config.table_name("messages")
