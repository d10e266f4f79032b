"""Linkifiers: GET/PATCH /realm/linkifiers, POST /realm/filters, PATCH/DELETE
/realm/filters/{id}, their events and state, and the renderer applying them."""
from __future__ import annotations

import json
from collections.abc import Callable

from tests.functional.aws_hooks import hooked
from tests.functional.edit_helpers import channel, send

ISSUES = {"pattern": "#(?P<id>[0-9]+)",
          "url_template": "https://github.com/example/repo/issues/{id}"}
TICKETS = {"pattern": "T-(?P<ticket>[A-Z]+)",
           "url_template": "https://tickets.example.com/view{?ticket}"}
CAPABLE = {"linkifier_url_template": True}


def add(account, spec):
    return account.post("/realm/filters", spec)


def listed(account):
    response = account.get("/realm/linkifiers")
    assert response.ok, response.json
    return response.json["linkifiers"]


def error_of(response) -> str:
    assert response.status == 400, response.json
    assert response.json["code"] == "BAD_REQUEST"
    return response.json["msg"]


def test_add_update_reorder_remove_with_events_and_state(realm, register_queue,
                                                         fetch_events, drain_events,
                                                         advertise):
    advertise(470)   # linkifiers without level 471's keys (those: test_reverse_...)
    # GIVEN a client with the capability and one without it
    capable = register_queue(realm.member, event_types=["realm_linkifiers"],
                             client_capabilities=CAPABLE)["queue_id"]
    legacy = register_queue(realm.guest, event_types=["realm_linkifiers"])["queue_id"]
    # WHEN an administrator adds two linkifiers
    first, second = add(realm.admin, ISSUES), add(realm.owner, TICKETS)
    assert first.ok and second.ok, (first.json, second.json)
    one, two = {**ISSUES, "id": first.json["id"]}, {**TICKETS, "id": second.json["id"]}
    # THEN everyone lists them in the order added
    assert listed(realm.guest) == [one, two]
    # WHEN the order is reversed, the first changed, and then removed
    assert realm.admin.patch("/realm/linkifiers",
                             {"ordered_linkifier_ids": [two["id"], one["id"]]}).ok
    assert listed(realm.member) == [two, one]
    changed = {"pattern": "GH(?P<id>[0-9]+)", "url_template": ISSUES["url_template"]}
    assert realm.admin.patch(f"/realm/filters/{one['id']}", changed).ok
    assert listed(realm.member) == [two, {**changed, "id": one["id"]}]
    assert realm.admin.delete(f"/realm/filters/{one['id']}").ok
    assert listed(realm.member) == [two]
    # THEN the capable client got each change as the full ordered list
    drain_events()
    events = [{k: v for k, v in e.items() if k != "id"}
              for e in fetch_events(realm.member, capable)]
    assert events == [
        {"type": "realm_linkifiers", "realm_linkifiers": [one]},
        {"type": "realm_linkifiers", "realm_linkifiers": [one, two]},
        {"type": "realm_linkifiers", "realm_linkifiers": [two, one]},
        {"type": "realm_linkifiers", "realm_linkifiers": [two, {**changed, "id": one["id"]}]},
        {"type": "realm_linkifiers", "realm_linkifiers": [two]},
    ]
    # AND the client without it none (as the reference: templates it would misread)
    assert fetch_events(realm.guest, legacy) == []
    # AND the registration state: the list for capable clients, empty otherwise, and
    # the deprecated realm_filters always empty
    state = register_queue(realm.member, fetch_event_types=["realm_linkifiers",
                                                            "realm_filters"],
                           client_capabilities=CAPABLE)
    assert state["realm_linkifiers"] == [two] and state["realm_filters"] == []
    assert register_queue(realm.member, fetch_event_types=["realm_linkifiers"]
                          )["realm_linkifiers"] == []
    assert "realm_linkifiers" not in register_queue(realm.member, event_types=["alert_words"])


def test_messages_render_linkifiers_in_order_outside_code_and_links(realm):
    assert add(realm.admin, ISSUES).ok
    assert add(realm.admin, TICKETS).ok
    channel(realm.member, "dev")
    content = ("Fixes #12, see (#7) and T-ABC; not abc#3 nor #4x; `#5` "
               "[#6](https://example.com/six) @**Max Member**")
    message_id = send(realm.member, "dev", "links", content)
    rendered = realm.member.get(f"/messages/{message_id}").json["message"]["content"]
    assert '<a href="https://github.com/example/repo/issues/12">#12</a>' in rendered
    assert '(<a href="https://github.com/example/repo/issues/7">#7</a>)' in rendered
    assert '<a href="https://tickets.example.com/view?ticket=ABC">T-ABC</a>' in rendered
    assert "abc#3" in rendered and "#4x" in rendered and "<code>#5</code>" in rendered
    assert '<a href="https://example.com/six">#6</a>' in rendered
    assert "issues/3" not in rendered and "issues/4" not in rendered
    assert "issues/5" not in rendered and "issues/6" not in rendered
    assert f'data-user-id="{realm.member.user_id}">@Max Member</span>' in rendered
    # The preview renders the same way
    preview = realm.member.post("/messages/render", {"content": "see #99"}).json["rendered"]
    assert preview == ('<p>see <a href="https://github.com/example/repo/issues/99">#99</a>'
                       "</p>")


