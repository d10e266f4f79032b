"""A botocore session made for DynamoDB and SQS: its DynamoDB clients read item answers
and write item requests without walking the service model when they can
(aws/item_answers.py, aws/item_requests.py), its DynamoDB and SQS clients sign and send
their requests directly (aws/direct_requests.py), with the default client config
(aws/client_config.py), and they stop reading for a request whose time is spent
(aws/deadline.py).

PynamoDB's connections use one per thread (models/sessions.py); the shared clients for
PartiQL batches and SQS one each (aws/aws_clients.py).
"""
from __future__ import annotations

from typing import Any

import botocore.session

from chalicelib.aws.client_config import client_config
from chalicelib.aws.deadline import install_read_deadline
from chalicelib.aws.direct_requests import install_direct_requests
from chalicelib.aws.item_answers import ItemAnswerParsers
from chalicelib.aws.item_requests import install_item_requests


def item_session(env_vars: dict[str, Any] | None = None) -> botocore.session.Session:
    session = botocore.session.get_session(env_vars)
    session.register_component("response_parser_factory", ItemAnswerParsers())
    install_item_requests(session)
    install_direct_requests(session)
    install_read_deadline(session)   # a request past its deadline reads no more
    session.set_default_client_config(client_config())   # merged with a client's own
    return session
