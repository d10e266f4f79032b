"""Channel reads the reference changed in 12.0: a channel's email address only for those
who may post to it (level 448), archived channels in GET /streams/{id} and the channel's
topics (level 480)."""
from __future__ import annotations

from chalicelib.core.errors import UNKNOWN_CHANNEL_ID
from tests.functional.edit_helpers import channel, send


def test_archived_channels_answer_by_id_and_list_their_topics(realm, advertise):
    advertise(480)
    # GIVEN a public channel with a topic, and a private one, both archived
    public = channel(realm.owner, "old news", [realm.owner, realm.member])
    send(realm.owner, "old news", "launch", "done")
    private = channel(realm.owner, "old secrets", [realm.owner], invite_only=True)
    for stream_id in (public, private):
        assert realm.owner.delete(f"/streams/{stream_id}").ok
    # THEN the channel and its topics are still readable by those who could read them
    stream = realm.member.get(f"/streams/{public}").json["stream"]
    assert (stream["name"], stream["is_archived"]) == ("old news", True)
    assert [t["name"] for t in realm.member.get(f"/users/me/{public}/topics").json[
        "topics"]] == ["launch"]
    # AND not by those who could not
    assert realm.member.get(f"/streams/{private}").json["msg"] == UNKNOWN_CHANNEL_ID
    assert realm.member.get(f"/users/me/{private}/topics").json["msg"] == \
        UNKNOWN_CHANNEL_ID


def test_a_channels_email_address_is_for_those_who_may_post(realm, advertise):
    advertise(448)
    live = channel(realm.owner, "mailbox", [realm.owner, realm.member])
    private = channel(realm.owner, "private box", [realm.owner], invite_only=True)
    # A subscriber may post, so they get the address (this server has no email gateway:
    # the empty address, as the reference gives without one)
    answer = realm.member.get(f"/streams/{live}/email_address")
    assert answer.ok and answer.json["email"] == ""
    # An administrator who only knows of a private channel may not post there
    assert realm.admin.get(f"/streams/{private}/email_address").status == 400
    # Nobody posts to an archived channel
    assert realm.owner.delete(f"/streams/{live}").ok
    refused = realm.member.get(f"/streams/{live}/email_address")
    assert refused.status == 400 and "permission to post" in refused.json["msg"]
