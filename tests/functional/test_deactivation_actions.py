"""Level 459: DELETE /users/{id} `actions`: the profile's name replaced and the user's
messages of the kinds asked deleted (a background job the deactivation records)."""
from __future__ import annotations

from chalicelib.actions.messages import sender_deletion
from chalicelib.models.messages import Message
from tests.functional.edit_helpers import channel, send


def remaining(realm_id: int, ids: list[int]) -> list[int]:
    return sorted(m.message_id for m in Message.batch_get([(realm_id, i) for i in ids]))


def dm(sender, recipient) -> int:
    response = sender.post("/messages", {"type": "direct", "to": [recipient.user_id],
                                         "content": "psst"})
    assert response.ok, response.json
    return response.json["id"]


def test_below_level_459_actions_are_not_taken(realm, webhooks, advertise):
    advertise(458)
    channel(realm.owner, "general", [realm.owner, realm.member])
    kept = send(realm.member, "general", "t", "mine")
    assert realm.admin.delete(f"/users/{realm.member.user_id}", {
        "actions": {"delete_profile": True, "delete_public_channel_messages": True}}).ok
    webhooks.run()
    assert remaining(realm.realm_id, [kept]) == [kept]
    assert realm.owner.get(f"/users/{realm.member.user_id}").json["user"]["full_name"] == \
        realm.member.full_name


def test_deactivation_deletes_the_messages_and_profile_asked_for(
        realm, webhooks, advertise, register_queue, fetch_events, drain_events, monkeypatch):
    advertise(459)
    monkeypatch.setattr(sender_deletion, "MESSAGES_PER_BATCH", 2)   # several batches
    channel(realm.owner, "general", [realm.owner, realm.member])
    channel(realm.owner, "secret", [realm.owner, realm.member], invite_only=True)
    public = [send(realm.member, "general", topic, "mine") for topic in ("a", "a", "a", "b")]
    others = send(realm.owner, "general", "a", "not theirs")
    private = send(realm.member, "secret", "t", "hidden")
    direct = dm(realm.member, realm.owner)
    drain_events()
    queue_id = register_queue(realm.owner, event_types=["delete_message", "realm_user"],
                              client_capabilities={"bulk_message_deletion": True})["queue_id"]
    # WHEN an administrator deactivates the member, asking for public channel and
    # direct messages and the profile to go
    response = realm.admin.delete(f"/users/{realm.member.user_id}", {"actions": {
        "delete_profile": True, "delete_public_channel_messages": True,
        "delete_direct_messages": True}})
    assert response.ok, response.json
    webhooks.run()
    # THEN those messages are gone, the private channel's and others' stay
    everything = [*public, others, private, direct]
    assert remaining(realm.realm_id, everything) == sorted([others, private])
    # AND readers were told, a conversation's batch at a time, the administrator as deleter
    drain_events()
    events = fetch_events(realm.owner, queue_id)
    deleted = sorted(i for e in events if e["type"] == "delete_message"
                     for i in e["message_ids"])
    assert deleted == sorted([*public, direct])
    # AND the profile's name is replaced, told to everyone
    assert realm.owner.get(f"/users/{realm.member.user_id}").json["user"]["full_name"] == \
        "Deleted user"
    assert {"user_id": realm.member.user_id, "full_name": "Deleted user"} in [
        e["person"] for e in events if e["type"] == "realm_user"]
    # AND the job again finds nothing more to do
    assert sender_deletion.run_sender_deletion({
        "realm_id": realm.realm_id, "user_id": realm.member.user_id,
        "actor_id": realm.admin.user_id, "kinds": ["public", "direct"]}) is True


def test_a_job_out_of_time_goes_on_from_what_is_left(realm, advertise, monkeypatch):
    advertise(459)
    channel(realm.owner, "general", [realm.owner, realm.member])
    ids = [send(realm.member, "general", f"topic {n}", "mine") for n in range(3)]
    job = {"realm_id": realm.realm_id, "user_id": realm.member.user_id,
           "actor_id": realm.owner.user_id, "kinds": ["public"]}
    # an invocation whose time is spent after its first batch
    assert sender_deletion.run_sender_deletion(job, deadline=0.0) is False
    assert len(remaining(realm.realm_id, ids)) == 2
    assert sender_deletion.run_sender_deletion(job) is True
    assert remaining(realm.realm_id, ids) == []
