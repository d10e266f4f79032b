"""The local stack's ports come from below the kernel's ephemeral range, where no
outgoing connection can take them between choosing and binding."""
from __future__ import annotations

import socket

from infra.local import environment


def test_free_ports_are_bindable_and_never_ephemeral():
    floor = environment._ephemeral_floor()
    ports = {environment.free_port() for _ in range(20)}
    assert all(environment._PORT_FLOOR <= port < floor for port in ports), ports
    assert len(ports) > 1   # chosen at random, so two callers rarely meet
    port = ports.pop()
    with socket.socket() as server:
        server.bind(("127.0.0.1", port))
        server.listen()


def test_a_port_in_use_is_skipped(monkeypatch):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        busy = taken.getsockname()[1]
        taken.listen()
        choices = iter([busy, busy, 24567])
        monkeypatch.setattr(environment.random, "randrange", lambda *_: next(choices))
        assert environment.free_port() == 24567


def test_a_promised_or_already_chosen_port_is_not_handed_out_again(monkeypatch):
    # GIVEN the API's port, promised but not bound yet, and a port chosen before
    environment.promise_port(24601)
    choices = iter([24601, 24602, 24602, 24603])
    monkeypatch.setattr(environment.random, "randrange", lambda *_: next(choices))
    # THEN neither comes back, though nothing listens on them
    assert environment.free_port() == 24602
    assert environment.free_port() == 24603
