"""The deployment template's security settings (issue 28): encryption, versioning, PITR,
deletion policies with reasons, access logs, retention, per-function limits, checkov skips."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from infra.checkov_gate import MIN_REASON, problems_of
from infra.resources import load_template, resources_of_type

TEMPLATE = load_template()
RESOURCES = TEMPLATE["Resources"]
PACKAGED = Path(__file__).resolve().parents[2] / "build" / "package" / "sam.json"
STATEFUL = ("AWS::DynamoDB::Table", "AWS::SQS::Queue", "AWS::S3::Bucket", "AWS::Logs::LogGroup")
FUNCTIONS = ("APIHandler", "LongPollHandler", "WebsocketConnect", "WebsocketMessage",
             "WebsocketDisconnect", "Fanout", "OutgoingWebhooks", "EventsKeepalive",
             "ScheduledMessages", "Notifier", "MailEvents")


def packaged() -> dict:
    if not PACKAGED.exists():
        pytest.skip("run `make package` first")
    return json.loads(PACKAGED.read_text())


def test_every_queue_is_encrypted():
    queues = resources_of_type("AWS::SQS::Queue")
    assert len(queues) >= 4
    for name, queue in queues.items():
        props = queue["Properties"]
        assert props.get("SqsManagedSseEnabled") is True or props.get("KmsMasterKeyId"), name


def test_every_table_has_pitr_or_a_written_reason_and_optional_cmk():
    for name, table in resources_of_type("AWS::DynamoDB::Table").items():
        props = table["Properties"]
        if props.get("PointInTimeRecoverySpecification", {}).get(
                "PointInTimeRecoveryEnabled") is not True:
            skipped = {s["id"] for s in table["Metadata"]["checkov"]["skip"]}
            assert "CKV_AWS_28" in skipped, f"{name}: no PITR and no reason"
            assert table["DeletionPolicy"] == "Delete", f"{name}: kept but not recoverable"
        assert props["SSESpecification"]["Fn::If"][0] == "UseDataKmsKey", name
    # tables holding what users wrote are recoverable
    for name in ("MessagesTable", "UsersTable", "StreamsTable", "SubscriptionsTable",
                 "AttachmentsTable", "RealmsTable"):
        assert RESOURCES[name]["Properties"]["PointInTimeRecoverySpecification"] == {
            "PointInTimeRecoveryEnabled": True}


def test_every_stateful_resource_has_a_chosen_and_explained_deletion_policy():
    for name, res in RESOURCES.items():
        if res.get("Type") not in STATEFUL:
            continue
        assert res.get("DeletionPolicy") in ("Retain", "Delete", "Snapshot"), name
        assert res.get("UpdateReplacePolicy") == res["DeletionPolicy"], name
        reason = res["Metadata"]["DeletionPolicyReason"]
        assert reason.startswith(res["DeletionPolicy"] + ":") and len(reason) > 40, name
    # an organization's messages survive a stack deletion
    assert RESOURCES["MessagesTable"]["DeletionPolicy"] == "Retain"
    assert RESOURCES["UploadsBucket"]["DeletionPolicy"] == "Retain"


def test_uploads_bucket_is_versioned_private_tls_only_and_logged():
    props = RESOURCES["UploadsBucket"]["Properties"]
    assert props["VersioningConfiguration"] == {"Status": "Enabled"}
    assert all(props["PublicAccessBlockConfiguration"].values())
    assert len(props["PublicAccessBlockConfiguration"]) == 4
    assert props["LoggingConfiguration"]["DestinationBucketName"] == {"Ref": "AccessLogsBucket"}
    assert props["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    rules = props["LifecycleConfiguration"]["Rules"]
    assert any("NoncurrentVersionExpiration" in r for r in rules)
    for policy_name, bucket in (("UploadsBucketPolicy", "UploadsBucket"),
                                ("AccessLogsBucketPolicy", "AccessLogsBucket")):
        policy = RESOURCES[policy_name]["Properties"]
        assert policy["Bucket"] == {"Ref": bucket}
        deny = [s for s in policy["PolicyDocument"]["Statement"] if s["Effect"] == "Deny"]
        assert deny and deny[0]["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
        assert {"Fn::GetAtt": [bucket, "Arn"]} in deny[0]["Resource"]
    logs = RESOURCES["AccessLogsBucket"]["Properties"]
    assert all(logs["PublicAccessBlockConfiguration"].values())
    assert logs["LifecycleConfiguration"]["Rules"][0]["ExpirationInDays"] == {
        "Ref": "AccessLogDays"}


def test_api_gateways_own_answers_say_nosniff():
    # The app's answers say it themselves (chalicelib/http/middleware.py); an unknown
    # path or a refused request never reaches the app.
    responses = resources_of_type("AWS::ApiGateway::GatewayResponse")
    assert len(responses) >= 3
    for name, response in responses.items():
        parameters = response["Properties"]["ResponseParameters"]
        assert parameters["gatewayresponse.header.X-Content-Type-Options"] == "'nosniff'", name


def test_every_log_group_has_retention():
    groups = resources_of_type("AWS::Logs::LogGroup")
    assert len(groups) == len(FUNCTIONS) + 2
    for name, group in groups.items():
        assert group["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}, name


@pytest.mark.parametrize("stage, key, group", [
    ("RestAPI", "AccessLogSetting", "RestApiAccessLogGroup"),
    ("WebsocketAPIStage", "AccessLogSettings", "WebsocketAccessLogGroup")])
def test_api_access_logs_are_structured_json(stage, key, group):
    settings = RESOURCES[stage]["Properties"][key]
    assert settings["DestinationArn"] == {"Fn::GetAtt": [group, "Arn"]}
    fields = json.loads(settings["Format"])
    assert {"requestId", "userId", "route", "status", "latencyMs"} <= set(fields)
    assert all(v.startswith("$context.") for v in fields.values())
    assert "ApiGatewayAccount" in RESOURCES[stage]["DependsOn"]


def test_every_function_has_its_role_limits_logs_and_traces_when_packaged():
    template = packaged()
    resources = template["Resources"]
    assert "DefaultRole" not in resources
    functions = {n for n, r in resources.items() if r["Type"] == "AWS::Serverless::Function"}
    assert functions == set(FUNCTIONS)
    for name in FUNCTIONS:
        props = resources[name]["Properties"]
        assert props["Role"] == {"Fn::GetAtt": [f"{name}Role", "Arn"]}, name
        assert resources[f"{name}Role"]["Type"] == "AWS::IAM::Role"
        assert props["Tracing"] == "Active"
        assert "ReservedConcurrentExecutions" in props, name
        assert props["LoggingConfig"] == {"LogGroup": {"Ref": f"{name}LogGroup"}}
        events = props.get("Events", {}).values()
        if any(e["Type"] == "Schedule" for e in events):   # invoked asynchronously
            assert props["DeadLetterQueue"]["TargetArn"] == {
                "Fn::GetAtt": ["AsyncFailureQueue", "Arn"]}
    assert "each-function-has-its-own-role" not in PACKAGED.read_text()
    assert resources["RestAPI"]["Properties"]["TracingEnabled"] is True


def test_every_checkov_skip_in_the_template_says_why():
    count = 0
    for name, res in RESOURCES.items():
        for skip in res.get("Metadata", {}).get("checkov", {}).get("skip", []):
            assert skip["id"].startswith(("CKV_", "CKV2_")), name
            assert len(skip.get("comment", "").strip()) >= MIN_REASON, (name, skip["id"])
            count += 1
    assert count > 0


def test_the_gate_fails_on_findings_and_on_skips_without_reason():
    def report(failed=(), skipped=()):
        return {"summary": {"passed": 1, "failed": len(failed), "skipped": len(skipped),
                            "parsing_errors": 0},
                "results": {"failed_checks": list(failed), "skipped_checks": list(skipped)}}

    finding = {"check_id": "CKV_AWS_27", "resource": "AWS::SQS::Queue.Q",
               "check_name": "queue encrypted"}
    assert problems_of(report()) == []
    assert problems_of(report(failed=[finding])) == [
        "FAILED CKV_AWS_27 on AWS::SQS::Queue.Q: queue encrypted"]
    reasoned = dict(finding, check_result={"suppress_comment": "a reason long enough to read"})
    bare = dict(finding, check_result={"suppress_comment": "ok"})
    assert problems_of(report(skipped=[reasoned])) == []
    assert problems_of(report(skipped=[bare]))[0].startswith("SKIPPED WITHOUT A REASON")
