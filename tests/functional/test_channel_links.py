"""Channel, topic and message links in messages through the API: sent, fetched, previewed
and edited; linked only where the sender may read the channel, looked up in batches."""
from __future__ import annotations

from chalicelib.models.channels import Stream, Subscription
from chalicelib.models.realms import UniqueName
from chalicelib.models.topics import Topic
from tests.functional.edit_helpers import channel, send


def table_calls(monkeypatch) -> list[tuple[str, str]]:
    """Records each DynamoDB call from now on: (operation, table), a batch's tables too."""
    import botocore.client

    calls: list[tuple[str, str]] = []
    original = botocore.client.BaseClient._make_api_call

    def recording(client, operation, params):
        for table in params.get("RequestItems") or [params.get("TableName")]:
            calls.append((operation, table))
        return original(client, operation, params)
    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", recording)
    return calls


def content_of(account, message_id: int) -> str:
    """The message as GET /messages gives it to this reader."""
    response = account.get("/messages", {"anchor": message_id, "num_before": 0,
                                         "num_after": 0, "apply_markdown": "true"})
    assert response.ok, response.json
    [message] = response.json["messages"]
    return message["content"]


def preview(account, content: str) -> str:
    response = account.post("/messages/render", {"content": content})
    assert response.ok, response.json
    return response.json["rendered"]


def stream_link(stream_id: int, slug: str, name: str) -> str:
    return (f'<a class="stream" data-stream-id="{stream_id}" '
            f'href="/#narrow/channel/{stream_id}-{slug}">#{name}</a>')


def topic_link(stream_id: int, path: str, text: str) -> str:
    return (f'<a class="stream-topic" data-stream-id="{stream_id}" '
            f'href="/#narrow/channel/{path}">{text}</a>')


def test_a_member_links_a_channel_a_topic_and_a_message(realm):
    # GIVEN a channel with a topic whose latest message is `latest`
    design = channel(realm.member, "design team", members=[realm.member, realm.admin])
    send(realm.member, "design team", "Deploy plans", "first")
    latest = send(realm.admin, "design team", "deploy plans", "second")
    channel(realm.member, "chat", members=[realm.member, realm.admin])
    # WHEN the member links them in another channel
    message_id = send(realm.member, "chat", "links",
                      "see #**design team**, #**design team>Deploy plans** and "
                      f"#**design team>Deploy plans@{latest}**")
    # THEN a reader gets the reference's links: the topic link opens with the topic's
    # latest message (level 400), the message link near its message
    slug = f"{design}-design-team/topic/Deploy.20plans"
    assert content_of(realm.admin, message_id) == (
        f"<p>see {stream_link(design, 'design-team', 'design team')}, "
        + topic_link(design, f"{slug}/with/{latest}", "#design team &gt; Deploy plans")
        + f' and <a class="message-link" href="/#narrow/channel/{slug}/near/{latest}">'
        "#design team &gt; Deploy plans @ \U0001f4ac</a></p>")
    # AND the preview renders the same
    assert preview(realm.member, "see #**design team**") == (
        f"<p>see {stream_link(design, 'design-team', 'design team')}</p>")


def test_a_topic_without_messages_and_a_missing_channel(realm):
    ideas = channel(realm.member, "ideas.v2 100%", members=[realm.member])
    # A new topic has no latest message: the link is to the topic alone; a channel that
    # does not exist, or is named in another case, stays as typed
    assert preview(realm.member, "#**ideas.v2 100%>café**") == (
        "<p>" + topic_link(ideas, f"{ideas}-ideas.2Ev2-100.25/topic/caf.C3.A9",
                           "#ideas.v2 100% &gt; café") + "</p>")
    assert preview(realm.member, "#**nowhere** #**IDEAS.v2 100%**") == (
        "<p>#<strong>nowhere</strong> #<strong>IDEAS.v2 100%</strong></p>")


