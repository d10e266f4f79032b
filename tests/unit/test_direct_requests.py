"""DynamoDB and SQS requests signed and sent directly (aws/direct_requests.py) get the
answers and errors botocore makes of them; what the direct path does not take, botocore
still does. Their signatures: tests/unit/test_direct_signatures.py."""
from __future__ import annotations

import datetime
import functools
import http.server
import json
import threading
import uuid
from collections.abc import Iterator
from typing import Any, ClassVar

import botocore.session
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.server import ThreadedMotoServer

from chalicelib.aws import direct_requests
from chalicelib.aws.dynamodb_session import item_session
from infra.local.environment import free_port

NOW = datetime.datetime(2026, 3, 4, 5, 6, 7, tzinfo=datetime.UTC)


@pytest.fixture(autouse=True)
def no_mock_in_process(monkeypatch) -> None:
    """These tests talk to servers of their own. A moto mock left on by an earlier test
    in this process (the functional tier's, for the session) would answer instead, and
    the direct path rightly steps aside for it."""
    from moto.core.models import botocore_stubber

    monkeypatch.setattr(botocore_stubber, "enabled", False)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    port = free_port()
    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    moto.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        moto.stop()


def _clients(service: str, endpoint: str, **config: Any) -> tuple[Any, Any]:
    """A client that sends directly, and a plain botocore one."""
    options = {"region_name": "us-east-1", "endpoint_url": endpoint,
               "aws_access_key_id": "testing", "aws_secret_access_key": "testing",
               "config": Config(**config)}
    return (item_session().create_client(service, **options),
            botocore.session.get_session().create_client(service, **options))


@pytest.fixture
def sent_directly(monkeypatch) -> list[str]:
    """The requests the direct path sent (their targets)."""
    sent: list[str] = []
    original = direct_requests._send

    def spy(origin, headers, body, timeout, tls):
        sent.append(headers["X-Amz-Target"].split(".")[-1])
        return original(origin, headers, body, timeout, tls)

    monkeypatch.setattr(direct_requests, "_send", spy)
    return sent


def _without_metadata(answer: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in answer.items() if k != "ResponseMetadata"}


def _error(call: Any) -> dict[str, Any]:
    with pytest.raises(ClientError) as raised:
        call()
    return {"class": type(raised.value).__name__, "error": raised.value.response["Error"],
            "status": raised.value.response["ResponseMetadata"]["HTTPStatusCode"],
            **{k: v for k, v in raised.value.response.items()
               if k not in ("Error", "ResponseMetadata")}}


def test_dynamodb_answers_and_errors_are_botocores(server, sent_directly):
    direct, plain = _clients("dynamodb", server)
    table = f"direct-{uuid.uuid4().hex[:8]}"
    direct.create_table(TableName=table, BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}])
    item = {"k": {"S": "a"}, "n": {"N": "1"}, "text": {"S": 'ü "quoted" ✓'},
            "bin": {"B": b"\x00\xff"}, "m": {"M": {"l": {"L": [{"BOOL": True}]}}}}
    put = direct.put_item(TableName=table, Item=item, ReturnConsumedCapacity="TOTAL")
    assert put["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert put["ResponseMetadata"]["RetryAttempts"] == 0
    assert "x-amzn-requestid" in put["ResponseMetadata"]["HTTPHeaders"]
    calls = [
        lambda c: c.get_item(TableName=table, Key={"k": {"S": "a"}}, ConsistentRead=True),
        lambda c: c.query(TableName=table, KeyConditionExpression="k = :k",
                          ExpressionAttributeValues={":k": {"S": "a"}}),
        lambda c: c.update_item(TableName=table, Key={"k": {"S": "a"}},
                                UpdateExpression="ADD n :one",
                                ExpressionAttributeValues={":one": {"N": "0"}},
                                ReturnValues="ALL_NEW"),
        lambda c: c.batch_get_item(RequestItems={table: {"Keys": [{"k": {"S": "a"}}]}}),
    ]
    for call in calls:
        assert _without_metadata(call(direct)) == _without_metadata(call(plain))
    assert direct.get_item(TableName=table, Key={"k": {"S": "a"}})["Item"]["bin"] == \
        {"B": b"\x00\xff"}
    errors = [
        lambda c: c.put_item(TableName=table, Item=item,
                             ConditionExpression="attribute_not_exists(k)"),
        lambda c: c.transact_write_items(TransactItems=[{"Put": {
            "TableName": table, "Item": item,
            "ConditionExpression": "attribute_not_exists(k)"}}]),
        lambda c: c.get_item(TableName="no-such-table", Key={"k": {"S": "a"}}),
    ]
    for call in errors:
        assert _error(functools.partial(call, direct)) == _error(functools.partial(call, plain))
    refused = _error(lambda: errors[1](direct))
    assert refused["class"] == "TransactionCanceledException"
    assert refused["CancellationReasons"][0]["Code"] == "ConditionalCheckFailed"
    assert {"CreateTable", "PutItem", "GetItem", "TransactWriteItems"} <= set(sent_directly)


def test_sqs_answers_and_errors_are_botocores(server, sent_directly):
    direct, plain = _clients("sqs", server)
    url = direct.create_queue(QueueName=f"direct-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    direct.send_message(QueueUrl=url, MessageBody="ü 1", MessageAttributes={
        "kind": {"DataType": "Binary", "BinaryValue": b"\x01\x02"}})
    received = direct.receive_message(QueueUrl=url, WaitTimeSeconds=1,
                                      MessageAttributeNames=["All"])["Messages"]
    assert received[0]["Body"] == "ü 1"
    assert received[0]["MessageAttributes"]["kind"]["BinaryValue"] == b"\x01\x02"
    gone = url + "-gone"
    assert _error(lambda: direct.send_message(QueueUrl=gone, MessageBody="x")) == \
        _error(lambda: plain.send_message(QueueUrl=gone, MessageBody="x"))
    with pytest.raises(direct.exceptions.QueueDoesNotExist):
        direct.get_queue_url(QueueName="no-such-queue")
    assert {"CreateQueue", "SendMessage", "ReceiveMessage"} <= set(sent_directly)


