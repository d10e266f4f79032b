"""The structured logger shared by every handler (metrics: aws/metrics.py)."""
from __future__ import annotations

from aws_lambda_powertools import Logger

logger = Logger(service="teamchat")
