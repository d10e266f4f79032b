"""POST /register's builders side by side (registration/initial_state.py): those whose
reads are long run on a pool of their own, the answer is the one they would give one
after another, the reads they share are read once, and a builder's error is the
answer's."""
from __future__ import annotations

import dataclasses
import threading
import time
from typing import Any

from chalicelib.core.errors import ApiError
from chalicelib.registration import initial_state
from chalicelib.registration.state.context import StateContext, shared_read
from tests.functional.edit_helpers import channel, send
from tests.functional.read_state_helpers import dm

# Answers that differ from one registration to the next whatever the order.
CHANGING = ("queue_id", "server_timestamp", "presences", "presence_last_update_id")
WEB_CAPABILITIES = {"user_avatar_url_field_optional": True, "empty_topic_name": True,
                    "user_list_incomplete": True, "archived_channels": True}


def _registered(account):
    answer = account.post("/register", {"client_capabilities": WEB_CAPABILITIES,
                                        "include_subscribers": True, "slim_presence": True})
    assert answer.ok, answer.json
    return {k: v for k, v in answer.json.items() if k not in CHANGING}


def test_the_answer_is_the_one_built_one_after_another(realm, drain_events, monkeypatch):
    # GIVEN a member with subscriptions, unread channel and direct messages, presence
    channel(realm.owner, "side", [realm.owner, realm.member, realm.admin])
    send(realm.owner, "side", "Plans", "today?")
    dm(realm.admin, [realm.member], "hello")
    assert realm.member.post("/users/me/presence", {"status": "active"}).ok
    drain_events()
    # WHEN the member registers with every builder side by side, then one after another
    side_by_side = _registered(realm.member)
    monkeypatch.setattr(initial_state, "PARTS", tuple(
        dataclasses.replace(part, waits=False) for part in initial_state.PARTS))
    one_after_another = _registered(realm.member)
    # THEN the answers are the same, key for key and in the same order
    assert side_by_side == one_after_another
    assert list(side_by_side) == list(one_after_another)
    assert side_by_side["unread_msgs"]["count"] == 2
    assert any(s["name"] == "side" for s in side_by_side["subscriptions"])


def test_the_long_builders_run_on_the_pool(realm, monkeypatch):
    # GIVEN builders that note the thread they ran on
    threads: dict[str, str] = {}

    def noting(part):
        def build(ctx):
            threads[part.build.__name__] = threading.current_thread().name
            return part.build(ctx)
        return dataclasses.replace(part, build=build)

    monkeypatch.setattr(initial_state, "PARTS", tuple(noting(p) for p in initial_state.PARTS))
    # WHEN a member registers
    _registered(realm.member)
    # THEN the users, subscriptions, unread messages and presence were built on the pool,
    # the rest on the request's thread
    pooled = {name for name, thread in threads.items() if thread.startswith("register")}
    assert pooled == {"realm_user_state", "subscription_state", "unread_msgs_state",
                      "presence_state"}
    assert threads["_realm_and_server"] == threading.current_thread().name


def test_an_error_on_the_pool_is_the_answer(realm, monkeypatch):
    # GIVEN a long builder that fails as a request past its time would
    def failing(ctx):
        raise ApiError("Too long for this test.")

    monkeypatch.setattr(initial_state, "PARTS", tuple(
        dataclasses.replace(p, build=failing) if p.build is initial_state.unread_msgs_state
        else p for p in initial_state.PARTS))
    # WHEN a member registers
    answer = realm.member.post("/register", {})
    # THEN the answer is that error, not a server error nor a state without it
    assert answer.status == 400
    assert answer.json["msg"] == "Too long for this test."


class _Counted(StateContext):
    computed = 0

    @shared_read
    def slow(self) -> object:
        type(self).computed += 1
        time.sleep(0.05)   # long enough for every thread below to ask meanwhile
        return object()


def test_a_shared_read_is_read_once_by_threads_asking_at_once():
    # GIVEN a context whose shared read takes a while
    unused: Any = None   # the read needs neither caller nor user
    ctx = _Counted(caller=unused, me=unused, fetch_types=None, capabilities={},
                   include_subscribers=False)
    start = threading.Barrier(8)
    answers: list[object] = []

    def ask() -> None:
        start.wait()
        answers.append(ctx.slow)

    # WHEN eight threads ask for it at once
    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # THEN it was computed once and every thread got that one answer
    assert _Counted.computed == 1
    assert len(answers) == 8 and all(a is answers[0] for a in answers)
