"""`kill -9` of `make run` under load loses nothing it acknowledged.

Senders post messages and a client reads its event queue while the stack is killed
(process group, SIGKILL) twice: once mid-load, once right after a restart (while the
restored journal is being folded into a snapshot). After the last restart, every
acknowledged message, the event queue with its position, and the upload are there, and
the queue delivers every acknowledged message once, in order of event ids.
"""
from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests

from tests.e2e.conftest import start_stack

UNLIMITED = "api_by_user=off"


@dataclass
class Load:
    """Senders posting to #general until stopped; what the server acknowledged."""

    url: str
    auth: tuple[str, str]
    acknowledged: dict[int, str] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)
    paused: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def sender(self, number: int) -> None:
        session = requests.Session()
        count = 0
        while not self.stop.is_set():
            if self.paused.is_set():
                time.sleep(0.05)
                continue
            content = f"crash test {number}.{count}"
            count += 1
            try:
                response = session.post(f"{self.url}/api/v1/messages", auth=self.auth, data={
                    "type": "stream", "to": "general", "topic": "crash", "content": content},
                    timeout=5)
            except requests.RequestException:
                # Never acknowledged: the stack died, or was too busy to answer in time
                # (right after a restart); keep sending until told to stop.
                time.sleep(0.1)
                continue
            if response.status_code == 200:
                with self.lock:
                    self.acknowledged[response.json()["id"]] = content

    def run_for(self, seconds: float, senders: int = 4) -> None:
        for number in range(senders):
            threading.Thread(target=self.sender, args=(number,), daemon=True).start()
        time.sleep(seconds)

    def run_until(self, acknowledged: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while len(self.acknowledged) < acknowledged and time.monotonic() < deadline:
            time.sleep(0.05)


def events_after(url: str, auth: tuple[str, str], queue_id: str, last_event_id: int,
                 ) -> list[dict]:
    response = requests.get(f"{url}/api/v1/events", auth=auth, timeout=30, params={
        "queue_id": queue_id, "last_event_id": last_event_id, "dont_block": "true"})
    assert response.status_code == 200, response.text
    return response.json()["events"]


def test_kill_9_under_load_loses_no_acknowledged_write(tmp_path: Path, capsys):
    state = tmp_path / "state"
    state.mkdir()
    # A load test: the per-user API limit (200 a minute) would refuse the senders.
    stack = start_stack(state, RATE_LIMITS=UNLIMITED)
    try:
        owner = stack.accounts()["owner"]
        auth = (owner["email"], owner["api_key"])
        queue = requests.post(f"{stack.url}/api/v1/register", auth=auth, timeout=30,
                              data={"event_types": '["message"]'}).json()
        queue_id, position = queue["queue_id"], queue["last_event_id"]
        upload = requests.post(f"{stack.url}/api/v1/user_uploads", auth=auth, timeout=30,
                               files={"file": ("notes.txt", b"kept across crashes")})
        assert upload.status_code == 200, upload.text
        uri = upload.json()["uri"]
        acknowledged: dict[int, str] = {}
        consumed: list[int] = []   # message ids read and acknowledged before a crash
        for delay in (random.uniform(1.5, 3.0), random.uniform(0.0, 0.8)):
            load = Load(stack.url, auth)
            load.run_for(delay)
            # The fan-out runs behind four senders on this machine (one process, one
            # GIL): pause them while waiting (bounded) for the first events, so a
            # position is acknowledged before the crash.
            load.paused.set()
            seen = events_after(stack.url, auth, queue_id, position)
            deadline = time.monotonic() + 60
            while not seen and time.monotonic() < deadline:
                time.sleep(0.2)
                seen = events_after(stack.url, auth, queue_id, position)
            if seen:   # read, then acknowledge: a position the queue must keep
                consumed += [e["message"]["id"] for e in seen if e["type"] == "message"]
                position = seen[-1]["id"]
                events_after(stack.url, auth, queue_id, position)
            load.paused.clear()
            # Some acknowledged but not yet read, then the crash, mid-load.
            load.run_until(len(load.acknowledged) + 5)
            time.sleep(random.uniform(0.0, 0.3))
            stack.kill()
            load.stop.set()
            acknowledged.update(load.acknowledged)
            stack = start_stack(state, RATE_LIMITS=UNLIMITED)
        wanted = set(acknowledged) - set(consumed)
        assert consumed and wanted

        # THEN every acknowledged message is there, as sent
        for message_id, content in acknowledged.items():
            response = requests.get(f"{stack.url}/api/v1/messages/{message_id}", auth=auth,
                                    timeout=30, params={"apply_markdown": "false"})
            assert response.status_code == 200, (message_id, response.text)
            assert response.json()["message"]["content"] == content
        # ...the queue kept its position and delivers every other message once, in order
        deadline = time.monotonic() + 30
        while True:
            delivered = events_after(stack.url, auth, queue_id, position)
            got = [e["message"]["id"] for e in delivered if e["type"] == "message"]
            if wanted <= set(got) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        ids = [e["id"] for e in delivered]
        assert ids == sorted(ids) and ids[0] > position
        assert len(set(got)) == len(got) and not set(got) & set(consumed), "sent twice"
        assert wanted <= set(got), f"never delivered: {sorted(wanted - set(got))[:10]}"
        # ...and so is the upload
        link = requests.get(f"{stack.url}/api/v1{uri}", auth=auth, timeout=30)
        assert link.status_code == 200, link.text   # a short-lived link to the file
        response = requests.get(link.json()["url"], timeout=30)
        assert response.status_code == 200 and response.content == b"kept across crashes"
        with capsys.disabled():
            print(f"\nkill -9 twice under load: {len(acknowledged)} messages acknowledged, 0 "
                  f"lost; queue position kept, {len(wanted)} later events each delivered "
                  "once; the upload kept")
    finally:
        if stack.process.poll() is None:
            # Saving a state this size takes a while on a busy machine; never hang here.
            stack.stop(timeout=90)

