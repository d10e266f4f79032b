"""The official client's everyday calls of issue 13 on the local stack: reactions,
edit history, render preview, deletion and presence."""
from __future__ import annotations

from tests.e2e.test_local_stack import client_for


def test_official_client_reacts_edits_renders_deletes_and_sees_presence(local_stack):
    member, owner = client_for(local_stack, "member"), client_for(local_stack, "owner")
    assert member.add_subscriptions(streams=[{"name": "e2e-actions"}])["result"] == "success"
    sent = member.send_message({"type": "stream", "to": "e2e-actions", "topic": "daily",
                                "content": "first draft"})
    message_id = sent["id"]
    # reactions
    added = owner.add_reaction({"message_id": message_id, "emoji_name": "octopus"})
    assert added["result"] == "success", added
    fetched = member.get_raw_message(message_id)["message"]
    assert [(r["emoji_name"], r["emoji_code"]) for r in fetched["reactions"]] == [
        ("octopus", "1f419")]
    removed = owner.remove_reaction({"message_id": message_id, "emoji_name": "octopus"})
    assert removed["result"] == "success", removed
    # edit history and preview
    assert member.update_message({"message_id": message_id, "content": "final"})[
        "result"] == "success"
    history = member.get_message_history(message_id)
    assert [s["content"] for s in history["message_history"]] == ["first draft", "final"]
    rendered = member.render_message({"content": "**bold**"})
    assert rendered["rendered"] == "<p><strong>bold</strong></p>"
    # presence: the terminal client's minute ping and the realm's presence
    ping = member.update_presence({"status": "active", "ping_only": False,
                                   "new_user_input": True})
    assert ping["result"] == "success" and "member@demo.example.com" in ping["presences"]
    realm_presence = owner.get_realm_presence()
    assert "member@demo.example.com" in realm_presence["presences"]
    one = owner.get_user_presence("member@demo.example.com")
    assert one["presence"]["aggregated"]["status"] == "active"
    # deletion
    assert member.delete_message(message_id)["result"] == "success"
    gone = member.get_raw_message(message_id)
    assert gone["result"] == "error" and gone["msg"] == "Message not found, or you cannot see it."
