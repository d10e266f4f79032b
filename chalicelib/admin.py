"""`python -m chalicelib.admin`: create organizations, users and bots; list users; rotate
and revoke API keys; give special permissions; set an organization's rate limits and
daily invitation limit; reindex; import an organization export; show how far event
delivery runs behind; print the push registration public keys. `--help` lists the commands.

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

from chalicelib.core.principal import ROLE_NAMES
from chalicelib.local_endpoint import stack_endpoint, use_stack


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
    from chalicelib.models.realms import get_realm_by_subdomain

    realm = get_realm_by_subdomain(subdomain)
    if realm is None:
        raise AdminError(f"No organization with subdomain '{subdomain}': check the name, or "
                         "create it with `create-realm`.")
    return realm


def create_realm(args: argparse.Namespace) -> dict[str, Any]:
    from chalicelib.actions.users.users import NewUser
    from chalicelib.actions.workflows.realms import do_create_realm

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
    return {"realm_id": realm.realm_id, "user_id": user.user_id, "email": user.delivery_email,
            "role": user.role, "api_key": api_key}


def create_bot(args: argparse.Namespace) -> dict[str, Any]:
    from chalicelib.actions.users.bots import do_create_bot
    from chalicelib.models.users import get_user_by_email

    realm = _realm(args.realm)
    owner = get_user_by_email(realm.realm_id, args.owner_email)
    if owner is None:
        raise AdminError(f"No user '{args.owner_email}' in '{args.realm}': the bot's owner "
                         "must exist first (see `create-user`).")
    if args.incoming_webhook and args.outgoing_webhook_url:
        raise AdminError("A bot is either an incoming or an outgoing webhook bot: give "
                         "--incoming-webhook or --outgoing-webhook-url, not both.")
    if args.webhook_secret and not args.incoming_webhook:
        raise AdminError("--webhook-secret is an incoming webhook bot's: add "
                         "--incoming-webhook INTEGRATION.")
    incoming = {"bot_type": 2, "service_name": args.incoming_webhook,
                "config_data": {"webhook_secret": args.webhook_secret}
                if args.webhook_secret else None} if args.incoming_webhook else {}
    bot, api_key = do_create_bot(realm.realm_id, owner, args.name, args.short_name,
                                 args.outgoing_webhook_url, **incoming)
    result = {"realm_id": realm.realm_id, "user_id": bot.user_id, "email": bot.email,
              "api_key": api_key, "bot_owner_id": owner.user_id}
    if bot.service_token:
        result.update(token=bot.service_token, outgoing_webhook_url=bot.service_url)
    if args.incoming_webhook:
        result["integration_url"] = integration_url(realm, args.incoming_webhook, api_key,
                                                    args.stream)
    return result


def integration_url(realm: Any, integration: str, api_key: str, stream: str | None) -> str:
    """The URL to paste into the tool: the running local stack's address, else the
    organization's."""
    from urllib.parse import urlencode

    from chalicelib import config

    endpoint = stack_endpoint(Path(os.environ.get("LOCAL_STATE_DIR", ".local-state")))
    base = endpoint["api_url"] if endpoint and endpoint.get("api_url") else \
        config.realm_url(realm.subdomain)
    query = {"api_key": api_key, **({"stream": stream} if stream else {})}
    return f"{base}/api/v1/external/{integration}?{urlencode(query)}"


def list_users(args: argparse.Namespace) -> dict[str, Any]:
    from chalicelib.actions.users.reads.realm_users import list_realm_users

    realm = _realm(args.realm)
    return {"realm_id": realm.realm_id, "users": [
        {"user_id": u.user_id, "email": u.delivery_email, "full_name": u.full_name, "role": u.role,
         "is_bot": u.is_bot, "is_active": u.is_active}
        for u in list_realm_users(realm.realm_id)]}


def deactivate_realm(args: argparse.Namespace) -> dict[str, Any]:
    from chalicelib.actions.workflows.realms import do_deactivate_realm

    realm = _realm(args.realm)
    count = do_deactivate_realm(realm)
    return {"realm_id": realm.realm_id, "deactivated": True, "api_keys_revoked": count}


def _user(realm: Any, email: str) -> Any:
    from chalicelib.models.users import get_user_by_email

    user = get_user_by_email(realm.realm_id, email)
    if user is None:
        raise AdminError(f"No user '{email}' in '{realm.subdomain}': check the address "
                         "(`list-users` shows them).")
    return user


