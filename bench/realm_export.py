"""Organization export: time and size of exporting a realm of 10,000 messages, and of
importing it back (in-process moto; for comparison, not AWS latency).

Run: .venv/bin/python -m bench.realm_export
"""
from __future__ import annotations

import time

from bench.common import RequestCounter, bench_realm, moto_backend


def main(messages: int = 10_000) -> None:
    counter = RequestCounter()
    counter.install()
    with moto_backend():
        import boto3

        from chalicelib import config
        from chalicelib.actions.channels.add_subscribers import do_add_subscribers
        from chalicelib.actions.users.users import NewUser, do_create_user
        from chalicelib.actions.workflows.export import build_export, do_start_export
        from chalicelib.actions.workflows.import_realm import import_realm
        from chalicelib.core.principal import Principal
        from chalicelib.models.channels import Stream
        from chalicelib.models.realm_exports import RealmExport
        from chalicelib.models.users import User
        from tests.functional.edit_helpers import bulk_messages

        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket=config.upload_bucket())
        realm, owner_id, _ = bench_realm()
        realm_id = realm.realm_id
        users = [do_create_user(realm_id, NewUser(email=f"u{n}@bench.example.com",
                                                  full_name=f"User {n}"))[0]
                 for n in range(50)]
        stream = Stream(realm_id, 1, name="general", description="", rendered_description="",
                        invite_only=False, history_public_to_subscribers=True,
                        date_created=0, creator_id=owner_id)
        stream.save()
        do_add_subscribers(realm_id, stream, [User.get(realm_id, owner_id), *users])
        print(f"writing {messages:,} messages ...", flush=True)
        for topic in range(messages // 500):
            bulk_messages(realm_id, users[topic % 50].user_id, 1, f"topic {topic}", 500)
        caller = Principal(realm_id, owner_id, "o@bench.example.com", 100, False)
        export_id = do_start_export(caller, 1)["id"]
        from chalicelib.actions.workflows.export import run_export_job

        before = sum(counter.calls.values())
        started = time.perf_counter()
        run_export_job({"realm_id": realm_id, "export_id": export_id})
        elapsed = time.perf_counter() - started
        item = RealmExport.get(realm_id, export_id)
        requests = sum(counter.calls.values()) - before
        print(f"export of {messages:,} messages: {elapsed:.1f} s, {item.size / 1e6:.2f} MB "
              f"({item.size / messages:.0f} bytes a message), {requests} AWS requests, "
              f"status {item.status}")
        document = build_export(realm_id, 1)
        started = time.perf_counter()
        result = import_realm(document, "benchcopy")
        print(f"import of the same: {time.perf_counter() - started:.1f} s, "
              f"{result['messages']:,} messages")


if __name__ == "__main__":
    main()
