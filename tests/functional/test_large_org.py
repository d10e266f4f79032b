"""The large-organization generator (bench/large_org.py, issue 41) writes straight into the
database an organization the API serves as if its people had made it, and the same
arguments build the same organization (the benchmarks' figures are repeatable)."""
from __future__ import annotations

import uuid

import pytest

from bench.large_org import ALL_MEMBER_CHANNELS, RARE_WORD, OrgSpec, build_org
from bench.org_sink import MotoSink, Sink, TableLoader
from tests.functional.conftest import Account

SPEC = OrgSpec(users=120, channels=24, messages=1_500, days=60)


def _build(chalice_client, spec: OrgSpec = SPEC, sink: Sink | None = None):
    org = build_org(spec, sink or MotoSink(), f"gen{uuid.uuid4().hex[:10]}")
    accounts = {label: Account(chalice_client, org.realm_id, a.user_id, a.email, a.api_key,
                               label, 400) for label, a in org.accounts.items()}
    return org, accounts


@pytest.fixture(scope="module")
def built(chalice_client):
    return _build(chalice_client)


def test_people_channels_and_roles_are_as_specified(built):
    org, accounts = built
    users = accounts["owner"].get("/users").json["members"]
    assert len(users) == SPEC.users
    assert sum(u["is_bot"] for u in users) == SPEC.bots
    assert sum(u["role"] == 600 for u in users) == SPEC.guests
    subscriptions = accounts["owner"].post("/register", {
        "fetch_event_types": ["subscription"], "include_subscribers": True}).json
    channels = {s["stream_id"]: s for group in ("subscriptions", "unsubscribed",
                                                 "never_subscribed")
                for s in subscriptions[group]}
    # A handful of channels with everyone, the long tail much smaller.
    sizes = sorted((len(c["subscribers"]) for c in channels.values()), reverse=True)
    assert sizes[:ALL_MEMBER_CHANNELS] == [SPEC.users] * ALL_MEMBER_CHANNELS
    assert sorted(sizes)[len(sizes) // 2] <= 50
    assert len(channels[org.big_channel]["subscribers"]) == SPEC.users


def test_history_unread_state_and_search_are_served(built):
    org, accounts = built
    oldest = accounts["member"].get("/messages", {
        "anchor": "oldest", "num_before": 0, "num_after": 20,
        "narrow": [{"operator": "channel", "operand": org.big_channel}]}).json
    assert oldest["found_oldest"] and len(oldest["messages"]) == 20
    assert all(m["stream_id"] == org.big_channel and m["subject"] for m in oldest["messages"])
    newest = accounts["member"].get("/messages", {
        "anchor": "newest", "num_before": 1, "num_after": 0,
        "narrow": [{"operator": "channel", "operand": org.big_channel}]}).json["messages"]
    # Spread over the organization's days
    assert newest[0]["timestamp"] - oldest["messages"][0]["timestamp"] > SPEC.days * 86_400 / 2
    # The channel's item knows its first and newest message, as sending keeps them
    stream = accounts["member"].get(f"/streams/{org.big_channel}").json["stream"]
    assert stream["first_message_id"] == oldest["messages"][0]["id"]
    state = accounts["member"].post("/register", {"fetch_event_types": ["message"]}).json
    assert state["max_message_id"] >= newest[0]["id"]
    unread = accounts["heavy"].post("/register", {
        "fetch_event_types": ["message", "update_message_flags"]}).json["unread_msgs"]
    listed = sum(len(s["unread_message_ids"]) for s in unread["streams"]) + \
        sum(len(p["unread_message_ids"]) for p in unread["pms"] + unread["huddles"])
    assert listed >= org.heavy_unread > 0 and unread["old_unreads_missing"] is False
    found = accounts["owner"].get("/messages", {
        "anchor": "newest", "num_before": 100, "num_after": 0,
        "narrow": [{"operator": "channels", "operand": "public"},
                   {"operator": "search", "operand": RARE_WORD}]}).json["messages"]
    assert found and all(RARE_WORD in m["content"] for m in found)


def _shape(accounts, org):
    """What the API shows of an organization: its people, a channel's history."""
    users = sorted((u["user_id"], u["full_name"], u["role"])
                   for u in accounts["owner"].get("/users").json["members"])
    history = accounts["owner"].get("/messages", {
        "anchor": "oldest", "num_before": 0, "num_after": 50,
        "narrow": [{"operator": "channel", "operand": org.big_channel}]}).json
    return users, [(m["id"], m["sender_id"], m["subject"], m["content"])
                   for m in history["messages"]]


def test_the_same_seed_builds_the_same_organization(chalice_client, built):
    again = _build(chalice_client)
    assert _shape(*reversed(built)) == _shape(*reversed(again))
    other = _build(chalice_client, OrgSpec(**{**SPEC.__dict__, "seed": SPEC.seed + 1}))
    assert _shape(*reversed(other)) != _shape(*reversed(built))


def test_items_placed_straight_into_the_tables_are_those_put_item_writes(chalice_client,
                                                                         built):
    """bench/org_snapshot.py builds with TableLoader, which places items in moto's tables
    without PutItem: the API serves the same organization, and each table holds what
    PutItem would have written."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    written: list[tuple[str, dict]] = []

    class Recording(TableLoader):
        def put(self, table: str, item: dict) -> None:
            written.append((table, item))
            super().put(table, item)

    # GIVEN the indexes built by Queries before (the loader's items bypass them)
    expected = _shape(*reversed(built))
    loader = Recording()
    placed = _build(chalice_client, sink=loader)
    # THEN the API (its index Queries too) serves what PutItem's build serves
    assert _shape(*reversed(placed)) == expected
    # AND each item is PutItem's own: written again through PutItem, nothing changes
    latest = {}
    for table, item in written:
        target = loader.backend.get_table(table)
        key = [item[target.hash_key_attr]]
        key += [item[target.range_key_attr]] if target.range_key_attr else []
        latest[table, repr(key)] = key, item
    assert len(latest) > SPEC.users * 2
    for (table, _), (key, item) in latest.items():
        target = loader.backend.get_table(table)
        before = target.get_item(*[DynamoType(k) for k in key]).to_json()
        loader.backend.put_item(table, item)
        assert target.get_item(*[DynamoType(k) for k in key]).to_json() == before
