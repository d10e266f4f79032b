"""The configuration every botocore client of the service starts from.

A fixed User-Agent header: without one, botocore builds the header from a dozen
components (SDK, OS, language, execution environment, the features a call used) twice
per request, 25 µs each time; with one it copies a string. That was 4 % of the API
process's CPU under `make load`. What is lost is AWS's count of which SDK features the
calls used.
"""
from __future__ import annotations

from typing import Any

from botocore.config import Config

USER_AGENT = "teamchat"   # boto3's clients add their SDK's name and version
# For a client that many threads call at once (the fan-out's 16 append threads): beyond
# botocore's default 10, each call opened a connection and dropped it after.
SHARED_POOL_CONNECTIONS = 48


def client_config(**options: Any) -> Config:
    return Config(user_agent=USER_AGENT, **options)
