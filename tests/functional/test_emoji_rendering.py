"""Emoji in rendered messages: `:name:` and emoji characters become the reference's emoji
markup, custom emoji an image, and nothing else changes (unknown names, code)."""
from __future__ import annotations

import json

from tests.functional.edit_helpers import channel, send
from tests.functional.test_realm_emoji import add


def rendered(account, content):
    response = account.post("/messages/render", {"content": content})
    assert response.ok, response.json
    return response.json["rendered"]


def smile(syntax=":smile:", title="smile"):
    return (f'<span aria-label="{title}" class="emoji emoji-1f604" role="img" '
            f'title="{title}">{syntax}</span>')


def test_emoji_names_render_as_the_reference_marks_them_up(realm):
    # WHEN a message names a built-in emoji, an unknown one, and one inside code
    html = rendered(realm.member, "hi :smile: :no_such_emoji: `:smile:` :thumbs_up:")
    # THEN the known name is a span with its code point, title and accessible name
    assert html == ("<p>hi " + smile() + " :no_such_emoji: <code>:smile:</code> "
                    '<span aria-label="thumbs up" class="emoji emoji-1f44d" role="img" '
                    'title="thumbs up">:thumbs_up:</span></p>')


def test_emoji_characters_are_named_and_text_symbols_stay_as_typed(realm):
    html = rendered(realm.member, "😄 and © and ❤")
    # THEN the emoji character is marked up under its name; symbols that show as text
    # unless asked otherwise (no variation selector) are left alone
    assert html.startswith('<p><span aria-label="grinning face with smiling eyes" '
                           'class="emoji emoji-1f604" role="img"')
    assert html.endswith("</span> and © and ❤</p>")


def test_custom_emoji_render_as_images_and_do_not_count_as_images(realm):
    assert add(realm.member, "party").ok
    [emoji] = realm.member.get("/realm/emoji").json["emoji"].values()
    # WHEN a message names the organization's emoji
    channel(realm.member, "fun", members=[realm.member, realm.owner])
    message_id = send(realm.member, "fun", "emoji", "done :party:")
    message = realm.owner.get(f"/messages/{message_id}").json["message"]
    # THEN it shows the emoji's image
    assert message["content"] == (f'<p>done <img alt=":party:" class="emoji" '
                                  f'src="{emoji["source_url"]}" title="party"></p>')
    # AND the message is not one with an image (has:image means pictures, not emoji)
    found = realm.owner.get("/messages", {
        "anchor": "newest", "num_before": 10, "num_after": 0,
        "narrow": json.dumps([{"operator": "has", "operand": "image"}])}).json["messages"]
    assert message_id not in [m["id"] for m in found]
    # AND once deactivated, the name is text again in new messages
    assert realm.owner.delete("/realm/emoji/party").ok
    assert rendered(realm.member, "done :party:") == "<p>done :party:</p>"


def test_emoji_only_messages_are_one_paragraph_of_emoji(realm):
    # Level 436: clients enlarge single-paragraph messages of emoji alone; the markup is
    # just that, a paragraph whose only elements are emoji
    assert rendered(realm.member, ":smile: :smile:") == f"<p>{smile()} {smile()}</p>"


def test_image_syntax_links_the_image_and_uploaded_audio_gets_a_player(realm):
    # Level 437: image syntax anywhere; previews are off here (server_inline_image_preview
    # false), so it links the image, as a link to it would
    assert rendered(realm.member, "see ![the plan](https://example.com/plan.png)") == (
        '<p>see <a href="https://example.com/plan.png">the plan</a></p>')
    # Level 405: a link to an uploaded audio file is a player; other files stay links
    song = realm.member.upload([("file", "song.mp3", b"ID3")], content_type="audio/mpeg")
    notes = realm.member.upload([("file", "notes.txt", b"hi")])
    song_url, notes_url = song.json["url"], notes.json["url"]
    assert rendered(realm.member, f"[song.mp3]({song_url}) and [notes]({notes_url})") == (
        f'<p><audio controls preload="metadata" src="{song_url}" title="song.mp3"></audio>'
        f' and <a href="{notes_url}">notes</a></p>')


def test_a_dropbox_album_link_is_a_plain_link(realm):
    # Level 395: the reference dropped its Dropbox album preview; with no link previews
    # here at all, an album link renders as any other link
    album = "https://www.dropbox.com/sh/abc123/AAB?dl=0"
    assert rendered(realm.member, f"[holiday]({album})") == (
        f'<p><a href="{album}">holiday</a></p>')
