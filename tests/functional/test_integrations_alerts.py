"""Grafana and Alertmanager (`/external/grafana`, `/external/alertmanager`) with their own
notifications: firing and resolved alerts, each in its alert's topic, text shown as text,
links, and the `firing` / `resolved` event types."""
from __future__ import annotations

import pytest

from tests.functional.integration_helpers import (
    channel_messages,
    fixture,
    fixture_json,
    last_message,
    make_hook,
    rendered,
)


@pytest.fixture
def hook(realm):
    return make_hook(realm)


def test_a_grafana_alert_fires_and_resolves_in_its_topic(realm, hook):
    assert hook.post("grafana", fixture("grafana", "alert_values_v11.json"),
                     stream="dev").status == 200
    firing = last_message(realm)
    assert firing["subject"] == "Memory (copy)"
    lines = firing["content"].split("\n\n")
    assert lines[0] == ":rotating_light: **Firing**: Memory (copy) — High memory usage"
    assert lines[1] == "Since 2024-03-01 02:09 UTC."
    assert "Values: A = 2473545728, B = 0, C = 1, minute = 9" in lines
    assert lines[-1].startswith("[Source](https://play.grafana.org/alerting/grafana/")
    # The same alert, resolved, lands in the same topic
    resolved = fixture_json("grafana", "alert_values_v11.json")
    resolved["alerts"][0].update(status="resolved", endsAt="2024-03-01T02:19:00Z")
    assert hook.post("grafana", resolved, stream="dev").status == 200
    message = last_message(realm)
    assert message["subject"] == "Memory (copy)"
    assert message["content"].startswith(":white_check_mark: **Resolved**: Memory (copy)")
    assert "From 2024-03-01 02:09 UTC to 2024-03-01 02:19 UTC." in message["content"]


def test_grafana_text_is_shown_as_typed(realm, hook):
    assert hook.post("grafana", fixture("grafana", "alert_9_resolved.json"),
                     stream="dev").status == 200
    message = last_message(realm)
    assert message["subject"] == "Test alert"
    html = rendered(realm, message["id"])
    assert "failure on &lt;no value&gt;" in html and "<no value>" not in html
    assert "__name__=rabbitmq_queues" in html


def test_grafana_filters_on_the_alerts_status(realm, hook):
    assert hook.post("grafana", fixture("grafana", "alert_9_resolved.json"), stream="dev",
                     only_events=["firing"]).status == 200
    assert channel_messages(realm) == []


def test_many_alerts_are_bounded(realm, hook):
    payload = fixture_json("grafana", "alert_values_v11.json")
    alert = payload["alerts"][0]
    payload["alerts"] = [{**alert, "labels": {**alert["labels"], "alertname": f"A{n}"}}
                         for n in range(25)]
    assert hook.post("grafana", payload, stream="dev").status == 200
    messages = channel_messages(realm, count=50)
    assert len(messages) == 10
    assert messages[-1]["content"].endswith("(and 15 more alerts in this notification)")


def test_alertmanager_groups_alerts_by_the_named_label(realm, hook):
    assert hook.post("alertmanager", fixture("alertmanager", "alert.json"), stream="dev",
                     name="host", desc="description").status == 200
    message = last_message(realm)
    assert message["subject"] == "andromeda"
    assert message["content"] == (
        ":rotating_light: **Firing**\n\n"
        "* CPU core temperature is 34.75C ([graph](http://cobalt:9090/graph?g0.expr=avg+by"
        "%28host%29+%28sensors_temp_input%7Bfeature%3D~%22core_%5B0-9%5D%2B%22%7D%29+%3E+15"
        "&g0.tab=0))\n"
        "* CPU core temperature is 17.625C ([graph](http://cobalt:9090/graph?g0.expr=avg+by"
        "%28host%29+%28sensors_temp_input%7Bfeature%3D~%22core_%5B0-9%5D%2B%22%7D%29+%3E+15"
        "&g0.tab=0))")
    # By default the topic is the `instance` label, which these alerts lack
    assert hook.post("alertmanager", fixture("alertmanager", "alert.json"),
                     stream="dev").status == 200
    assert last_message(realm)["subject"] == "(unknown)"


def test_alertmanager_resolved(realm, hook):
    payload = fixture_json("alertmanager", "alert.json")
    payload["alerts"] = payload["alerts"][:1]
    payload["alerts"][0]["status"] = "resolved"
    assert hook.post("alertmanager", payload, stream="dev", name="host").status == 200
    assert last_message(realm)["content"].startswith(
        ":white_check_mark: **Resolved** High CPU Temperature ([graph](")
