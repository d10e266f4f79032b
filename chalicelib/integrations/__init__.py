"""Incoming integrations: one module per tool, each a translator from the tool's
payload to messages (topic and Markdown), and the registry the shared machinery reads
(actions/messages/incoming_webhooks.py: authentication, target, filters, errors, send).

Pure: no storage, no network. A new integration is a module with an `INTEGRATION` and a
line below; docs/integrations/<name>.md describes it.
"""
from __future__ import annotations

from chalicelib.integrations import (
    alertmanager,
    generic_json,
    github,
    gitlab,
    grafana,
    sentry,
    slack_incoming,
)
from chalicelib.integrations.base import Integration

INTEGRATIONS: dict[str, Integration] = {
    module.INTEGRATION.name: module.INTEGRATION
    for module in (alertmanager, github, gitlab, grafana, generic_json, sentry, slack_incoming)
}


def find_integration(name: str) -> Integration | None:
    return INTEGRATIONS.get(name)
