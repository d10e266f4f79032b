"""GET /messages/{id}/history, POST /messages/render and GET /messages/matches_narrow."""
from __future__ import annotations

import pytest

from chalicelib.models.messages import Message
from tests.functional.edit_helpers import channel, fetch, send


def history(account, message_id, **params):
    response = account.get(f"/messages/{message_id}/history", params)
    assert response.ok, response.json
    return response.json["message_history"]


def edited_message(realm):
    """A message edited in content, then moved to another topic, then to another channel
    with new content and topic, by its sender."""
    first = channel(realm.owner, "one", [realm.owner, realm.member])
    second = channel(realm.owner, "two", [realm.owner, realm.member])
    message_id = send(realm.member, "one", "topic 1", "content 1")
    for params in ({"content": "content 2"}, {"topic": "topic 2"},
                   {"stream_id": second, "topic": "topic 3"}, {"content": "content 3"}):
        assert realm.member.patch(f"/messages/{message_id}", params).ok
    return message_id, first, second


def test_history_lists_every_version_oldest_first(realm):
    message_id, first, second = edited_message(realm)
    snapshots = history(realm.owner, message_id)
    assert [(s["content"], s["topic"]) for s in snapshots] == [
        ("content 1", "topic 1"), ("content 2", "topic 1"), ("content 2", "topic 2"),
        ("content 2", "topic 3"), ("content 3", "topic 3")]
    original, content_edit, topic_edit, channel_move, last = snapshots
    assert set(original) == {"content", "rendered_content", "topic", "timestamp", "user_id"}
    assert original["user_id"] == realm.member.user_id
    assert original["rendered_content"] == "<p>content 1</p>"
    assert content_edit["prev_content"] == "content 1"
    assert content_edit["prev_rendered_content"] == "<p>content 1</p>"
    assert content_edit["content_html_diff"] == (
        '<div><p>content <span class="highlight_text_deleted">1</span>'
        '<span class="highlight_text_inserted">2</span></p></div>')
    assert "prev_topic" not in content_edit and "prev_stream" not in content_edit
    assert topic_edit["prev_topic"] == "topic 1" and "prev_content" not in topic_edit
    assert (channel_move["prev_stream"], channel_move["stream"]) == (first, second)
    assert channel_move["prev_topic"] == "topic 2"
    assert last["prev_content"] == "content 2"
    assert all(s["timestamp"] >= original["timestamp"] for s in snapshots)
    assert {s["user_id"] for s in snapshots} == {realm.member.user_id}


def test_a_message_never_edited_has_one_snapshot_and_empty_topics_their_display_name(realm):
    channel(realm.owner, "general", [realm.owner])
    message_id = send(realm.owner, "general", "", "plain")
    [snapshot] = history(realm.owner, message_id)
    assert snapshot["topic"] == "general chat" and snapshot["content"] == "plain"
    assert history(realm.owner, message_id, allow_empty_topic_name=True)[0]["topic"] == ""


def test_the_realm_policy_governs_history(realm):
    message_id, _, _ = edited_message(realm)
    # "moves": only topic and channel changes, without any content change
    assert realm.owner.patch("/realm", {"message_edit_history_visibility_policy": "moves"}).ok
    snapshots = history(realm.member, message_id)
    assert [(s["content"], s["topic"]) for s in snapshots] == [
        ("content 1", "topic 1"), ("content 2", "topic 2"), ("content 2", "topic 3")]
    assert not any(k in s for s in snapshots for k in (
        "prev_content", "prev_rendered_content", "content_html_diff"))
    fetched = fetch(realm.member, message_id)["edit_history"]
    assert len(fetched) == 2 and all("prev_content" not in e for e in fetched)
    # "none": refused, and fetched messages carry no edit_history
    assert realm.owner.patch("/realm", {"message_edit_history_visibility_policy": "none"}).ok
    refused = realm.member.get(f"/messages/{message_id}/history")
    assert refused.status == 400
    assert refused.json["msg"] == "This organization does not show message edit history"
    assert "edit_history" not in fetch(realm.member, message_id)
    # "all" (the default): everything again
    assert realm.owner.patch("/realm", {"message_edit_history_visibility_policy": "all"}).ok
    assert len(fetch(realm.member, message_id)["edit_history"]) == 4


def test_history_of_messages_the_caller_cannot_read_is_invalid(realm):
    channel(realm.owner, "secret", [realm.owner], invite_only=True)
    secret = send(realm.owner, "secret", "t")
    for message_id in (secret, 999999):
        response = realm.member.get(f"/messages/{message_id}/history")
        assert (response.status, response.json["msg"]) == (400, "Message not found, or you cannot see it.")


