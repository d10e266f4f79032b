"""What alert messages share (Grafana, Alertmanager): a firing or resolved headline, and
an alert's labels, annotations and links as a short list."""
from __future__ import annotations

from chalicelib.integrations.markdown import link, plain, when
from chalicelib.integrations.payload import Field

MAX_ALERTS = 10
MAX_LABELS = 20
STATUS_LINES = {"firing": ":rotating_light: **Firing**",
                "resolved": ":white_check_mark: **Resolved**"}


def headline(status: str) -> str:
    return STATUS_LINES.get(status, f"**{plain(status.capitalize(), 30)}**")


def key_values(title: str, values: Field) -> str:
    """"Labels: a = 1, b = 2" from an object of strings (numbers shown as text)."""
    pairs = [f"{plain(key, 60)} = {plain(value.scalar(), 120)}"
             for key, value in values.pairs(MAX_LABELS) if value.value is not None]
    return f"{title}: {', '.join(pairs)}" if pairs else ""


def period(alert: Field) -> str:
    started = when(alert.get("startsAt").opt_text())
    ended = when(alert.get("endsAt").opt_text())
    if started and ended:
        return f"From {started} to {ended}."
    return f"Since {started}." if started else ""


def links(alert: Field, names: tuple[tuple[str, str], ...]) -> str:
    found = [link(label, alert.get(key).opt_text()) for key, label in names
             if alert.get(key).present]
    return " · ".join(item for item in found if item.startswith("["))
