"""PynamoDB's connections share one botocore session per thread and one loader."""
from __future__ import annotations

import threading

from pynamodb.connection import Connection

from chalicelib.models import base, sessions  # noqa: F401  (base installs the sessions)


def test_connections_of_one_thread_share_a_session_and_threads_do_not():
    first, second = Connection(region="us-east-1"), Connection(region="us-east-1")
    assert first.session is second.session
    other: list = []
    thread = threading.Thread(target=lambda: other.append(Connection(region="us-east-1").session))
    thread.start()
    thread.join()
    assert other[0] is not first.session
    loader = first.session.get_component("data_loader")
    assert other[0].get_component("data_loader") is loader


def test_every_botocore_session_shares_one_loader():
    import botocore.session

    first, second = botocore.session.get_session(), botocore.session.get_session()
    assert first.get_component("data_loader") is second.get_component("data_loader")
