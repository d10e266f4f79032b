"""Message reminders (levels 381, 399, 415): POST and GET /reminders, DELETE /reminders/{id}."""
from __future__ import annotations

from chalicelib.actions.messages.reminders import (
    CreateReminderResult,
    GetRemindersResult,
    check_create_reminder,
    do_delete_reminder,
    get_reminders,
)
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


@bp.endpoint("/reminders", "POST")
def create_message_reminder(caller: Principal, *, message_id: int,
                            scheduled_delivery_timestamp: int, note: str | None = None
                            ) -> CreateReminderResult:
    return check_create_reminder(caller, message_id, scheduled_delivery_timestamp, note)


@bp.endpoint("/reminders", "GET")
def get_reminders_backend(caller: Principal) -> GetRemindersResult:
    return get_reminders(caller)


@bp.endpoint("/reminders/{reminder_id}", "DELETE")
def delete_reminder(caller: Principal, *, reminder_id: int) -> EmptyResult:
    do_delete_reminder(caller, reminder_id)
    return {}
