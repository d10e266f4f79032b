"""A large organization written straight into the database (issue 41): by default 10,000
people (a few hundred bots and guests), 2,000 channels with a long-tailed membership (a
handful with everyone, most with 5 to 50), and a million messages over two years with
topics, direct messages, reactions, read state, stars, presence and the search index.
Seeded: the same arguments build the same organization.

Items are built with the app's own models and key helpers (the ones the send path and
the fan-out use) and written without the API: into in-process moto (the benches), or,
with --stack, as BatchWriteItem requests to a running `make run` (found as the admin CLI
finds it). The realm itself is created by the real `do_create_realm`.

    .venv/bin/python -m bench.large_org --stack [--users N] [--channels N] [--messages N]

prints the accounts it made (email and API key) and how long each part took.
"""
from __future__ import annotations

import argparse
import bisect
import collections
import hashlib
import html
import itertools
import json
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from bench.org_sink import Sink

DAY = 86_400
ALL_MEMBER_CHANNELS = 4
TIMEZONES = ["America/New_York", "Europe/Berlin", "Asia/Kolkata", "America/Los_Angeles",
             "Europe/London", "Asia/Tokyo", "Australia/Sydney", ""]
EMOJI = [("grinning", "1f600"), ("thumbs_up", "1f44d"), ("tada", "1f389"),
         ("heart", "2764"), ("eyes", "1f440"), ("rocket", "1f680")]
RARE_WORD, RARE_COUNT = "okapi", 10
HEAVY_UNREAD = 60_000       # above the 50,000 unread messages registration returns
RECENT_PER_CHANNEL = 400    # recent messages kept per channel for others' unread markers


