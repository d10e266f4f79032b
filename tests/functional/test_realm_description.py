"""PATCH /realm `description`: stored, shown rendered, and announced in each level's form
(levels 462 and 464)."""
from __future__ import annotations

import pytest

RENDERED = "<p>We <strong>build</strong> boats.</p>"


def change_and_read(realm, register_queue, fetch_events, drain_events, text):
    queue_id = register_queue(realm.member, event_types=["realm"])["queue_id"]
    response = realm.admin.patch("/realm", {"description": text})
    assert response.ok, response.json
    drain_events()
    return fetch_events(realm.member, queue_id)


@pytest.mark.parametrize("level, expected", [
    (445, {"type": "realm", "op": "update", "property": "description",
           "value": "We **build** boats."}),
    (462, {"type": "realm", "op": "update", "property": "description",
           "value": "We **build** boats.", "rendered_description": RENDERED}),
    (464, {"type": "realm", "op": "update_dict", "property": "default",
           "data": {"description": "We **build** boats.",
                    "rendered_description": RENDERED}}),
])
def test_a_description_change_is_told_in_the_levels_form(realm, register_queue, fetch_events,
                                                          drain_events, advertise, level,
                                                          expected):
    advertise(level)
    events = change_and_read(realm, register_queue, fetch_events, drain_events,
                             "We **build** boats.")
    assert [{k: v for k, v in e.items() if k != "id"} for e in events] == [expected]
    state = register_queue(realm.member, event_types=["realm"])
    assert state["realm_description"] == RENDERED
    # AND the same description again changes nothing and tells no one
    assert change_and_read(realm, register_queue, fetch_events, drain_events,
                           "We **build** boats.") == []


def test_only_administrators_change_it_within_its_length(realm, register_queue):
    refused = realm.member.patch("/realm", {"description": "mine"})
    assert refused.status == 400 and refused.json["code"] == "BAD_REQUEST"
    long = realm.admin.patch("/realm", {"description": "x" * 1001,
                                        "allow_message_editing": False})
    assert long.status == 400 and "1000" in long.json["msg"]
    state = register_queue(realm.admin, event_types=["realm"])
    # nothing of the refused request was written
    assert state["realm_description"] != "<p>mine</p>"
    assert state["realm_allow_message_editing"] is True
