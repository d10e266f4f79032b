"""The shared boto3 clients pool a connection for every thread that calls them at once."""
from chalicelib.events.slices import APPEND_WORKERS
from chalicelib.lib import aws_clients


def test_the_fanouts_threads_each_keep_a_pooled_connection(monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    for client in (aws_clients.dynamodb(), aws_clients.sqs()):
        # botocore opens and drops a connection per call beyond its pool (10 by default)
        assert client.meta.config.max_pool_connections >= APPEND_WORKERS
