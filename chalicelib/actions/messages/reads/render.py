"""POST /messages/render: a preview of how content would render, with nothing stored."""
from __future__ import annotations

from typing import TypedDict

from chalicelib import config
from chalicelib.actions.messages.reads.rendering import render_content
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal


class RenderResult(TypedDict):
    rendered: str


def render_preview(caller: Principal, content: str) -> RenderResult:
    """The renderer that sending uses (mentions looked up, nothing written)."""
    if len(content) > config.MAX_MESSAGE_LENGTH:
        raise ApiError(f"Message too long (limit: {config.MAX_MESSAGE_LENGTH} characters)")
    if not content.strip():
        return {"rendered": ""}
    return {"rendered": render_content(caller.realm_id, content, author=caller).rendered}
