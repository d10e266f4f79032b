"""Backup and restore drill: restore a table to a point in time, then point the stack at it.

    python -m infra.restore_drill restore --table messages --at 2026-11-25T14:00:00Z
    python -m infra.restore_drill repoint --stack teamchat --table messages \\
        --to teamchat-prod-messages-restored-20261125t140000
    python -m infra.restore_drill undo --stack teamchat --table messages

`restore` copies `<prefix><table>` as it was at `--at` (default: the latest restorable
time) into `<prefix><table>-restored-<time>`, waits until it is ACTIVE, gives it what a
restore does not carry over (point-in-time recovery, the template's TTL attribute), and
compares item counts. `repoint` writes the table into the stack parameter
`TableNameOverrides` (the functions' TABLE_NAME_OVERRIDES; chalicelib.config.table_name)
with the stack's template and other parameters unchanged; the roles allow
`<prefix>*-restored-*` tables. `undo` removes the override. docs/operations.md has the
whole procedure. On moto, restore_table_to_point_in_time copies the table's current items
whatever the time asked (moto 5.2.5): tests check the mechanics, not the history.
"""
from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from typing import Any

import boto3

from infra.resources import load_template, resolve, resources_of_type

# The outbox's stream is the fan-out's event source: a restored copy would have no stream
# and nobody reads old outbox rows. Restoring it is never what an operator wants.
NOT_RESTORABLE = {"outbox"}
OVERRIDES_PARAMETER = "TableNameOverrides"


def template_tables() -> dict[str, dict[str, Any]]:
    """Table suffix -> its template properties."""
    tables = {}
    for res in resources_of_type("AWS::DynamoDB::Table").values():
        suffix = resolve(res["Properties"]["TableName"], {"TablePrefix": ""})
        tables[suffix] = res["Properties"]
    return tables


def restored_name(prefix: str, suffix: str, at: datetime | None) -> str:
    stamp = (at or datetime.now(UTC)).strftime("%Y%m%dt%H%M%S")
    return f"{prefix}{suffix}-restored-{stamp}"


def count_items(client: Any, table: str) -> int:
    total = 0
    for page in client.get_paginator("scan").paginate(TableName=table, Select="COUNT"):
        total += page["Count"]
    return total


def restore(client: Any, prefix: str, suffix: str, at: datetime | None = None,
            target: str | None = None) -> dict[str, Any]:
    """Restores `<prefix><suffix>` as of `at` into a new table; returns what it did."""
    tables = template_tables()
    if suffix not in tables:
        raise SystemExit(f"no table '{suffix}' in infra/template.json")
    if suffix in NOT_RESTORABLE:
        raise SystemExit(f"'{suffix}' is not restored: its stream feeds the fan-out")
    source = prefix + suffix
    target = target or restored_name(prefix, suffix, at)
    window = client.describe_continuous_backups(TableName=source)[
        "ContinuousBackupsDescription"]
    pitr = window.get("PointInTimeRecoveryDescription", {})
    if pitr.get("PointInTimeRecoveryStatus") != "ENABLED":
        raise SystemExit(f"{source} has no point-in-time recovery enabled")
    earliest = pitr.get("EarliestRestorableDateTime")
    if at is not None and earliest is not None and at < earliest:
        raise SystemExit(f"{at.isoformat()} is before {source}'s earliest restorable "
                         f"time {earliest.isoformat()}")
    kwargs: dict[str, Any] = {"SourceTableName": source, "TargetTableName": target}
    if at is None:
        kwargs["UseLatestRestorableTime"] = True
    else:
        kwargs["RestoreDateTime"] = at
    client.restore_table_to_point_in_time(**kwargs)
    client.get_waiter("table_exists").wait(TableName=target,
                                           WaiterConfig={"Delay": 10, "MaxAttempts": 180})
    # A restored table keeps keys, indexes and items, not these settings.
    client.update_continuous_backups(
        TableName=target,
        PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    ttl = tables[suffix].get("TimeToLiveSpecification", {})
    if ttl.get("Enabled"):
        client.update_time_to_live(TableName=target, TimeToLiveSpecification={
            "Enabled": True, "AttributeName": ttl["AttributeName"]})
    return {"source": source, "target": target,
            "at": at.isoformat() if at else "latest restorable time",
            "source_items": count_items(client, source),
            "restored_items": count_items(client, target),
            "ttl": ttl.get("AttributeName") if ttl.get("Enabled") else None}


def _stack_parameters(cfn: Any, stack: str) -> dict[str, str]:
    described = cfn.describe_stacks(StackName=stack)["Stacks"][0]
    return {p["ParameterKey"]: p.get("ParameterValue", "")
            for p in described.get("Parameters", [])}


def set_override(cfn: Any, stack: str, suffix: str, table: str | None,
                 wait: bool = True) -> dict[str, str]:
    """Writes (or, with table None, removes) one table override into the stack parameter;
    every other parameter and the template stay as they are. Returns the new overrides."""
    if suffix not in template_tables():
        raise SystemExit(f"no table '{suffix}' in infra/template.json")
    current = _stack_parameters(cfn, stack)
    if OVERRIDES_PARAMETER not in current:
        raise SystemExit(f"stack {stack} has no {OVERRIDES_PARAMETER} parameter: deploy "
                         "the current template first")
    overrides = json.loads(current[OVERRIDES_PARAMETER] or "{}")
    if table is None:
        overrides.pop(suffix, None)
    else:
        overrides[suffix] = table
    parameters = [{"ParameterKey": key, "UsePreviousValue": True}
                  for key in current if key != OVERRIDES_PARAMETER]
    parameters.append({"ParameterKey": OVERRIDES_PARAMETER,
                       "ParameterValue": json.dumps(overrides, sort_keys=True)})
    cfn.update_stack(StackName=stack, UsePreviousTemplate=True, Parameters=parameters,
                     Capabilities=["CAPABILITY_IAM", "CAPABILITY_AUTO_EXPAND"])
    if wait:
        cfn.get_waiter("stack_update_complete").wait(StackName=stack)
    return dict(overrides)


def _time(text: str) -> datetime:
    at = datetime.fromisoformat(text)
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    rest = commands.add_parser("restore", help="restore a table to a point in time")
    rest.add_argument("--table", required=True, help="table suffix, e.g. messages")
    rest.add_argument("--at", type=_time, help="ISO time (UTC); default: latest restorable")
    rest.add_argument("--prefix", default=load_template()["Parameters"]["TablePrefix"][
        "Default"])
    rest.add_argument("--target", help="name of the new table (default: <table>-restored-<time>)")
    point = commands.add_parser("repoint", help="make the stack's functions use a table")
    point.add_argument("--stack", required=True)
    point.add_argument("--table", required=True)
    point.add_argument("--to", required=True, help="the restored table's name")
    undo = commands.add_parser("undo", help="remove a table's override from the stack")
    undo.add_argument("--stack", required=True)
    undo.add_argument("--table", required=True)
    args = parser.parse_args(argv)
    if args.command == "restore":
        result = restore(boto3.client("dynamodb"), args.prefix, args.table, args.at,
                         args.target)
        print(json.dumps(result, indent=2))
        print(f"next: python -m infra.restore_drill repoint --stack <stack> "
              f"--table {args.table} --to {result['target']}")
    else:
        overrides = set_override(boto3.client("cloudformation"), args.stack, args.table,
                                 args.to if args.command == "repoint" else None)
        print(f"{OVERRIDES_PARAMETER} = {json.dumps(overrides, sort_keys=True)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
