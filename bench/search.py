"""Full-text search: what indexing a message costs, and what a search costs on realms of
10,000 and 100,000 messages (requests, read units, p50/p95 on in-process moto).

Indexing is measured on messages sent through POST /messages and indexed by the
fan-out's function (`index_messages`), as the stream would. The search realms are built
straight into moto's tables (its backend's put_item, no HTTP round trip: a million
postings through BatchWriteItem would take the better part of an hour here): messages
of 3 to 20 words drawn from a Zipf-distributed vocabulary of 20,000 words, 200 topics,
10 channels, and their postings computed by the same `message_terms` the fan-out uses.

Run: .venv/bin/python -m bench.search [realm sizes...]   (default: 10000 100000)
"""
from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from bench.common import (
    RequestCounter,
    api_caller,
    bench_realm,
    form_headers,
    item_bytes,
    moto_backend,
)
from bench.corpus import RARE_WORD, Corpus

CHANNELS = 10
RARE_COUNT = 10
PAGE = 100          # results asked for: a GET /messages page
REPEAT = 20
REPEAT_BUDGET = 20.0     # seconds per case: slow cases stop after at least MIN_REPEAT runs
MIN_REPEAT = 5
STORAGE_OVERHEAD = 100   # bytes DynamoDB adds to each item for storage


def indexing_costs(counter: RequestCounter) -> None:
    from chalice.test import Client

    from app import app
    from chalicelib.models.search import SearchDoc, SearchPosting, posting_key
    from chalicelib.search.indexing import index_messages

    realm, _, owner_key = bench_realm()
    owner = form_headers("o@bench.example.com", owner_key)
    corpus = Corpus(7)
    print("Indexing one message (the fan-out's search step; DynamoDB on-demand units)")
    print(f"{'message':<28} {'requests':>8} {'write units':>11} {'read units':>10} "
          f"{'put/deleted':>11} {'terms':>6} {'index bytes':>11} {'billed bytes':>12}")
    with Client(app) as client:
        call = api_caller(client)
        call("POST", "/users/me/subscriptions", owner, subscriptions=[{"name": "general"}])
        rows: list[tuple[str, Callable[[], int]]] = []
        sent: dict[int, str] = {}

        def send(words: int) -> int:
            content = corpus.text(words)
            message_id = int(call("POST", "/messages", owner, type="stream", to="general",
                                  topic="bench topic", content=content)["id"])
            sent[message_id] = content
            return message_id

        for words in (10, 100, 1000):
            rows.append((f"send, {words} words", lambda words=words: send(words)))
        edit_target = send(100)

        def edit() -> int:   # one word replaced by another
            words = sent[edit_target].split()
            call("PATCH", f"/messages/{edit_target}", owner,
                 content=" ".join([*words[:-1], "zanzibar"]))
            return edit_target

        def move() -> int:
            call("PATCH", f"/messages/{edit_target}", owner, topic="renamed topic",
                 propagate_mode="change_one", send_notification_to_old_thread=False,
                 send_notification_to_new_thread=False)
            return edit_target

        index_messages(realm.realm_id, [edit_target])
        rows += [("edit of 100 words", edit), ("topic rename (1 message)", move)]
        for label, action in rows:
            message_id = action()
            before_units = counter.units.copy()
            with counter.measure() as calls:
                stats = index_messages(realm.realm_id, [message_id])
            units = counter.units - before_units
            doc = SearchDoc.get(realm.realm_id, message_id)
            terms = doc.terms or set()
            sizes = [item_bytes(SearchPosting(posting_key(realm.realm_id, t),
                                              message_id).serialize()) for t in terms]
            sizes.append(item_bytes(doc.serialize()))
            print(f"{label:<28} {sum(calls.values()):>8} {units['write']:>11.0f} "
                  f"{units['read']:>10.1f} "
                  f"{f'{stats.postings_put}/{stats.postings_deleted}':>11} "
                  f"{len(terms):>6} {sum(sizes):>11,} "
                  f"{sum(sizes) + STORAGE_OVERHEAD * len(sizes):>12,}")
    print()