class _Stub(http.server.BaseHTTPRequestHandler):
    """Answers each request with the next of `answers`: (status, JSON body), or None to
    close the connection without answering."""

    answers: ClassVar[list[tuple[int, dict[str, Any]] | None]] = []
    seen: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.seen.append(self.headers["X-Amz-Target"])
        answer = self.answers.pop(0)
        if answer is None:
            self.close_connection = True
            self.connection.shutdown(2)
            return
        status, body = answer
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/x-amz-json-1.0")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_: Any) -> None:
        pass


@pytest.fixture
def stub() -> Iterator[tuple[str, type[_Stub]]]:
    handler = type("Stub", (_Stub,), {"answers": [], "seen": []})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", handler
    finally:
        httpd.shutdown()
        httpd.server_close()


THROTTLED = (400, {"__type": "com.amazonaws.dynamodb.v20120810#ThrottlingException",
                   "message": "Rate exceeded"})
FOUND = (200, {"Item": {"k": {"S": "a"}}})


@pytest.mark.parametrize("first", [THROTTLED, (500, {"__type": "InternalServerError"}), None],
                         ids=["throttled", "server error", "connection closed"])
def test_what_botocore_would_retry_it_sends_again(stub, sent_directly, first):
    url, handler = stub
    handler.answers[:] = [first, FOUND]
    client, _ = _clients("dynamodb", url, retries={"mode": "standard", "max_attempts": 3})
    got = client.get_item(TableName="t", Key={"k": {"S": "a"}})
    assert got["Item"] == {"k": {"S": "a"}}
    assert handler.seen == ["DynamoDB_20120810.GetItem"] * 2 and sent_directly == ["GetItem"]


def test_an_error_botocore_would_not_retry_is_raised_at_once(stub):
    url, handler = stub
    handler.answers[:] = [(400, {"__type": "com.amazon.coral.validate#ValidationException",
                                 "message": "bad key"}), FOUND]
    client, _ = _clients("dynamodb", url, retries={"mode": "standard", "max_attempts": 3})
    with pytest.raises(ClientError) as raised:
        client.get_item(TableName="t", Key={"k": {"S": "a"}})
    assert raised.value.response["Error"] == {"Code": "ValidationException",
                                              "Message": "bad key"}
    assert len(handler.seen) == 1


def test_with_moto_mocking_in_process_botocore_sends_it(sent_directly, monkeypatch):
    from moto.core.models import botocore_stubber

    with mock_aws():
        # As the outermost mock turns it on (one inside another leaves it as it was).
        monkeypatch.setattr(botocore_stubber, "enabled", True)
        direct, _ = _clients("dynamodb", None)
        assert isinstance(direct.list_tables()["TableNames"], list)
    assert sent_directly == []


def test_through_a_proxy_botocore_sends_it(stub, sent_directly, monkeypatch):
    url, handler = stub
    handler.answers[:] = [FOUND]
    client, _ = _clients("dynamodb", "http://dynamodb.example.invalid",
                         proxies={"http": url})
    assert client.get_item(TableName="t", Key={"k": {"S": "a"}})["Item"] == FOUND[1]["Item"]
    assert sent_directly == [] and len(handler.seen) == 1


def _self_signed(directory: Any) -> tuple[str, str]:
    """A certificate for 127.0.0.1 and its key, as files."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                   .public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(NOW - datetime.timedelta(days=1))
                   .not_valid_after(datetime.datetime.now(datetime.UTC)
                                    + datetime.timedelta(days=1))
                   .add_extension(x509.SubjectAlternativeName(
                       [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None),
                                  critical=True)
                   .sign(key, hashes.SHA256()))
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return str(cert_path), str(key_path)


def test_over_tls_it_verifies_the_certificate_botocore_would(stub, sent_directly, tmp_path):
    import ssl

    _, handler = stub
    cert, key = _self_signed(tmp_path)
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cert, key)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.socket = tls.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        handler.answers[:] = [FOUND]
        secure = f"https://127.0.0.1:{httpd.server_address[1]}"
        options = {"region_name": "us-east-1", "endpoint_url": secure, "verify": cert,
                   "aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
        client = item_session().create_client("dynamodb", **options)
        assert client.get_item(TableName="t", Key={"k": {"S": "a"}})["Item"] == \
            FOUND[1]["Item"]
        assert sent_directly == ["GetItem"]
    finally:
        httpd.shutdown()
        httpd.server_close()
