"""Organization settings of the reference's 12.x series (levels 446-500) through PATCH
/realm, POST /register and realm update_dict events, each shown from its level."""
from __future__ import annotations


def _changes(events):
    return {k: v for e in events if e["type"] == "realm" for k, v in e["data"].items()}


def test_media_preview_size_is_changed_and_told_from_level_469(
        realm, advertise, register_queue, fetch_events, drain_events):
    # Below the level the setting is neither shown nor told
    advertise(468)
    assert "realm_media_preview_size" not in register_queue(realm.member,
                                                            event_types=["realm"])
    advertise(469)
    state = register_queue(realm.member, event_types=["realm"])
    assert state["realm_media_preview_size"] == 100
    # WHEN an administrator makes previews twice as tall
    assert realm.admin.patch("/realm", {"media_preview_size": 200}).ok
    drain_events()
    # THEN everyone is told, and registration shows it
    assert _changes(fetch_events(realm.member, state["queue_id"])) == {
        "media_preview_size": 200}
    assert register_queue(realm.member, event_types=["realm"])[
        "realm_media_preview_size"] == 200
    # AND other sizes, and members, are refused
    for size in (0, 120, 300, "big"):
        answer = realm.admin.patch("/realm", {"media_preview_size": size})
        assert answer.status == 400 and answer.json["code"] == "BAD_REQUEST", size
    assert not realm.member.patch("/realm", {"media_preview_size": 150}).ok
