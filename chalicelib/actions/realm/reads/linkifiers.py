"""The organization's linkifiers as readers see them: their API shape, the registration
state, and the compiled rules the renderer applies."""
from __future__ import annotations

import uuid
from typing import Any, NotRequired, TypedDict

from chalicelib.core.feature_levels import at_advertised_level
from chalicelib.models.linkifiers import Linkifier, realm_linkifiers
from chalicelib.models.realms import Realm
from chalicelib.rules.linkifiers import LinkifierRule, compile_rules

# Clients without this capability would misread URL templates: they get no linkifiers.
CAPABILITY = "linkifier_url_template"


class LinkifierDict(TypedDict):
    pattern: str
    url_template: str
    id: int
    example_input: NotRequired[str | None]         # level 471
    reverse_template: NotRequired[str | None]      # level 471
    alternative_url_templates: NotRequired[list[str]]   # level 478


def linkifier_dict(item: Linkifier) -> LinkifierDict:
    shown: LinkifierDict = {
        "pattern": item.pattern, "url_template": item.url_template, "id": item.linkifier_id,
        "example_input": item.example_input, "reverse_template": item.reverse_template,
        "alternative_url_templates": list(item.alternative_url_templates or ())}
    return at_advertised_level("linkifier", shown)


def linkifiers_state(realm_id: int) -> list[LinkifierDict]:
    return [linkifier_dict(i) for i in realm_linkifiers(realm_id)]


# realm id -> (its linkifiers_changed token, the rules compiled then), per process
_compiled: dict[int, tuple[str | None, list[LinkifierRule]]] = {}
MAX_COMPILED_REALMS = 1000


def linkifier_rules(realm_id: int, realm: Realm | None = None) -> list[LinkifierRule]:
    """What the renderer applies for this realm, in order: one Query, or none when
    `realm` (read before this call) carries the `linkifiers_changed` token that the rules
    this process compiled last came with. Every change of the linkifiers sets a new token
    in its own transaction, so rules read after the token are never older than it."""
    if realm is not None:
        cached = _compiled.get(realm_id)
        if cached is not None and cached[0] == realm.linkifiers_changed:
            return cached[1]
    rules = compile_rules((i.pattern, i.url_template) for i in realm_linkifiers(realm_id))
    if realm is not None:
        if len(_compiled) >= MAX_COMPILED_REALMS:
            _compiled.clear()
        _compiled[realm_id] = (realm.linkifiers_changed, rules)
    return rules


def note_linkifiers_changed(tx: Any, realm_id: int) -> None:
    """Part of every transaction that changes a realm's linkifiers."""
    tx.update(Realm(realm_id), actions=[Realm.linkifiers_changed.set(uuid.uuid4().hex)],
              condition=Realm.realm_id.exists())
