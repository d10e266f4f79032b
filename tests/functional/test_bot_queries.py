"""Level 458: bots answer the queries about users' subscriptions and group membership as
people do (the reference fixed its refusal of bots there)."""
from __future__ import annotations

from tests.functional.edit_helpers import channel
from tests.functional.user_group_helpers import EVERYONE, MEMBERS, create_ok, is_member


def test_a_bots_subscriptions_and_group_membership_can_be_asked(realm):
    bot = realm.add_user("Helper Bot", is_bot=True)
    general = channel(realm.owner, "general", [realm.owner, bot])
    other = channel(realm.owner, "other", [realm.owner])
    # THEN a bot's subscriptions are told as a person's are
    for stream_id, subscribed in ((general, True), (other, False)):
        response = realm.member.get(f"/users/{bot.user_id}/subscriptions/{stream_id}")
        assert response.ok, response.json
        assert response.json["is_subscribed"] is subscribed
    # AND its membership of a group, directly, through a subgroup and by its role
    crew = create_ok(realm.owner, "crew", [bot.user_id])
    outer = create_ok(realm.owner, "outer", [realm.owner.user_id],
                      subgroups=[crew])
    assert is_member(realm.member, crew, bot.user_id) is True
    assert is_member(realm.member, outer, bot.user_id) is True
    assert is_member(realm.member, outer, bot.user_id, direct_member_only="true") is False
    assert is_member(realm.member, MEMBERS, bot.user_id) is True
    assert is_member(realm.member, EVERYONE, bot.user_id) is True
