"""The PynamoDB models and the CloudFormation in infra/ describe the same tables."""
from __future__ import annotations

import importlib
import json
import pkgutil
from pathlib import Path

import pytest
from pynamodb.attributes import TTLAttribute

import chalicelib.models
from chalicelib import config
from chalicelib.models.base import BaseModel
from infra.resources import load_template, resources_of_type


def all_models() -> list[type[BaseModel]]:
    for module in pkgutil.iter_modules(chalicelib.models.__path__):
        importlib.import_module(f"chalicelib.models.{module.name}")
    found, pending = [], list(BaseModel.__subclasses__())
    while pending:
        model = pending.pop()
        pending.extend(model.__subclasses__())
        if not getattr(model.Meta, "abstract", False):
            found.append(model)
    return found


def template_tables() -> dict[str, dict]:
    tables = {}
    for res in resources_of_type("AWS::DynamoDB::Table").values():
        suffix = res["Properties"]["TableName"]["Fn::Sub"].replace("${TablePrefix}", "")
        tables[suffix] = res["Properties"]
    return tables


def model_schema(model: type[BaseModel]) -> dict:
    schema = model._get_schema()
    attributes = {a["AttributeName"]: a["AttributeType"] for a in schema["attribute_definitions"]}
    keys = sorted((k["AttributeName"], k["KeyType"]) for k in schema["key_schema"])
    indexes = {i["index_name"]: sorted((k["AttributeName"], k["KeyType"]) for k in i["key_schema"])
               for i in schema.get("global_secondary_indexes", [])}
    projections = {i["index_name"]: i["projection"]["ProjectionType"]
                   for i in schema.get("global_secondary_indexes", [])}
    return {"attributes": attributes, "keys": keys, "indexes": indexes,
            "projections": projections}


def template_schema(props: dict) -> dict:
    return {
        "attributes": {a["AttributeName"]: a["AttributeType"]
                       for a in props["AttributeDefinitions"]},
        "keys": sorted((k["AttributeName"], k["KeyType"]) for k in props["KeySchema"]),
        "indexes": {i["IndexName"]: sorted((k["AttributeName"], k["KeyType"]) for k in i["KeySchema"])
                    for i in props.get("GlobalSecondaryIndexes", [])},
        "projections": {i["IndexName"]: i["Projection"]["ProjectionType"]
                        for i in props.get("GlobalSecondaryIndexes", [])},
    }


MODELS = all_models()


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_model_matches_its_template_table(model):
    suffix = model.Meta.table_name.removeprefix(config.table_prefix())
    tables = template_tables()
    assert suffix in tables, f"{model.__name__}: no table '{suffix}' in infra/template.json"
    props = tables[suffix]
    assert model_schema(model) == template_schema(props)
    ttl_attributes = [a.attr_name for a in model.get_attributes().values()
                      if isinstance(a, TTLAttribute)]
    ttl = props.get("TimeToLiveSpecification", {})
    assert ttl_attributes == ([ttl["AttributeName"]] if ttl.get("Enabled") else [])
    assert props["BillingMode"] == "PAY_PER_REQUEST"


def test_every_template_table_has_a_model():
    suffixes = {m.Meta.table_name.removeprefix(config.table_prefix()) for m in MODELS}
    assert set(template_tables()) == suffixes


def test_outbox_has_a_stream():
    assert template_tables()["outbox"]["StreamSpecification"]["StreamViewType"] == "NEW_IMAGE"


PACKAGED = Path(__file__).resolve().parents[2] / "build" / "package" / "sam.json"


@pytest.mark.skipif(not PACKAGED.exists(), reason="run `make package` first")
def test_packaged_template_has_the_deployment_settings():
    packaged = json.loads(PACKAGED.read_text())
    resources = packaged["Resources"]
    assert resources["RestAPI"]["Properties"]["EndpointConfiguration"] == "REGIONAL"
    assert resources["RestAPI"]["Properties"]["StageName"] not in ("api", "")
    assert resources["NotFoundGatewayResponse"]["Properties"]["StatusCode"] == "404"
    assert packaged["Globals"]["Function"]["Runtime"] == "python3.11"
    for logical_id in load_template()["Resources"]:
        assert logical_id in resources


@pytest.mark.skipif(not PACKAGED.exists(), reason="run `make package` first")
def test_outbox_stream_mapping_has_partial_failures_retries_and_destination():
    resources = json.loads(PACKAGED.read_text())["Resources"]
    mapping = resources["Fanout"]["Properties"]["Events"]["FanoutDynamodbEventSource"][
        "Properties"]
    assert mapping["Stream"] == {"Fn::GetAtt": ["OutboxTable", "StreamArn"]}
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert mapping["MaximumRetryAttempts"] == 5 and mapping["BisectBatchOnFunctionError"]
    assert mapping["DestinationConfig"]["OnFailure"]["Destination"] == {
        "Fn::GetAtt": ["FanoutFailureQueue", "Arn"]}


def test_create_all_adds_indexes_a_saved_table_lacks():
    import boto3
    from moto import mock_aws

    from infra.resources import create_all, table_definitions

    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        users = dict(next(a for a in table_definitions("old-").values()
                          if a["TableName"] == "old-users"))
        users["GlobalSecondaryIndexes"] = users["GlobalSecondaryIndexes"][:1]
        users["AttributeDefinitions"] = [a for a in users["AttributeDefinitions"]
                                         if a["AttributeName"] not in ("bot_owner_key",
                                                                       "role_key")]
        client.create_table(**users)
        create_all("old-")
        indexes = {i["IndexName"] for i in client.describe_table(
            TableName="old-users")["Table"]["GlobalSecondaryIndexes"]}
        assert indexes == {"by_name", "by_bot_owner", "by_role"}


@pytest.mark.skipif(not PACKAGED.exists(), reason="run `make package` first")
def test_webhook_queue_mapping_reports_partial_failures_and_has_a_dlq():
    resources = json.loads(PACKAGED.read_text())["Resources"]
    mapping = resources["OutgoingWebhooks"]["Properties"]["Events"][
        "OutgoingWebhooksSqsEventSource"]["Properties"]
    # Chalice names the queue by the name fixed at packaging: the template's queue.
    assert mapping["Queue"]["Fn::Sub"].endswith(":teamchat-prod-outgoing-webhooks")
    assert resources["WebhookQueue"]["Properties"]["QueueName"] == {
        "Fn::Sub": "${TablePrefix}outgoing-webhooks"}
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    from chalicelib.webhooks.delivery import MAX_ATTEMPTS

    redrive = resources["WebhookQueue"]["Properties"]["RedrivePolicy"]
    assert redrive["maxReceiveCount"] == MAX_ATTEMPTS
    assert redrive["deadLetterTargetArn"] == {"Fn::GetAtt": ["WebhookDeadLetterQueue", "Arn"]}
    # the queue must stay invisible longer than the function may run
    assert resources["WebhookQueue"]["Properties"]["VisibilityTimeout"] >= \
        resources["OutgoingWebhooks"]["Properties"]["Timeout"]
