"""Message reports: POST /messages/{message_id}/report (feature level 382)."""
from __future__ import annotations

from typing import Annotated

from chalicelib.actions.messages.report import (
    MAX_DESCRIPTION_LENGTH,
    ReportType,
    do_report_message,
)
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import ApiParam

bp = ApiBlueprint(__name__)


@bp.endpoint("/messages/{message_id}/report", "POST")
def report_message(caller: Principal, *, message_id: int, report_type: ReportType,
                   description: Annotated[str, ApiParam(
                       max_length=MAX_DESCRIPTION_LENGTH)] = "") -> EmptyResult:
    return do_report_message(caller, message_id, report_type, description)
