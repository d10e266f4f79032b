"""Level 467: Markdown image syntax shows only files uploaded here; an image of another
site is a link to it (no reader's client fetches it)."""
from __future__ import annotations

from tests.functional.edit_helpers import channel, send


def _rendered(account, content: str) -> str:
    answer = account.post("/messages/render", {"content": content})
    assert answer.ok, answer.json
    return answer.json["rendered"]


def test_image_syntax_shows_only_uploaded_images(realm):
    uploaded = realm.member.upload([("file", "chart.png", b"\x89PNG\r\n")],
                                   content_type="image/png").json["url"]
    assert _rendered(realm.member, f"![chart]({uploaded})") == \
        f'<p><img src="{uploaded}" alt="chart" /></p>'
    assert _rendered(realm.member, "![a *cat*](https://images.example.com/cat.png)") == \
        '<p><a href="https://images.example.com/cat.png">a <em>cat</em></a></p>'
    # Inside a link, its text alone; without text, its address names the link
    assert _rendered(realm.member, "[![x](https://e.example.com/a.png)](https://y.example.com)"
                     ) == '<p><a href="https://y.example.com">x</a></p>'
    assert _rendered(realm.member, "![](https://e.example.com/a.png)") == \
        '<p><a href="https://e.example.com/a.png">https://e.example.com/a.png</a></p>'
    # A sent message is stored so, for every reader
    channel(realm.member, "general", [realm.member, realm.admin])
    message_id = send(realm.member, "general", "pics", "![cat](https://images.example.com/c.png)")
    fetched = realm.admin.get(f"/messages/{message_id}", {"apply_markdown": True}).json
    assert "<img" not in fetched["message"]["content"]
