"""boto3 clients, one per service and process: building a client costs ~0.1 s.

Typed with boto3-stubs (a development requirement; at run time the names are strings)."""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import boto3

from chalicelib import config
from chalicelib.aws.client_config import SHARED_POOL_CONNECTIONS, client_config
from chalicelib.aws.dynamodb_session import item_session

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_ses import SESClient
    from mypy_boto3_sns import SNSClient
    from mypy_boto3_sqs import SQSClient


# The fan-out calls these from its append threads at once (and the slices' threads).
_SHARED = client_config(max_pool_connections=SHARED_POOL_CONNECTIONS)


@functools.cache
def dynamodb() -> DynamoDBClient:
    """For what PynamoDB does not model (PartiQL batches); endpoints as PynamoDB's, and
    the same shortcuts for item requests and answers (aws/dynamodb_session.py)."""
    return boto3.session.Session(botocore_session=item_session()).client(
        "dynamodb", region_name=config.region(), config=_SHARED)


@functools.cache
def s3() -> S3Client:
    return boto3.client("s3", region_name=config.region(), config=client_config())


def presigned_get_url(key: str, seconds: int, **params: str) -> str:
    """A link that lets whoever holds it read a file of the uploads bucket for `seconds`
    (params: S3's response overrides, e.g. ResponseContentDisposition). On AWS, an S3
    presigned URL, signed with Signature Version 4 on the region's own host: botocore
    presigns with the legacy version 2 by default, which S3 refuses for buckets created
    since June 2020. Where S3_LINK_ENDPOINT_URL is set (the local stack: its API's
    address, which hands such paths to the object store, infra/local/object_links.py),
    signed for that address instead. Signing makes no request. With temporary
    credentials (a Lambda's role) a link ends when they do, at the latest."""
    return _link_signer(config.s3_link_endpoint(), config.region()).generate_presigned_url(
        "get_object", ExpiresIn=seconds,
        Params={"Bucket": config.upload_bucket(), "Key": key, **params})


@functools.cache
def _link_signer(endpoint: str | None, region: str) -> S3Client:
    # Locally the bucket goes in the path, which the stack's server recognizes.
    style = "virtual" if endpoint is None else "path"
    return boto3.client("s3", region_name=region, endpoint_url=endpoint,
                        config=client_config(signature_version="s3v4",
                                             s3={"addressing_style": style}))


@functools.cache
def sqs() -> SQSClient:
    """Sends its requests directly, as the DynamoDB clients (aws/dynamodb_session.py)."""
    return boto3.session.Session(botocore_session=item_session()).client(
        "sqs", region_name=config.region(), config=_SHARED)


@functools.cache
def ses() -> SESClient:
    return boto3.client("ses", region_name=config.region(), config=client_config())


@functools.cache
def sns() -> SNSClient:
    return boto3.client("sns", region_name=config.region(), config=client_config())


@functools.cache
def lambda_invoker() -> Any:   # a botocore Lambda client (no stubs installed for it)
    """Synchronous invocations (the fan-out's slices): no retries, since the caller
    decides what a failed slice means, and a read timeout within the function's 60 s."""
    return boto3.client("lambda", region_name=config.region(),
                        config=client_config(read_timeout=50,
                                             retries={"total_max_attempts": 1}))


@functools.cache
def queue_url(queue_name: str) -> str:
    """A queue's URL, looked up once per process (it never changes for a name)."""
    return sqs().get_queue_url(QueueName=queue_name)["QueueUrl"]
