"""POST /register keys that levels 446-500 rename or add, on each side of their level."""
from __future__ import annotations

import uuid

from chalicelib.actions.users.users import NewUser
from chalicelib.actions.workflows.realms import do_create_realm
from chalicelib.models.realms import Realm

OLD_GIF = {"realm_giphy_rating", "gif_rating_options"}   # their names at levels 442-452
NEW_GIF = {"realm_gif_rating_policy", "gif_rating_policy_options"}


def test_the_gif_rating_is_named_gif_rating_policy_from_level_453(realm, register_queue,
                                                                  advertise):
    advertise(452)
    state = register_queue(realm.member, event_types=["realm"])
    assert set(state) >= OLD_GIF and not NEW_GIF & set(state)
    assert "giphy_rating_options" not in state
    rating, options = state["realm_giphy_rating"], state["gif_rating_options"]
    advertise(453)
    state = register_queue(realm.member, event_types=["realm"])
    assert set(state) >= NEW_GIF and not OLD_GIF & set(state)
    assert (state["realm_gif_rating_policy"], state["gif_rating_policy_options"]) == (
        rating, options)


def test_realm_uuid_from_level_466_is_the_organizations_own(realm, register_queue,
                                                            advertise):
    advertise(465)
    assert "realm_uuid" not in register_queue(realm.member, event_types=["realm"])
    advertise(466)
    first = register_queue(realm.member, event_types=["realm"])["realm_uuid"]
    assert str(uuid.UUID(first)) == first
    # THEN it stays, for everyone of the organization, and is no other's
    assert register_queue(realm.owner, event_types=["realm"])["realm_uuid"] == first
    created, _, _ = do_create_realm("Elsewhere", "elsewhere", NewUser(
        email="boss@elsewhere.example", full_name="Boss"))
    assert Realm.get(created.realm_id).uuid not in (None, first)
    # AND avatar_source is one the level allows (G: every avatar is a Gravatar here)
    assert register_queue(realm.member, event_types=["realm_user"])["avatar_source"] == "G"
