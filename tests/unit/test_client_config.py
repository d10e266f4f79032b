"""The service's botocore clients: pooled connections for the threads that share them,
and a fixed User-Agent (chalicelib/aws/client_config.py)."""
from chalicelib.aws import aws_clients
from chalicelib.aws.client_config import USER_AGENT
from chalicelib.fanout.slices import APPEND_WORKERS


def test_the_fanouts_threads_each_keep_a_pooled_connection(monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    from chalicelib.delivery import push

    for client in (aws_clients.dynamodb(), aws_clients.sqs(),
                   push._client("https://example.execute-api.us-east-1.amazonaws.com/x")):
        # botocore opens and drops a connection per call beyond its pool (10 by default)
        assert client.meta.config.max_pool_connections >= APPEND_WORKERS


def test_every_client_sends_the_fixed_user_agent(monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    from chalicelib.models.events import EventQueue

    pynamodb_client = EventQueue._get_connection().connection.client
    for client in (aws_clients.dynamodb(), aws_clients.sqs(), aws_clients.s3(),
                   pynamodb_client):
        assert client.meta.config.user_agent.split()[0] == USER_AGENT
