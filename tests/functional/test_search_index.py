"""The search index follows messages through the real send, edit, move and delete paths
(the outbox stream's fan-out), and the admin's reindex backfills older messages."""
from __future__ import annotations

import json

from chalicelib.admin import main
from chalicelib.models.search import SearchDoc, SearchPosting, posting_key
from chalicelib.search.query import matching_message_ids, search_messages
from chalicelib.search.text import parse_search_query
from tests.functional.conftest import make_realm
from tests.functional.edit_helpers import bulk_messages, channel, send


def found(realm, text: str, **options) -> list[int]:
    return matching_message_ids(realm.realm_id, parse_search_query(text), limit=100,
                                **options)


def last_json(out: str) -> dict:
    """The command's result: its last line (metrics lines may come before it)."""
    return json.loads(out.strip().splitlines()[-1])


def postings(realm, term: str) -> list[int]:
    return [p.message_id for p in SearchPosting.query(posting_key(realm.realm_id, term))]


def test_a_sent_message_is_found_by_its_words_topic_and_inflections(realm, drain_events):
    # GIVEN messages sent to a channel and as a direct message
    channel(realm.owner, "ops", [realm.owner, realm.member])
    first = send(realm.member, "ops", "Deployment", "We are deploying the new servers")
    second = send(realm.member, "ops", "lunch", "Who wants pizza? 東京都のピザ")
    direct = realm.member.post("/messages", {"type": "private", "to": json.dumps(
        [realm.owner.user_id]), "content": "Сообщения о деплое"}).json["id"]
    # WHEN the outbox stream is processed
    drain_events()
    # THEN each is found by its words, inflected, in content or topic, newest first
    assert found(realm, "deployments") == [first]
    assert found(realm, "server deploy") == [first]
    assert found(realm, "PIZZA") == [second]
    assert found(realm, "東京") == [second]
    assert found(realm, "сообщение") == [direct]
    assert found(realm, "servers pizza") == []
    assert found(realm, '"new servers"') == [first]
    assert found(realm, '"servers new"') == []
    # AND pages run from an anchor both ways
    channel_ids = [send(realm.member, "ops", "more", f"pizza {n}") for n in range(3)]
    drain_events()
    assert found(realm, "pizza") == [*reversed(channel_ids), second]
    assert found(realm, "pizza", before_id=channel_ids[1]) == [channel_ids[0], second]
    assert found(realm, "pizza", after_id=second, newest_first=False) == channel_ids
    assert found(realm, "pizza", after_id=second, before_id=channel_ids[2]) == channel_ids[1::-1]
    assert found(realm, "pizza", after_id=channel_ids[0], before_id=channel_ids[1]) == []


def test_an_edit_reindexes_and_removes_stale_postings(realm, drain_events):
    channel(realm.owner, "ops", [realm.owner, realm.member])
    message_id = send(realm.member, "ops", "notes", "the kettle is broken")
    drain_events()
    assert found(realm, "kettle") == [message_id]
    # WHEN the content is edited
    assert realm.member.patch(f"/messages/{message_id}", {"content": "the toaster works"}).ok
    # THEN the old words stop matching at once (checked against the stored message)
    assert found(realm, "kettle") == []
    # AND once the stream is processed, the index holds only the new words
    drain_events()
    assert found(realm, "toaster") == [message_id]
    assert postings(realm, "kettl") == []
    assert postings(realm, "toaster") == [message_id]
    doc = SearchDoc.get(realm.realm_id, message_id)
    assert "toaster" in (doc.terms or set()) and "kettl" not in (doc.terms or set())


def test_a_move_and_a_topic_rename_are_followed(realm, drain_events):
    ops = channel(realm.owner, "ops", [realm.owner, realm.member])
    other = channel(realm.owner, "elsewhere", [realm.owner, realm.member])
    ids = [send(realm.member, "ops", "oldname", f"budget line {n}") for n in range(3)]
    drain_events()
    assert found(realm, "oldname") == ids[::-1]
    assert found(realm, "budget", stream_id=ops) == ids[::-1]
    # WHEN the topic is renamed
    assert realm.member.patch(f"/messages/{ids[0]}", {
        "topic": "newname", "propagate_mode": "change_all",
        "send_notification_to_old_thread": False,
        "send_notification_to_new_thread": False}).ok
    drain_events()
    # THEN the new topic finds them and the old one does not
    assert found(realm, "newname") == ids[::-1]
    assert found(realm, "oldname") == []
    assert postings(realm, "oldnam") == []
    # WHEN two of them move to another channel
    assert realm.owner.patch(f"/messages/{ids[1]}", {
        "stream_id": other, "propagate_mode": "change_later",
        "send_notification_to_old_thread": False,
        "send_notification_to_new_thread": False}).ok
    drain_events()
    # THEN a search in each channel finds its own
    assert found(realm, "budget", stream_id=ops) == [ids[0]]
    assert found(realm, "budget", stream_id=other) == [ids[2], ids[1]]
    assert postings(realm, f"c:{ops}") == [ids[0]]


def test_a_deleted_message_is_never_returned(realm, drain_events):
    channel(realm.owner, "ops", [realm.owner, realm.member])
    kept = send(realm.member, "ops", "t", "secret plan alpha")
    gone = send(realm.member, "ops", "t", "secret plan beta")
    drain_events()
    # WHEN one is deleted: gone from results before and after the stream catches up
    assert realm.owner.delete(f"/messages/{gone}").ok
    assert found(realm, "secret") == [kept]
    drain_events()
    assert found(realm, "secret") == [kept]
    assert postings(realm, "secret") == [kept]
    assert SearchDoc.get_or_none(realm.realm_id, gone) is None


