"""Views of the events area."""
from __future__ import annotations

from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)
