"""The local database process answers DynamoDB without moto's Flask layer, as moto's own
route would (infra/local/database.py `dynamodb_first`)."""
from __future__ import annotations

import json
import uuid
from typing import Any

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.test import Client

from infra import moto_patches
from infra.local.database import dynamodb_first

AUTH = ("AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/dynamodb/aws4_request, "
        "SignedHeaders=host, Signature=x")


def _dynamodb(client: Client, action: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    answer = client.post("/", data=json.dumps(body), headers={
        "X-Amz-Target": f"DynamoDB_20120810.{action}", "Authorization": AUTH,
        "Content-Type": "application/x-amz-json-1.0"})
    return answer.status_code, json.loads(answer.get_data() or b"{}")


def test_dynamodb_answers_as_through_moto_and_other_services_still_reach_moto():
    moto_patches.apply()
    moto = DomainDispatcherApplication(create_backend_app)
    reached: list[str] = []

    def spy(environ: dict[str, Any], start_response: Any) -> Any:
        reached.append(environ.get("HTTP_X_AMZ_TARGET", environ["PATH_INFO"]))
        return moto(environ, start_response)

    fast, slow = Client(dynamodb_first(spy)), Client(moto)
    table = f"fast-{uuid.uuid4().hex[:8]}"
    status, created = _dynamodb(fast, "CreateTable", {
        "TableName": table, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}]})
    assert status == 200 and created["TableDescription"]["TableName"] == table
    item = {"k": {"S": "a"}, "v": {"N": "1"}}
    assert _dynamodb(fast, "PutItem", {"TableName": table, "Item": item})[0] == 200
    get = {"TableName": table, "Key": {"k": {"S": "a"}}}
    assert _dynamodb(fast, "GetItem", get) == _dynamodb(slow, "GetItem", get) == (
        200, {"Item": item})
    # An error keeps its status and type
    missing = {"TableName": "no-such-table", "Key": {"k": {"S": "a"}}}
    status, error = _dynamodb(fast, "GetItem", missing)
    assert (status, error) == _dynamodb(slow, "GetItem", missing)
    assert status == 400 and error["__type"].endswith("ResourceNotFoundException")
    # None of that went through moto's app; SQS does
    assert reached == []
    answer = fast.post("/", data="Action=ListQueues&Version=2012-11-05", headers={
        "Content-Type": "application/x-www-form-urlencoded",
        "Authorization": AUTH.replace("/dynamodb/", "/sqs/")})
    assert answer.status_code == 200 and reached == ["/"]