def build_realm(size: int, corpus: Corpus) -> tuple[int, list[int]]:
    """A realm of `size` channel messages written straight into moto; returns its id
    and the ids of the messages holding the rare word."""
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    from chalicelib.actions.users.users import NewUser
    from chalicelib.actions.workflows.realms import do_create_realm
    from chalicelib.models.channels import stream_key
    from chalicelib.models.ids import allocate_ids, realm_scope
    from chalicelib.models.messages import Message, topic_key
    from chalicelib.models.search import SearchPosting, posting_key
    from chalicelib.search.terms import message_terms

    backend = dynamodb_backends[DEFAULT_ACCOUNT_ID]["us-east-1"]
    realm, owner_id, _ = do_create_realm(f"Search {size}", f"search{size}", NewUser(
        email=f"o{size}@bench.example.com", full_name="Owner", role=100))
    realm_id = realm.realm_id
    ids = list(allocate_ids(realm_scope(realm_id), "message", size))
    rare = set(corpus.rng.sample(ids, RARE_COUNT))
    messages_table = Message.Meta.table_name
    postings_table = SearchPosting.Meta.table_name
    started = time.perf_counter()
    postings = 0
    for message_id in ids:
        stream_id = corpus.rng.randrange(CHANNELS) + 1
        topic = corpus.rng.choice(corpus.topics)
        content = corpus.text(corpus.rng.randint(3, 20))
        if message_id in rare:
            content += f" {RARE_WORD}"
        message = Message(
            realm_id, message_id, type="stream", sender_id=owner_id, stream_id=stream_id,
            stream_key=stream_key(realm_id, stream_id), topic=topic,
            topic_key=topic_key(realm_id, stream_id, topic), recipient_id=stream_id,
            content=content, rendered_content=f"<p>{content}</p>", content_sha256="x",
            date_sent=1_700_000_000 + message_id)
        backend.put_item(messages_table, message.serialize())
        for term in message_terms(message):
            backend.put_item(postings_table, {
                "term_key": {"S": posting_key(realm_id, term)},
                "message_id": {"N": str(message_id)}})
            postings += 1
    print(f"realm of {size:,} messages: {postings:,} postings "
          f"({postings / size:.1f} a message), built in {time.perf_counter() - started:.0f} s")
    return realm_id, sorted(rare)


def searches(counter: RequestCounter, realm_id: int, corpus: Corpus, rare: list[int]
             ) -> None:
    from chalicelib.models.messages import Message
    from chalicelib.search.query import matching_message_ids
    from chalicelib.search.text import parse_search_query

    rare_channel = Message.get(realm_id, rare[0]).stream_id

    vocabulary = corpus.vocabulary
    cases: list[tuple[str, str, dict[str, Any]]] = [
        ("rare word", RARE_WORD, {}),
        ("word in no message", "nowhere", {}),
        ("common word", vocabulary[0], {}),
        ("two-word AND", f"{vocabulary[20]} {vocabulary[30]}", {}),
        ("common AND rare", f"{vocabulary[0]} {RARE_WORD}", {}),
        ("phrase", f'"{vocabulary[3]} {vocabulary[7]}"', {}),
        ("one channel, common word", vocabulary[0], {"stream_id": 3}),
        ("one channel, rare word", RARE_WORD, {"stream_id": rare_channel}),
    ]
    print(f"{'search (first ' + str(PAGE) + ' results)':<30} {'results':>7} "
          f"{'requests':>8} {'read units':>10} {'p50 ms':>7} {'p95 ms':>7} {'runs':>5}")
    for label, text, options in cases:
        query = parse_search_query(text)

        def run(query: Any = query, options: dict[str, Any] = options) -> list[int]:
            return matching_message_ids(realm_id, query, limit=PAGE, **options)

        before_units = counter.units.copy()
        with counter.measure() as calls:
            found = run()
        units = counter.units - before_units
        if label == "rare word":
            assert found == rare[::-1], (found, rare)
        timings: list[float] = []
        while len(timings) < REPEAT and (len(timings) < MIN_REPEAT
                                         or sum(timings) < REPEAT_BUDGET * 1000):
            started = time.perf_counter()
            run()
            timings.append((time.perf_counter() - started) * 1000)
        p95 = statistics.quantiles(timings, n=20)[-1]
        print(f"{label:<30} {len(found):>7} {sum(calls.values()):>8} "
              f"{units['read']:>10.1f} {statistics.median(timings):>7.1f} {p95:>7.1f} "
              f"{len(timings):>5}")
    print()


def main(sizes: list[int]) -> None:
    counter = RequestCounter()
    counter.install()
    with moto_backend():
        indexing_costs(counter)
        for size in sizes:
            corpus = Corpus()
            realm_id, rare = build_realm(size, corpus)
            searches(counter, realm_id, corpus, rare)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10_000, 100_000])
