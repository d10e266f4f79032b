"""The organization's code playgrounds (§4.18): administrators add and remove them.

A playground claims its (language, name) pair in the names table in the same transaction
as the playground and its `realm_playgrounds` event (the full list, to the whole realm).
"""
from __future__ import annotations

import re
from typing import Literal, TypedDict

from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.realm.reads.playgrounds import PlaygroundDict, playground_dict, realm_playground_items
from chalicelib.core.errors import ADMINISTRATOR_REQUIRED, ApiError
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import add_event, to_realm
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.ids import allocate_id
from chalicelib.models.playgrounds import Playground
from chalicelib.models.realms import claim_name, release_name
from chalicelib.rules.url_template import UrlTemplateError, check_playground_url_template

MAX_NAME_LENGTH = 100             # the claim's key holds it (DynamoDB keys: 1 KB)
MAX_PYGMENTS_LANGUAGE_LENGTH = 40
MAX_URL_TEMPLATE_LENGTH = 2048
# The reference's character set for a code block's language; it has no ":", so the
# claim key "<language>:<name>" is unambiguous.
_LANGUAGE_CHARS = re.compile(r"[ a-zA-Z0-9_+\-./#]+")


class RealmPlaygroundsEvent(TypedDict):
    """The realm's whole list of playgrounds, after a change."""

    type: Literal["realm_playgrounds"]
    realm_playgrounds: list[PlaygroundDict]


class AddPlaygroundResult(TypedDict):
    id: int


def playground_name_key(realm_id: int, language: str, name: str) -> tuple[str, str]:
    return f"realm:{realm_id}", f"playground:{language}:{name}"


def _check_admin(caller: Principal) -> None:
    if not caller.is_admin:
        raise ApiError(ADMINISTRATOR_REQUIRED)


def _check_fields(name: str, pygments_language: str, url_template: str
                  ) -> tuple[str, str, str]:
    name, language, url_template = name.strip(), pygments_language.strip(), url_template.strip()
    if not name:
        raise ApiError("Name cannot be empty.")
    if len(name) > MAX_NAME_LENGTH:
        raise ApiError(f"name is over the limit of {MAX_NAME_LENGTH} characters")
    if not language:
        raise ApiError("Pygments language cannot be empty.")
    if len(language) > MAX_PYGMENTS_LANGUAGE_LENGTH:
        raise ApiError(f"pygments_language is over the limit of {MAX_PYGMENTS_LANGUAGE_LENGTH} characters")
    if not _LANGUAGE_CHARS.fullmatch(language):
        raise ApiError("The Pygments language name has characters it cannot contain")
    if len(url_template) > MAX_URL_TEMPLATE_LENGTH:
        raise ApiError(f"url_template is over the limit of {MAX_URL_TEMPLATE_LENGTH} characters")
    try:
        check_playground_url_template(url_template)
    except UrlTemplateError as error:
        raise ApiError(str(error)) from None
    return name, language, url_template


def _list_event(items: list[Playground]) -> RealmPlaygroundsEvent:
    ordered = sorted(items, key=lambda i: int(i.playground_id))
    return {"type": "realm_playgrounds", "realm_playgrounds": [playground_dict(i)
                                                               for i in ordered]}


def check_add_realm_playground(caller: Principal, name: str, pygments_language: str,
                               url_template: str) -> AddPlaygroundResult:
    _check_admin(caller)
    name, language, url_template = _check_fields(name, pygments_language, url_template)
    return {"id": do_add_realm_playground(caller.realm_id, name, language, url_template)}


def do_add_realm_playground(realm_id: int, name: str, language: str, url_template: str) -> int:
    item = Playground(realm_id, allocate_id(realm_id, "playground"), name=name,
                      pygments_language=language, url_template=url_template)
    others = [i for i in realm_playground_items(realm_id)
              if i.playground_id != item.playground_id]
    try:
        with transaction() as tx:
            claim_name(tx, playground_name_key(realm_id, language, name), item.playground_id)
            tx.save(item, condition=Playground.playground_id.does_not_exist())
            add_event(tx, realm_id, _list_event([*others, item]), to_realm())
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise ApiError("A playground with this name already exists "
                           "for this language.") from None
        raise
    return int(item.playground_id)


def do_remove_realm_playground(caller: Principal, playground_id: int) -> EmptyResult:
    _check_admin(caller)
    realm_id = caller.realm_id
    item = (Playground.get_or_none(realm_id, playground_id)
            if playground_id > 0 else None)
    if item is None:
        raise ApiError("No code playground with that ID exists")
    after = [i for i in realm_playground_items(realm_id) if i.playground_id != playground_id]
    try:
        with transaction() as tx:
            tx.delete(Playground(realm_id, playground_id),
                      condition=Playground.playground_id.exists())
            release_name(tx, playground_name_key(realm_id, item.pygments_language, item.name),
                         playground_id)
            add_event(tx, realm_id, _list_event(after), to_realm())
    except TransactWriteError as error:
        if is_condition_failure(error):   # removed meanwhile
            raise ApiError("No code playground with that ID exists") from None
        raise
    return {}
