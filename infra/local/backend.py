"""The embedded backend: moto with the project's patches, its saved state, the resources
of infra/template.json, and (once the app exists) the pollers, the TTL sweep and the
checkpoints. `make run` serves the app over it; `chalice local` starts it when no stack
runs (chalicelib/local_dev.py).
"""
from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infra.local import environment
from infra.local.environment import free_port


@dataclass
class Backend:
    state: Path
    prefix: str
    moto_url: str
    moto: Any
    persistence: Any
    stop: threading.Event = field(default_factory=threading.Event)
    threads: list[threading.Thread] = field(default_factory=list)

    def start_workers(self, app: Any) -> list[threading.Thread]:
        """The event pollers feeding the app's handlers, the TTL sweep, the checkpoints."""
        from infra.local.pollers import start_pollers
        from infra.local.ttl_sweep import start_sweeper

        pollers = start_pollers(app, self.prefix, self.state, self.stop)
        self.threads = [*pollers, start_sweeper(self.prefix, self.stop),
                        self.persistence.run(self.stop)]
        return pollers

    def shut_down(self) -> None:
        """Stops the workers and saves everything into one snapshot."""
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=2)
        self.persistence.close()
        environment.remove_endpoint_file()
        self.moto.stop()


def start_backend(prefix: str, progress: Callable[[str], None]) -> Backend:
    """Restores the saved state, starts moto and creates what is missing; from then on
    every write is journaled before it is acknowledged. Sets the environment that points
    boto3 and the models at it (before the app is imported)."""
    state = environment.state_dir()
    state.mkdir(parents=True, exist_ok=True)
    environment.remove_endpoint_file()   # a killed stack's: it names a dead moto
    # Every email sent is also written here as an .eml file (chalicelib/lib/email.py).
    os.environ.setdefault("LOCAL_MAIL_DIR", str(state / "mail"))

    from moto.server import ThreadedMotoServer

    from infra import moto_patches
    from infra.local import snapshot

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's per-request lines
    moto_patches.apply()
    restored = snapshot.restore(state)
    progress(f"restored saved state from {state} ({restored.replayed} journal records "
             "replayed)" if restored.saved else "fresh state")
    persistence = snapshot.Persistence(state, restored)
    moto_port = int(os.environ.get("MOTO_PORT") or free_port())
    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=moto_port, verbose=False)
    moto.start()
    moto_url = f"http://127.0.0.1:{moto_port}"
    environment.configure(moto_url, prefix)
    progress(f"moto server on {moto_url}")

    from infra.resources import create_all

    create_all(prefix, progress=lambda what: progress(f"created {what}"))
    _create_side_resources()
    return Backend(state, prefix, moto_url, moto, persistence)


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
