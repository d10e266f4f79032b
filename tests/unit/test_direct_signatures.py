"""The requests aws/direct_requests.py signs carry the signature botocore's SigV4Auth
would give them, byte for byte, with a session token as Lambda always has, and what it
cannot sign as botocore would goes through botocore. (It cannot be tried against AWS
from a development machine: a wrong signature would only show there, as 403s.)"""
from __future__ import annotations

import datetime
import http.server
import threading
import time
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import botocore.auth
import pytest
from botocore import UNSIGNED
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials

from chalicelib.aws import direct_requests
from chalicelib.aws.direct_requests import _Origin, signed_headers
from chalicelib.aws.dynamodb_session import item_session

NOW = datetime.datetime(2026, 3, 4, 5, 6, 7, tzinfo=datetime.UTC)
# As Lambda's: an access key, a secret with '/' and '+', a long session token.
CREDENTIALS = Credentials("ASIAEXAMPLEKEY123456", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                          "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQD+Ex/a=="
                          * 6)
# Headers SigV4Auth leaves unsigned, and so must we.
UNSIGNED_HEADERS = {"user-agent", "x-amzn-trace-id", "expect", "transfer-encoding"}


@pytest.fixture(autouse=True)
def no_mock_in_process(monkeypatch) -> None:
    """These tests talk to servers of their own. A moto mock left on by an earlier test
    in this process (the functional tier's, for the session) would answer instead, and
    the direct path rightly steps aside for it."""
    from moto.core.models import botocore_stubber

    monkeypatch.setattr(botocore_stubber, "enabled", False)


def botocores(url: str, headers: dict[str, str], body: bytes, region: str, service: str,
              at: datetime.datetime) -> dict[str, str]:
    """The headers botocore's SigV4Auth adds to this request at this time."""
    request = AWSRequest(method="POST", url=url, data=body, headers=dict(headers))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(botocore.auth, "get_current_datetime", lambda: at.replace(tzinfo=None))
        botocore.auth.SigV4Auth(CREDENTIALS, service, region).add_auth(request)
    return dict(request.headers.items())


def ours(url: str, headers: dict[str, str], body: bytes, region: str, service: str,
         at: datetime.datetime) -> dict[str, str]:
    return signed_headers(_Origin(url, region, service), headers, body,
                          CREDENTIALS.get_frozen_credentials(), at.timestamp())


def signed_names(authorization: str) -> list[str]:
    return authorization.split("SignedHeaders=")[1].split(",", maxsplit=1)[0].split(";")


GET_ITEM = {"X-Amz-Target": "DynamoDB_20120810.GetItem",
            "Content-Type": "application/x-amz-json-1.0",
            "User-Agent": "teamchat", "X-Odd": "  spaced   value "}


@pytest.mark.parametrize("url", ["https://dynamodb.us-east-1.amazonaws.com/",
                                 "https://dynamodb.us-east-1.amazonaws.com:443/",
                                 "https://sqs.eu-west-1.amazonaws.com",
                                 "http://127.0.0.1:4566/", "http://[::1]:8000/"])
@pytest.mark.parametrize("body", [
    b'{"TableName": "t", "Key": {"k": {"S": "a  b"}}}',
    '{"TableName": "t", "Key": {"k": {"S": "ü ✓ 😀 \u2028"}}}'.encode(),   # raw UTF-8
    b""], ids=["ascii", "utf-8", "empty"])
def test_the_signature_is_botocores(url, body):
    theirs = botocores(url, GET_ITEM, body, "eu-west-1", "dynamodb", NOW)
    mine = ours(url, GET_ITEM, body, "eu-west-1", "dynamodb", NOW)
    for name in ("X-Amz-Date", "X-Amz-Security-Token", "Authorization"):
        assert mine[name] == theirs[name], name
    assert "x-amz-security-token" in signed_names(mine["Authorization"])


