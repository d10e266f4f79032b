"""The organization's code playgrounds as the API shows them (POST /register's
realm_playgrounds); the writes are in actions/realm/playgrounds.py.
"""
from __future__ import annotations

from typing import TypedDict

from chalicelib.models.playgrounds import Playground


class PlaygroundDict(TypedDict):
    id: int
    name: str
    pygments_language: str
    url_template: str


def playground_dict(item: Playground) -> PlaygroundDict:
    return {"id": int(item.playground_id), "name": item.name,
            "pygments_language": item.pygments_language, "url_template": item.url_template}


def realm_playground_items(realm_id: int) -> list[Playground]:
    return list(Playground.query(realm_id))


def realm_playgrounds_state(realm_id: int) -> list[PlaygroundDict]:
    return [playground_dict(i) for i in realm_playground_items(realm_id)]
