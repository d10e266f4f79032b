"""What the advertised level lets out (issue 39, items 3 and 6): fields, event properties
and meanings that the reference added above the advertised level are not sent, and
appear when the level table advertises their level (the `advertise` fixture). The tests
start from level 391 (BEFORE), below every field they follow."""
from __future__ import annotations

from chalicelib.core.feature_levels import CHANGES
from tests.functional.edit_helpers import channel
from tests.functional.stream_admin_helpers import patch

BEFORE = 391
# The channel fields of levels above BEFORE that this server keeps.
LATER_CHANNEL_FIELDS = {"topics_policy": 392, "subscriber_count": 394,
                        "can_move_messages_out_of_channel_group": 396,
                        "can_delete_any_message_group": 407,
                        "can_delete_own_message_group": 407}


def test_the_fields_tested_here_are_above_the_level_the_tests_start_from():
    assert min(LATER_CHANNEL_FIELDS.values()) > BEFORE
    sent_by = {name.split(".", 1)[1]: change.level for change in CHANGES
               for name in change.sends if name.startswith("channel.")}
    assert {k: sent_by[k] for k in LATER_CHANNEL_FIELDS} == LATER_CHANNEL_FIELDS


def channel_objects(account, stream_id: int) -> list[dict]:
    """The channel as every read shows it: GET /streams/{id}, GET /streams, the caller's
    subscriptions, and POST /register's streams and subscriptions."""
    state = account.post("/register", {"fetch_event_types": ["stream", "subscription"]}).json
    listed = account.get("/streams").json["streams"]
    subscribed = account.get("/users/me/subscriptions").json["subscriptions"]
    return [account.get(f"/streams/{stream_id}").json["stream"],
            *[s for group in (listed, subscribed, state["streams"], state["subscriptions"])
              for s in group if s["stream_id"] == stream_id]]


def test_channel_fields_wait_for_their_level(realm, advertise):
    advertise(BEFORE)
    stream_id = channel(realm.owner, "levels", [realm.owner, realm.member])
    # At the advertised level: none of them, in any read
    objects = channel_objects(realm.owner, stream_id)
    assert len(objects) == 5
    assert [sorted(set(LATER_CHANNEL_FIELDS) & set(o)) for o in objects] == [[]] * 5
    # Each appears from its level on
    advertise(394)
    objects = channel_objects(realm.owner, stream_id)
    assert {o["subscriber_count"] for o in objects} == {2}
    assert all("topics_policy" in o and "can_delete_any_message_group" not in o
               for o in objects)
    advertise(407)
    objects = channel_objects(realm.owner, stream_id)
    assert all(set(LATER_CHANNEL_FIELDS) <= set(o) for o in objects)


def test_channel_events_carry_the_fields_of_the_level(realm, register_queue, fetch_events,
                                                      drain_events, advertise):
    advertise(BEFORE)
    queue_id = register_queue(realm.member, event_types=["stream", "subscription"])[
        "queue_id"]
    # GIVEN a channel created for the member, and a change of a level-392 property
    stream_id = channel(realm.owner, "created", [realm.owner, realm.member])
    assert patch(realm.owner, stream_id, topics_policy="disable_empty_topic",
                 description="told").ok
    drain_events()
    events = fetch_events(realm.member, queue_id)
    # THEN the subscription add event has no later field, and only the description's
    # change is told (a client at this level knows no topics_policy)
    [added] = [e for e in events if e["type"] == "subscription" and e["op"] == "add"]
    assert not set(LATER_CHANNEL_FIELDS) & set(added["subscriptions"][0])
    assert [e["property"] for e in events if e["op"] == "update"] == ["description"]
    # WHEN the level reaches 392, THEN the change was kept and is told from then on
    advertise(392)
    last = events[-1]["id"]
    assert patch(realm.owner, stream_id, topics_policy="allow_empty_topic").ok
    drain_events()
    [told] = [e for e in fetch_events(realm.member, queue_id, last) if e["op"] == "update"]
    assert (told["property"], told["value"]) == ("topics_policy", "allow_empty_topic")


def test_the_organizations_topics_policy_speaks_the_levels_language(
        realm, register_queue, fetch_events, drain_events, advertise):
    advertise(BEFORE)
    queue_id = register_queue(realm.member, event_types=["realm"])["queue_id"]
    # Below level 392 the setting is the boolean mandatory_topics, in events and state
    assert realm.owner.patch("/realm", {"topics_policy": "disable_empty_topic"}).ok
    drain_events()
    [event] = fetch_events(realm.member, queue_id)
    assert event["data"] == {"mandatory_topics": True}
    state = register_queue(realm.member, event_types=["realm"])
    assert state["realm_mandatory_topics"] is True
    assert not {"realm_topics_policy", "realm_can_set_topics_policy_group"} & set(state)
    # From level 392 on, topics_policy itself
    advertise(392)
    assert realm.owner.patch("/realm", {"topics_policy": "allow_empty_topic"}).ok
    drain_events()
    [event] = fetch_events(realm.member, queue_id, event["id"])
    assert event["data"] == {"topics_policy": "allow_empty_topic"}
    state = register_queue(realm.member, event_types=["realm"])
    assert (state["realm_topics_policy"], state["realm_mandatory_topics"]) == (
        "allow_empty_topic", False)
    assert "realm_can_set_topics_policy_group" in state


def is_moderator_by_role(realm) -> dict[int, bool]:
    return {account.role: account.post("/register", {
        "fetch_event_types": ["realm_user"]}).json["is_moderator"]
        for account in (realm.owner, realm.admin, realm.moderator, realm.member,
                        realm.guest)}


def test_is_moderator_means_what_the_level_says(realm, advertise):
    # At the advertised level (380 and above): moderators, administrators and owners
    assert is_moderator_by_role(realm) == {100: True, 200: True, 300: True, 400: False,
                                           600: False}
    # Before level 380, the reference's field meant the moderator role alone
    advertise(379)
    assert is_moderator_by_role(realm) == {100: False, 200: False, 300: True, 400: False,
                                           600: False}
