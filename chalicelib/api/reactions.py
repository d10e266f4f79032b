"""Emoji reactions: POST and DELETE /messages/{message_id}/reactions."""
from __future__ import annotations

from chalicelib.actions.messages.reactions import (
    ReactionResult,
    check_add_reaction,
    check_remove_reaction,
)
from chalicelib.core.principal import Principal
from chalicelib.http.endpoint import ApiBlueprint

bp = ApiBlueprint(__name__)


@bp.endpoint("/messages/{message_id}/reactions", "POST")
def add_reaction(caller: Principal, *, message_id: int, emoji_name: str,
                 emoji_code: str | None = None, reaction_type: str | None = None
                 ) -> ReactionResult:
    return check_add_reaction(caller, message_id, emoji_name, emoji_code, reaction_type)


@bp.endpoint("/messages/{message_id}/reactions", "DELETE")
def remove_reaction(caller: Principal, *, message_id: int, emoji_name: str | None = None,
                    emoji_code: str | None = None, reaction_type: str | None = None
                    ) -> ReactionResult:
    return check_remove_reaction(caller, message_id, emoji_name, emoji_code, reaction_type)
