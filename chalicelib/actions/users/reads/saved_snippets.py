"""A user's saved snippets as the API shows them (GET /saved_snippets, POST /register);
the writes are in actions/users/saved_snippets.py.
"""
from __future__ import annotations

from typing import TypedDict

from chalicelib.models.channels import user_key
from chalicelib.models.saved_snippets import SavedSnippet


class SavedSnippetDict(TypedDict):
    id: int
    title: str
    content: str
    date_created: int


def saved_snippet_dict(item: SavedSnippet) -> SavedSnippetDict:
    return {"id": int(item.snippet_id), "title": item.title, "content": item.content,
            "date_created": int(item.date_created)}


def saved_snippets_state(realm_id: int, user_id: int) -> list[SavedSnippetDict]:
    """The user's snippets in id order (the range key's order)."""
    return [saved_snippet_dict(i) for i in SavedSnippet.query(user_key(realm_id, user_id))]
