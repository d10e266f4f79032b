"""Grafana alerting: each alert of a notification becomes a message in the alert's own
topic (its `alertname`, else its fingerprint), firing or resolved; the event types are
`firing` and `resolved` (and the legacy alerting's states: `alerting`, `ok`, `pending`,
`paused`, `no_data`). Grafana sends no event header."""
from __future__ import annotations

from chalicelib.integrations.alerts import (
    MAX_ALERTS,
    headline,
    key_values,
    links,
    period,
)
from chalicelib.integrations.base import Inbound, Integration, Notice
from chalicelib.integrations.markdown import link, plain, topic
from chalicelib.integrations.payload import Field

LINKS = (("generatorURL", "Source"), ("silenceURL", "Silence"),
         ("dashboardURL", "Dashboard"), ("panelURL", "Panel"), ("imageURL", "Image"))
LEGACY_STATES = ("alerting", "ok", "pending", "paused", "no_data")


def _alert(alert: Field) -> Notice:
    status = alert["status"].text()
    labels, annotations = alert.get("labels"), alert.get("annotations")
    name = labels.get("alertname").opt_text() or alert["fingerprint"].text()
    summary = annotations.get("summary").opt_text() or annotations.get("description").opt_text()
    parts = [f"{headline(status)}: {plain(name, 120)}" +
             (f" — {plain(summary, 300)}" if summary else ""),
             period(alert), key_values("Labels", labels),
             key_values("Values", alert.get("values")) if alert.get("values").present else
             (f"Values: {plain(alert.get('valueString').opt_text(), 400)}"
              if alert.get("valueString").present else ""),
             key_values("Annotations", annotations), links(alert, LINKS)]
    return Notice(topic(name), "\n\n".join(p for p in parts if p), status)


def _legacy(payload: Field) -> Notice:
    state = payload["state"].text()
    title = payload["title"].text()
    parts = [f"{headline('firing' if state == 'alerting' else state)}: "
             f"{link(plain(payload['ruleName'].text(), 120), payload.get('ruleUrl').opt_text())}",
             plain(payload.get("message").opt_text(), 500)]
    matches = [f"{plain(m['metric'].text(), 80)} = {plain(m.get('value').scalar(), 40)}"
               for m in payload.get("evalMatches").items(limit=20) if m.get("value").present]
    if matches:
        parts.append("Values: " + ", ".join(matches))
    if payload.get("imageUrl").present:
        parts.append(link("Image", payload["imageUrl"].text()))
    return Notice(topic(title), "\n\n".join(p for p in parts if p), state)


def translate(event: Inbound) -> list[Notice]:
    payload = Field(event.payload)
    if "alerts" not in payload:
        return [_legacy(payload)]
    alerts = payload["alerts"]
    notices = [_alert(alert) for alert in alerts.items(limit=MAX_ALERTS)]
    if alerts.count() > MAX_ALERTS and notices:
        last = notices[-1]
        notices[-1] = Notice(last.topic, f"{last.content}\n\n(and {alerts.count() - MAX_ALERTS}"
                             " more alerts in this notification)", last.event_type)
    return notices


INTEGRATION = Integration(
    name="grafana", display_name="Grafana", translate=translate,
    all_event_types=("firing", "resolved", *LEGACY_STATES),
)
