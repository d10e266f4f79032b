"""IAM for the functions: AWS calls as (action, resource ARN) and a policy evaluator.

`calls_of` turns one botocore call (service, operation, parameters) into the IAM actions and
resources AWS authorizes it against (a TransactWriteItems is a PutItem/UpdateItem/... per
table; a HeadObject is s3:GetObject; a PostToConnection is execute-api:ManageConnections).
`role_policies` reads each function's role from the packaged template and resolves the
intrinsic functions its statements use, for a given table prefix, bucket and account;
`allowed` evaluates a call against Allow statements (action and resource wildcards `*`
and `?`; no Deny, no conditions: the roles here have neither, apart from the optional
KMS key's `kms:ViaService`, which is left out as the key is off by default).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import urlparse

REGION = "us-east-1"
ACCOUNT = "123456789012"   # moto's default account
PARTITION = "aws"
Call = tuple[str, str]     # (action, resource ARN)

_DYNAMODB_TRANSACT = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem",
                      "ConditionCheck": "ConditionCheckItem", "Get": "GetItem"}
_SQS_BATCHES = {"SendMessageBatch": "SendMessage", "DeleteMessageBatch": "DeleteMessage",
                "ChangeMessageVisibilityBatch": "ChangeMessageVisibility"}
_S3_ACTIONS = {"HeadObject": "GetObject", "CreateMultipartUpload": "PutObject",
               "UploadPart": "PutObject", "CompleteMultipartUpload": "PutObject",
               "ListObjectsV2": "ListBucket", "ListObjects": "ListBucket",
               "HeadBucket": "ListBucket", "DeleteObjects": "DeleteObject"}


def table_arn(name: str) -> str:
    return f"arn:{PARTITION}:dynamodb:{REGION}:{ACCOUNT}:table/{name}"


def queue_arn(name: str) -> str:
    return f"arn:{PARTITION}:sqs:{REGION}:{ACCOUNT}:{name}"


def _queue_name(params: dict[str, Any]) -> str:
    if "QueueName" in params:
        return str(params["QueueName"])
    return str(params.get("QueueUrl", "*")).rstrip("/").rsplit("/", 1)[-1]


def calls_of(service: str, operation: str, params: dict[str, Any],
             endpoint: str = "") -> list[Call]:
    """The (action, resource) pairs IAM checks for one API call."""
    if service == "dynamodb":
        return _dynamodb(operation, params)
    if service == "dynamodbstreams":
        return [(f"dynamodb:{operation}", str(params.get("StreamArn", "*")))]
    if service == "sqs":
        if operation == "ListQueues":
            return [("sqs:ListQueues", "*")]
        # batch operations are authorized as their single-message action
        action = _SQS_BATCHES.get(operation, operation)
        return [(f"sqs:{action}", queue_arn(_queue_name(params)))]
    if service == "s3":
        action = _S3_ACTIONS.get(operation, operation)
        bucket = params.get("Bucket", "*")
        if action == "ListBucket":
            return [("s3:ListBucket", f"arn:{PARTITION}:s3:::{bucket}")]
        if operation == "DeleteObjects":
            return [("s3:DeleteObject", f"arn:{PARTITION}:s3:::{bucket}/{o['Key']}")
                    for o in params.get("Delete", {}).get("Objects", [])]
        calls = [(f"s3:{action}", f"arn:{PARTITION}:s3:::{bucket}/{params.get('Key', '*')}")]
        if operation == "CopyObject":
            source = params["CopySource"]
            if isinstance(source, dict):
                source = f"{source['Bucket']}/{source['Key']}"
            calls.append(("s3:GetObject", f"arn:{PARTITION}:s3:::{str(source).lstrip('/')}"))
        return calls
    if service in ("ses", "sesv2"):
        sender = str(params.get("Source") or params.get("FromEmailAddress") or "*")
        identity = sender.rsplit("<", 1)[-1].rstrip(">")
        action = {"SendRawEmail": "SendRawEmail"}.get(operation, operation)
        return [(f"ses:{action}", f"arn:{PARTITION}:ses:{REGION}:{ACCOUNT}:identity/{identity}")]
    if service == "sns":
        target = (params.get("PlatformApplicationArn") or params.get("EndpointArn")
                  or params.get("TargetArn") or params.get("TopicArn") or "*")
        return [(f"sns:{operation}", str(target))]
    if service == "scheduler":
        group = params.get("GroupName") or "default"
        return [(f"scheduler:{operation}",
                 f"arn:{PARTITION}:scheduler:{REGION}:{ACCOUNT}:schedule/{group}/{params.get('Name', '*')}")]
    if service == "apigatewaymanagementapi":
        url = urlparse(endpoint)
        host = url.hostname or ""
        api = host.split(".", 1)[0] if ".execute-api." in host else "local"
        stage = url.path.strip("/").split("/", 1)[0] or "chat"
        method = {"PostToConnection": "POST", "GetConnection": "GET",
                  "DeleteConnection": "DELETE"}.get(operation, "*")
        connection = params.get("ConnectionId", "*")
        arn = f"arn:{PARTITION}:execute-api:{REGION}:{ACCOUNT}:{api}/{stage}/{method}"
        return [("execute-api:ManageConnections", f"{arn}/@connections/{connection}")]
    return [(f"{service}:{operation}", "*")]


def _dynamodb(operation: str, params: dict[str, Any]) -> list[Call]:
    if operation in ("ListTables", "DescribeLimits", "DescribeEndpoints"):
        return [(f"dynamodb:{operation}", "*")]
    if operation in ("BatchGetItem", "BatchWriteItem"):
        return [(f"dynamodb:{operation}", table_arn(name)) for name in params["RequestItems"]]
    if operation in ("BatchExecuteStatement", "ExecuteStatement"):
        # PartiQL: authorized per statement, by its verb, on its table.
        statements = params.get("Statements") or [params]
        return [_partiql(statement["Statement"]) for statement in statements]
    if operation in ("TransactWriteItems", "TransactGetItems"):
        calls = []
        for item in params["TransactItems"]:
            for kind, body in item.items():
                calls.append((f"dynamodb:{_DYNAMODB_TRANSACT[kind]}",
                              table_arn(body["TableName"])))
        return calls
    arn = table_arn(params.get("TableName", "*"))
    if params.get("IndexName"):
        arn += f"/index/{params['IndexName']}"
    return [(f"dynamodb:{operation}", arn)]


_PARTIQL = re.compile(r'^\s*(?P<verb>INSERT|UPDATE|DELETE|SELECT)\b.*?"(?P<table>[^"]+)"',
                      re.IGNORECASE | re.DOTALL)


def _partiql(statement: str) -> Call:
    match = _PARTIQL.match(statement)
    if match is None:
        return ("dynamodb:PartiQLUnknown", "*")
    return (f"dynamodb:PartiQL{match['verb'].capitalize()}", table_arn(match["table"]))


@lru_cache(maxsize=1024)
def _pattern(glob: str, ignore_case: bool) -> re.Pattern[str]:
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in glob)
    return re.compile(body + r"\Z", re.IGNORECASE if ignore_case else 0)


@dataclass(frozen=True)
class Statement:
    sid: str
    actions: tuple[str, ...]
    resources: tuple[str, ...]

    def allows(self, action: str, resource: str) -> bool:
        # action names are case-insensitive in IAM; ARNs are not
        return (any(_pattern(a, True).match(action) for a in self.actions)
                and any(_pattern(r, False).match(resource) for r in self.resources))


def allowed(statements: list[Statement], call: Call) -> Statement | None:
    """The first Allow statement that grants the call, or None (implicit deny)."""
    return next((s for s in statements if s.allows(*call)), None)


class Resolver:
    """Resolves Ref / Fn::GetAtt / Fn::Sub / Fn::If over a template, with the physical
    names the test environment uses."""

    def __init__(self, template: dict[str, Any], names: dict[str, str],
                 conditions: dict[str, bool] | None = None) -> None:
        self.resources = template["Resources"]
        self.names = names              # logical id or parameter -> physical name / value
        self.conditions = conditions or {}
        self.parameters = {k: str(v.get("Default", ""))
                           for k, v in template.get("Parameters", {}).items()}

    def ref(self, name: str) -> str:
        pseudo = {"AWS::Region": REGION, "AWS::AccountId": ACCOUNT, "AWS::Partition": PARTITION,
                  "AWS::URLSuffix": "amazonaws.com", "AWS::StackName": "teamchat"}
        if name in pseudo:
            return pseudo[name]
        if name in self.names:
            return self.names[name]
        if name in self.parameters:
            return self.parameters[name]
        kind = self.resources[name]["Type"]
        if kind == "AWS::DynamoDB::Table":
            return str(self.value(self.resources[name]["Properties"]["TableName"]))
        if kind == "AWS::SQS::Queue":
            return f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/{self._queue(name)}"
        if kind == "AWS::Logs::LogGroup":
            return str(self.value(self.resources[name]["Properties"]["LogGroupName"]))
        raise KeyError(f"no physical name for {name} ({kind})")

    def _queue(self, name: str) -> str:
        return str(self.value(self.resources[name]["Properties"]["QueueName"]))

    def get_att(self, name: str, attribute: str) -> str:
        kind = self.resources[name]["Type"]
        if kind == "AWS::DynamoDB::Table":
            arn = table_arn(self.ref(name))
            return arn if attribute == "Arn" else f"{arn}/stream/*"
        if kind == "AWS::SQS::Queue":
            return queue_arn(self._queue(name))
        if kind == "AWS::S3::Bucket":
            return f"arn:{PARTITION}:s3:::{self.ref(name)}"
        if kind == "AWS::Logs::LogGroup":
            return f"arn:{PARTITION}:logs:{REGION}:{ACCOUNT}:log-group:{self.ref(name)}:*"
        if kind == "AWS::IAM::Role":
            return f"arn:{PARTITION}:iam::{ACCOUNT}:role/{name}"
        if kind == "AWS::SNS::Topic":
            return f"arn:{PARTITION}:sns:{REGION}:{ACCOUNT}:{name}"
        raise KeyError(f"no {attribute} for {name} ({kind})")

    def value(self, node: Any) -> Any:
        if isinstance(node, list):
            return [v for v in (self.value(n) for n in node) if v is not _NO_VALUE]
        if not isinstance(node, dict):
            return node
        if set(node) == {"Ref"}:
            return _NO_VALUE if node["Ref"] == "AWS::NoValue" else self.ref(node["Ref"])
        if set(node) == {"Fn::GetAtt"}:
            return self.get_att(*node["Fn::GetAtt"])
        if set(node) == {"Fn::If"}:
            condition, then, otherwise = node["Fn::If"]
            return self.value(then if self.conditions.get(condition, False) else otherwise)
        if set(node) == {"Fn::Sub"}:
            def substitute(match: re.Match[str]) -> str:
                name = match.group(1)
                if "." in name and not name.startswith("AWS::"):
                    return self.get_att(*name.split(".", 1))
                return self.ref(name)
            return re.sub(r"\$\{([\w:.]+)\}", substitute, node["Fn::Sub"])
        return {k: v for k, v in ((k, self.value(v)) for k, v in node.items())
                if v is not _NO_VALUE}


_NO_VALUE: Any = object()


def role_statements(template: dict[str, Any], role: str, resolver: Resolver) -> list[Statement]:
    """The Allow statements of a role's inline policies, resolved."""
    statements = []
    for policy in template["Resources"][role]["Properties"].get("Policies", []):
        for raw in resolver.value(policy["PolicyDocument"]["Statement"]):
            if raw.get("Effect") != "Allow":
                continue
            actions = raw["Action"] if isinstance(raw["Action"], list) else [raw["Action"]]
            resources = raw["Resource"] if isinstance(raw["Resource"], list) \
                else [raw["Resource"]]
            statements.append(Statement(raw.get("Sid", ""), tuple(actions),
                                        tuple(str(r) for r in resources)))
    return statements


def function_roles(template: dict[str, Any]) -> dict[str, str]:
    """Function logical id -> the logical id of its role (Fn::GetAtt [Role, Arn])."""
    roles = {}
    for name, res in template["Resources"].items():
        if res.get("Type") in ("AWS::Serverless::Function", "AWS::Lambda::Function"):
            roles[name] = res["Properties"]["Role"]["Fn::GetAtt"][0]
    return roles
