"""What a tool posted to an integration's URL, as the action receives it."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class ToolRequest:
    """The raw body and its media type, the headers (lower-case names), and the query
    parameters the view does not declare (the integration's URL options)."""

    body: bytes
    content_type: str
    headers: Mapping[str, str]
    options: Mapping[str, str]
