"""Organization exports: POST/GET /export/realm, GET /export/realm/consents."""
from __future__ import annotations

from typing import Literal

from chalicelib.actions.workflows import export as actions
from chalicelib.actions.workflows.export import (
    ExportConsentsResult,
    ExportCreatedResult,
    ExportsResult,
)
from chalicelib.core.principal import Principal
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)
ExportType = int | Literal["public", "full_with_consent", "full_without_consent"]


@bp.endpoint("/export/realm", "POST")
def export_realm(caller: Principal, *, export_type: ExportType = 1) -> ExportCreatedResult:
    """`export_type`: a number, or from level 449 its name."""
    return actions.do_start_export(caller, export_type)


@bp.endpoint("/export/realm", "GET")
def get_realm_exports(caller: Principal) -> ExportsResult:
    return actions.get_exports(caller)


@bp.endpoint("/export/realm/consents", "GET")
def get_realm_export_consents(caller: Principal) -> ExportConsentsResult:
    return actions.get_export_consents(caller)
