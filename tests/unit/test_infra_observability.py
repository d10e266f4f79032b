"""Alarms and the dashboard in the merge template (issue 25 item 4)."""
from __future__ import annotations

import json
import re

from infra.resources import load_template, resources_of_type

TEMPLATE = load_template()
RESOURCES = TEMPLATE["Resources"]
FUNCTIONS = ("APIHandler", "LongPollHandler", "WebsocketConnect", "WebsocketMessage",
             "WebsocketDisconnect", "Fanout", "OutgoingWebhooks", "EventsKeepalive")
DEAD_LETTER_QUEUES = ("WebhookDeadLetterQueue", "FanoutFailureQueue", "AsyncFailureQueue")


def alarms() -> dict[str, dict]:
    return {name: res["Properties"] for name, res in
            resources_of_type("AWS::CloudWatch::Alarm").items()}


def test_every_alarm_notifies_the_topic_parameter():
    assert TEMPLATE["Parameters"]["AlarmTopicArn"]["Default"] == ""
    for name, props in alarms().items():
        for key in ("AlarmActions", "OKActions"):
            assert props[key] == {"Fn::If": ["HasAlarmTopic", [{"Ref": "AlarmTopicArn"}],
                                             {"Ref": "AWS::NoValue"}]}, name
        assert props["AlarmDescription"] and props["Threshold"] > 0


def test_alarms_cover_iterator_age_dead_letters_errors_throttles_5xx_and_dynamodb():
    found = alarms()
    watched = {(p.get("MetricName"), json.dumps(p.get("Dimensions"), sort_keys=True))
               for p in found.values()}
    assert found["FanoutIteratorAgeAlarm"]["MetricName"] == "IteratorAge"
    assert found["FanoutIteratorAgeAlarm"]["Dimensions"] == [
        {"Name": "FunctionName", "Value": {"Ref": "Fanout"}}]
    for queue in DEAD_LETTER_QUEUES:
        dims = [{"Name": "QueueName", "Value": {"Fn::GetAtt": [queue, "QueueName"]}}]
        assert ("ApproximateNumberOfMessagesVisible", json.dumps(dims, sort_keys=True)) in watched
    for function in FUNCTIONS:
        dims = json.dumps([{"Name": "FunctionName", "Value": {"Ref": function}}],
                          sort_keys=True)
        assert ("Errors", dims) in watched and ("Throttles", dims) in watched, function
    assert found["Api5xxRateAlarm"]["MetricName"] == "5XXError"
    assert found["Api5xxRateAlarm"]["Statistic"] == "Average"
    for kind in ("Read", "Write"):
        expression = found[f"DynamoDb{kind}ThrottlesAlarm"]["Metrics"][0]["Expression"]
        assert f"{kind}ThrottleEvents" in expression


def test_dashboard_names_only_what_the_template_has():
    body = RESOURCES["OperationsDashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    for name in re.findall(r"\$\{([\w:.]+)\}", body):
        logical = name.split(".")[0]
        assert logical.startswith("AWS::") or logical in RESOURCES, name
    widgets = json.loads(body)["widgets"]
    titles = " ".join(w["properties"]["title"] for w in widgets)
    for word in ("errors", "throttles", "iterator age", "Dead-letter", "DynamoDB", "Alarms"):
        assert word in titles
    alarm_widget = next(w for w in widgets if w["type"] == "alarm")
    assert len(alarm_widget["properties"]["alarms"]) == len(alarms())


def test_dashboard_shows_the_apps_own_metrics(monkeypatch):
    """The names and namespace the code publishes (chalicelib/aws/metrics.py)."""
    from chalicelib import config
    from chalicelib.aws import metrics

    body = RESOURCES["OperationsDashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    shown = json.dumps(json.loads(body))
    for name in (metrics.MESSAGES_SENT, metrics.EVENTS_DELIVERED, metrics.FANOUT_DELAY,
                 metrics.WEBHOOK_DELIVERIES, metrics.SERVER_ERRORS, metrics.RATE_LIMIT_HITS):
        assert f'"{name}"' in shown or f'\\"{name}\\"' in shown, name
    monkeypatch.delenv("POWERTOOLS_METRICS_NAMESPACE")   # as deployed: the default
    assert config.metrics_namespace() == "teamchat"
    assert '["teamchat", "MessagesSent"' in shown
