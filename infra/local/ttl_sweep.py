"""Deletes expired TTL items locally, since moto never does (AWS does within ~48 h).

A Scan is right here: this is the local stack's housekeeping, not a request path.
"""
from __future__ import annotations

import threading
import time

import boto3

from infra.resources import table_definitions


def sweep_once(prefix: str) -> int:
    dynamodb = boto3.client("dynamodb")
    deleted = 0
    now = int(time.time())
    for definition in table_definitions(prefix).values():
        ttl_attribute = definition.get("_ttl")
        if not ttl_attribute:
            continue
        key_names = [k["AttributeName"] for k in definition["KeySchema"]]
        paginator = dynamodb.get_paginator("scan")
        for page in paginator.paginate(
                TableName=definition["TableName"],
                FilterExpression="#ttl < :now",
                ExpressionAttributeNames={"#ttl": ttl_attribute},
                ExpressionAttributeValues={":now": {"N": str(now)}}):
            for item in page["Items"]:
                dynamodb.delete_item(TableName=definition["TableName"],
                                     Key={k: item[k] for k in key_names})
                deleted += 1
    return deleted


def start_sweeper(prefix: str, stop: threading.Event, every_seconds: float = 60) -> threading.Thread:
    def run() -> None:
        while not stop.wait(every_seconds):
            sweep_once(prefix)

    thread = threading.Thread(target=run, name="ttl-sweeper", daemon=True)
    thread.start()
    return thread