def test_values_are_percent_encoded_in_the_url(realm):
    assert add(realm.admin, {"pattern": r"wiki:(?P<page>\S+)",
                             "url_template": "https://wiki.example.com/{page}"}).ok
    preview = realm.member.post("/messages/render", {"content": "wiki:a&b?c"}).json
    assert 'href="https://wiki.example.com/a%26b%3Fc"' in preview["rendered"]


def test_only_administrators_change_linkifiers(realm, advertise):
    advertise(470)
    added = add(realm.admin, ISSUES).json["id"]
    for account in (realm.moderator, realm.member, realm.guest):
        assert error_of(add(account, TICKETS)) == "Only the organization's administrators can do this."
        assert error_of(account.patch(f"/realm/filters/{added}", TICKETS)) == \
            "Only the organization's administrators can do this."
        assert error_of(account.delete(f"/realm/filters/{added}")) == \
            "Only the organization's administrators can do this."
        assert error_of(account.patch("/realm/linkifiers",
                                      {"ordered_linkifier_ids": [added]})) == \
            "Only the organization's administrators can do this."
    assert listed(realm.member) == [{**ISSUES, "id": added}]


def test_invalid_linkifiers_are_refused(realm):
    for spec, message in [
        ({"pattern": "#(?P<id>[0-9+", "url_template": ISSUES["url_template"]},
         "The pattern is not a usable regular expression: "),
        ({"pattern": ISSUES["pattern"], "url_template": "https://x.example.com/{id"},
         "The URL template is not valid."),
        ({"pattern": ISSUES["pattern"], "url_template": "javascript:alert({id})"},
         "The URL template is not valid."),
        ({"pattern": ISSUES["pattern"], "url_template": "https://x.example.com/{num}"},
         "The URL template uses a group 'num' that the pattern does not define."),
        ({"pattern": "#(?P<id>[0-9]+)(?P<x>z)", "url_template": ISSUES["url_template"]},
         "The URL template does not use the pattern's group 'x'."),
        ({"pattern": "", "url_template": ISSUES["url_template"]},
         "Linkifier pattern cannot be empty."),
    ]:
        assert error_of(add(realm.admin, spec)).startswith(message), spec
    assert listed(realm.admin) == []
    # Missing parameters are the framework's error
    assert realm.admin.post("/realm/filters", {"pattern": "x"}).json["code"] == \
        "REQUEST_VARIABLE_MISSING"


def test_duplicates_unknown_ids_and_bad_orders_are_refused(realm):
    first = add(realm.admin, ISSUES).json["id"]
    second = add(realm.admin, TICKETS).json["id"]
    assert error_of(add(realm.admin, ISSUES)) == \
        "A linkifier with this pattern and URL template already exists."
    assert error_of(realm.admin.patch(f"/realm/filters/{second}", ISSUES)) == \
        "A linkifier with this pattern and URL template already exists."
    for missing in (999999, 0, -1):
        assert error_of(realm.admin.delete(f"/realm/filters/{missing}")) == \
            "No linkifier with that ID exists."
        assert error_of(realm.admin.patch(f"/realm/filters/{missing}", TICKETS)) == \
            "No linkifier with that ID exists."
    reorder = "/realm/linkifiers"
    assert error_of(realm.admin.patch(reorder, {"ordered_linkifier_ids": [first, first]})) \
        == "Each linkifier may appear only once in the order"
    for ids in ([first], [first, second, 999999]):
        assert error_of(realm.admin.patch(reorder, {"ordered_linkifier_ids": ids})) == \
            "The order has to list every linkifier of the organization, each once"
    # Unchanged after every refusal; a removed pair may be added again
    assert [x["id"] for x in listed(realm.admin)] == [first, second]
    assert realm.admin.delete(f"/realm/filters/{first}").ok
    assert add(realm.admin, ISSUES).ok


