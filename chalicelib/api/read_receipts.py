"""Read receipts: GET /messages/{message_id}/read_receipts."""
from __future__ import annotations

from chalicelib.actions.messages import read_receipts as actions
from chalicelib.actions.messages.read_receipts import ReadReceiptsResult
from chalicelib.core.principal import Principal
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


@bp.endpoint("/messages/{message_id}/read_receipts", "GET")
def get_read_receipts(caller: Principal, *, message_id: int) -> ReadReceiptsResult:
    return actions.get_read_receipts(caller, message_id)
