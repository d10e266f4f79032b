"""Alert words: GET, POST and DELETE /users/me/alert_words."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.actions.users import alert_words as actions
from chalicelib.core.principal import Principal
from chalicelib.http.endpoint import ApiBlueprint
from chalicelib.http.params import Json

bp = ApiBlueprint(__name__)


class AlertWordsResult(TypedDict):
    alert_words: list[str]


@bp.endpoint("/users/me/alert_words", "GET")
def list_alert_words(caller: Principal) -> AlertWordsResult:
    return {"alert_words": actions.get_alert_words(caller)}


@bp.endpoint("/users/me/alert_words", "POST")
def add_alert_words(caller: Principal, *, alert_words: Json[list[str]]) -> AlertWordsResult:
    return {"alert_words": actions.add_alert_words(caller, alert_words)}


@bp.endpoint("/users/me/alert_words", "DELETE")
def remove_alert_words(caller: Principal, *, alert_words: Json[list[str]]
                       ) -> AlertWordsResult:
    return {"alert_words": actions.remove_alert_words(caller, alert_words)}