def test_render_previews_with_the_sending_renderer_and_stores_nothing(realm):
    before = Message.count(realm.realm_id)
    response = realm.member.post("/messages/render", {
        "content": "**bold** and @**Olivia Owner** <script>x</script>"})
    assert response.ok, response.json
    assert response.json["rendered"] == (
        f'<p><strong>bold</strong> and <span class="user-mention" '
        f'data-user-id="{realm.owner.user_id}">@Olivia Owner</span> '
        "&lt;script&gt;x&lt;/script&gt;</p>")
    assert set(response.json) == {"result", "msg", "rendered"}
    assert Message.count(realm.realm_id) == before
    assert realm.member.post("/messages/render", {"content": "  "}).json["rendered"] == ""
    too_long = realm.member.post("/messages/render", {"content": "x" * 10001})
    assert too_long.status == 400 and "too long" in too_long.json["msg"]
    assert realm.member.post("/messages/render", {}).json["code"] == "REQUEST_VARIABLE_MISSING"


def test_matches_narrow_reports_readable_matching_messages(realm):
    stream_id = channel(realm.owner, "general", [realm.owner, realm.member])
    channel(realm.owner, "secret", [realm.owner], invite_only=True)
    lunch = send(realm.owner, "general", "Lunch <3", "**pizza**")
    other_topic = send(realm.owner, "general", "work", "x")
    secret = send(realm.owner, "secret", "Lunch <3", "y")
    dm = realm.member.post("/messages", {"type": "direct", "to": [realm.owner.user_id],
                                         "content": "hi"}).json["id"]
    ids = [lunch, other_topic, secret, dm, 999999]

    def matches(account, narrow):
        response = account.get("/messages/matches_narrow", {"msg_ids": ids, "narrow": narrow})
        assert response.ok, response.json
        return response.json["messages"]

    in_topic = matches(realm.member, [{"operator": "channel", "operand": stream_id},
                                      {"operator": "topic", "operand": "lunch <3"}])
    assert in_topic == {str(lunch): {"match_content": "<p><strong>pizza</strong></p>",
                                     "match_subject": "Lunch &lt;3"}}
    assert set(matches(realm.member, [["stream", "general"]])) == {str(lunch), str(other_topic)}
    assert set(matches(realm.member, [{"operator": "is", "operand": "dm"}])) == {str(dm)}
    assert set(matches(realm.member, [{"operator": "dm", "operand": [realm.owner.user_id]}])) \
        == {str(dm)}
    # unreadable messages never match; the owner reads the secret channel
    assert set(matches(realm.member, [])) == {str(lunch), str(other_topic), str(dm)}
    assert str(secret) in matches(realm.owner, [])


def test_matches_narrow_with_the_callers_flags(realm, drain_events):
    channel(realm.owner, "general", [realm.owner, realm.member])
    read = send(realm.owner, "general", "t", "one")
    unread = send(realm.owner, "general", "t", "two @**Max Member**")
    mine = send(realm.member, "general", "t", "three")
    drain_events()   # the fan-out writes the member's unread markers
    ids = [read, unread, mine]
    assert realm.member.post("/messages/flags", {"messages": [read], "op": "add",
                                                 "flag": "read"}).ok
    assert realm.member.post("/messages/flags", {"messages": [mine], "op": "add",
                                                 "flag": "starred"}).ok

    def matches(operand):
        response = realm.member.get("/messages/matches_narrow", {
            "msg_ids": ids, "narrow": [{"operator": "is", "operand": operand}]})
        assert response.ok, response.json
        return set(response.json["messages"])

    assert matches("unread") == {str(unread)}
    assert matches("starred") == {str(mine)}
    assert matches("mentioned") == {str(unread)}


@pytest.mark.parametrize("params, message", [
    ({"msg_ids": "[1]", "narrow": '[{"operator": "color", "operand": 1}]'},
     "This narrow cannot be used: unknown operator 'color'"),
    ({"msg_ids": "[1]", "narrow": '[["channel", "nowhere"]]'},
     "This narrow cannot be used: unknown channel"),
    ({"msg_ids": "not json", "narrow": "[]"}, "Argument 'msg_ids' cannot be parsed as JSON."),
    # the list's declared limit, checked before any read
    ({"msg_ids": str(list(range(1001))), "narrow": "[]"},
     "msg_ids has too many items (limit: 1000)."),
    ({"narrow": "[]"}, "The 'msg_ids' parameter is required"),
])
def test_matches_narrow_errors(realm, params, message):
    response = realm.member.get("/messages/matches_narrow", params)
    assert (response.status, response.json["msg"]) == (400, message)
