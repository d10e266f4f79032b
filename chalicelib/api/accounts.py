"""Endpoints that authenticate by other means than an API key: a password, or the secret
in an emailed confirmation link."""
from __future__ import annotations

from chalicelib.actions.realm.reads.server_settings import subdomain_of
from chalicelib.actions.users.account import (
    ConfirmEmailChangeResult,
    FetchApiKeyResult,
    do_confirm_email_change,
    do_fetch_api_key,
)
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.request import request_host

bp = ApiBlueprint(__name__)


@bp.endpoint("/fetch_api_key", "POST", public=True)
def fetch_api_key(*, username: str, password: str) -> FetchApiKeyResult:
    return do_fetch_api_key(subdomain_of(request_host(bp.current_request)), username, password)


# Registered without the /api/v1 prefix: it is the link in the confirmation email.
confirmations = ApiBlueprint(__name__ + ".confirmations")


@confirmations.endpoint("/accounts/confirm_new_email/{confirmation_key}", "GET", public=True)
def confirm_new_email(*, confirmation_key: str) -> ConfirmEmailChangeResult:
    return do_confirm_email_change(confirmation_key)
