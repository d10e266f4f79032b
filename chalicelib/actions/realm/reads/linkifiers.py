"""The organization's linkifiers as readers see them: their API shape, the registration
state, and the compiled rules the renderer applies."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.lib.linkifiers import LinkifierRule, compile_rules
from chalicelib.models.linkifiers import Linkifier, realm_linkifiers

# Clients without this capability would misread URL templates: they get no linkifiers.
CAPABILITY = "linkifier_url_template"


class LinkifierDict(TypedDict):
    pattern: str
    url_template: str
    id: int


def linkifier_dict(item: Linkifier) -> LinkifierDict:
    return {"pattern": item.pattern, "url_template": item.url_template,
            "id": item.linkifier_id}


def linkifiers_state(realm_id: int) -> list[LinkifierDict]:
    return [linkifier_dict(i) for i in realm_linkifiers(realm_id)]


def linkifier_rules(realm_id: int) -> list[LinkifierRule]:
    """What the renderer applies for this realm, in order (one Query)."""
    return compile_rules((i.pattern, i.url_template) for i in realm_linkifiers(realm_id))


