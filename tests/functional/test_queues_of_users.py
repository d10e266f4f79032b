"""delivery/queues.py queues_of_users: a large audience's hundreds read side by side,
each hundred's directory then its queues, give what one reading of them all gives."""
from __future__ import annotations

from chalicelib.delivery import queues as module
from chalicelib.delivery.queues import create_queue, delete_queue, listed_queue_ids


def test_hundreds_of_users_read_in_pages_give_every_live_queue_in_order(realm, monkeypatch):
    users = list(range(900_001, 900_231))   # three pages of a hundred
    made = [create_queue(realm.realm_id, u, {}) for u in users]
    made += [create_queue(realm.realm_id, u, {}) for u in users[::50]]   # second queues
    gone = made[7]
    gone.delete()   # its item gone, its id still listed: dropped from the directory
    pages: list[int] = []
    original = module._live_queues
    monkeypatch.setattr(module, "_live_queues", lambda realm_id, ids, parallel: (
        pages.append(len(ids)), original(realm_id, ids, parallel))[1])

    found = module.queues_of_users(realm.realm_id, reversed(users))

    assert sorted(pages) == [30, 100, 100]
    expected = sorted((q for q in made if q is not gone),
                      key=lambda q: (q.user_id, q.created, q.queue_id))
    assert [q.queue_id for q in found] == [q.queue_id for q in expected]
    assert listed_queue_ids(realm.realm_id, [gone.user_id]) == {gone.user_id: set()}
    for queue in made:
        if queue is not gone:
            delete_queue(queue)


def test_the_fan_out_drops_an_expired_queue_from_the_directory(realm, register_queue,
                                                               drain_events):
    from datetime import UTC, datetime, timedelta

    from chalicelib.models.events import EventQueue
    from tests.functional.read_state_helpers import dm

    # GIVEN a member's queue that expired without being deleted (its id still listed)
    drain_events()
    queue_id = register_queue(realm.member, event_types=["message"])["queue_id"]
    EventQueue(queue_id).update(actions=[
        EventQueue.expires_at.set(datetime.now(UTC) - timedelta(minutes=1))])
    # WHEN the fan-out delivers a direct message to them (an audience of named users)
    dm(realm.owner, [realm.member])
    drain_events()
    # THEN it dropped the id on the way (its role may write the directory: infra/template.json)
    assert listed_queue_ids(realm.realm_id, [realm.member.user_id]) == {
        realm.member.user_id: set()}
