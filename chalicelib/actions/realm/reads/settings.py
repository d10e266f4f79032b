"""Reading an organization's settings as the API names them."""
from __future__ import annotations

from typing import Any

from chalicelib.lib.realm_settings import DEFAULTS
from chalicelib.models.realms import Realm

# PATCH /realm names that are stored (and shown by POST /register) with a realm_ prefix.
STORED_NAMES = {"empty_topic_display_name": "realm_empty_topic_display_name",
                "topics_policy": "realm_topics_policy"}


def realm_setting(realm: Realm, name: str) -> Any:
    stored = realm.settings.as_dict() if realm.settings else {}
    return stored.get(name, DEFAULTS[name])


def empty_topic_display_name(realm: Realm) -> str:
    """What clients without the empty_topic_name capability see for the empty topic."""
    return str(realm_setting(realm, "realm_empty_topic_display_name"))
