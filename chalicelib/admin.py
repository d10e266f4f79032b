"""`python -m chalicelib.admin`: create organizations, users and bots; list users; reindex.

Run from the repository root. It finds a running local stack (`make run`) by itself;
otherwise it uses the usual AWS environment.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from chalicelib.local_dev import stack_endpoint, use_stack

ROLES = ["owner", "administrator", "moderator", "member", "guest"]


class AdminError(Exception):
    """A problem the operator can fix; printed as one line on stderr."""


def configure_environment() -> None:
    """Points boto3 and the models at the local stack if it runs; must precede model imports."""
    endpoint = stack_endpoint(Path(os.environ.get("LOCAL_STATE_DIR", ".local-state")))
    if endpoint is not None:
        use_stack(endpoint)
        return
    import boto3

    if boto3.session.Session().get_credentials() is None:
        raise AdminError("No local stack is running and no AWS credentials are set: start "
                         "the local stack with `make run`, or set AWS credentials.")


def _realm(subdomain: str) -> Any:
    from chalicelib.actions.realm.reads.realms import get_realm_by_subdomain

    realm = get_realm_by_subdomain(subdomain)
    if realm is None:
        raise AdminError(f"No organization with subdomain '{subdomain}': check the name, or "
                         "create it with `create-realm`.")
    return realm


def create_realm(args: argparse.Namespace) -> dict[str, Any]:
    from chalicelib.actions.realm.realms import do_create_realm
    from chalicelib.actions.users.users import NewUser

    realm, owner_id, api_key = do_create_realm(
        args.name, args.subdomain,
        NewUser(email=args.owner_email, full_name=args.owner_name, role=100))
    return {"realm_id": realm.realm_id, "subdomain": realm.subdomain, "user_id": owner_id,
            "email": args.owner_email.strip(), "api_key": api_key}


def create_user(args: argparse.Namespace) -> dict[str, Any]:
    from chalicelib.actions.users.users import NewUser, do_create_user, role_from_name

    realm = _realm(args.realm)
    user, api_key = do_create_user(realm.realm_id, NewUser(
        email=args.email, full_name=args.name, role=role_from_name(args.role)))
    return {"realm_id": realm.realm_id, "user_id": user.user_id, "email": user.email,
            "role": user.role, "api_key": api_key}


def create_bot(args: argparse.Namespace) -> dict[str, Any]:
    from chalicelib.actions.users.bots import do_create_bot
    from chalicelib.actions.users.reads.users import get_user_by_email

    realm = _realm(args.realm)
    owner = get_user_by_email(realm.realm_id, args.owner_email)
    if owner is None:
        raise AdminError(f"No user '{args.owner_email}' in '{args.realm}': the bot's owner "
                         "must exist first (see `create-user`).")
    bot, api_key = do_create_bot(realm.realm_id, owner, args.name, args.short_name,
                                 args.outgoing_webhook_url)
    result = {"realm_id": realm.realm_id, "user_id": bot.user_id, "email": bot.email,
              "api_key": api_key, "bot_owner_id": owner.user_id}
    if bot.service_token:
        result.update(token=bot.service_token, outgoing_webhook_url=bot.service_url)
    return result


def list_users(args: argparse.Namespace) -> dict[str, Any]:
    from chalicelib.actions.users.users import list_realm_users

    realm = _realm(args.realm)
    return {"realm_id": realm.realm_id, "users": [
        {"user_id": u.user_id, "email": u.email, "full_name": u.full_name, "role": u.role,
         "is_bot": u.is_bot, "is_active": u.is_active}
        for u in list_realm_users(realm.realm_id)]}


def deactivate_realm(args: argparse.Namespace) -> dict[str, Any]:
    from chalicelib.actions.realm.realms import do_deactivate_realm

    realm = _realm(args.realm)
    count = do_deactivate_realm(realm)
    return {"realm_id": realm.realm_id, "deactivated": True, "api_keys_revoked": count}


def reindex(args: argparse.Namespace) -> dict[str, Any]:
    from chalicelib.actions.realm.reindex import do_reindex_realm

    realm = _realm(args.realm)
    return {"realm_id": realm.realm_id, **do_reindex_realm(
        realm.realm_id, progress=lambda line: print(line, file=sys.stderr))}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m chalicelib.admin", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("create-realm", help="create an organization and its owner")
    command.add_argument("--name", required=True)
    command.add_argument("--subdomain", required=True)
    command.add_argument("--owner-email", required=True)
    command.add_argument("--owner-name", required=True)
    command.set_defaults(run=create_realm)
    command = commands.add_parser("create-user", help="create a user in an organization")
    command.add_argument("--realm", required=True, help="the organization's subdomain")
    command.add_argument("--email", required=True)
    command.add_argument("--name", required=True)
    command.add_argument("--role", required=True, choices=ROLES)
    command.set_defaults(run=create_user)
    command = commands.add_parser("create-bot", help="create a bot owned by a user")
    command.add_argument("--realm", required=True)
    command.add_argument("--owner-email", required=True)
    command.add_argument("--name", required=True)
    command.add_argument("--short-name", required=True)
    command.add_argument("--outgoing-webhook-url")
    command.set_defaults(run=create_bot)
    command = commands.add_parser("list-users", help="list an organization's users")
    command.add_argument("--realm", required=True)
    command.set_defaults(run=list_users)
    command = commands.add_parser("deactivate-realm", help="deactivate an organization")
    command.add_argument("--realm", required=True)
    command.set_defaults(run=deactivate_realm)
    command = commands.add_parser(
        "reindex", help="backfill index attributes of data written by older versions")
    command.add_argument("--realm", required=True)
    command.set_defaults(run=reindex)
    return parser


def main(argv: list[str] | None = None) -> int:
    from chalicelib.core.errors import ApiError

    args = build_parser().parse_args(argv)
    try:
        result = args.run(args)
    except (AdminError, ApiError) as error:
        print(f"error: {getattr(error, 'msg', error)}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    try:
        configure_environment()
    except AdminError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    sys.exit(main())
