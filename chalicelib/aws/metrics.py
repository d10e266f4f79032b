"""The application's CloudWatch metrics (powertools EMF): their names, namespace and units.

Two ways to publish, both printed as EMF JSON lines that CloudWatch Logs turns into
metrics (docs/operations.md lists them):
- `count(...)` / `count_*`: one metric with its own dimensions, published at once
  (powertools `single_metric`). For what happens inside a request or a record (a message
  sent, a 5xx answer, a rate-limit hit, a webhook outcome): nothing to flush, and
  concurrent requests in one process never share a pending set.
- `collector`: the per-invocation set of a batch handler (fan-out, notifier), dimension
  `service`; the handler adds to it and calls `flush()` once per invocation, in a
  `finally`.
The namespace is read when a metric is published (`POWERTOOLS_METRICS_NAMESPACE`, default
`teamchat`), so tests and the local stack can set their own.
"""
from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from aws_lambda_powertools import Metrics
from aws_lambda_powertools.metrics import MetricUnit, single_metric
from aws_lambda_powertools.metrics.functions import is_metrics_disabled

from chalicelib import config

SERVICE = "teamchat"

# Names (one place; the template's dashboard and docs/operations.md use the same).
MESSAGES_SENT = "MessagesSent"            # per message sent; dimension `type`
EVENTS_DELIVERED = "EventsDelivered"      # per fan-out batch: event items appended to queues
FANOUT_DELAY = "FanoutDelay"              # per fan-out batch: oldest record's age (ms)
WEBHOOK_DELIVERIES = "WebhookDeliveries"  # per job attempt; dimension `outcome`
SERVER_ERRORS = "ServerErrors"            # per 5xx answer of the REST API; dimension `status`
RATE_LIMIT_HITS = "RateLimitHit"          # per refused request; dimension `rule`
MISSED_MESSAGE_EMAILS = "MissedMessageEmails"
PUSH_NOTIFICATIONS = "PushNotifications"

WebhookOutcome = Literal["success", "failure", "retry"]
MessageKind = Literal["channel", "direct"]

collector = Metrics(service=SERVICE, namespace="teamchat")


def count(name: str, value: float = 1, unit: MetricUnit = MetricUnit.Count,
          **dimensions: str) -> None:
    """Publishes one metric now, with these dimensions."""
    if is_metrics_disabled():   # single_metric prints whatever the setting says
        return
    with single_metric(name=name, unit=unit, value=value,
                       namespace=config.metrics_namespace()) as metric:
        for key, dimension in dimensions.items():
            metric.add_dimension(name=key, value=dimension)


def flush() -> None:
    """Publishes the collector's pending metrics (once per handler invocation)."""
    collector.provider.namespace = config.metrics_namespace()
    collector.flush_metrics()


def count_message_sent(kind: MessageKind) -> None:
    count(MESSAGES_SENT, type=kind)


def count_webhook_outcome(outcome: WebhookOutcome) -> None:
    count(WEBHOOK_DELIVERIES, outcome=outcome)


def count_server_error(status: int) -> None:
    count(SERVER_ERRORS, status=str(status))


def count_rate_limit_hit(rule: str) -> None:
    count(RATE_LIMIT_HITS, rule=rule)


def add_events_delivered(appended: int) -> None:
    collector.add_metric(name=EVENTS_DELIVERED, unit=MetricUnit.Count, value=appended)


def add_fanout_delay(records: Iterable[Mapping[str, Any]], now: float | None = None) -> None:
    """The age of the batch's oldest stream record (its `ApproximateCreationDateTime`,
    epoch seconds, DynamoDB's commit time) when the fan-out is done with the batch: how
    long the slowest event of the batch took from its write to the clients' queues."""
    created = [r.get("dynamodb", {}).get("ApproximateCreationDateTime") for r in records]
    times = [float(t) for t in created if isinstance(t, (int, float))]
    if not times:
        return
    now = time.time() if now is None else now
    delay_ms = max(0.0, (now - min(times)) * 1000)
    collector.add_metric(name=FANOUT_DELAY, unit=MetricUnit.Milliseconds,
                         value=round(delay_ms))