def test_linkifiers_belong_to_their_realm(realm, chalice_client):
    from tests.functional.conftest import make_realm

    other = make_realm(chalice_client)
    theirs = add(other.admin, ISSUES).json["id"]
    assert listed(realm.admin) == []
    assert error_of(realm.admin.delete(f"/realm/filters/{theirs}")) == "No linkifier with that ID exists."
    preview = realm.member.post("/messages/render", {"content": "#1"}).json["rendered"]
    assert "href" not in preview


def test_topic_names_carry_their_links(realm, register_queue, fetch_events, drain_events):
    assert add(realm.admin, ISSUES).ok
    assert add(realm.admin, TICKETS).ok
    # An overlapping later rule loses to the earlier one, as in content
    assert add(realm.admin, {"pattern": "#(?P<n>[0-9]+)7",
                             "url_template": "https://other.example.com/{n}"}).ok
    channel(realm.member, "dev", members=[realm.member, realm.admin])
    queue = register_queue(realm.admin, event_types=["message", "update_message"])["queue_id"]
    # WHEN a message goes to a topic naming two tickets and not a third
    message_id = send(realm.member, "dev", "T-ABC and #127, not x#5")
    expected = [{"text": "T-ABC", "url": "https://tickets.example.com/view?ticket=ABC"},
                {"text": "#127", "url": "https://github.com/example/repo/issues/127"}]
    # THEN fetches and the message event list the topic's links in order of appearance
    assert realm.member.get(f"/messages/{message_id}").json["message"]["topic_links"] == \
        expected
    fetched = realm.admin.get("/messages", {"anchor": "newest", "num_before": 5,
                                            "num_after": 0, "narrow": []}).json["messages"]
    assert [m["topic_links"] for m in fetched if m["id"] == message_id] == [expected]
    drain_events()
    events = fetch_events(realm.admin, queue)
    assert [e["message"]["topic_links"] for e in events if e["type"] == "message"] == \
        [expected]
    # WHEN the topic is renamed: the event carries the new topic's links
    response = realm.member.patch(f"/messages/{message_id}", {"topic": "see #9",
                                                              "propagate_mode": "change_all"})
    assert response.ok, response.json
    drain_events()
    moved = [e for e in fetch_events(realm.admin, queue, events[-1]["id"])
             if e["type"] == "update_message"]
    assert moved[0]["topic_links"] == [{"text": "#9",
                                        "url": "https://github.com/example/repo/issues/9"}]
    # AND a direct message, or a topic nothing matches, has none
    assert realm.member.get(f"/messages/{send(realm.member, 'dev', 'plain')}").json[
        "message"]["topic_links"] == []
    direct = realm.member.post("/messages", {"type": "direct", "to": [realm.admin.user_id],
                                             "content": "#12"}).json["id"]
    assert realm.member.get(f"/messages/{direct}").json["message"]["topic_links"] == []


def linkifier_queries() -> tuple[list[str], Callable[[str, str, dict], None]]:
    """A list of the linkifier Queries made, and the hook (aws_hooks.hooked) that fills it."""
    queries: list[str] = []

    def record(service: str, operation: str, params: dict) -> None:
        if operation == "Query" and json.loads(params["body"])["TableName"].endswith(
                "linkifiers"):
            queries.append(operation)
    return queries, record


def test_sent_messages_follow_every_change_of_the_linkifiers_without_reading_them_each_time(
        realm):
    queries, record = linkifier_queries()

    channel(realm.member, "cache")

    def rendered(text: str) -> str:
        with hooked(record):
            message_id = send(realm.member, "cache", "t", text)
        return realm.member.get(f"/messages/{message_id}").json["message"]["content"]

    issue_link = '<a href="https://github.com/example/repo/issues/1">#1</a>'
    # GIVEN a message sent before any linkifier, then the same text again
    assert issue_link not in rendered("#1")
    queries.clear()
    assert issue_link not in rendered("#1")
    # THEN the second send rendered with the rules this process already had
    assert queries == []
    # WHEN a linkifier is added, changed, reordered and removed, each next message
    # renders with the linkifiers as they are now
    assert add(realm.admin, ISSUES).ok
    assert issue_link in rendered("#1")
    [added] = listed(realm.admin)
    assert realm.admin.patch(f"/realm/filters/{added['id']}", {
        "pattern": "#(?P<id>[0-9]+)",
        "url_template": "https://other.example.com/{id}"}).ok
    assert '<a href="https://other.example.com/1">#1</a>' in rendered("#1")
    assert add(realm.admin, {"pattern": "#(?P<n>1)",
                             "url_template": "https://first.example.com/{n}"}).ok
    both = [item["id"] for item in listed(realm.admin)]
    assert realm.admin.patch("/realm/linkifiers", {"ordered_linkifier_ids": list(
        reversed(both))}).ok
    assert '<a href="https://first.example.com/1">#1</a>' in rendered("#1")
    for item_id in both:
        assert realm.admin.delete(f"/realm/filters/{item_id}").ok
    assert "<a " not in rendered("#1")


