"""boto3 clients, one per service and process: building a client costs ~0.1 s."""
from __future__ import annotations

import functools
from typing import Any

import boto3

from chalicelib import config


@functools.cache
def client(service: str) -> Any:
    return boto3.client(service, region_name=config.region())


@functools.cache
def queue_url(queue_name: str) -> str:
    """A queue's URL, looked up once per process (it never changes for a name)."""
    return str(client("sqs").get_queue_url(QueueName=queue_name)["QueueUrl"])