def test_the_days_kept_key_is_the_day_of_each_request(monkeypatch):
    # GIVEN keys kept from earlier requests
    monkeypatch.setattr(direct_requests, "_signing_keys", {})
    url = "https://dynamodb.us-east-1.amazonaws.com/"
    body = b'{"TableName": "t"}'
    before = datetime.datetime(2026, 3, 4, 23, 59, 59, 999_000, tzinfo=datetime.UTC)
    times = [before, before + datetime.timedelta(milliseconds=1),
             before + datetime.timedelta(hours=1), before]
    # WHEN requests are signed each side of midnight (UTC) and back
    for at in times:
        mine = ours(url, GET_ITEM, body, "us-east-1", "dynamodb", at)
        # THEN each carries the signature botocore gives it at that time
        assert mine["Authorization"] == \
            botocores(url, GET_ITEM, body, "us-east-1", "dynamodb", at)["Authorization"]
    assert [key[1] for key in direct_requests._signing_keys] == ["20260304", "20260305"]


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Records each request (path, headers, body) and answers an empty JSON object."""

    seen: list[tuple[str, dict[str, str], bytes]]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.seen.append((self.path, dict(self.headers.items()), body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-amz-json-1.0")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *_: Any) -> None:
        pass


@dataclass
class Wire:
    url: str
    seen: list[tuple[str, dict[str, str], bytes]]


@pytest.fixture
def wire(monkeypatch) -> Iterator[Wire]:
    """A server recording what reaches it, with the clocks of both signers at NOW."""
    monkeypatch.setattr(botocore.auth, "get_current_datetime",
                        lambda: NOW.replace(tzinfo=None))
    monkeypatch.setattr(direct_requests, "time", types.SimpleNamespace(
        time=NOW.timestamp, gmtime=time.gmtime, strftime=time.strftime))
    handler = type("Recorder", (_Recorder,), {"seen": []})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield Wire(f"http://127.0.0.1:{httpd.server_address[1]}", handler.seen)
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def sent_directly(monkeypatch) -> list[str]:
    sent: list[str] = []
    original = direct_requests._send

    def spy(origin, headers, body, timeout, tls):
        sent.append(headers["X-Amz-Target"].split(".")[-1])
        return original(origin, headers, body, timeout, tls)

    monkeypatch.setattr(direct_requests, "_send", spy)
    return sent


def client(monkeypatch, service: str, url: str, direct: bool, **config: Any) -> Any:
    """A client of the app's session, sending directly or (DIRECT_AWS_REQUESTS=off) not."""
    with monkeypatch.context() as patch:
        if not direct:
            patch.setenv("DIRECT_AWS_REQUESTS", "off")
        return item_session().create_client(
            service, region_name="eu-west-1", endpoint_url=url,
            aws_access_key_id=CREDENTIALS.access_key,
            aws_secret_access_key=CREDENTIALS.secret_key,
            aws_session_token=CREDENTIALS.token, config=Config(**config))


TEXT = 'ü "quoted"  ✓ 😀 \u2028 \\ end'
CALLS: dict[str, Callable[[Any, str], Any]] = {
    "dynamodb GetItem": lambda c, _: c.get_item(
        TableName="t", Key={"k": {"S": TEXT}}, ConsistentRead=True),
    "dynamodb PutItem, binary": lambda c, _: c.put_item(
        TableName="t", Item={"k": {"S": TEXT}, "b": {"B": b"\x00\xff"}}),
    "dynamodb Query": lambda c, _: c.query(
        TableName="t", KeyConditionExpression="k = :k",
        ExpressionAttributeValues={":k": {"S": TEXT}}, Limit=5),
    "dynamodb TransactWriteItems": lambda c, _: c.transact_write_items(TransactItems=[
        {"Update": {"TableName": "t", "Key": {"k": {"S": "a"}}, "UpdateExpression": "SET n = :n",
                    "ExpressionAttributeValues": {":n": {"N": "1"}}}}],
        ClientRequestToken="same-token"),
    "sqs SendMessage": lambda c, url: c.send_message(QueueUrl=url + "/1/q", MessageBody=TEXT),
    "sqs ReceiveMessage": lambda c, url: c.receive_message(
        QueueUrl=url + "/1/q", WaitTimeSeconds=0, MaxNumberOfMessages=10,
        VisibilityTimeout=43200),
    "sqs SendMessageBatch": lambda c, url: c.send_message_batch(
        QueueUrl=url + "/1/q", Entries=[{"Id": "1", "MessageBody": TEXT}]),
}


