"""Saved snippets (§4.16, §4.17): a user's own titled pieces of message content.

Each change and its `saved_snippets` event, sent only to the owner's queues, are one
transaction; edits and deletes are conditioned on the snippet still being there.
"""
from __future__ import annotations

from typing import Literal, TypedDict

from pynamodb.exceptions import TransactWriteError

from chalicelib import config
from chalicelib.actions.users.reads.saved_snippets import SavedSnippetDict, saved_snippet_dict
from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import add_event, to_users
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.channels import user_key
from chalicelib.models.ids import allocate_id
from chalicelib.models.races import retry_lost_races
from chalicelib.models.saved_snippets import SavedSnippet
from chalicelib.rules.timeutil import now_seconds

MAX_TITLE_LENGTH = 60


class CreateSavedSnippetResult(TypedDict):
    saved_snippet_id: int


class SavedSnippetsAddEvent(TypedDict):
    type: Literal["saved_snippets"]
    op: Literal["add"]
    saved_snippet: SavedSnippetDict


class SavedSnippetsUpdateEvent(TypedDict):
    type: Literal["saved_snippets"]
    op: Literal["update"]
    saved_snippet: SavedSnippetDict


class SavedSnippetsRemoveEvent(TypedDict):
    type: Literal["saved_snippets"]
    op: Literal["remove"]
    saved_snippet_id: int


def _does_not_exist() -> ApiError:
    # As the reference: HTTP 404, with the code BAD_REQUEST.
    return ApiError("No saved snippet with that ID exists.", http_status=404)


def check_title(title: str) -> str:
    title = title.strip()
    if not title:
        raise ApiError("Title cannot be empty.")
    if len(title) > MAX_TITLE_LENGTH:
        raise ApiError(f"title is over the limit of {MAX_TITLE_LENGTH} characters")
    return title


def check_content(content: str) -> str:
    content = content.strip()
    if not content:
        raise ApiError("Content cannot be empty.")
    if len(content) > config.MAX_MESSAGE_LENGTH:
        raise ApiError(f"content is over the limit of {config.MAX_MESSAGE_LENGTH} characters")
    return content


def do_create_saved_snippet(caller: Principal, title: str, content: str
                            ) -> CreateSavedSnippetResult:
    title, content = check_title(title), check_content(content)
    item = SavedSnippet(user_key(caller.realm_id, caller.user_id),
                        allocate_id(caller.realm_id, "snippet"), title=title,
                        content=content, date_created=now_seconds())
    with transaction() as tx:
        tx.save(item, condition=SavedSnippet.snippet_id.does_not_exist())
        added: SavedSnippetsAddEvent = {"type": "saved_snippets", "op": "add",
                                        "saved_snippet": saved_snippet_dict(item)}
        add_event(tx, caller.realm_id, added, to_users([caller.user_id]))
    return {"saved_snippet_id": item.snippet_id}


def do_edit_saved_snippet(caller: Principal, snippet_id: int, title: str | None,
                          content: str | None) -> EmptyResult:
    if title is None and content is None:
        raise ApiError("The request changes nothing")
    new_title = check_title(title) if title is not None else None
    new_content = check_content(content) if content is not None else None
    if not snippet_id > 0:
        raise _does_not_exist()
    key = (user_key(caller.realm_id, caller.user_id), snippet_id)
    def attempt() -> EmptyResult:
        current = SavedSnippet.get_or_none(*key)
        if current is None:
            raise _does_not_exist()
        # The event carries the whole snippet, so the write is conditioned on what was
        # read: a concurrent edit makes this one read again rather than send stale fields.
        read = ((SavedSnippet.title == current.title)
                & (SavedSnippet.content == current.content))
        after = SavedSnippet(*key, title=new_title if new_title is not None else current.title,
                             content=new_content if new_content is not None
                             else current.content, date_created=current.date_created)
        with transaction() as tx:
            tx.update(SavedSnippet(*key), actions=[SavedSnippet.title.set(after.title),
                                                   SavedSnippet.content.set(after.content)],
                      condition=read)
            updated: SavedSnippetsUpdateEvent = {
                "type": "saved_snippets", "op": "update",
                "saved_snippet": saved_snippet_dict(after)}
            add_event(tx, caller.realm_id, updated, to_users([caller.user_id]))
        return {}

    return retry_lost_races(attempt, conflict="The saved snippet changed concurrently; try again.")


def do_delete_saved_snippet(caller: Principal, snippet_id: int) -> EmptyResult:
    if not snippet_id > 0:
        raise _does_not_exist()
    try:
        with transaction() as tx:
            tx.delete(SavedSnippet(user_key(caller.realm_id, caller.user_id), snippet_id),
                      condition=SavedSnippet.snippet_id.exists())
            removed: SavedSnippetsRemoveEvent = {"type": "saved_snippets", "op": "remove",
                                                 "saved_snippet_id": snippet_id}
            add_event(tx, caller.realm_id, removed, to_users([caller.user_id]))
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise _does_not_exist() from None
        raise
    return {}
