"""POST /register keys that levels 446-500 rename or add, on each side of their level."""
from __future__ import annotations

OLD_GIF = {"realm_giphy_rating", "giphy_rating_options"}
NEW_GIF = {"realm_gif_rating_policy", "gif_rating_policy_options"}


def test_the_gif_rating_is_named_gif_rating_policy_from_level_453(realm, register_queue,
                                                                  advertise):
    state = register_queue(realm.member, event_types=["realm"])
    assert set(state) >= OLD_GIF and not NEW_GIF & set(state)
    rating, options = state["realm_giphy_rating"], state["giphy_rating_options"]
    advertise(453)
    state = register_queue(realm.member, event_types=["realm"])
    assert set(state) >= NEW_GIF and not OLD_GIF & set(state)
    assert (state["realm_gif_rating_policy"], state["gif_rating_policy_options"]) == (
        rating, options)
