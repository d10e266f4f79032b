"""The organization's linkifiers: administrators add, change, remove and reorder them;
the renderer applies them in their order when a message is sent or edited.

A linkifier claims its (pattern, URL template) pair in the names table in the same
transaction as the linkifier and its `realm_linkifiers` event (the whole ordered list, to
the realm's clients that have the `linkifier_url_template` capability, as the reference
sends it; the deprecated `realm_filters` event is no longer sent).
"""
from __future__ import annotations

import hashlib
from typing import Any, Literal, TypedDict

from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.realm.reads.linkifiers import (
    CAPABILITY,
    LinkifierDict,
    linkifier_dict,
    linkifiers_state,
    note_linkifiers_changed,
)
from chalicelib.core.errors import ADMINISTRATOR_REQUIRED, ApiError, ConflictError
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import OutboxEntry, add_event, to_realm
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.ids import allocate_id
from chalicelib.models.linkifiers import Linkifier, realm_linkifiers
from chalicelib.models.realms import UniqueName, claim_name, move_name, release_name
from chalicelib.rules.linkifiers import LinkifierError, check_linkifier
from chalicelib.rules.reverse_linkifiers import (
    ReverseLinkification,
    check_reverse_linkification,
)

MAX_TRANSACTION_ITEMS = 100


class RealmLinkifiersEvent(TypedDict):
    """The realm's whole ordered list of linkifiers, after a change."""

    type: Literal["realm_linkifiers"]
    realm_linkifiers: list[LinkifierDict]


class AddLinkifierResult(TypedDict):
    id: int


class LinkifiersResult(TypedDict):
    linkifiers: list[LinkifierDict]


class ReverseChanges(TypedDict, total=False):
    """PATCH /realm/filters/{id}'s reverse-linkification parameters that were given."""

    example_input: str
    reverse_template: str
    alternative_url_templates: list[str]


def get_linkifiers(caller: Principal) -> LinkifiersResult:
    return {"linkifiers": linkifiers_state(caller.realm_id)}


def _pair_key(realm_id: int, pattern: str, url_template: str) -> tuple[str, str]:
    # Hashed: a pattern and a template together can exceed a key's 1 KB.
    digest = hashlib.sha256(f"{pattern}\0{url_template}".encode()).hexdigest()
    return f"realm:{realm_id}", f"linkifier:{digest}"


def _check_admin(caller: Principal) -> None:
    if not caller.is_admin:
        raise ApiError(ADMINISTRATOR_REQUIRED)


def _checked(pattern: str, url_template: str) -> tuple[str, str]:
    try:
        return check_linkifier(pattern.strip(), url_template.strip())
    except LinkifierError as error:
        raise ApiError(str(error)) from None


def _checked_reverse(pattern: str, wanted: ReverseLinkification) -> ReverseLinkification:
    try:
        return check_reverse_linkification(pattern, wanted)
    except LinkifierError as error:
        raise ApiError(str(error)) from None


def _reverse_of(item: Linkifier) -> ReverseLinkification:
    return ReverseLinkification(item.example_input, item.reverse_template,
                                tuple(item.alternative_url_templates or ()))


def _reverse_update(wanted: ReverseLinkification) -> list[Any]:
    """The update actions that store `wanted` (None and empty lists are removed)."""
    return [
        Linkifier.example_input.set(wanted.example_input) if wanted.example_input
        else Linkifier.example_input.remove(),
        Linkifier.reverse_template.set(wanted.reverse_template) if wanted.reverse_template
        else Linkifier.reverse_template.remove(),
        Linkifier.alternative_url_templates.set(list(wanted.alternative_url_templates))
        if wanted.alternative_url_templates
        else Linkifier.alternative_url_templates.remove()]


def _duplicate() -> ApiError:
    return ApiError("A linkifier with this pattern and URL template already exists.")


def _not_found() -> ApiError:
    return ApiError("No linkifier with that ID exists.")


def _event(items: list[Linkifier]) -> OutboxEntry:
    """The realm's linkifiers, for everyone."""
    event: RealmLinkifiersEvent = {"type": "realm_linkifiers",
                                   "realm_linkifiers": [linkifier_dict(i) for i in items]}
    # Clients without the capability would misread templates: they get nothing.
    return OutboxEntry(event, to_realm(), {
        "without_capability": {"capability": CAPABILITY, "event": None}})


def check_add_linkifier(caller: Principal, pattern: str, url_template: str,
                        reverse: ReverseLinkification | None = None) -> AddLinkifierResult:
    _check_admin(caller)
    pattern, url_template = _checked(pattern, url_template)
    reverse = _checked_reverse(pattern, reverse or ReverseLinkification())
    realm_id = caller.realm_id
    before = realm_linkifiers(realm_id)
    item = Linkifier(realm_id, allocate_id(realm_id, "linkifier"), pattern=pattern,
                     url_template=url_template,
                     order=max((i.order for i in before), default=0) + 1,
                     example_input=reverse.example_input,
                     reverse_template=reverse.reverse_template,
                     alternative_url_templates=list(reverse.alternative_url_templates)
                     or None)
    try:
        with transaction() as tx:
            claim_name(tx, _pair_key(realm_id, pattern, url_template), item.linkifier_id)
            tx.save(item, condition=Linkifier.linkifier_id.does_not_exist())
            add_event(tx, realm_id, *_event([*before, item]))
            note_linkifiers_changed(tx, realm_id)
    except TransactWriteError as error:
        if is_condition_failure(error):
            raise _duplicate() from None
        raise
    return {"id": item.linkifier_id}


