"""The demo organization `make run` creates on first start."""
from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests

DEMO_SUBDOMAIN = "demo"
DEMO_DOMAIN = "demo.example.com"
DEMO_ACCOUNTS = [
    ("owner", "Olivia Owner", 100),
    ("admin", "Adrian Admin", 200),
    ("member", "Mei Member", 400),
    ("guest", "Gale Guest", 600),
]
DEMO_CHANNELS = {
    "general": [("welcome", "Welcome to **Demo Org**! This channel is for everyone."),
                ("welcome", "Say hi to @**Mei Member** :wave:")],
    "engineering": [("deploys", "Deploying the `fanout` function at 15:00."),
                    ("deploys", "Done: all green.")],
}


def demo_password(label: str) -> str:
    """A password a person can type from the printed list (the stack listens on loopback
    only); random per stack, so no two stacks share one."""
    return f"{label}-{secrets.token_hex(4)}"


def seed_accounts() -> list[dict[str, Any]]:
    """Creates the demo realm and its people through the actions (no HTTP yet), each
    with a password, for logging in to the web client."""
    from chalicelib.actions.users.users import NewUser, do_create_user
    from chalicelib.actions.workflows.realms import do_create_realm
    from chalicelib.rules.passwords import hash_password

    (label, name, role), *others = DEMO_ACCOUNTS
    email = f"{label}@{DEMO_DOMAIN}"
    password = demo_password(label)
    realm, owner_id, owner_key = do_create_realm(
        "Demo Org", DEMO_SUBDOMAIN, NewUser(email=email, full_name=name, role=role,
                                            password_hash=hash_password(password)))
    accounts = [{"role": label, "email": email, "api_key": owner_key, "user_id": owner_id,
                 "realm_id": realm.realm_id, "password": password}]
    for label, name, role in others:
        email = f"{label}@{DEMO_DOMAIN}"
        password = demo_password(label)
        user, key = do_create_user(realm.realm_id, NewUser(
            email=email, full_name=name, role=role, password_hash=hash_password(password)))
        accounts.append({"role": label, "email": email, "api_key": key,
                         "user_id": user.user_id, "realm_id": realm.realm_id,
                         "password": password})
    return accounts


def seed_conversations(api_url: str, accounts: list[dict[str, Any]]) -> list[str]:
    """Creates the demo channels and messages through the HTTP API; returns warnings."""
    owner = accounts[0]
    auth = (owner["email"], owner["api_key"])
    warnings = []
    member_ids = [a["user_id"] for a in accounts if a["role"] != "guest"]
    for channel, messages in DEMO_CHANNELS.items():
        response = requests.post(f"{api_url}/api/v1/users/me/subscriptions", auth=auth, data={
            "subscriptions": json.dumps([{"name": channel}]),
            "principals": json.dumps(member_ids)}, timeout=10)
        if response.status_code != 200:
            warnings.append(f"could not create #{channel}: {response.text[:200]}")
            continue
        for topic, content in messages:
            response = requests.post(f"{api_url}/api/v1/messages", auth=auth, data={
                "type": "stream", "to": channel, "topic": topic, "content": content},
                timeout=10)
            if response.status_code != 200:
                warnings.append(f"could not post to #{channel}: {response.text[:200]}")
    return warnings


def ensure_demo(state_dir: Path, api_url: str | None,
                progress: Callable[[str], None]) -> list[dict[str, Any]]:
    """The demo accounts, created on first start (with conversations when the API is
    served at `api_url`)."""
    accounts = load_accounts(state_dir)
    if accounts is None and demo_realm_exists():
        # Killed while seeding, after the realm was written: its keys are gone (only
        # their hashes are stored). Serve what there is; `make reset` starts afresh.
        progress("warning: the demo accounts file is missing; `make reset` recreates it")
        return []
    if accounts is None:
        accounts = seed_accounts()
        save_accounts(state_dir, accounts)
        if api_url is not None:
            for warning in seed_conversations(api_url, accounts):
                progress("warning: " + warning)
        progress("seeded the demo organization")
    return accounts


def demo_realm_exists() -> bool:
    from chalicelib.models.realms import get_realm_by_subdomain

    return get_realm_by_subdomain(DEMO_SUBDOMAIN) is not None


def save_accounts(state_dir: Path, accounts: list[dict[str, Any]]) -> None:
    """Written whole or not at all (a crash must not leave half a file)."""
    path = state_dir / "demo-accounts.json"
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(accounts, indent=2))
    temporary.chmod(0o600)
    os.replace(temporary, path)


def load_accounts(state_dir: Path) -> list[dict[str, Any]] | None:
    path = state_dir / "demo-accounts.json"
    return json.loads(path.read_text()) if path.exists() else None
