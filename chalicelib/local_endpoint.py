"""Where a running `make run` serves moto: its endpoint file (`.local-state/endpoint.json`),
read by the admin CLI and by chalice local, and pointing boto3 at that stack."""
from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path
from typing import Any


def _state_dir() -> Path:
    return Path(os.environ.get("LOCAL_STATE_DIR", Path(__file__).resolve().parents[1]
                               / ".local-state"))


def stack_endpoint(state_dir: Path | None = None, *, answering: bool = False,
                   ) -> dict[str, Any] | None:
    """What `make run` wrote into its endpoint file; None without one, or (`answering`)
    when its moto does not answer (a killed stack leaves the file behind)."""
    path = (state_dir or _state_dir()) / "endpoint.json"
    if not path.exists():
        return None
    endpoint = dict(json.loads(path.read_text()))
    if answering:
        try:
            # The local stack's own moto on loopback, from the file the stack wrote.
            urllib.request.urlopen(  # nosec B310 # an http URL of our own local stack
                endpoint["aws_endpoint_url"] + "/moto-api/", timeout=2)
        except OSError:
            return None
    return endpoint


LOCAL_CREDENTIAL = "local"   # what the local stack's moto is given for any credential


def use_stack(endpoint: dict[str, Any]) -> None:
    """Points boto3 and the models at the stack's moto (before any model is imported),
    and links to stored files at the stack's server, signed with its secret as the stack
    signs them (infra/local/object_links.py checks them)."""
    os.environ.update({
        "AWS_ENDPOINT_URL": endpoint["aws_endpoint_url"],
        "TABLE_PREFIX": endpoint["table_prefix"],
        "AWS_DEFAULT_REGION": endpoint["region"],
        # moto takes any credentials; these name no AWS account.
        "AWS_ACCESS_KEY_ID": LOCAL_CREDENTIAL,
        "AWS_SECRET_ACCESS_KEY": endpoint.get("aws_secret_access_key", LOCAL_CREDENTIAL),
        "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
        "S3_LINK_ENDPOINT_URL": endpoint["api_url"],
    })
    # A caller that set this (the test suite does) would otherwise still reach AWS.
    os.environ.pop("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", None)