def _get(caller: Principal, linkifier_id: int) -> tuple[list[Linkifier], Linkifier]:
    items = realm_linkifiers(caller.realm_id)
    item = next((i for i in items if i.linkifier_id == linkifier_id), None)
    if item is None:
        raise _not_found()
    return items, item


def do_update_linkifier(caller: Principal, linkifier_id: int, pattern: str,
                        url_template: str, reverse: ReverseChanges | None = None
                        ) -> EmptyResult:
    """`reverse`: the reverse-linkification values given (absent: unchanged; "": none)."""
    _check_admin(caller)
    items, item = _get(caller, linkifier_id)
    pattern, url_template = _checked(pattern, url_template)
    current = _reverse_of(item)
    changes = reverse or {}
    wanted = _checked_reverse(pattern, ReverseLinkification(
        changes.get("example_input", current.example_input),
        changes.get("reverse_template", current.reverse_template),
        tuple(changes.get("alternative_url_templates", current.alternative_url_templates))))
    realm_id = caller.realm_id
    old_key = _pair_key(realm_id, item.pattern, item.url_template)
    new_key = _pair_key(realm_id, pattern, url_template)
    after = [Linkifier(realm_id, i.linkifier_id, pattern=pattern, url_template=url_template,
                       order=i.order, example_input=wanted.example_input,
                       reverse_template=wanted.reverse_template,
                       alternative_url_templates=list(wanted.alternative_url_templates)
                       or None) if i.linkifier_id == linkifier_id else i for i in items]
    try:
        with transaction() as tx:
            move_name(tx, old_key, new_key, linkifier_id)
            tx.update(Linkifier(realm_id, linkifier_id),
                      actions=[Linkifier.pattern.set(pattern),
                               Linkifier.url_template.set(url_template),
                               *_reverse_update(wanted)],
                      condition=(Linkifier.pattern == item.pattern)
                      & (Linkifier.url_template == item.url_template))
            add_event(tx, realm_id, *_event(after))
            note_linkifiers_changed(tx, realm_id)
    except TransactWriteError as error:
        if not is_condition_failure(error):
            raise
        if old_key != new_key and _claimed(new_key):
            raise _duplicate() from None
        _get(caller, linkifier_id)   # removed meanwhile: say so
        raise ConflictError("The linkifier changed at the same time; try again.") from None
    return {}


def _claimed(key: tuple[str, str]) -> bool:
    return UniqueName.get_or_none(*key) is not None


def do_remove_linkifier(caller: Principal, linkifier_id: int) -> EmptyResult:
    _check_admin(caller)
    items, item = _get(caller, linkifier_id)
    realm_id = caller.realm_id
    after = [i for i in items if i.linkifier_id != linkifier_id]
    try:
        with transaction() as tx:
            tx.delete(Linkifier(realm_id, linkifier_id),
                      condition=Linkifier.linkifier_id.exists())
            release_name(tx, _pair_key(realm_id, item.pattern, item.url_template),
                         linkifier_id)
            add_event(tx, realm_id, *_event(after))
            note_linkifiers_changed(tx, realm_id)
    except TransactWriteError as error:
        if is_condition_failure(error):   # removed meanwhile
            raise _not_found() from None
        raise
    return {}


def do_reorder_linkifiers(caller: Principal, ordered_ids: list[int]) -> EmptyResult:
    _check_admin(caller)
    realm_id = caller.realm_id
    items = realm_linkifiers(realm_id)
    if len(set(ordered_ids)) != len(ordered_ids):
        raise ApiError("Each linkifier may appear only once in the order")
    by_id = {i.linkifier_id: i for i in items}
    if set(ordered_ids) != set(by_id):
        raise ApiError("The order has to list every linkifier of the organization, each once")
    after = [by_id[i] for i in ordered_ids]
    changed = [(position, item) for position, item in enumerate(after, start=1)
               if item.order != position]
    # Batches that each leave a valid order; the event goes with the last one.
    step = MAX_TRANSACTION_ITEMS - 1
    batches = [changed[n:n + step] for n in range(0, len(changed), step)] or [[]]
    try:
        for number, batch in enumerate(batches, start=1):
            with transaction() as tx:
                for position, item in batch:
                    tx.update(Linkifier(realm_id, item.linkifier_id),
                              actions=[Linkifier.order.set(position)],
                              condition=Linkifier.linkifier_id.exists())
                if number == len(batches):
                    add_event(tx, realm_id, *_event(after))
                note_linkifiers_changed(tx, realm_id)
    except TransactWriteError as error:
        if is_condition_failure(error):   # one was removed meanwhile
            raise ApiError("The order has to list every linkifier of the organization, each once") from None
        raise
    return {}