@pytest.mark.parametrize("call", CALLS)
def test_a_request_sent_directly_is_signed_as_botocore_signs_it(monkeypatch, wire,
                                                                 sent_directly, call):
    service = call.split()[0]
    # WHEN the same call goes out directly, then through botocore's pipeline
    CALLS[call](client(monkeypatch, service, wire.url, direct=True), wire.url)
    CALLS[call](client(monkeypatch, service, wire.url, direct=False), wire.url)
    assert sent_directly == [call.split()[1].rstrip(",")]
    (path, direct, body), (botocore_path, plain, botocore_body) = wire.seen
    # THEN the same body reached the same path, with the same signature and token
    assert (path, body) == (botocore_path, botocore_body) == ("/", botocore_body)
    assert direct["Authorization"] == plain["Authorization"]
    assert direct["X-Amz-Security-Token"] == plain["X-Amz-Security-Token"] == CREDENTIALS.token
    names = signed_names(direct["Authorization"])
    assert {"host", "x-amz-date", "x-amz-security-token", "x-amz-target"} <= set(names)
    assert not set(names) & UNSIGNED_HEADERS
    lowered = {name.lower(): value for name, value in direct.items()}
    assert {name: lowered[name] for name in names} == \
        {name: {n.lower(): v for n, v in plain.items()}[name] for name in names}
    # AND botocore's SigV4Auth, given the request as it arrived, signs it the same
    unsigned = {"authorization", "x-amz-date", "x-amz-security-token", "content-length",
                "accept-encoding"}
    arrived = {name: value for name, value in direct.items() if name.lower() not in unsigned}
    assert botocores(wire.url + path, arrived, body, "eu-west-1", service,
                     NOW)["Authorization"] == direct["Authorization"]


@pytest.mark.parametrize("endpoint, config", [
    ("{url}/?stage=blue", {}),                  # botocore signs and sends the query
    ("{url}/prefix", {}),                       # and the path
    ("{url}", {"signature_version": UNSIGNED}),   # not signed at all
    ("{url}", {"signature_version": "s3v4"}),     # another signer
], ids=["query", "path", "unsigned", "other signature"])
def test_what_it_would_not_sign_as_botocore_does_botocore_sends(
        monkeypatch, wire, sent_directly, endpoint, config):
    url = endpoint.format(url=wire.url)
    CALLS["dynamodb GetItem"](client(monkeypatch, "dynamodb", url, True, **config), url)
    CALLS["dynamodb GetItem"](client(monkeypatch, "dynamodb", url, False, **config), url)
    assert sent_directly == []
    (path, direct, body), (botocore_path, plain, botocore_body) = wire.seen
    assert (path, body, direct.get("Authorization")) == \
        (botocore_path, botocore_body, plain.get("Authorization"))


def test_the_environment_switch_turns_the_direct_path_off(monkeypatch, wire, sent_directly):
    monkeypatch.setenv("DIRECT_AWS_REQUESTS", "off")
    for service, call in (("dynamodb", "dynamodb GetItem"), ("sqs", "sqs SendMessage")):
        CALLS[call](item_session().create_client(
            service, region_name="eu-west-1", endpoint_url=wire.url,
            aws_access_key_id="a", aws_secret_access_key="b"), wire.url)
    assert sent_directly == [] and len(wire.seen) == 2
