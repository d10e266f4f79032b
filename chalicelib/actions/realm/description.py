"""The organization's description (PATCH /realm `description`): stored as Markdown,
shown rendered (POST /register `realm_description`), and announced in the form of the
advertised level: a realm `update` event below level 464 (with the rendered text from
462), an `update_dict` event from 464 (workflows/realm_update.py), as the reference's
changed."""
from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from chalicelib.core.errors import ApiError
from chalicelib.core.feature_levels import level_reached
from chalicelib.delivery.outbox import add_event, to_realm
from chalicelib.delivery.types import EventBody
from chalicelib.models.base import transaction
from chalicelib.models.realms import Realm
from chalicelib.rules.markdown import render_markdown

MAX_DESCRIPTION_LENGTH = 1000   # the reference's limit
RENDERED_IN_UPDATE_LEVEL = 462
AS_UPDATE_DICT_LEVEL = 464


class RealmDescriptionUpdateEvent(TypedDict):
    """Below level 464 (`rendered_description` from 462)."""

    type: Literal["realm"]
    op: Literal["update"]
    property: Literal["description"]
    value: str
    rendered_description: NotRequired[str]


def check_description(value: str) -> str:
    if len(value) > MAX_DESCRIPTION_LENGTH:
        raise ApiError(f"The organization description is longer than "
                       f"{MAX_DESCRIPTION_LENGTH} characters.")
    return value


def change_description(realm: Realm, description: str,
                       event: EventBody) -> None:
    """Writes a changed description with its event (conditioned on the one read, so of
    two administrators' changes each is announced as it was stored)."""
    if realm.description == description:
        return
    read = Realm.description == realm.description
    if not realm.description:
        read |= Realm.description.does_not_exist()
    with transaction() as tx:
        tx.update(Realm(realm.realm_id), actions=[Realm.description.set(description)],
                  condition=read)
        add_event(tx, realm.realm_id, event, to_realm())


def legacy_description_event(description: str) -> RealmDescriptionUpdateEvent:
    """The event below level 464 (from then it is an update_dict event: realm_update.py)."""
    event: RealmDescriptionUpdateEvent = {
        "type": "realm", "op": "update", "property": "description", "value": description}
    if level_reached(RENDERED_IN_UPDATE_LEVEL):
        event["rendered_description"] = render_markdown(description)
    return event
