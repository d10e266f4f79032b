"""Changing and leaving accounts, and the configuration-dependent operations:
PATCH /users/{user_id}, DELETE /users/me, POST /dev_fetch_api_key,
GET /calls/bigbluebutton/create."""
from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from chalicelib.actions.realm.reads.server_settings import subdomain_of
from chalicelib.actions.users.account import FetchApiKeyResult
from chalicelib.actions.users.deactivation import do_deactivate_own_user
from chalicelib.actions.workflows.unconfigured import (
    CallUrlResult,
    create_bigbluebutton_call,
    do_dev_fetch_api_key,
)
from chalicelib.actions.workflows.user_update import update_user as do_update_user
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import Json
from chalicelib.http.request import request_host

bp = ApiBlueprint(__name__)


@bp.endpoint("/users/{user_id}", "PATCH")
def update_user(caller: Principal, *, user_id: str, full_name: str | None = None,
                role: Json[int] | None = None,
                profile_data: Json[list[dict[str, Any]]] | None = None,
                new_email: str | None = None) -> EmptyResult:
    # Also the reference's PATCH /users/{email} (level 313): an id or an email address.
    return do_update_user(caller, unquote(user_id), full_name=full_name, role=role,
                          profile_data=profile_data, new_email=new_email)


@bp.endpoint("/users/me", "DELETE")
def deactivate_own_user(caller: Principal) -> EmptyResult:
    return do_deactivate_own_user(caller)


@bp.endpoint("/dev_fetch_api_key", "POST", public=True)
def dev_fetch_api_key(*, username: str) -> FetchApiKeyResult:
    return do_dev_fetch_api_key(subdomain_of(request_host(bp.current_request)), username)


@bp.endpoint("/calls/bigbluebutton/create", "GET")
def create_big_blue_button_video_call(caller: Principal, *, meeting_name: str,
                                      voice_only: bool = False) -> CallUrlResult:
    del voice_only
    return create_bigbluebutton_call(caller, meeting_name)
