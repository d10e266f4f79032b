"""Slack-compatible incoming webhooks, the format most tools can emit: `text`, Block Kit
`blocks` and legacy `attachments`, sent as JSON or as a form field `payload=`. Slack's
mrkdwn becomes Markdown (`<url|label>` links, `*bold*`, `_italic_`, `~strike~`).

The text is written by whoever configured the tool, as a message sent with the API is:
its Markdown and mentions are kept. The topic is the URL's, else the payload's
`channel` (without `#` or `@`), else "(no topic)". An empty message sends nothing.
"""
from __future__ import annotations

import re
from datetime import UTC, datetime

from chalicelib.integrations.base import Inbound, Integration, Notice
from chalicelib.integrations.markdown import link, plain, safe_url, topic, when
from chalicelib.integrations.payload import Field

MAX_BLOCKS = 50
MAX_ATTACHMENTS = 20
MAX_FIELDS = 20
_SLACK_LINK = re.compile(r"<([a-z][a-z0-9+.-]*://[^|>\s]+)(?:\|([^>]*))?>", re.IGNORECASE)
_BOLD = re.compile(r"(?<![\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])")
_ITALIC = re.compile(r"(?<![\w_])_(?!\s)([^_\n]+?)(?<!\s)_(?![\w_])")
_STRIKE = re.compile(r"(?<![\w~])~(?!\s)([^~\n]+?)(?<!\s)~(?![\w~])")


def mrkdwn(text: str) -> str:
    """Slack's mrkdwn as Markdown: links become Markdown links, and the emphasis outside
    them Markdown's."""
    pieces, last = [], 0
    for match in _SLACK_LINK.finditer(text):
        pieces.append(_emphasis(text[last:match.start()]))
        pieces.append(link(plain(match.group(2) or match.group(1), 200), match.group(1)))
        last = match.end()
    pieces.append(_emphasis(text[last:]))
    return "".join(pieces)


def _emphasis(text: str) -> str:
    # Bold first: the italic it may hold then becomes *…* inside **…**.
    text = _BOLD.sub(r"**\1**", text)
    text = _ITALIC.sub(r"*\1*", text)
    return _STRIKE.sub(r"~~\1~~", text)


def _text(field: Field) -> str:
    """A text object: plain_text shown as typed, mrkdwn translated."""
    if not field.present:
        return ""
    if field.get("type").opt_text() == "plain_text":
        return plain(field["text"].text(), 3000)
    return mrkdwn(field["text"].text())


def _image(element: Field) -> str:
    label = plain(element.get("alt_text").opt_text() or "image", 200)
    return link(label, element.get("image_url").opt_text()) if \
        safe_url(element.get("image_url").opt_text()) else ""


def _block(block: Field) -> str:
    kind = block.get("type").opt_text()
    if kind == "header":
        return f"**{_text(block.get('text'))}**"
    if kind == "divider":
        return "---"
    if kind == "image":
        title = block.get("title")
        return _image(block) if not title.present else \
            link(_text(title), block.get("image_url").opt_text())
    if kind == "context":
        pieces = [_image(e) if e.get("type").opt_text() == "image" else _text(e)
                  for e in block.get("elements").items(MAX_FIELDS)]
        return "\n".join(p for p in pieces if p)
    if kind == "section":
        pieces = [_text(block.get("text"))]
        pieces += [_text(f) for f in block.get("fields").items(MAX_FIELDS)]
        accessory = block.get("accessory")
        if accessory.get("type").opt_text() == "image":
            pieces.append(_image(accessory))
        return "\n".join(p for p in pieces if p)
    return ""   # actions, inputs and other interactive blocks: nothing to show


def _attachment(attachment: Field) -> str:
    pieces = []
    title = attachment.get("title").opt_text()
    if title:
        pieces.append("**" + link(plain(title, 300), attachment.get("title_link").opt_text())
                      + "**")
    for key in ("pretext", "text"):
        value = attachment.get(key).opt_text()
        if value:
            pieces.append(mrkdwn(value))
    fields = []
    for field in attachment.get("fields").items(MAX_FIELDS):
        name, value = field.get("title").opt_text(), field.get("value").opt_text()
        if name and value:
            fields.append(f"**{plain(name, 200)}**: {mrkdwn(value)}")
        elif name or value:
            fields.append(f"**{plain(name, 200)}**" if name else mrkdwn(value or ""))
    if fields:
        pieces.append("\n".join(fields))
    pieces += [_block(b) for b in attachment.get("blocks").items(MAX_BLOCKS)]
    if attachment.get("image_url").present:
        pieces.append(_image(attachment))
    footer = attachment.get("footer").opt_text()
    if footer:
        pieces.append(mrkdwn(footer))
    stamp = _seconds(attachment.get("ts").value)
    if stamp is not None:
        pieces.append(when(datetime.fromtimestamp(stamp, UTC).isoformat()) or "")
    return "\n\n".join(p.strip() for p in pieces if p and p.strip())


def _seconds(value: object) -> float | None:
    """Slack's `ts`: UNIX seconds, as a number or as text ("1655945306.000")."""
    if isinstance(value, str) and re.fullmatch(r"[0-9]{1,11}(\.[0-9]{1,9})?", value):
        value = float(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 2**33:
        return float(value)
    return None


def translate(event: Inbound) -> list[Notice]:
    payload = Field(event.payload)
    pieces = [_block(b) for b in payload.get("blocks").items(MAX_BLOCKS)]
    pieces += [_attachment(a) for a in payload.get("attachments").items(MAX_ATTACHMENTS)]
    content = "\n\n".join(p.strip() for p in pieces if p.strip())
    if not content and payload.get("text").present:
        emoji = payload.get("icon_emoji").opt_text()
        content = ((emoji + " ") if emoji else "") + mrkdwn(payload["text"].text())
    if not content.strip():
        return []
    channel = payload.get("channel").opt_text()
    where = topic(re.sub(r"^[#@]", "", channel)) if channel else "(no topic)"
    return [Notice(where, content.strip())]


INTEGRATION = Integration(name="slack_incoming", display_name="Slack-compatible webhook",
                          translate=translate, form_field="payload")
