"""PATCH /realm/profile_fields: administrators reorder the custom profile fields.

Every field's new position is written in transactions of at most 100 items, each field
conditioned on existing, with the `custom_profile_fields` event (the whole list in its
new order) in the last one.
"""
from __future__ import annotations

from pynamodb.exceptions import TransactWriteError

from chalicelib.actions.users.profile_fields import _fields_event
from chalicelib.actions.users.reads.profile_fields import realm_profile_fields
from chalicelib.core.errors import ADMINISTRATOR_REQUIRED, ApiError
from chalicelib.core.principal import Principal
from chalicelib.core.results import EmptyResult
from chalicelib.delivery.outbox import add_event, to_realm
from chalicelib.models.base import (
    MAX_TRANSACTION_ITEMS,
    is_condition_failure,
    transaction,
)
from chalicelib.models.profile_fields import ProfileField


def do_reorder_profile_fields(caller: Principal, order: list[int]) -> EmptyResult:
    if not caller.is_admin:
        raise ApiError(ADMINISTRATOR_REQUIRED)
    fields = {f.field_id: f for f in realm_profile_fields(caller.realm_id)}
    if len(set(order)) != len(order) or set(order) != set(fields):
        raise ApiError("The order must list every existing item exactly once.")
    for position, field_id in enumerate(order):
        fields[field_id].order = position
    changed = list(order)
    step = MAX_TRANSACTION_ITEMS - 1
    batches = [changed[n:n + step] for n in range(0, len(changed), step)] or [[]]
    try:
        for number, batch in enumerate(batches, start=1):
            with transaction() as tx:
                for field_id in batch:
                    tx.update(ProfileField(caller.realm_id, field_id),
                              actions=[ProfileField.order.set(fields[field_id].order)],
                              condition=ProfileField.field_id.exists())
                if number == len(batches):
                    add_event(tx, caller.realm_id, _fields_event(list(fields.values())),
                              to_realm())
    except TransactWriteError as error:
        if is_condition_failure(error):   # a field was deleted meanwhile
            raise ApiError("The order must list every existing item exactly once.") from None
        raise
    return {}
