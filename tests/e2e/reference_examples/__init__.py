"""The reference's published API examples, as a table: one row per example call.

The reference documents its API with Python examples (zulip/zulip
`zerver/openapi/python_examples.py`, run by its `tools/test-api` against its development
data in the order of its `test_the_api`). Each row (base.Example) is one of those calls
made through the official `zulip` client behind the renaming proxy
(tests/e2e/service_client.py), against `make run`'s stack, with equivalent data made
through the API (tests/e2e/reference_dev_data.py): the reference operation it exercises,
the call as the example makes it, and the example's own check of the answer, with the
development data's names and ids replaced by ours. Rows run in the table's order, as the
examples do: some use what an earlier one made. A row with `error` expects that code.

Every answer a row receives (its set-up calls too) is checked against the reference's
schema with every object closed and against the generated document
(tests/e2e/example_client.check_answer); tests/e2e/test_reference_examples.py runs them.

The reference's JavaScript examples (`zerver/openapi/javascript_examples.js`) make a
subset of the same calls through its JavaScript client; the two whose requests differ
from the Python ones are rows here too ("javascript ..."). Its curl examples
(`test_curl_examples.py`, with `curl_param_value_generators.py`) are generated from its
OpenAPI document's example values, not published code; they are not run here.

NOT_RUN lists the examples that do not run against this server, with the reason
(docs/reference-examples.md has the list for client authors).
"""
from __future__ import annotations

from tests.e2e.reference_examples.base import Example
from tests.e2e.reference_examples.channels import STREAMS
from tests.e2e.reference_examples.messages import MESSAGES
from tests.e2e.reference_examples.organization import (
    ERRORS,
    INVITATIONS,
    QUEUES,
    SERVER_ORGANIZATIONS,
)
from tests.e2e.reference_examples.users import USERS

__all__ = ["EXAMPLES", "NEWER_THAN_THE_DOCUMENT", "NOT_RUN", "Example"]

EXAMPLES: list[Example] = [*USERS, *STREAMS, *MESSAGES, *QUEUES, *SERVER_ORGANIZATIONS,
                           *ERRORS, *INVITATIONS]

# Operations of the examples newer than the reference document (level 378) and offered
# here: their answers are checked against the generated document (objects closed) only.
NEWER_THAN_THE_DOCUMENT = {
    "GET /navigation_views", "POST /navigation_views",                      # level 390
    "PATCH /navigation_views/{fragment}", "DELETE /navigation_views/{fragment}",
    "POST /messages/{message_id}/report",                                   # level 382
    "POST /channels/create",                                                # level 417
    "POST /realm/test_welcome_bot_custom_message",                          # level 416
}

# The reference's examples that do not run against this server: operation -> reason.
# Each operation is checked to be answered 404, as by a server without the feature.
NOT_RUN: dict[str, str] = {
    "POST /mobile_push/register":
        "register_push_device: level 406's form of the E2EE push registration (its "
        "parameters), which level 468 replaced; served here in 468's form "
        "(tests/functional/test_client_devices.py)",
    "PATCH /invites/multiuse/{invite_id}":
        "edit_reusable_invitation_link: newer than level 421 (no level of the published "
        "changelog up to 421 adds it); not offered here",
}

# Of those, the operations served here in a later level's form (not answered 404).
SERVED_IN_A_LATER_FORM = frozenset({"POST /mobile_push/register"})

# Error-shape helpers of the reference's file that its test_the_api does not call either
# (they need a deactivated account or organization as the client).
NOT_CALLED = ("test_user_account_deactivated", "test_realm_deactivated")
