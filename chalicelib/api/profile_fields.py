"""Custom profile fields: the realm's definitions and the caller's own values."""
from __future__ import annotations

from typing import Any, TypedDict

from chalicelib.actions.users import profile_fields as actions
from chalicelib.actions.users.profile_data import do_update_profile_data
from chalicelib.actions.users.profile_field_order import do_reorder_profile_fields
from chalicelib.actions.users.reads.profile_fields import (
    ProfileFieldDict,
    profile_field_dict,
    realm_profile_fields,
)
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import Json

bp = ApiBlueprint(__name__)


class ProfileDataElement(TypedDict):
    id: int
    value: str | list[int] | None


class ProfileFieldsResult(TypedDict):
    custom_fields: list[ProfileFieldDict]


class CreateProfileFieldResult(TypedDict):
    id: int


@bp.endpoint("/realm/profile_fields", "GET")
def get_custom_profile_fields(caller: Principal) -> ProfileFieldsResult:
    return {"custom_fields": [profile_field_dict(f)
                              for f in realm_profile_fields(caller.realm_id)]}


@bp.endpoint("/realm/profile_fields", "POST")
def create_custom_profile_field(caller: Principal, *, field_type: int, name: str = "",
                                hint: str = "",
                                field_data: Json[dict[str, Any]] | None = None,
                                display_in_profile_summary: bool = False,
                                required: bool = False,
                                editable_by_user: bool = True,
                                use_for_user_matching: bool = False
                                ) -> CreateProfileFieldResult:
    field_id = actions.do_create_profile_field(
        caller, name=name, hint=hint, field_type=field_type, field_data=field_data,
        display_in_profile_summary=display_in_profile_summary, required=required,
        editable_by_user=editable_by_user,
        use_for_user_matching=use_for_user_matching)
    return {"id": field_id}


@bp.endpoint("/realm/profile_fields", "PATCH")
def reorder_custom_profile_fields(caller: Principal, *, order: Json[list[int]]) -> EmptyResult:
    return do_reorder_profile_fields(caller, order)


@bp.endpoint("/realm/profile_fields/{field_id}", "DELETE")
def delete_custom_profile_field(caller: Principal, *, field_id: int) -> EmptyResult:
    actions.do_delete_profile_field(caller, field_id)
    return {}


@bp.endpoint("/users/me/profile_data", "PATCH")
def update_profile_data(caller: Principal, *,
                        data: Json[list[ProfileDataElement]]) -> EmptyResult:
    do_update_profile_data(caller, data)
    return {}
