"""Functional tier: the app through chalice.test.Client on in-process moto.

Every response `call_api` returns and every event the fan-out delivers is checked against
the OpenAPI document generated from the code (tests/contract.py).
"""
from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import pytest
from chalice.test import Client
from moto import mock_aws

from infra import moto_patches
from infra.local.stream_drain import OutboxDrain
from infra.resources import create_all
from tests.contract import ContractChecker, ContractError
from tests.reference_contract import check_reference_event, check_reference_response

_realm_numbers = itertools.count(1)
# Set when the app is loaded: the generated document's checker, and what it found in
# events, which the fan-out reports as failed records rather than raising.
CONTRACT: list[ContractChecker] = []
EVENT_DRIFT: list[str] = []


@pytest.fixture(scope="session")
def aws() -> Iterator[None]:
    moto_patches.apply()
    with mock_aws():
        create_all("test-")
        import boto3

        from chalicelib import config

        boto3.client("s3", region_name="us-east-1").create_bucket(
            Bucket=config.upload_bucket())
        boto3.client("ses", region_name="us-east-1").verify_email_identity(
            EmailAddress="noreply@localhost")
        yield


@pytest.fixture(scope="session")
def chalice_client(aws: None) -> Iterator[Client]:
    from app import app
    from chalicelib.fanout import slices
    from chalicelib.http.openapi import openapi_document

    checker = ContractChecker(openapi_document(app))
    CONTRACT.append(checker)
    append = slices.append

    def checked_append(queue: Any, items: list[Any]) -> Any:
        for item in items:
            form = item.shown if item.shown is not None else item.stored
            try:
                checker.check_event(form, f"event {form.get('type')}/{form.get('op')}")
            except ContractError as error:
                EVENT_DRIFT.append(str(error))
        return append(queue, items)

    slices.append = checked_append
    try:
        with Client(app) as client:
            yield client
    finally:
        slices.append = append
        CONTRACT.clear()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "handmade_events: the test writes outbox records of "
                                       "its own making, which no contract describes")


