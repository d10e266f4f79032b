"""The embedded backend: the database process (moto with the project's patches, its saved
state and journal: infra/local/database.py), the resources of infra/template.json, and
(once the app exists) the pollers. `make run` serves the app over it;
chalice local starts it when no stack runs (infra/local/chalice_local.py).
"""
from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infra.local import environment, fast_headers
from infra.local.child import start_child, stop_child
from infra.local.environment import free_port
from infra.local.link_signatures import link_secret

STOP_SECONDS = 120   # the most the database gets to write its final snapshot


@dataclass
class Backend:
    state: Path
    prefix: str
    moto_url: str
    database: subprocess.Popen[str]
    stop: threading.Event = field(default_factory=threading.Event)
    threads: list[threading.Thread] = field(default_factory=list)

    def start_workers(self, app: Any) -> list[threading.Thread]:
        """The pollers feeding the app's handlers, as threads of this process
        (`chalice local`)."""
        from infra.local.workers import start_workers

        self.threads = start_workers(app, self.prefix, self.state, self.stop)
        return self.threads

    def shut_down(self) -> None:
        """Stops the workers, then has the database save everything into one snapshot."""
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=2)
        environment.remove_endpoint_file()
        stop_child(self.database, STOP_SECONDS)


def start_backend(prefix: str, progress: Callable[[str], None]) -> Backend:
    """Starts the database process on the saved state and creates what is missing; sets
    the environment that points boto3 and the models at it (before the app is imported)."""
    fast_headers.install()   # this process's HTTP clients and server read plain headers
    state = environment.prepare_state_dir()
    environment.remove_endpoint_file()   # a killed stack's: it names a dead moto
    # Every email sent is also written here as an .eml file (chalicelib/aws/email.py).
    os.environ.setdefault("LOCAL_MAIL_DIR", str(state / "mail"))
    moto_port = int(os.environ.get("MOTO_PORT") or free_port())
    database, moto_url = start_child("infra.local.database", [str(state), str(moto_port)],
                                     progress)
    environment.configure(moto_url, prefix, link_secret(state))
    progress(f"database process {database.pid}: moto on {moto_url}")

    from infra.resources import create_all

    create_all(prefix, progress=lambda what: progress(f"created {what}"))
    _create_side_resources()
    return Backend(state, prefix, moto_url, database)


def _create_side_resources() -> None:
    import boto3

    from chalicelib import config

    s3 = boto3.client("s3")
    bucket = config.upload_bucket()
    if bucket not in {b["Name"] for b in s3.list_buckets().get("Buckets", [])}:
        s3.create_bucket(Bucket=bucket)
    ses = boto3.client("ses")
    ses.verify_email_identity(EmailAddress="noreply@localhost")
    configuration_sets = {c["Name"] for c in ses.list_configuration_sets().get(
        "ConfigurationSets", [])}
    if config.ses_configuration_set() not in configuration_sets:
        ses.create_configuration_set(ConfigurationSet={"Name": config.ses_configuration_set()})
    # Mobile push: moto's SNS platform applications (published messages are recorded,
    # and the notifier prints one line per push under the local stack).
    sns = boto3.client("sns")
    for kind, platform, variable in (("apns", "APNS", "SNS_APNS_PLATFORM_ARN"),
                                     ("fcm", "GCM", "SNS_FCM_PLATFORM_ARN")):
        arn = sns.create_platform_application(
            Name=f"teamchat-local-{kind}", Platform=platform,
            Attributes={"PlatformCredential": "local"})["PlatformApplicationArn"]
        os.environ.setdefault(variable, arn)