def rotate_key(args: argparse.Namespace) -> dict[str, Any]:
    from chalicelib.actions.users.api_keys import do_rotate_api_key

    realm = _realm(args.realm)
    user = _user(realm, args.email)
    api_key = do_rotate_api_key(realm.realm_id, user.user_id)
    return {"realm_id": realm.realm_id, "user_id": user.user_id, "email": user.delivery_email,
            "api_key": api_key}


def revoke_key(args: argparse.Namespace) -> dict[str, Any]:
    from chalicelib.actions.users.api_keys import do_rotate_api_key

    realm = _realm(args.realm)
    user = _user(realm, args.email)
    do_rotate_api_key(realm.realm_id, user.user_id, issue=False)
    return {"realm_id": realm.realm_id, "user_id": user.user_id, "email": user.delivery_email,
            "revoked": True}


SPECIAL_PERMISSIONS = ["can_change_user_emails"]


def set_permission(args: argparse.Namespace) -> dict[str, Any]:
    """Gives (or with --off takes back) a special permission, as only the operator may."""
    from chalicelib.actions.users.admin import do_set_can_change_user_emails

    realm = _realm(args.realm)
    user = _user(realm, args.email)
    if user.is_bot:
        raise AdminError(f"'{args.email}' is a bot: special permissions are for users.")
    do_set_can_change_user_emails(realm.realm_id, user.user_id, not args.off)
    return {"realm_id": realm.realm_id, "user_id": user.user_id, "email": user.delivery_email,
            args.permission: not args.off}


def set_rate_limits(args: argparse.Namespace) -> dict[str, Any]:
    from chalicelib.models.realms import Realm
    from chalicelib.rules.rate_limits import RateLimitSpecError, format_rules, parse_rules

    realm = _realm(args.realm)
    try:
        rules = parse_rules(args.limits)
    except RateLimitSpecError as error:
        raise AdminError(f"--limits: {error}") from None
    spec = format_rules(rules) or None
    realm.update(actions=[Realm.rate_limits.set(spec) if spec else Realm.rate_limits.remove()])
    return {"realm_id": realm.realm_id, "rate_limits": spec or "",
            "note": "running functions use it within REALM_LIMITS_CACHE_SECONDS"}


def set_max_invites(args: argparse.Namespace) -> dict[str, Any]:
    from chalicelib import config
    from chalicelib.models.realms import Realm

    realm = _realm(args.realm)
    if args.max is not None and args.max < 0:
        raise AdminError("--max: a number of people, 0 or more")
    realm.update(actions=[Realm.max_invites.remove() if args.max is None
                          else Realm.max_invites.set(args.max)])
    return {"realm_id": realm.realm_id,
            "max_invites": config.invites_daily_limit() if args.max is None else args.max,
            "note": "people invited by email per UTC day"}


def status(args: argparse.Namespace) -> dict[str, Any]:
    """How far the fan-out runs behind: the local stack's last batch, or on AWS the
    FanoutDelay metric of the last five minutes."""
    from chalicelib.fanout import lag

    state_dir = Path(os.environ.get("LOCAL_STATE_DIR", ".local-state"))
    if stack_endpoint(state_dir) is not None:
        local = lag.read_local(state_dir)
        return {"stack": "local", "fanout": local if local is not None else {
            "lag_seconds": None, "note": "no batch handled yet"}}
    import boto3

    return {"stack": "aws", "fanout": lag.read_cloudwatch(boto3.client("cloudwatch"))}


def reindex(args: argparse.Namespace) -> dict[str, Any]:
    from chalicelib.actions.workflows.reindex import do_reindex_realm

    realm = _realm(args.realm)
    return {"realm_id": realm.realm_id, **do_reindex_realm(
        realm.realm_id, progress=lambda line: print(line, file=sys.stderr),
        properties_before=args.properties_before)}


def import_realm(args: argparse.Namespace) -> dict[str, Any]:
    """Loads an export (a file, or `s3://<key>` in the uploads bucket) as a new realm."""
    from chalicelib import config
    from chalicelib.actions.workflows.import_realm import import_realm as load
    from chalicelib.aws import aws_clients

    source: str = args.source
    if source.startswith("s3://"):
        body = aws_clients.s3().get_object(Bucket=config.upload_bucket(),
                                           Key=source.removeprefix("s3://"))["Body"].read()
    else:
        path = Path(source)
        if not path.is_file():
            raise AdminError(f"No export file at {source}")
        body = path.read_bytes()
    try:
        document = json.loads(body)
    except ValueError:
        raise AdminError(f"{source} is not a JSON export") from None
    return dict(load(document, args.subdomain))


