"""Runs the official zulip-botserver with its API client adapted to this server's naming.

The botserver builds a plain `zulip.Client`, which requires the branded version fields;
the one adaptation lives in tests/e2e/service_client.py and is swapped in here.
Usage: python -m tests.e2e.run_botserver --config-file RC --hostname H --port P
"""
from __future__ import annotations

import sys

from zulip_botserver import server

from tests.e2e.service_client import ServiceClient

server.Client = ServiceClient  # type: ignore[misc]

if __name__ == "__main__":
    sys.exit(server.main())
