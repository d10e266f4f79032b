"""The vocabulary of the level table: how a change of the reference is honoured here
(`Status`), one change (`Change`), and the shapes a change's new keys belong to. The
rows are in levels_before_11.py, levels_11.py, levels_12.py and levels_12_late.py; what
the advertised level is and what it lets out is computed in feature_levels.py."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Status = Literal["honoured", "not offered", "reported", "not honoured"]
HONOURED: Status = "honoured"
NOT_OFFERED: Status = "not offered"
REPORTED: Status = "reported"
NOT_HONOURED: Status = "not honoured"

# The reference document this server's shapes are checked against describes this level;
# the changes after it come from the reference's published changelog.
REFERENCE_DOCUMENT_LEVEL = 378
# Fields and parameter values of a level above the advertised one are not sent; this is
# the one such a reader checks itself (actions/channels/reads/subscribers.py).
PARTIAL_SUBSCRIBERS_LEVEL = 412     # include_subscribers=partial, partial_subscribers

# The functional tests of the reference's shapes that many rows cite.
CONFORMANCE = "tests/functional/test_conformance.py"

# What a change adds to answers and events, named "<shape>.<key>" in `Change.sends`:
SHAPES = {
    "channel": "Stream and Subscription objects (GET /streams, subscriptions, register, "
               "stream events)",
    "channel_folder": "channel folder objects (GET /channel_folders, register, "
                      "channel_folder events)",
    "export_consent": "objects of GET /export/realm/consents",
    "presence_event": "presence events (for queues with simplified_presence_events)",
    "register": "top-level keys of POST /register",
    "realm_setting": "keys of realm update_dict events' data",
    "subscribe": "POST /users/me/subscriptions answers",
    "stream_property": "properties of stream update events (the event is not sent)",
    "user": "user objects (GET /users, GET /users/me, realm_users, realm_user events)",
    "user_setting": "user settings (POST /register user_settings, user_settings events)",
    "incoming_webhook_bot": "items of POST /register realm_incoming_webhook_bots",
    # Levels 446-500 (levels_12_late.py):
    "attachment": "Attachment objects (GET /attachments, attachment events)",
    "bot": "bot objects (POST /register realm_bots, realm_bot events)",
    "event": "event type and op pairs (\"<type>/<op>\") newer than the reference document",
    "incoming_webhook_option": "config and URL options of realm_incoming_webhook_bots",
    "linkifier": "linkifier objects (GET /realm/linkifiers, register, realm_linkifiers "
                 "events)",
    "profile_field": "custom profile field objects (GET /realm/profile_fields, register, "
                     "custom_profile_fields events)",
    "person_update": "person objects of realm_user update events (sent as a whole)",
    "reaction_event": "reaction events",
    "realm_export": "data export objects (GET /export/realm, realm_export events)",
    "user_presence": "GET /users/{id}/presence answers and their presence object (keys "
                     "chosen by level in actions/presence/reads/snapshot.py)",
}


@dataclass(frozen=True)
class Change:
    level: int
    change: str
    where: str     # the module or endpoint that honours it, or why not
    test: str      # tests/<path>::<test> proving it ("" where nothing is served)
    status: Status = HONOURED
    # What the change adds to answers and events ("<shape>.<key>", SHAPES): sent only
    # while the advertised level reaches the change's (`withheld`, `at_advertised_level`).
    sends: tuple[str, ...] = ()
    # What the change removes from answers and events (same naming): sent only while the
    # advertised level is below the change's.
    removes: tuple[str, ...] = ()

