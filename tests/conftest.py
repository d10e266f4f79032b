"""Test setup shared by every tier: a fake AWS environment set before any model import."""
from __future__ import annotations

import os

# Models read the table prefix at import; credentials must never reach real AWS.
os.environ.update({
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
    "TABLE_PREFIX": "test-",
    # Fixed here: the chalice test client applies the dev stage's TABLE_PREFIX inside requests.
    "UPLOAD_BUCKET": "test-uploads",
    "POWERTOOLS_LOG_LEVEL": "WARNING",
    "POWERTOOLS_METRICS_NAMESPACE": "teamchat-test",
    # No X-Ray daemon here: the Tracer neither patches botocore nor opens segments.
    "POWERTOOLS_TRACE_DISABLED": "true",
    # Tests make many requests per user quickly: limits high enough never to refuse one
    # (still counted, so every request takes the limiter's path); the tests of the limits
    # lower them (tests/functional/test_rate_limits.py). Production has the defaults.
    "RATE_LIMITS": "api_by_user=1000000/60,auth_failures_by_username=1000000/1800,"
                   "auth_failures_by_ip=1000000/1800,"
                   "emails_by_recipient=1000000/86400,channels_by_user=1000000/3600",
})
# The chalice test client applies the dev stage's environment inside requests, whose
# AWS_CONFIG_FILE names the running `make run`'s moto (.local-state/aws-config, for the
# bare `chalice local`): a test must never reach it, whatever runs beside the tests.
os.environ["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"] = "true"
for _name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_SQS",
              "AWS_PROFILE"):
    os.environ.pop(_name, None)

# Bind the tables to this prefix now: models read it on first use, and the chalice test
# client applies the dev stage's environment inside each request.
from chalicelib import config

config.bound_table_prefix()

# Records each Lambda function's AWS calls for tests/unit/test_least_privilege.py.
pytest_plugins = ("tests.iam_recorder",)


import dataclasses  # (after the environment above: importing chalicelib reads it)
from collections.abc import Callable

import pytest

from chalicelib.core import feature_levels


@pytest.fixture
def advertise(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], None]:
    """`advertise(level)`: the server advertises `level` for the rest of the test, as if
    every change up to it were honoured and the next one were not: what raising (or
    lowering) the level in chalicelib/core/feature_levels.py would do."""
    def at(level: int) -> None:
        table = tuple(dataclasses.replace(change, status=feature_levels.HONOURED)
                      if change.status == feature_levels.NOT_HONOURED and
                      change.level <= level else change for change in feature_levels.CHANGES)
        cap = feature_levels.Change(level + 1, "what a test advertises", "", "",
                                    feature_levels.NOT_HONOURED)
        monkeypatch.setattr(feature_levels, "CHANGES", (*table, cap))
        assert feature_levels.advertised_level() == level
    return at
