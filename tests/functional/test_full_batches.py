"""`num_before` up to the documented maximum (5,000) is answered in full (issue 48): a side
of the anchor stops only after passing over 5,000 candidates that do not match, so
messages the caller may not read between the ones it may never shorten the answer, and
the combined feed, which lists only the caller's own messages, skips none."""
from __future__ import annotations

from chalicelib.actions.channels.topics import note_topic_message
from chalicelib.actions.messages.prepare import new_channel_message
from chalicelib.actions.messages.reads.rendering import render_content
from chalicelib.models.channels import Stream
from chalicelib.models.ids import allocate_ids, realm_scope
from chalicelib.models.messages import Message
from chalicelib.models.realms import get_realm
from tests.functional.edit_helpers import channel

MAXIMUM = 5000
READABLE = 4990      # just under the maximum: the answer can say it reached the oldest
HIDDEN_EVERY = 3     # one message of a private channel after every three readable ones


def interleaved(realm, readable_id: int, hidden_id: int) -> list[int]:
    """READABLE messages in the readable channel, a private channel's message after every
    HIDDEN_EVERY of them, written straight into the table (fast setup); returns the
    readable ones' ids."""
    places = [place for n in range(READABLE) for place in (
        (readable_id, hidden_id) if n % HIDDEN_EVERY == HIDDEN_EVERY - 1 else (readable_id,))]
    ids = list(allocate_ids(realm_scope(realm.realm_id), "message", len(places)))
    org = get_realm(realm.realm_id)
    streams = {s: Stream.get(realm.realm_id, s) for s in (readable_id, hidden_id)}
    rendered = render_content(realm.realm_id, "many")
    with Message.batch_write() as batch:
        for message_id, stream_id in zip(ids, places, strict=True):
            message = new_channel_message(org, realm.owner.user_id, streams[stream_id], "t",
                                          rendered)
            message.message_id = message_id
            batch.save(message)
    for stream_id in streams:   # each channel's newest message, as sending keeps it
        note_topic_message(realm.realm_id, stream_id, "t", max(
            i for i, place in zip(ids, places, strict=True) if place == stream_id))
    return [i for i, stream_id in zip(ids, places, strict=True) if stream_id == readable_id]


def test_num_before_at_the_maximum_is_answered_in_full(realm):
    # GIVEN 4,990 messages the member may read, with 1,663 of a private channel it is not
    # in between them (before, a side stopped after examining 5,000 candidates)
    open_id = channel(realm.owner, "open", [realm.owner, realm.member])
    hidden_id = channel(realm.owner, "vault", [realm.owner], invite_only=True)
    readable = interleaved(realm, open_id, hidden_id)
    # THEN the public channels' history, read through the realm's messages, has them all
    for narrow in ([{"operator": "channels", "operand": "public"}], []):
        response = realm.member.get("/messages", {"anchor": "newest",
                                                  "num_before": MAXIMUM, "num_after": 0,
                                                  "narrow": narrow})
        assert response.ok, response.json
        body = response.json
        assert [m["id"] for m in body["messages"]] == readable, narrow
        assert body["found_oldest"] and body["found_newest"], narrow
    # AND more than the maximum is refused
    response = realm.member.get("/messages", {"anchor": "newest", "num_before": MAXIMUM,
                                              "num_after": 1})
    assert response.status == 400 and "5000" in response.json["msg"]