def test_a_private_channel_is_linked_only_by_those_who_may_read_it(realm):
    # GIVEN a private channel of the owner's that the member is not in
    secret = channel(realm.owner, "secret plans", members=[realm.owner], invite_only=True)
    latest = send(realm.owner, "secret plans", "launch", "soon")
    channel(realm.owner, "lobby", members=[realm.owner, realm.member, realm.guest])
    text = "#**secret plans** #**secret plans>launch** #**secret plans>launch@1**"
    # WHEN the member, who may not see it, names it
    theirs = send(realm.member, "lobby", "t", text)
    # THEN it stays text for every reader, its owner included (nothing tells of it)
    as_text = ("<p>#<strong>secret plans</strong> #<strong>secret plans&gt;launch</strong> "
               "#<strong>secret plans&gt;launch@1</strong></p>")
    assert content_of(realm.owner, theirs) == as_text
    assert preview(realm.member, text) == as_text
    # AND a guest cannot link a public channel they are not in either
    channel(realm.owner, "public square", members=[realm.owner])
    assert preview(realm.guest, "#**public square**") == (
        "<p>#<strong>public square</strong></p>")
    # WHEN its member names it, the readers get links (the member sees the markup, not
    # the channel: the name was in the text)
    ours = send(realm.owner, "lobby", "t", "#**secret plans>launch**")
    assert content_of(realm.member, ours) == "<p>" + topic_link(
        secret, f"{secret}-secret-plans/topic/launch/with/{latest}",
        "#secret plans &gt; launch") + "</p>"


def test_protected_history_names_no_message_the_sender_did_not_receive(realm):
    # GIVEN a private channel with protected history, joined by the member after its
    # only message
    vault = channel(realm.owner, "vault", members=[realm.owner], invite_only=True,
                    history_public_to_subscribers=False)
    old = send(realm.owner, "vault", "keys", "before you came")
    channel(realm.owner, "vault", members=[realm.member])
    # THEN the member's topic link does not name that message; the owner's does
    assert preview(realm.member, "#**vault>keys**") == (
        "<p>" + topic_link(vault, f"{vault}-vault/topic/keys", "#vault &gt; keys") + "</p>")
    assert f"/topic/keys/with/{old}" in preview(realm.owner, "#**vault>keys**")


def test_an_edit_renders_links_for_the_sender(realm):
    general = channel(realm.member, "general", members=[realm.member, realm.owner])
    channel(realm.owner, "hidden", members=[realm.owner], invite_only=True)
    message_id = send(realm.member, "general", "t", "plain")
    response = realm.member.patch(f"/messages/{message_id}",
                                  {"content": "#**general** and #**hidden**"})
    assert response.ok, response.json
    assert content_of(realm.owner, message_id) == (
        f"<p>{stream_link(general, 'general', 'general')} and "
        "#<strong>hidden</strong></p>")


def test_links_are_looked_up_in_batches_whatever_their_number(realm, monkeypatch):
    names = [f"room {n}" for n in range(8)]
    for name in names:
        channel(realm.member, name, members=[realm.member])
    content = " ".join(f"#**{n}** #**{n}>topic {n}**" for n in names)
    # WHEN a message links eight channels and eight topics
    calls = table_calls(monkeypatch)
    html = preview(realm.member, content)
    # THEN the names, channels, subscriptions and topics were each read in one
    # BatchGetItem, nothing one at a time
    assert html.count('class="stream"') == 8 and html.count('class="stream-topic"') == 8
    for model in (UniqueName, Stream, Subscription, Topic):
        assert [op for op, table in calls if table == model.Meta.table_name] == [
            "BatchGetItem"], (model, calls)
    # AND a message without link syntax reads none of them
    calls.clear()
    preview(realm.member, "no links, just **bold**")
    assert not {table for _, table in calls} & {
        m.Meta.table_name for m in (UniqueName, Stream, Subscription, Topic)}, calls
