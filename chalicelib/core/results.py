"""Result shapes shared by many actions."""
from __future__ import annotations

from typing import TypedDict


class EmptyResult(TypedDict):
    """The result of an endpoint that answers with the envelope alone."""
