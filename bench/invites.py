"""DynamoDB requests per call for invitations: POST /invites with 1 and 100 addresses (and
100 where 50 already have accounts), POST /invites/multiuse, and accepting an invitation.

Run: .venv/bin/python -m bench.invites   (part of `make bench`)
"""
from __future__ import annotations

import base64
import os
import re
from urllib.parse import urlencode

from bench.common import RequestCounter, bench_realm, moto_backend


def main() -> None:
    os.environ["INVITES_DAILY_LIMIT"] = "1000"
    counter = RequestCounter()
    counter.install()
    with moto_backend():
        import boto3
        from chalice.test import Client

        from app import app
        from chalicelib.actions.users.users import NewUser, do_create_user

        boto3.client("ses", region_name="us-east-1").verify_email_identity(
            EmailAddress="noreply@localhost")
        realm, _, owner_key = bench_realm()
        for n in range(50):
            do_create_user(realm.realm_id, NewUser(email=f"taken{n}@bench.example.com",
                                                   full_name=f"Taken {n}"))
        token = base64.b64encode(f"o@bench.example.com:{owner_key}".encode()).decode()
        owner = {"Authorization": f"Basic {token}",
                 "Content-Type": "application/x-www-form-urlencoded"}
        form = {"Content-Type": "application/x-www-form-urlencoded"}
        hundred = ", ".join(f"new{n}@bench.example.org" for n in range(100))
        mixed = ", ".join([f"taken{n}@bench.example.com" for n in range(50)]
                          + [f"more{n}@bench.example.org" for n in range(50)])
        cases = [
            ("POST /invites (1 address)", "POST", "/api/v1/invites", owner,
             {"invitee_emails": "one@bench.example.org", "stream_ids": "[]"}, 200),
            ("POST /invites (100 addresses)", "POST", "/api/v1/invites", owner,
             {"invitee_emails": hundred, "stream_ids": "[]"}, 200),
            ("POST /invites (100, 50 taken)", "POST", "/api/v1/invites", owner,
             {"invitee_emails": mixed, "stream_ids": "[]"}, 400),
            ("POST /invites/multiuse", "POST", "/api/v1/invites/multiuse", owner, {}, 200),
        ]
        print(f"{'call':<32} {'DynamoDB requests':<18} {'SES':<5} operations")
        with Client(app) as client:
            for name, method, path, auth, params, status in cases:
                with counter.measure() as delta:
                    response = client.http.request(method, path, headers=auth,
                                                   body=urlencode(params).encode())
                assert response.status_code == status, (name, response.body[:300])
                report(name, delta)
            # The first signup also creates the welcome and notification bots.
            for name, address in (("POST /accounts/register (1st)", "one@bench.example.org"),
                                  ("POST /accounts/register", "new0@bench.example.org")):
                with counter.measure() as delta:
                    response = client.http.request("POST", "/accounts/register", headers=form,
                                                   body=urlencode({
                                                       "key": emailed_key(address),
                                                       "full_name": "New One",
                                                       "password": "long enough pw"}).encode())
                assert response.status_code == 200, response.body[:300]
                report(name, delta)


def report(name: str, delta: dict) -> None:
    ops = {op: n for (svc, op), n in delta.items() if svc == "dynamodb"}
    ses = sum(n for (svc, _), n in delta.items() if svc == "ses")
    print(f"{name:<32} {sum(ops.values()):<18} {ses:<5} {ops}")


def emailed_key(address: str) -> str:
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.ses.models import ses_backends

    [message] = [m for m in ses_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].sent_messages
                 if address in m.destinations["ToAddresses"]]
    match = re.search(r"/accounts/do_confirm/(\w+)", message.body)
    assert match is not None
    return match.group(1)


if __name__ == "__main__":
    main()
