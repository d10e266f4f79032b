"""Where the local stack keeps its state, and the environment that points the app at moto."""
from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import socket
from pathlib import Path

from chalicelib.local_endpoint import LOCAL_CREDENTIAL

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PREFIX = "teamchat-local-"
REGION = "us-east-1"


# Ports this process has chosen or been given but may not have bound yet.
_promised: set[int] = set()


def promise_port(port: int) -> None:
    """A port this process will bind (the API's, given by its launcher): free_port does
    not hand it out meanwhile."""
    _promised.add(port)


def free_port() -> int:
    """A TCP port on the loopback interface that nothing listens on now, and that this
    process has not chosen before: the stack chooses its push channel's two ports before
    its API binds the port it was given, and a CI run once got that one again.

    Chosen below the kernel's ephemeral range: a port the kernel handed out with bind(0)
    can be taken by any outgoing connection before the server binds it (EADDRINUSE)."""
    ceiling = _ephemeral_floor()
    for _ in range(100):
        port = random.randrange(_PORT_FLOOR, ceiling)
        if port in _promised:
            continue
        _promised.add(port)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free TCP port between {_PORT_FLOOR} and {ceiling}")


# Above the registered ports most local services use.
_PORT_FLOOR = 20000


def _ephemeral_floor() -> int:
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768   # the Linux default; other systems start higher
    return low if low > _PORT_FLOOR + 1000 else 32768


def state_dir() -> Path:
    return Path(os.environ.get("LOCAL_STATE_DIR", REPO_ROOT / ".local-state"))


def prepare_state_dir() -> Path:
    """The stack's state directory, made if missing. The default, `.local-state`, is a
    link to a directory outside the repository (`linked_state_home()`): Chalice's
    development server restarts whenever a file under the project changes, and the
    stack writes its journal on every change, so a bare `chalice local` beside `make
    run` would restart (and drop requests) after every write if the state lived in the
    tree. Its file watcher does not follow links to directories. A `.local-state`
    directory of an earlier version is moved out on first start."""
    state = state_dir()
    if "LOCAL_STATE_DIR" in os.environ:
        state.mkdir(parents=True, exist_ok=True)
        return state
    if state.is_symlink() and state.exists():
        return state
    home = linked_state_home()
    home.parent.mkdir(parents=True, exist_ok=True)
    if state.is_dir() and not state.is_symlink():
        if home.exists():
            raise RuntimeError(f"both {state} and {home} hold a stack's state: keep one")
        shutil.move(str(state), str(home))
    home.mkdir(exist_ok=True)
    state.unlink(missing_ok=True)   # a link whose directory was removed
    state.symlink_to(home, target_is_directory=True)
    return state


def linked_state_home() -> Path:
    """Where `.local-state` points: under XDG_STATE_HOME, one directory per checkout."""
    base = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    checkout = hashlib.sha256(str(REPO_ROOT).encode()).hexdigest()[:12]
    return base / "teamchat" / f"{REPO_ROOT.name}-{checkout}"


def configure(moto_url: str, prefix: str, secret: str = LOCAL_CREDENTIAL) -> None:
    """Sets what the app, boto3 and PynamoDB read; must run before importing app.py.
    moto takes any credentials; the secret signs the links to stored files, which the
    stack's server checks (infra/local/link_signatures.py)."""
    os.environ.update({
        "AWS_ENDPOINT_URL": moto_url,
        "AWS_ACCESS_KEY_ID": LOCAL_CREDENTIAL,
        "AWS_SECRET_ACCESS_KEY": secret,
        "AWS_DEFAULT_REGION": REGION,
        "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
        "TABLE_PREFIX": prefix,
        "ALLOW_PRIVATE_WEBHOOK_HOSTS": "loopback",
        "ROOT_DOMAIN": "localhost",
        "EXTERNAL_SCHEME": "http",
        "POWERTOOLS_LOG_LEVEL": os.environ.get("POWERTOOLS_LOG_LEVEL", "WARNING"),
        "POWERTOOLS_METRICS_NAMESPACE": "teamchat-local",
        # EMF metric blobs are for CloudWatch; on a terminal they bury the progress lines.
        "POWERTOOLS_METRICS_DISABLED": os.environ.get("POWERTOOLS_METRICS_DISABLED", "true"),
        "POWERTOOLS_TRACE_DISABLED": "true",
    })
    os.environ.pop("AWS_PROFILE", None)


def write_endpoint_file(moto_url: str, prefix: str, api_url: str) -> Path:
    """Lets `python -m chalicelib.admin` find the running stack without flags (and sign
    links as the stack does); and the bare `chalice local`, whose stage points botocore
    at the AWS configuration file written beside it (`aws_config_file`)."""
    secret = os.environ["AWS_SECRET_ACCESS_KEY"]
    path = state_dir() / "endpoint.json"
    path.write_text(json.dumps({"aws_endpoint_url": moto_url, "table_prefix": prefix,
                                "region": REGION, "api_url": api_url,
                                "aws_secret_access_key": secret}))
    path.chmod(0o600)
    aws_config = state_dir() / AWS_CONFIG_FILE
    aws_config.write_text(aws_config_file(moto_url, secret))
    aws_config.chmod(0o600)
    return path


def remove_endpoint_file() -> None:
    (state_dir() / "endpoint.json").unlink(missing_ok=True)
    (state_dir() / AWS_CONFIG_FILE).unlink(missing_ok=True)


# `.chalice/config.json` names it (relative to the repository, where `chalice local` runs)
# as the dev stage's AWS_CONFIG_FILE: only a process that reads that stage's environment
# and has no endpoint of its own (the bare `chalice local`) is pointed at the stack.
AWS_CONFIG_FILE = "aws-config"


def aws_config_file(moto_url: str, secret: str) -> str:
    """An AWS configuration file (botocore reads it) for the stack's moto."""
    return "\n".join([
        "# Written by `make run` (infra/local/environment.py) for `chalice local`;",
        "# removed when the stack stops. Names the local stack's moto, not AWS.",
        "[default]",
        f"region = {REGION}",
        f"endpoint_url = {moto_url}",
        f"aws_access_key_id = {LOCAL_CREDENTIAL}",
        f"aws_secret_access_key = {secret}",
        "account_id_endpoint_mode = disabled",
        ""])