def push_key(args: argparse.Namespace) -> dict[str, Any]:
    """The public keys a mobile app built for this deployment seals its push token to
    (from PUSH_REGISTRATION_SECRET, as the deployment's functions have it)."""
    del args
    from chalicelib.rules.push_crypto import public_keys

    return {"push_registration_public_keys": public_keys()}


def _user_command(commands: Any, name: str, run: Any, help_text: str
                  ) -> argparse.ArgumentParser:
    """A command acting on one user or bot, named by organization and email."""
    command: argparse.ArgumentParser = commands.add_parser(name, help=help_text)
    command.add_argument("--realm", required=True)
    command.add_argument("--email", required=True)
    command.set_defaults(run=run)
    return command


def _bot_command(commands: Any) -> None:
    command = commands.add_parser("create-bot", help="create a bot owned by a user")
    command.add_argument("--realm", required=True)
    command.add_argument("--owner-email", required=True)
    command.add_argument("--name", required=True)
    command.add_argument("--short-name", required=True)
    command.add_argument("--outgoing-webhook-url")
    command.add_argument("--incoming-webhook", metavar="INTEGRATION",
                         help="an incoming webhook bot for this integration (github, gitlab, "
                         "grafana, alertmanager, sentry, slack_incoming, json); prints the "
                         "URL to paste into the tool")
    command.add_argument("--webhook-secret", help="the secret the tool signs with "
                         "(GitHub, GitLab, Sentry): its signatures are then checked")
    command.add_argument("--stream", help="the channel the URL names (else the bot's owner "
                         "gets direct messages)")
    command.set_defaults(run=create_bot)


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
    command.add_argument("--role", required=True, choices=list(ROLE_NAMES))
    command.set_defaults(run=create_user)
    _bot_command(commands)
    command = commands.add_parser("list-users", help="list an organization's users")
    command.add_argument("--realm", required=True)
    command.set_defaults(run=list_users)
    command = commands.add_parser("deactivate-realm", help="deactivate an organization")
    command.add_argument("--realm", required=True)
    command.set_defaults(run=deactivate_realm)
    _user_command(commands, "rotate-key", rotate_key,
                  "replace all of a user's or bot's API keys by a new one (printed)")
    _user_command(commands, "revoke-key", revoke_key,
                  "end all of a user's or bot's API keys, issuing none")
    command = _user_command(commands, "set-permission", set_permission,
                            "give a user a special permission (can_change_user_emails: with "
                            "the owner role, change users' emails with PATCH /users/{id})")
    command.add_argument("--permission", required=True, choices=SPECIAL_PERMISSIONS)
    command.add_argument("--off", action="store_true", help="take the permission back")
    command = commands.add_parser(
        "set-rate-limits", help="an organization's own rate limits, e.g. "
        "'api_by_user=500/60,auth_failures_by_ip=off' ('' goes back to the deployment's)")
    command.add_argument("--realm", required=True)
    command.add_argument("--limits", required=True)
    command.set_defaults(run=set_rate_limits)
    command = commands.add_parser(
        "set-max-invites", help="how many people an organization may invite by email a UTC "
        "day (without --max: the deployment's INVITES_DAILY_LIMIT again)")
    command.add_argument("--realm", required=True)
    command.add_argument("--max", type=int, default=None)
    command.set_defaults(run=set_max_invites)
    command = commands.add_parser(
        "status", help="how far event delivery runs behind (the fan-out's delay)")
    command.set_defaults(run=status)
    command = commands.add_parser(
        "reindex", help="backfill index attributes and the search index for data written"
        " by older versions")
    command.add_argument("--realm", required=True)
    command.add_argument("--properties-before", type=int, default=None,
                         help="resume the has: index backfill below this message id")
    command.set_defaults(run=reindex)
    command = commands.add_parser(
        "push-key", help="the public keys mobile apps seal their push token to (set "
        "PUSH_REGISTRATION_SECRET to the deployment's secret first)")
    command.set_defaults(run=push_key)
    command = commands.add_parser(
        "import-realm", help="load an organization export into a new organization")
    command.add_argument("--source", required=True,
                         help="the export's file, or s3://<key> in the uploads bucket")
    command.add_argument("--subdomain", required=True, help="the new organization's")
    command.set_defaults(run=import_realm)
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
    build_parser().parse_args()   # --help, and mistakes, need no stack nor AWS
    try:
        configure_environment()
    except AdminError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    sys.exit(main())
