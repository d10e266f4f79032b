"""POST /realm/test_welcome_bot_custom_message (feature level 416)."""
from __future__ import annotations

from chalicelib.actions.workflows.welcome_bot import (
    TestWelcomeMessageResult,
    do_send_test_welcome_message,
)
from chalicelib.core.principal import Principal
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


@bp.endpoint("/realm/test_welcome_bot_custom_message", "POST")
def test_welcome_bot_custom_message(caller: Principal, *, welcome_message_custom_text: str
                                    ) -> TestWelcomeMessageResult:
    return do_send_test_welcome_message(caller, welcome_message_custom_text)
