"""Drafts: create, list, edit, delete, events, and turning synchronization off."""
from __future__ import annotations

from tests.functional.edit_helpers import channel


def test_draft_lifecycle_with_events(realm, register_queue, fetch_events, drain_events):
    stream_id = channel(realm.owner, "talk", [realm.member])
    queue_id = register_queue(realm.member, event_types=["drafts"])["queue_id"]
    created = realm.member.post("/drafts", {"drafts": [
        {"type": "stream", "to": [stream_id], "topic": "plans", "content": "hello",
         "timestamp": 100},
        {"type": "private", "to": [realm.owner.user_id], "topic": "ignored",
         "content": "psst", "timestamp": 200},
        {"type": "", "to": [5], "topic": "x", "content": "loose", "timestamp": 50}]})
    assert created.ok, created.json
    ids = created.json["ids"]
    listed = realm.member.get("/drafts").json
    assert listed["count"] == 3
    assert [d["id"] for d in listed["drafts"]] == [ids[1], ids[0], ids[2]]   # newest first
    assert listed["drafts"][1] == {"id": ids[0], "type": "stream", "to": [stream_id],
                                   "topic": "plans", "content": "hello", "timestamp": 100}
    assert listed["drafts"][0]["topic"] == "" and listed["drafts"][2]["to"] == []
    assert realm.member.patch(f"/drafts/{ids[0]}", {"draft": {
        "type": "stream", "to": [stream_id], "topic": "plans", "content": "hello again",
        "timestamp": 300}}).ok
    assert realm.member.delete(f"/drafts/{ids[2]}").ok
    drain_events()
    events = fetch_events(realm.member, queue_id)
    assert [e["op"] for e in events] == ["add", "update", "remove"]
    assert len(events[0]["drafts"]) == 3 and events[1]["draft"]["content"] == "hello again"
    assert events[2]["draft_id"] == ids[2]
    # other users see none of it
    assert realm.owner.get("/drafts").json["count"] == 0
    assert realm.owner.delete(f"/drafts/{ids[0]}").json["msg"] == "No draft with that ID exists"


def test_draft_errors(realm):
    secret = channel(realm.owner, "secret", [realm.owner], invite_only=True)
    cases = [
        ({"type": "stream", "to": [secret], "content": "x"}, "No channel you can see has that ID."),
        ({"type": "stream", "to": [], "content": "x"}, "exactly one channel"),
        ({"type": "private", "to": [99999], "content": "x"}, "Invalid user ID"),
        ({"type": "huh", "to": [], "content": "x"}, "must be ''"),
        ({"type": "", "to": [], "content": "a\x00b"}, "null bytes"),
        ({"type": "", "to": []}, "needs 'content'"),
    ]
    for draft, message in cases:
        response = realm.member.post("/drafts", {"drafts": [draft]})
        assert response.status == 400 and message in response.json["msg"], response.json
    assert realm.member.get("/drafts").json["count"] == 0
    assert realm.member.patch("/drafts/424242", {"draft": {"type": "", "to": [],
                                                          "content": "x"}}).json["msg"] == \
        "No draft with that ID exists"


def test_turning_synchronization_off_deletes_drafts(realm):
    assert realm.member.post("/drafts", {"drafts": [
        {"type": "", "to": [], "content": f"d{n}"} for n in range(3)]}).ok
    draft_id = realm.member.get("/drafts").json["drafts"][0]["id"]
    assert realm.member.patch("/settings", {"enable_drafts_synchronization": False}).ok
    # THEN every draft endpoint refuses (writes by a condition in their transaction)
    loose = {"type": "", "to": [], "content": "x"}
    for refused in (realm.member.get("/drafts"),
                    realm.member.post("/drafts", {"drafts": [loose]}),
                    realm.member.patch(f"/drafts/{draft_id}", {"draft": loose}),
                    realm.member.delete(f"/drafts/{draft_id}")):
        assert refused.status == 400 and refused.json["msg"] == \
            "Draft syncing is turned off in your settings."
    from chalicelib.models.channels import user_key
    from chalicelib.models.drafts import Draft
    assert list(Draft.query(user_key(realm.realm_id, realm.member.user_id))) == []
    assert realm.member.patch("/settings", {"enable_drafts_synchronization": True}).ok
    assert realm.member.get("/drafts").json["count"] == 0


def test_timestamps_must_be_finite_seconds(realm):
    # JSON admits Infinity and NaN, and a float can stand for a 300-digit number; none is
    # a time, and DynamoDB numbers hold 38 digits.
    for timestamp in ("Infinity", "NaN", "1e300", "9" * 45, "-1", '"soon"'):
        drafts = '[{"type": "", "to": [], "content": "x", "timestamp": ' + timestamp + "}]"
        response = realm.member.post("/drafts", {"drafts": drafts})
        assert response.status == 400, (timestamp, response.json)
        assert response.json["msg"] == "draft[0]['timestamp'] must be a positive number"
    assert realm.member.get("/drafts").json["count"] == 0


def test_turning_synchronization_off_reads_the_drafts_consistently(realm, monkeypatch):
    """A draft committed just before the setting changed must be among those deleted: on
    DynamoDB only a strongly consistent Query is sure to see it (moto always does)."""
    from chalicelib.models.drafts import Draft

    assert realm.member.post("/drafts", {"drafts": [{"type": "", "to": [],
                                                     "content": "x"}]}).ok
    reads: list[dict] = []
    real_query = Draft.query

    def recording_query(*args, **kwargs):
        reads.append(kwargs)
        return real_query(*args, **kwargs)

    monkeypatch.setattr(Draft, "query", recording_query)
    assert realm.member.patch("/settings", {"enable_drafts_synchronization": False}).ok
    assert [r.get("consistent_read") for r in reads] == [True]
