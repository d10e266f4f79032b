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
from chalicelib.delivery.outbox import add_event
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.ids import allocate_id
from chalicelib.models.linkifiers import Linkifier, realm_linkifiers
from chalicelib.models.realms import UniqueName, claim_name, move_name, release_name
from chalicelib.rules.linkifiers import LinkifierError, check_linkifier

MAX_TRANSACTION_ITEMS = 100


class RealmLinkifiersEvent(TypedDict):
    """The realm's whole ordered list of linkifiers, after a change."""

    type: Literal["realm_linkifiers"]
    realm_linkifiers: list[LinkifierDict]


class AddLinkifierResult(TypedDict):
    id: int


class LinkifiersResult(TypedDict):
    linkifiers: list[LinkifierDict]


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


def _duplicate() -> ApiError:
    return ApiError("A linkifier with this pattern and URL template already exists.")


def _not_found() -> ApiError:
    return ApiError("No linkifier with that ID exists.")


def _event(items: list[Linkifier]) -> dict[str, Any]:
    event: RealmLinkifiersEvent = {"type": "realm_linkifiers",
                                   "realm_linkifiers": [linkifier_dict(i) for i in items]}
    # Clients without the capability would misread templates: they get nothing.
    return {**event, "_without_capability": {"capability": CAPABILITY, "event": None}}


def check_add_linkifier(caller: Principal, pattern: str, url_template: str
                        ) -> AddLinkifierResult:
    _check_admin(caller)
    pattern, url_template = _checked(pattern, url_template)
    realm_id = caller.realm_id
    before = realm_linkifiers(realm_id)
    item = Linkifier(realm_id, allocate_id(realm_id, "linkifier"), pattern=pattern,
                     url_template=url_template,
                     order=max((i.order for i in before), default=0) + 1)
    try:
        with transaction() as tx:
            claim_name(tx, _pair_key(realm_id, pattern, url_template), item.linkifier_id)
            tx.save(item, condition=Linkifier.linkifier_id.does_not_exist())
            add_event(tx, realm_id, _event([*before, item]), {"realm": True})
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
                        url_template: str) -> EmptyResult:
    _check_admin(caller)
    items, item = _get(caller, linkifier_id)
    pattern, url_template = _checked(pattern, url_template)
    realm_id = caller.realm_id
    old_key = _pair_key(realm_id, item.pattern, item.url_template)
    new_key = _pair_key(realm_id, pattern, url_template)
    after = [Linkifier(realm_id, i.linkifier_id, pattern=pattern, url_template=url_template,
                       order=i.order) if i.linkifier_id == linkifier_id else i for i in items]
    try:
        with transaction() as tx:
            move_name(tx, old_key, new_key, linkifier_id)
            tx.update(Linkifier(realm_id, linkifier_id),
                      actions=[Linkifier.pattern.set(pattern),
                               Linkifier.url_template.set(url_template)],
                      condition=(Linkifier.pattern == item.pattern)
                      & (Linkifier.url_template == item.url_template))
            add_event(tx, realm_id, _event(after), {"realm": True})
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
            add_event(tx, realm_id, _event(after), {"realm": True})
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
                    add_event(tx, realm_id, _event(after), {"realm": True})
                note_linkifiers_changed(tx, realm_id)
    except TransactWriteError as error:
        if is_condition_failure(error):   # one was removed meanwhile
            raise ApiError("The order has to list every linkifier of the organization, each once") from None
        raise
    return {}