def test_fetched_topics_follow_the_linkifiers_without_reading_them_each_time(realm):
    queries, record = linkifier_queries()

    channel(realm.member, "topics")
    message_id = send(realm.member, "topics", "about #7", "hello")

    def topic_links() -> list:
        return realm.member.get(f"/messages/{message_id}").json["message"]["topic_links"]

    assert topic_links() == []
    with hooked(record):
        assert topic_links() == []
    assert queries == []   # the second fetch used the rules compiled for the first
    assert add(realm.admin, ISSUES).ok
    assert topic_links() == [{"text": "#7",
                              "url": "https://github.com/example/repo/issues/7"}]


def test_an_edit_renders_with_the_linkifiers_as_they_are_now(realm):
    channel(realm.member, "edits")
    message_id = send(realm.member, "edits", "t", "see #3")   # compiles the empty rules
    assert realm.member.patch(f"/messages/{message_id}", {"content": "see #3 again"}).ok
    assert add(realm.admin, ISSUES).ok
    assert realm.member.patch(f"/messages/{message_id}", {"content": "see #3"}).ok
    rendered = realm.member.get(f"/messages/{message_id}").json["message"]["content"]
    assert '<a href="https://github.com/example/repo/issues/3">#3</a>' in rendered


REVERSE = {"example_input": "#42", "reverse_template": "#{id}",
           "alternative_url_templates": json.dumps(
               ["https://github.com/example/repo/pull/{id}"])}


def test_reverse_linkification_values_from_levels_471_and_478(
        realm, advertise, register_queue, fetch_events, drain_events):
    # GIVEN a linkifier saved with an example, a reverse template and an alternative URL
    created = add(realm.admin, {**ISSUES, **REVERSE})
    assert created.ok, created.json
    plain = {**ISSUES, "id": created.json["id"]}
    # THEN below level 471 they are not shown
    advertise(470)
    assert listed(realm.member) == [plain]
    # AND from 471 the example and reverse template, from 478 the alternatives too
    advertise(471)
    assert listed(realm.member) == [{**plain, "example_input": "#42",
                                     "reverse_template": "#{id}"}]
    advertise(478)
    shown = {**plain, "example_input": "#42", "reverse_template": "#{id}",
             "alternative_url_templates": ["https://github.com/example/repo/pull/{id}"]}
    assert listed(realm.member) == [shown]
    drain_events()
    queue = register_queue(realm.member, event_types=["realm_linkifiers"],
                           client_capabilities=CAPABLE)
    assert queue["realm_linkifiers"] == [shown]
    # WHEN an edit clears the reverse template (an empty string) and keeps the rest
    path = f"/realm/filters/{plain['id']}"
    assert realm.admin.patch(path, {**ISSUES, "reverse_template": ""}).ok
    drain_events()
    # THEN the event and the list say so; a linkifier without them shows null and []
    cleared = {**shown, "reverse_template": None}
    [event] = fetch_events(realm.member, queue["queue_id"])
    assert event["realm_linkifiers"] == [cleared]
    other = add(realm.admin, TICKETS)
    assert listed(realm.member) == [cleared, {
        **TICKETS, "id": other.json["id"], "example_input": None, "reverse_template": None,
        "alternative_url_templates": []}]


def test_invalid_reverse_linkification_values_are_refused(realm):
    created = add(realm.admin, {**ISSUES, **REVERSE})
    path = f"/realm/filters/{created.json['id']}"
    for params, message in (
            ({"example_input": "no number"}, "does not match example_input"),
            ({"example_input": "", "reverse_template": "#{id}"}, "needs an example_input"),
            ({"reverse_template": "#{ticket}"}, "Group 'ticket' in reverse_template"),
            ({"alternative_url_templates": json.dumps(["ftp://x/{id}"])},
             "Invalid alternative URL template."),
            ({"alternative_url_templates": json.dumps(["https://x/{other}"])},
             "Group 'other' in alternative URL template"),
            ({"alternative_url_templates": json.dumps(["https://x/{id}"] * 11)},
             "At most 10")):
        assert message in error_of(realm.admin.patch(path, {**ISSUES, **params})), params
        assert message in error_of(add(realm.admin, {**ISSUES, "example_input": "#42",
                                                     **params}))
    assert realm.member.patch(path, {**ISSUES, "example_input": "#7"}).status == 400
