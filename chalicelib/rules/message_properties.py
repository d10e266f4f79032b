"""Which `has:` properties (and `is:resolved`) a message has: one test for the narrow
evaluator and for the sparse index that keeps them (models/message_properties.py)."""
from __future__ import annotations

import re
from typing import Literal

Property = Literal["link", "attachment", "image", "reaction", "resolved"]
PROPERTIES: tuple[Property, ...] = ("link", "attachment", "image", "reaction", "resolved")
CONTENT_PROPERTIES: tuple[Property, ...] = ("link", "attachment", "image")

RESOLVED_TOPIC_PREFIX = "\u2714 "   # "✔ ", how a resolved topic is named
_LINK = re.compile(r"<a\s[^>]*href=|https?://", re.IGNORECASE)
_UPLOAD = "/user_uploads/"
# An image, not a custom emoji (rendered as <img class="emoji">).
_IMAGE_TAG = re.compile(r"<img\s(?![^>]*\bclass=\"emoji\")", re.IGNORECASE)
_IMAGE_UPLOAD = re.compile(r"/user_uploads/[^\s\"')]+\.(?:png|jpe?g|gif|webp|bmp)\b",
                           re.IGNORECASE)


def has_property(name: str, content: str, rendered_content: str, has_reactions: bool
                 ) -> bool:
    """`has:<name>` of a message: raw Markdown, its rendering, whether it has reactions."""
    if name == "reaction":
        return has_reactions
    text = rendered_content + "\n" + content
    if name == "attachment":
        return _UPLOAD in text
    if name == "image":
        return bool(_IMAGE_TAG.search(rendered_content) or _IMAGE_UPLOAD.search(text))
    return bool(_LINK.search(text))   # link


def content_properties(content: str, rendered_content: str) -> frozenset[Property]:
    """The properties that follow from the content alone (link, attachment, image)."""
    return frozenset(p for p in CONTENT_PROPERTIES
                     if has_property(p, content, rendered_content, False))


def is_resolved_topic(topic: str) -> bool:
    return topic.startswith(RESOLVED_TOPIC_PREFIX)
