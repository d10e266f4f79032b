"""The notifications' resources in infra/template.json: one self-contained, hardened block."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from infra.resources import load_template

PACKAGED = Path(__file__).resolve().parents[2] / "build" / "package" / "sam.json"


def test_queues_are_encrypted_and_the_notifier_queue_has_a_dlq():
    resources = load_template()["Resources"]
    for name in ("NotificationQueue", "NotificationDeadLetterQueue"):
        assert resources[name]["Properties"]["SqsManagedSseEnabled"] is True
    redrive = resources["NotificationQueue"]["Properties"]["RedrivePolicy"]
    assert redrive["deadLetterTargetArn"] == {"Fn::GetAtt": ["NotificationDeadLetterQueue",
                                                             "Arn"]}


def test_the_policy_names_its_resources():
    statements = load_template()["Resources"]["NotificationsPolicy"]["Properties"][
        "PolicyDocument"]["Statement"]
    flat = [s if "Fn::If" not in s else s["Fn::If"][1] for s in statements]
    for statement in flat:
        assert statement["Resource"] != "*", statement["Sid"]
        assert not any(a.endswith(":*") for a in statement["Action"]), statement["Sid"]
    sids = {s["Sid"] for s in flat}
    assert {"NotificationItems", "NotificationJobs", "SendAsTheIdentityWithTheConfigurationSet",
            "PhoneEndpoints", "RegisterPhones"} <= sids


def test_ses_events_reach_the_mail_events_topic():
    resources = load_template()["Resources"]
    destination = resources["MailConfigurationSetEvents"]["Properties"]["EventDestination"]
    assert set(destination["MatchingEventTypes"]) == {"bounce", "complaint"}
    assert destination["SnsDestination"]["TopicARN"] == {"Ref": "MailEventsTopic"}


@pytest.mark.skipif(not PACKAGED.exists(), reason="run `make package` first")
def test_notifier_mapping_reports_partial_failures():
    resources = json.loads(PACKAGED.read_text())["Resources"]
    mapping = resources["Notifier"]["Properties"]["Events"]["NotifierSqsEventSource"][
        "Properties"]
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert mapping["Queue"]["Fn::Sub"].endswith(":teamchat-prod-notifications")
