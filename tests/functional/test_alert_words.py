"""GET/POST/DELETE /users/me/alert_words and the alert_words event."""
from __future__ import annotations

import threading

from chalicelib.actions.users.alert_words import add_alert_words
from chalicelib.core.principal import Principal


def test_add_list_remove(realm, register_queue, fetch_events, drain_events):
    # GIVEN a queue for alert word events
    queue_id = register_queue(realm.member, event_types=["alert_words"])["queue_id"]
    assert realm.member.get("/users/me/alert_words").json["alert_words"] == []
    # WHEN words are added (blank ones dropped, spaces trimmed, case-insensitive duplicates)
    added = realm.member.post("/users/me/alert_words",
                              {"alert_words": [" Deploy ", "outage", "", "deploy"]})
    # THEN the full list comes back, in the order first written
    assert added.ok and added.json["alert_words"] == ["Deploy", "outage"]
    again = realm.member.post("/users/me/alert_words", {"alert_words": ["OUTAGE", "pager"]})
    assert again.json["alert_words"] == ["Deploy", "outage", "pager"]
    assert realm.member.get("/users/me/alert_words").json["alert_words"] == [
        "Deploy", "outage", "pager"]
    # WHEN some are removed (case-insensitively; unknown ones ignored)
    removed = realm.member.delete("/users/me/alert_words",
                                  {"alert_words": ["deploy", "never-added"]})
    assert removed.ok and removed.json["alert_words"] == ["outage", "pager"]
    # THEN each change was an alert_words event with the whole list; others saw nothing
    drain_events()
    assert [e["alert_words"] for e in fetch_events(realm.member, queue_id)] == [
        ["Deploy", "outage"], ["Deploy", "outage", "pager"], ["outage", "pager"]]
    assert realm.admin.get("/users/me/alert_words").json["alert_words"] == []
    # AND registration returns them as initial state
    assert register_queue(realm.member, event_types=["alert_words"])["alert_words"] == [
        "outage", "pager"]


def test_no_change_writes_no_event(realm, register_queue, fetch_events, drain_events):
    realm.member.post("/users/me/alert_words", {"alert_words": ["same"]})
    drain_events()
    queue_id = register_queue(realm.member, event_types=["alert_words"])["queue_id"]
    assert realm.member.post("/users/me/alert_words", {"alert_words": ["SAME"]}).ok
    assert realm.member.delete("/users/me/alert_words", {"alert_words": ["other"]}).ok
    drain_events()
    assert fetch_events(realm.member, queue_id) == []


def test_alert_word_errors(realm):
    too_long = realm.member.post("/users/me/alert_words",
                                 {"alert_words": ["ok", "x" * 101]})
    assert too_long.status == 400
    assert too_long.json["msg"] == "alert_words[1] is over the limit of 100 characters"
    assert realm.member.post("/users/me/alert_words", {}).json["code"] == \
        "REQUEST_VARIABLE_MISSING"
    assert realm.member.post("/users/me/alert_words", {"alert_words": "word"}).status == 400
    assert realm.member.post("/users/me/alert_words", {"alert_words": [1]}).status == 400
    assert realm.member.delete("/users/me/alert_words", {}).status == 400
    assert realm.member.get("/users/me/alert_words").json["alert_words"] == []


def test_concurrent_additions_keep_every_word(realm):
    # GIVEN 4 threads adding different words at once (the action, not the test client,
    # whose environment patching is per call)
    caller = Principal(realm.realm_id, realm.member.user_id, realm.member.email, 400, False)
    errors: list[BaseException] = []

    def add(n: int) -> None:
        try:
            for k in range(3):
                add_alert_words(caller, [f"w{n}-{k}"])
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=add, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # THEN no addition was lost to another's read-modify-write
    assert errors == []
    words = realm.member.get("/users/me/alert_words").json["alert_words"]
    assert sorted(words) == sorted(f"w{n}-{k}" for n in range(4) for k in range(3))
