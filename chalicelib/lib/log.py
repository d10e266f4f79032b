"""The structured logger and metrics shared by every handler."""
from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics

logger = Logger(service="teamchat")
metrics = Metrics(namespace="teamchat", service="teamchat")
