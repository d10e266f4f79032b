"""One rule for a recipient's flags on a new message (recipient_flags in
actions/read_state/reads/pending.py): what the send shows while the message is in flight
and what the fan-out writes are the same flags, for every kind of recipient.

Each test holds the fan-out back, reads every account's flags of each message (the
in-flight path), lets the fan-out run, and reads them again (the written rows).
"""
from __future__ import annotations

from tests.functional.edit_helpers import channel, send
from tests.functional.read_state_helpers import dm, flags_of


def _flags_before_and_after(readers, drain_events):
    """Each (account, message id)'s flags in flight, then once fanned out."""
    before = {(a.user_id, i): sorted(flags_of(a, i)) for a, i in readers}
    drain_events()
    after = {(a.user_id, i): sorted(flags_of(a, i)) for a, i in readers}
    return before, after


def test_in_flight_and_fanned_out_flags_agree(realm, drain_events):
    owner, member, admin, moderator = realm.owner, realm.member, realm.admin, realm.moderator
    channel(owner, "general", [owner, member, admin, moderator])
    # Admin watches for "deploy"; the member muted the moderator.
    assert admin.post("/users/me/alert_words", {"alert_words": ["deploy"]}).ok
    assert member.post(f"/users/me/muted_users/{moderator.user_id}").ok
    drain_events()
    with drain_events.paused():
        ids = {
            "mention": send(owner, "general", "t", "@**Max Member** the deploy is done"),
            "wildcard": send(owner, "general", "t", "@**all** lunch"),
            "self mention": send(owner, "general", "t", "@**Olivia Owner** note to self"),
            "muted sender": send(moderator, "general", "t", "@**Max Member** deploy"),
            "direct": dm(owner, [member, admin], "@**Adam Admin** deploy"),
        }
        readers = [(a, i) for a in (owner, member, admin, moderator) for kind, i in ids.items()
                   if kind != "direct" or a is not moderator]
        before, after = _flags_before_and_after(readers, drain_events)
    assert before == after
    # AND the flags are the rule's, not merely equal
    def flags(who, kind):
        return after[who.user_id, ids[kind]]

    assert flags(member, "mention") == ["mentioned"]
    assert flags(admin, "mention") == ["has_alert_word"]
    assert flags(owner, "mention") == ["read"]
    assert flags(member, "wildcard") == ["stream_wildcard_mentioned"]
    assert flags(owner, "self mention") == ["mentioned", "read"]
    assert flags(member, "muted sender") == ["mentioned", "read"]
    assert flags(admin, "direct") == ["has_alert_word", "mentioned"]
