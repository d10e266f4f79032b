"""Views of the typing_notifications area."""
from __future__ import annotations

from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)