@pytest.fixture(autouse=True)
def _events_match_contract(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fails the test whose actions produced an event the document does not allow."""
    EVENT_DRIFT.clear()
    yield
    drift, EVENT_DRIFT[:] = list(EVENT_DRIFT), []
    if request.node.get_closest_marker("handmade_events") is None:
        assert not drift, "\n".join(drift)


def check_contract(method: str, url: str, response: Any) -> None:
    if CONTRACT:
        CONTRACT[0].check_response(method, url, response.status_code, response.body or b"",
                                   dict(response.headers).get("Content-Type", ""))
    # The reference's own schemas, objects closed, for the operations and events
    # tests/reference_contract.py lists.
    check_reference_response(method, url, response.status_code, response.body or b"")
    if method == "GET" and url.startswith("/api/v1/events?") and response.status_code == 200:
        for event in json.loads(response.body).get("events", []):
            check_reference_event(event, f"event {event.get('type')}/{event.get('op')}")


@dataclass
class ApiResponse:
    status: int
    json: dict[str, Any]
    headers: dict[str, str]

    @property
    def ok(self) -> bool:
        return self.status == 200 and self.json.get("result") == "success"


def encode_params(params: dict[str, Any]) -> str:
    """Form-encode like the official client: JSON inside the value for non-strings."""
    return urlencode({k: v if isinstance(v, str) else json.dumps(v)
                      for k, v in params.items()})


@dataclass
class Account:
    """A user or bot of a test realm, able to call the API as itself."""

    client: Client
    realm_id: int
    user_id: int
    email: str
    api_key: str
    full_name: str
    role: int

    def auth_header(self) -> dict[str, str]:
        token = base64.b64encode(f"{self.email}:{self.api_key}".encode()).decode()
        return {"Authorization": f"Basic {token}"}

    def call(self, method: str, path: str, params: dict[str, Any] | None = None,
             headers: dict[str, str] | None = None) -> ApiResponse:
        return call_api(self.client, method, path, params,
                        {**self.auth_header(), **(headers or {})})

    def get(self, path: str, params: dict[str, Any] | None = None) -> ApiResponse:
        return self.call("GET", path, params)

    def post(self, path: str, params: dict[str, Any] | None = None) -> ApiResponse:
        return self.call("POST", path, params)

    def patch(self, path: str, params: dict[str, Any] | None = None) -> ApiResponse:
        return self.call("PATCH", path, params)

    def delete(self, path: str, params: dict[str, Any] | None = None) -> ApiResponse:
        return self.call("DELETE", path, params)

    def put(self, path: str, params: dict[str, Any] | None = None) -> ApiResponse:
        return self.call("PUT", path, params)

    def upload(self, files: list[tuple[str, str, bytes]],
               path: str = "/user_uploads", content_type: str = "text/plain") -> ApiResponse:
        """POST `path` as multipart/form-data; files are (field, filename, bytes), each
        declared as `content_type`."""
        boundary = "teamchat-test-boundary"
        parts = [(f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; '
                  f'filename="{name}"\r\nContent-Type: {content_type}\r\n\r\n').encode()
                 + data + b"\r\n" for field, name, data in files]
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        response = self.client.http.request(
            "POST", "/api/v1" + path, body=body, headers={
                **self.auth_header(),
                "Content-Type": f"multipart/form-data; boundary={boundary}"})
        check_contract("POST", "/api/v1" + path, response)
        return ApiResponse(response.status_code, json.loads(response.body or b"{}"),
                           dict(response.headers))


def call_api(client: Client, method: str, path: str, params: dict[str, Any] | None = None,
             headers: dict[str, str] | None = None) -> ApiResponse:
    url = "/api/v1" + path
    body = b""
    headers = dict(headers or {})
    if params:
        encoded = encode_params(params)
        if method == "GET":
            url += "?" + encoded
        else:
            body = encoded.encode()
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
    response = client.http.request(method, url, headers=headers, body=body)
    check_contract(method, url, response)
    try:
        payload = json.loads(response.body or b"{}")
    except ValueError:
        payload = {"raw": response.body.decode(errors="replace")}
    return ApiResponse(response.status_code, payload, dict(response.headers))


@dataclass
class TestRealm:
    realm_id: int
    subdomain: str
    owner: Account
    admin: Account
    moderator: Account
    member: Account
    guest: Account
    client: Client
    extra: list[Account] = field(default_factory=list)

    def add_user(self, full_name: str, role: int = 400, is_bot: bool = False) -> Account:
        from chalicelib.actions.users.users import NewUser, do_create_user

        slug = full_name.lower().replace(" ", ".")
        email = f"{slug}.{len(self.extra)}@{self.subdomain}.example.com"
        user, api_key = do_create_user(self.realm_id, NewUser(
            email=email, full_name=full_name, role=role, is_bot=is_bot,
            bot_type=1 if is_bot else None,
            bot_owner_id=self.owner.user_id if is_bot else None))
        account = Account(self.client, self.realm_id, user.user_id, email, api_key,
                          full_name, role)
        self.extra.append(account)
        return account


@pytest.fixture
def realm(chalice_client: Client) -> TestRealm:
    """A fresh organization with one account of each role."""
    return make_realm(chalice_client)


def make_realm(chalice_client: Client) -> TestRealm:
    from chalicelib.actions.users.users import NewUser, do_create_user
    from chalicelib.actions.workflows.realms import do_create_realm

    number = next(_realm_numbers)
    subdomain = f"zt{number}"
    domain = f"{subdomain}.example.com"
    # Gravatar, as an organization made before level 456 keeps (the URLs tests expect);
    # tests/functional/test_generated_avatars.py covers a new organization's default.
    realm_obj, owner_id, owner_key = do_create_realm(
        f"Test org {number}", subdomain, NewUser(email=f"owner@{domain}", full_name="Olivia Owner",
                                                 role=100), avatar_source="G")
    accounts = {"owner": Account(chalice_client, realm_obj.realm_id, owner_id,
                                 f"owner@{domain}", owner_key, "Olivia Owner", 100)}
    for label, name, role in (("admin", "Adam Admin", 200), ("moderator", "Mona Moderator", 300),
                              ("member", "Max Member", 400), ("guest", "Gus Guest", 600)):
        user, key = do_create_user(realm_obj.realm_id, NewUser(
            email=f"{label}@{domain}", full_name=name, role=role))
        accounts[label] = Account(chalice_client, realm_obj.realm_id, user.user_id,
                                  f"{label}@{domain}", key, name, role)
    return TestRealm(realm_obj.realm_id, subdomain, client=chalice_client, **accounts)


@pytest.fixture
def anonymous(chalice_client: Client):
    def call(method: str, path: str, params: dict[str, Any] | None = None,
             headers: dict[str, str] | None = None) -> ApiResponse:
        return call_api(chalice_client, method, path, params, headers)
    return call


@pytest.fixture(scope="session")
def _outbox_drain(aws: None) -> OutboxDrain:
    return OutboxDrain()


@pytest.fixture
def drain_events(_outbox_drain: OutboxDrain) -> OutboxDrain:
    """Call it to deliver every committed event to the event queues.

    Records committed before the test asked for it (by earlier tests, or by this test's
    own fixtures) are fanned out first: the fan-out also writes recipients' read state,
    which a test's setup may rely on."""
    _outbox_drain()
    return _outbox_drain


def sent_emails(to: str) -> list[dict[str, Any]]:
    """What moto's SES delivered to this address: subject and text body."""
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.ses.models import ses_backends

    backend = ses_backends[DEFAULT_ACCOUNT_ID]["us-east-1"]
    # Raw messages (missed-message email) are read with notification_helpers.sent_mail.
    return [{"subject": m.subject, "body": m.body} for m in backend.sent_messages
            if isinstance(m.destinations, dict)
            and to in m.destinations.get("ToAddresses", [])]


def stream_record(outbox: Any, sequence_number: int, event_name: str = "INSERT"
                  ) -> dict[str, Any]:
    """A DynamoDB stream record (as Lambda receives it) for an Outbox item."""
    from chalicelib.fanout.batch import OUTBOX_STREAM_ARN_PLACEHOLDER

    image = outbox.serialize()
    return {
        "eventID": f"synthetic-{sequence_number}", "eventName": event_name,
        "eventVersion": "1.1", "eventSource": "aws:dynamodb", "awsRegion": "us-east-1",
        "eventSourceARN": OUTBOX_STREAM_ARN_PLACEHOLDER,
        "dynamodb": {"ApproximateCreationDateTime": 1700000000.0,
                     "Keys": {"outbox_id": image["outbox_id"]}, "NewImage": image,
                     "SequenceNumber": str(sequence_number), "SizeBytes": 200,
                     "StreamViewType": "NEW_IMAGE"},
    }


@pytest.fixture
def register_queue():
    """POST /register as an account; returns the response body."""
    def register(account: Account, **params: Any) -> dict[str, Any]:
        response = account.post("/register", params)
        assert response.ok, response.json
        return response.json
    return register


@pytest.fixture
def fetch_events():
    """The events of a queue after last_event_id, via GET /events with dont_block."""
    def fetch(account: Account, queue_id: str, last_event_id: int = -1) -> list[dict[str, Any]]:
        response = account.get("/events", {"queue_id": queue_id,
                                           "last_event_id": last_event_id, "dont_block": True})
        assert response.ok, response.json
        return response.json["events"]
    return fetch


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """An outgoing-webhook receiver on loopback (tests/functional/webhook_helpers.py)."""
    from tests.functional.webhook_helpers import Receiver

    monkeypatch.setenv("ALLOW_PRIVATE_WEBHOOK_HOSTS", "loopback")
    server = Receiver()
    yield server
    server.server.shutdown()


@pytest.fixture
def webhooks(drain_events: OutboxDrain) -> Any:
    """Runs outbox -> SQS -> webhook worker synchronously; earlier tests' jobs run first."""
    from tests.functional.webhook_helpers import WebhookQueue

    queue = WebhookQueue(drain_events)
    queue.run()
    return queue


@pytest.fixture
def clock(monkeypatch):
    """The presence clock (also the notifications' clock), moved instead of waiting."""
    from chalicelib.rules import presence_rules
    from tests.functional.notification_helpers import Clock
    fake = Clock()
    monkeypatch.setattr(presence_rules, "now", lambda: fake.now)
    return fake


@pytest.fixture
def notifier(drain_events, clock):
    """The notifications queue, run by the test, after every job earlier tests left."""
    from tests.functional.notification_helpers import NotifierQueue
    queue = NotifierQueue(drain_events)
    queue.finish_earlier_tests(clock)
    return queue