def test_realms_are_isolated(realm, chalice_client, drain_events):
    other = make_realm(chalice_client)
    channel(realm.owner, "ops", [realm.owner])
    channel(other.owner, "ops", [other.owner])
    mine = send(realm.owner, "ops", "t", "zebra crossing")
    theirs = send(other.owner, "ops", "t", "zebra crossing")
    drain_events()
    assert found(realm, "zebra") == [mine]
    assert found(other, "zebra") == [theirs]


def test_a_common_word_pages_and_an_and_walks_the_rarer_term(realm, drain_events, capsys):
    stream_id = channel(realm.owner, "bulk", [realm.owner])
    # GIVEN 250 messages written before the index existed (straight into the table)
    ids = bulk_messages(realm.realm_id, realm.owner.user_id, stream_id, "bulk", 250)
    rare = send(realm.owner, "bulk", "bulk", "bulk and a rare okapi")
    drain_events()
    assert found(realm, "bulk okapi") == [rare]
    # WHEN the realm is reindexed by the admin command
    code = main(["reindex", "--realm", realm.subdomain])
    captured = capsys.readouterr()
    # THEN it reports its progress, and every message is found, newest first, in pages
    assert code == 0, captured.err
    assert last_json(captured.out)["search_messages_indexed"] == 250
    assert "search index: 200 messages read" in captured.err
    assert "search index: 251 messages read, 250 indexed" in captured.err
    everything = list(search_messages(realm.realm_id, parse_search_query("bulk")))
    assert [m.message_id for m in everything] == [rare, *reversed(ids)]
    assert found(realm, "bulk okapi") == [rare]
    # AND running it again writes nothing
    assert main(["reindex", "--realm", realm.subdomain]) == 0
    assert last_json(capsys.readouterr().out)["search_messages_indexed"] == 0


def test_cost_follows_the_result_not_the_realm(realm, drain_events):
    from tests.functional.aws_hooks import counting

    stream_id = channel(realm.owner, "bulk", [realm.owner])
    ids = bulk_messages(realm.realm_id, realm.owner.user_id, stream_id, "bulk", 300)
    rare = [send(realm.owner, "bulk", "bulk", "an okapi sighting"),
            send(realm.owner, "bulk", "bulk", "two okapis, and bulk")]
    drain_events()
    assert main(["reindex", "--realm", realm.subdomain]) == 0
    # WHEN a rare word is searched among 302 messages
    with counting() as calls:
        assert found(realm, "okapi") == rare[::-1]
    # THEN one Query of its postings and one read of its two messages
    assert dict(calls.calls) == {"dynamodb.Query": 1, "dynamodb.BatchGetItem": 1}
    # AND the same in one channel (the channel's list is not read: the messages say)
    with counting() as calls:
        assert found(realm, "okapi", stream_id=stream_id) == rare[::-1]
    assert dict(calls.calls) == {"dynamodb.Query": 1, "dynamodb.BatchGetItem": 1}
    # WHEN a common word is AND-ed with a rare one, or in a phrase with one
    with counting() as calls:
        assert found(realm, "bulk okapi") == rare[::-1]   # the topic counts too
        assert found(realm, '"and bulk"') == [rare[1]]
    # THEN the rare word's list drives: only its messages are read
    assert calls.calls["dynamodb.BatchGetItem"] == 2
    # AND a common word's first page reads one page of postings and of messages
    with counting() as calls:
        first = matching_message_ids(realm.realm_id, parse_search_query("bulk"), limit=20)
    assert first == [*rare[::-1], *ids[::-1][:18]]
    assert dict(calls.calls) == {"dynamodb.Query": 1, "dynamodb.BatchGetItem": 1}


def test_docs_are_written_together_and_a_doc_changed_meanwhile_is_reported(realm, drain_events):
    from chalicelib.models.messages import Message
    from chalicelib.search.indexing import _write_docs
    from chalicelib.search.terms import message_terms
    from tests.functional.aws_hooks import counting

    # GIVEN two indexed messages, and their docs as an indexing read them
    channel(realm.owner, "docs", [realm.owner])
    ids = [send(realm.owner, "docs", "t", f"word{n}") for n in range(2)]
    drain_events()
    read = [SearchDoc.get(realm.realm_id, i) for i in ids]
    messages = [Message.get(realm.realm_id, i) for i in ids]
    # ... and another indexing that then wrote the first one's doc again
    SearchDoc(realm.realm_id, ids[0], terms={"other"}, version=read[0].version + 1).save()
    # WHEN both docs are written from what was read
    with counting() as counter:
        outcomes = _write_docs(realm.realm_id, [
            (i, m, d, message_terms(m)) for i, m, d in zip(ids, messages, read, strict=True)])
    # THEN the changed one is a conflict and keeps the other's write; the second is
    # written; one transaction each time, not one request per doc
    assert outcomes == ["conflict", "written"]
    assert SearchDoc.get(realm.realm_id, ids[0]).terms == {"other"}
    assert SearchDoc.get(realm.realm_id, ids[1]).version == messages[1].version
    assert counter.calls == {"dynamodb.TransactWriteItems": 2}
    # AND a doc of a message that is gone is deleted
    assert _write_docs(realm.realm_id, [(ids[1], None, SearchDoc.get(
        realm.realm_id, ids[1]), set())]) == ["deleted"]
    assert SearchDoc.get_or_none(realm.realm_id, ids[1]) is None