@dataclass(frozen=True)
class OrgSpec:
    users: int = 10_000
    channels: int = 2_000
    messages: int = 1_000_000
    seed: int = 41
    days: int = 730
    search_index: bool = True
    unread_mean: int = 25          # unread channel messages a person has, on average

    @classmethod
    def scaled(cls, users: int, **changes: Any) -> OrgSpec:
        """The default organization's shape at another size: a channel per 5 people and
        100 messages per person."""
        return cls(**{"users": users, "channels": max(10, users // 5),
                      "messages": users * 100, **changes})

    @property
    def bots(self) -> int:
        return max(2, self.users // 50)

    @property
    def guests(self) -> int:
        return max(1, self.users // 40)


@dataclass
class Account:
    user_id: int
    email: str
    api_key: str


@dataclass
class Org:
    """What the benches need to know of a built organization."""

    realm_id: int
    subdomain: str
    spec: OrgSpec
    accounts: dict[str, Account]
    big_channel: int                 # an all-member channel
    words: dict[str, str]            # rare, common, phrase: search texts
    heavy_unread: int                # markers of the `heavy` account
    counts: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def _key(seed: int, user_id: int) -> str:
    """A deterministic API key (32 hex characters, like a random one in length)."""
    return hashlib.sha256(f"large-org:{seed}:{user_id}".encode()).hexdigest()[:32]


def _tiers(spec: OrgSpec, rng: random.Random) -> list[int]:
    """Each channel's member count: a handful with everyone, a few large, the long tail
    of 5 to 50 (log-uniform)."""
    n, people = spec.channels, spec.users
    large = max(1, n // 125)          # 16 at 2,000 channels: 10 % to 50 % of the people
    middle = max(1, n // 25)          # 80: 100 to 1,000 people
    sizes = [people] * min(ALL_MEMBER_CHANNELS, n)
    sizes += [rng.randint(people // 10, people // 2) for _ in range(large)]
    sizes += [int(10 ** rng.uniform(2, 3)) for _ in range(middle)]
    sizes += [int(10 ** rng.uniform(0.7, 1.7)) for _ in range(n - len(sizes))]
    return [max(2, min(people, s)) for s in sizes[:n]]


class Generator:
    def __init__(self, spec: OrgSpec, sink: Sink, subdomain: str) -> None:
        from bench.corpus import Corpus

        self.spec, self.sink, self.subdomain = spec, sink, subdomain
        self.rng = random.Random(spec.seed)
        self.corpus = Corpus(spec.seed)
        self.seconds: dict[str, float] = {}
        self.now = int(time.time())
        self.start = self.now - spec.days * DAY

    def _timed(self, name: str, started: float) -> None:
        self.sink.flush()
        self.seconds[name] = time.perf_counter() - started

    def put(self, model: Any) -> None:
        self.sink.put(model.Meta.table_name, model.serialize())

    # ---- people -------------------------------------------------------------------

    def people(self) -> None:
        from chalicelib.actions.users import users as users_module
        from chalicelib.actions.users.users import NewUser, user_items
        from chalicelib.actions.workflows.realms import do_create_realm
        from chalicelib.models.ids import allocate_ids, realm_scope

        started = time.perf_counter()
        spec, rng = self.spec, self.rng
        realm, owner_id, owner_key = do_create_realm(
            f"Large {spec.users}", self.subdomain,
            NewUser(email=f"owner@{self.subdomain}.example.com", full_name="Olga Owner",
                    role=100))
        self.realm_id = realm.realm_id
        self.accounts = {"owner": Account(owner_id, f"owner@{self.subdomain}.example.com",
                                          owner_key)}
        ids = list(allocate_ids(realm_scope(self.realm_id), "user", spec.users - 1))
        # user_items reads the realm's defaults for new users: once, not per user.
        reading_defaults = users_module._new_user_defaults
        defaults = reading_defaults(self.realm_id)
        users_module._new_user_defaults = lambda _realm_id: defaults
        roles = ([200] * max(1, spec.users // 500) + [300] * max(1, spec.users // 300)
                 + [600] * spec.guests)
        roles += [400] * (len(ids) - spec.bots - len(roles))
        rng.shuffle(roles)
        self.humans = [owner_id]
        self.guests: list[int] = []
        self.bots: list[int] = []
        self.names: dict[int, str] = {owner_id: "Olga Owner"}
        self.emails: dict[int, str] = {owner_id: self.accounts["owner"].email}
        syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
        for n, user_id in enumerate(ids):
            is_bot = n >= len(roles)
            name = " ".join("".join(rng.choice(syllables) for _ in range(rng.randint(2, 3)))
                            .capitalize() for _ in range(2)) + f" {n}"
            email = f"{'bot' if is_bot else 'u'}{n}@{self.subdomain}.example.com"
            new = NewUser(email=email, full_name=name, role=400 if is_bot else roles[n],
                          is_bot=is_bot, bot_type=1 if is_bot else None,
                          bot_owner_id=rng.choice(self.humans) if is_bot else None,
                          api_key=_key(spec.seed, user_id))
            items, _ = user_items(self.realm_id, user_id, new)
            user = items[0][0]
            user.date_joined = self.start + n * (spec.days * DAY // spec.users)
            user.timezone = rng.choice(TIMEZONES)
            for item, _condition in items:
                self.put(item)
            self.names[user_id] = name
            self.emails[user_id] = email
            (self.bots if is_bot else self.guests if new.role == 600 else self.humans
             ).append(user_id)
            if not is_bot and new.role in (200, 400, 600):
                kind = {200: "admin", 400: "member", 600: "guest"}[new.role]
                for label in (kind, "heavy") if kind == "member" else (kind,):
                    self.accounts.setdefault(label, Account(user_id, email, new.api_key or ""))
            if is_bot:
                self.accounts.setdefault("bot", Account(user_id, email, new.api_key or ""))
        # `heavy` is a second member (the first is `member`): the one with most unread.
        members = [a for a in self.humans[1:] if a != self.accounts["member"].user_id]
        heavy = members[len(members) // 2]
        self.accounts["heavy"] = Account(heavy, f"u{ids.index(heavy)}@{self.subdomain}"
                                                ".example.com", _key(spec.seed, heavy))
        users_module._new_user_defaults = reading_defaults
        self._timed("users", started)

    # ---- channels -------------------------------------------------------------------

    def channels(self) -> None:
        from chalicelib.actions.channels.add_subscribers import COLORS
        from chalicelib.models.channels import (
            MAX_MEMBER_SET,
            ChannelMembers,
            Stream,
            Subscription,
            members_key,
            stream_key,
            user_key,
        )
        from chalicelib.models.ids import allocate_ids, realm_scope
        from chalicelib.models.realms import Realm, UniqueName, stream_name_key

        started = time.perf_counter()
        spec, rng = self.spec, self.rng
        sizes = _tiers(spec, rng)
        ids = list(allocate_ids(realm_scope(self.realm_id), "stream", spec.channels))
        everyone = self.humans + self.guests + self.bots
        heavy = self.accounts["heavy"].user_id
        self.members: dict[int, list[int]] = {}
        self.stream_items: dict[int, Any] = {}
        self.private: set[int] = set()
        for n, (stream_id, size) in enumerate(zip(ids, sizes, strict=True)):
            if size >= spec.users:
                members = list(everyone)
            else:
                pool = self.humans if n % 7 else everyone   # some channels have bots
                members = rng.sample(pool, min(size, len(pool)))
                if n < spec.channels // 10 and heavy not in members:
                    members.append(heavy)   # the heavy reader follows the larger channels
            invite_only = n >= ALL_MEMBER_CHANNELS and rng.random() < 0.1
            name = (["general", "announcements", "random", "help"][n] if n < 4
                    else f"{self.corpus.vocabulary[n % 997]}-{n}")
            created = self.start + n * DAY // 10
            stream = Stream(self.realm_id, stream_id, name=name, date_created=created,
                            description=f"About {name}", invite_only=invite_only,
                            rendered_description=f"<p>About {html.escape(name)}</p>",
                            history_public_to_subscribers=not invite_only,
                            creator_id=self.accounts["owner"].user_id,
                            is_default=n < ALL_MEMBER_CHANNELS, subscriber_count=len(members))
            self.put(stream)
            self.stream_items[stream_id] = stream
            scope, key = stream_name_key(self.realm_id, name)
            self.put(UniqueName(scope, key, target_id=stream_id))
            for user_id in members:
                self.put(Subscription(user_key(self.realm_id, user_id), stream_id,
                                      stream_key=stream_key(self.realm_id, stream_id),
                                      realm_id=self.realm_id, user_id=user_id,
                                      date_subscribed=created,
                                      color=COLORS[stream_id % len(COLORS)],
                                      is_muted=rng.random() < 0.03))
            if len(members) <= MAX_MEMBER_SET:
                self.put(ChannelMembers(members_key(self.realm_id), stream_id,
                                        user_ids=set(members)))
            self.members[stream_id] = members
            if invite_only:
                self.private.add(stream_id)
        self.streams = ids
        Realm(self.realm_id).update(actions=[
            Realm.default_stream_ids.set(set(ids[:ALL_MEMBER_CHANNELS]))])
        self._timed("channels", started)

    # ---- messages -------------------------------------------------------------------

    def messages(self) -> None:
        from chalicelib.models.ids import allocate_ids, realm_scope

        started = time.perf_counter()
        spec, rng = self.spec, self.rng
        ids = allocate_ids(realm_scope(self.realm_id), "message", spec.messages)
        weights = list(itertools.accumulate(len(self.members[s]) ** 0.8 for s in self.streams))
        topics = {s: [f"{self.corpus.topics[(s * 7 + t) % len(self.corpus.topics)]}"
                      for t in range(3 + len(self.members[s]) // 40)] for s in self.streams}
        contacts = {u: rng.sample(self.humans, min(12, len(self.humans)))
                    for u in self.humans}
        rare = set(rng.sample(range(spec.messages), min(RARE_COUNT, spec.messages)))
        self.topics: dict[tuple[int, str], tuple[str, int]] = {}
        self.recent: dict[int, collections.deque[tuple[int, str, int]]] = \
            collections.defaultdict(lambda: collections.deque(maxlen=RECENT_PER_CHANNEL))
        self.first_ids: dict[int, int] = {}
        self.heavy_ids: list[tuple[int, int, str, int]] = []   # (id, channel, topic, sender)
        self.conversations: dict[tuple[int, str], int] = {}
        self.dm_unread: list[tuple[int, Any]] = []
        self.starred: list[tuple[int, int, int, str]] = []
        heavy = self.accounts["heavy"].user_id
        heavy_channels = {s for s, m in self.members.items() if heavy in m}
        step = spec.days * DAY / max(1, spec.messages)
        for n, message_id in enumerate(ids):
            sent = int(self.start + n * step)
            words = self.corpus.text(rng.randint(3, 20))
            if n in rare:
                words += f" {RARE_WORD}"
            if rng.random() < 0.8:
                stream_id = self.streams[bisect.bisect(weights, rng.random() * weights[-1])]
                pool = topics[stream_id]
                topic = pool[min(len(pool) - 1, int(rng.expovariate(0.5)))]
                sender = rng.choice(self.members[stream_id])
                message = self._channel_message(message_id, sender, stream_id, topic, words,
                                                sent)
                if stream_id in heavy_channels and sender != heavy:
                    self.heavy_ids.append((message_id, stream_id, topic, sender))
                self.recent[stream_id].append((message_id, topic, sender))
                self.first_ids.setdefault(stream_id, message_id)
            else:
                sender = rng.choice(self.humans)
                others = rng.sample(contacts[sender], 1 if rng.random() < 0.75 else 3)
                message = self._direct_message(message_id, sender, others, words, sent)
            self._message_extras(message, sent)
        # The channels' first and newest messages, as sending keeps them (registration's
        # max_message_id reads a channel's newest from its item).
        for stream_id, stream in self.stream_items.items():
            if self.recent.get(stream_id):
                stream.first_message_id = self.first_ids[stream_id]
                stream.last_message_id = self.recent[stream_id][-1][0]
                self.put(stream)
        self._timed("messages", started)

    def _channel_message(self, message_id: int, sender: int, stream_id: int, topic: str,
                         words: str, sent: int) -> Any:
        from chalicelib.actions.messages.reads.dicts import recipient_id_for
        from chalicelib.models.channels import stream_key
        from chalicelib.models.messages import Message, sender_key, topic_key
        from chalicelib.models.topics import topic_sort_key

        realm_id = self.realm_id
        message = Message(realm_id, message_id, type="stream", sender_id=sender,
                          stream_id=stream_id, stream_key=stream_key(realm_id, stream_id),
                          topic=topic, topic_key=topic_key(realm_id, stream_id, topic),
                          sender_key=sender_key(realm_id, sender),
                          recipient_id=recipient_id_for(f"stream:{stream_id}"),
                          date_sent=sent)
        self._content(message, words)
        self.topics[(stream_id, topic_sort_key(topic))] = (topic, message_id)
        return message

    def _direct_message(self, message_id: int, sender: int, others: list[int], words: str,
                        sent: int) -> Any:
        from chalicelib.actions.messages.reads.dicts import recipient_id_for
        from chalicelib.models.conversations import conversation_key
        from chalicelib.models.messages import Message, dm_key, sender_key

        participants = sorted({sender, *others})
        key = dm_key(self.realm_id, participants)
        message = Message(self.realm_id, message_id, type="private", sender_id=sender,
                          recipient_ids=participants, dm_key=key,
                          sender_key=sender_key(self.realm_id, sender),
                          recipient_id=recipient_id_for(f"dm:{key}"), date_sent=sent)
        self._content(message, words)
        conversation = conversation_key(participants)
        for user_id in participants:
            self.conversations[(user_id, conversation)] = message_id
        if sent > self.now - 30 * DAY:
            self.dm_unread += [(u, message) for u in others if self.rng.random() < 0.3]
        return message

    def _content(self, message: Any, words: str) -> None:
        rng = self.rng
        if rng.random() < 0.02:
            words += f" https://example.com/docs/{rng.randint(1, 10_000)}"
        message.content = words
        message.rendered_content = f"<p>{html.escape(words)}</p>"
        message.content_sha256 = hashlib.sha256(words.encode()).hexdigest()

    def _message_extras(self, message: Any, sent: int) -> None:
        """Reactions, the has: index, the search index, and a star now and then."""
        from chalicelib.models.message_properties import (
            MessageProperty,
            property_key,
            stored_properties,
        )
        from chalicelib.models.messages import reaction_key
        from chalicelib.models.search import SearchDoc, posting_key
        from chalicelib.search.terms import message_terms

        rng, realm_id = self.rng, self.realm_id
        if rng.random() < 0.05:
            pool = (self.members[message.stream_id] if message.type == "stream"
                    else message.recipient_ids)
            message.reactions = {
                reaction_key("unicode_emoji", code, user_id): {"emoji_name": name,
                                                               "at": (sent + 60) * 1000}
                for user_id in rng.sample(pool, min(len(pool), rng.randint(1, 3)))
                for name, code in [rng.choice(EMOJI)]}
        self.put(message)
        for name in stored_properties(message):
            self.put(MessageProperty(property_key(realm_id, name), message.message_id))
        if self.spec.search_index:
            terms = message_terms(message)
            table = self._postings_table()
            for term in terms:
                self.sink.put(table, {"term_key": {"S": posting_key(realm_id, term)},
                                      "message_id": {"N": str(message.message_id)}})
            self.put(SearchDoc(realm_id, message.message_id, terms=terms or None, version=0))
        if rng.random() < 0.002:
            self.starred.append((rng.choice(self.humans), message.message_id,
                                 message.stream_id or 0, message.topic or ""))

    def _postings_table(self) -> str:
        from chalicelib.models.search import SearchPosting

        return str(SearchPosting.Meta.table_name)

    # ---- derived state --------------------------------------------------------------

    def state(self) -> int:
        """Topics, conversations, read state, stars and presence; returns the heavy
        reader's unread count."""
        from chalicelib.models.channels import stream_key, user_key
        from chalicelib.models.conversations import RecentConversation
        from chalicelib.models.message_flags import MessageFlag, UnreadMessage
        from chalicelib.models.messages import topic_key
        from chalicelib.models.topics import Topic, topic_item_key

        started = time.perf_counter()
        realm_id = self.realm_id
        for (stream_id, sort_key), (name, max_id) in self.topics.items():
            self.put(Topic(stream_key(realm_id, stream_id), topic_item_key(sort_key),
                           name=name, max_id=max_id))
        for (user_id, conversation), max_id in self.conversations.items():
            self.put(RecentConversation(user_key(realm_id, user_id), conversation,
                                        max_message_id=max_id))
        for user_id, stream_id, message_id, topic, sender in self._unread_channel_messages():
            self.put(UnreadMessage(user_key(realm_id, user_id), message_id, user_id=user_id,
                                   sender_id=sender, stream_id=stream_id, topic=topic,
                                   topic_key=topic_key(realm_id, stream_id, topic)))
        from chalicelib.actions.read_state.reads.pending import new_marker

        for user_id, message in self.dm_unread:
            self.put(new_marker(realm_id, user_id, message, 0))
        for user_id, message_id, stream_id, topic in sorted(set(self.starred)):
            self.put(MessageFlag(user_key(realm_id, user_id), message_id, flags={"starred"},
                                 starred_key=user_key(realm_id, user_id),
                                 topic_key=topic_key(realm_id, stream_id, topic)
                                 if stream_id else None))
        self._presence()
        self._timed("read state, topics, presence", started)
        return self.heavy_unread

    def _unread_channel_messages(self) -> Iterator[tuple[int, int, int, str, int]]:
        """Most people read nearly everything: a few recent unread messages each, some
        a few hundred; `heavy` has HEAVY_UNREAD (the newest of their channels')."""
        rng = self.rng
        heavy = self.accounts["heavy"].user_id
        newest = self.heavy_ids[-HEAVY_UNREAD:]
        self.heavy_unread = len(newest)
        for message_id, stream_id, topic, sender in newest:
            yield heavy, stream_id, message_id, topic, sender
        subscribed: dict[int, list[int]] = collections.defaultdict(list)
        for stream_id, members in self.members.items():
            for user_id in members:
                subscribed[user_id].append(stream_id)
        for user_id in self.humans + self.guests:
            if user_id == heavy:
                continue
            seen: set[int] = set()
            count = min(int(rng.expovariate(1 / self.spec.unread_mean)), 400) \
                if self.spec.unread_mean else 0
            channels = subscribed[user_id]
            for _ in range(count if channels else 0):
                stream_id = rng.choice(channels)
                recent = self.recent.get(stream_id)
                if recent:
                    message_id, topic, sender = recent[-1 - min(len(recent) - 1,
                                                                int(rng.expovariate(0.05)))]
                    if sender != user_id and message_id not in seen:
                        seen.add(message_id)
                        yield user_id, stream_id, message_id, topic, sender

    def _presence(self) -> None:
        from datetime import UTC, datetime

        from chalicelib.models.presence import Presence, presence_expiry

        rng = self.rng
        for user_id in self.humans + self.guests:
            if rng.random() < 0.6:   # active in the last two weeks
                seen = self.now - int(rng.uniform(0, 14 * DAY))
                self.put(Presence(self.realm_id, user_id, email=self.emails[user_id],
                                  active_at=seen, connected_at=seen,
                                  update_id=seen * 1000, expires_at=presence_expiry(
                                      datetime.fromtimestamp(seen, UTC))))

    def build(self) -> Org:
        self.people()
        self.channels()
        self.messages()
        heavy_unread = self.state()
        vocabulary = self.corpus.vocabulary
        return Org(self.realm_id, self.subdomain, self.spec, self.accounts,
                   big_channel=self.streams[0],
                   words={"rare": RARE_WORD, "common": vocabulary[0],
                          "phrase": f'"{vocabulary[3]} {vocabulary[7]}"'},
                   heavy_unread=heavy_unread, counts=dict(self.sink.counts),
                   seconds=self.seconds)


def build_org(spec: OrgSpec, sink: Sink, subdomain: str) -> Org:
    return Generator(spec, sink, subdomain).build()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--channels", type=int, default=2_000)
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--subdomain", default="large")
    parser.add_argument("--no-search-index", action="store_true")
    parser.add_argument("--stack", action="store_true",
                        help="write into the running local stack (make run)")
    parser.add_argument("--out", help="also write what bench.scale --org reads here")
    args = parser.parse_args()
    spec = OrgSpec(args.users, args.channels, args.messages, args.seed,
                   search_index=not args.no_search_index)
    started = time.perf_counter()
    if args.stack:
        from chalicelib.admin import configure_environment

        configure_environment()
        from bench.org_sink import BatchSink

        org = build_org(spec, BatchSink(), args.subdomain)
    else:
        from bench.common import moto_backend
        from bench.org_sink import MotoSink

        with moto_backend():
            org = build_org(spec, MotoSink(), args.subdomain)
    summary = {"realm_id": org.realm_id, "subdomain": org.subdomain, "spec": vars(spec),
               "accounts": {k: vars(a) for k, a in org.accounts.items()},
               "big_channel": org.big_channel, "words": org.words,
               "heavy_unread": org.heavy_unread, "items": sum(org.counts.values()),
               "seconds": {k: round(v, 1) for k, v in org.seconds.items()},
               "total_seconds": round(time.perf_counter() - started, 1)}
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(summary, handle, indent=1)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
