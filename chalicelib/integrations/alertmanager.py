"""Prometheus Alertmanager: a notification's alerts, grouped by the label (or annotation)
the URL option `name` names (default `instance`), one message per group and status, in
that group's topic; each alert is described by `desc` (default `alertname`)."""
from __future__ import annotations

from chalicelib.integrations.alerts import MAX_ALERTS, headline
from chalicelib.integrations.base import Inbound, Integration, Notice, Option
from chalicelib.integrations.markdown import bullet_list, link, plain, topic
from chalicelib.integrations.payload import Field


def _field(alert: Field, key: str) -> str | None:
    for source in ("labels", "annotations"):
        value = alert.get(source).get(key)
        if value.present:
            return value.scalar()
    return None


def translate(event: Inbound) -> list[Notice]:
    payload = Field(event.payload)
    name_key = event.options.get("name") or "instance"
    desc_key = event.options.get("desc") or "alertname"
    groups: dict[tuple[str, str], list[str]] = {}
    alerts = payload["alerts"].items(limit=100)
    for alert in alerts:
        name = _field(alert, name_key) or "(unknown)"
        desc = _field(alert, desc_key) or f"(no {desc_key})"
        # Prometheus's graph tab rather than its table tab.
        url = (alert.get("generatorURL").opt_text() or "").replace("tab=1", "tab=0")
        line = plain(desc, 200) + (f" ({link('graph', url)})" if url.startswith("http") else "")
        groups.setdefault((name, alert["status"].text()), []).append(line)
    notices = []
    for (name, status), lines in list(groups.items())[:MAX_ALERTS]:
        content = f"{headline(status)} {lines[0]}" if len(lines) == 1 else \
            f"{headline(status)}\n\n{bullet_list(lines[:20], len(lines) - 20)}"
        notices.append(Notice(topic(name), content, status))
    return notices


INTEGRATION = Integration(
    name="alertmanager", display_name="Alertmanager", translate=translate,
    all_event_types=("firing", "resolved"),
    url_options=(Option("name", "The label or annotation that names the topic "
                        "(default: instance)"),
                 Option("desc", "The label or annotation that describes an alert "
                        "(default: alertname)")),
)
