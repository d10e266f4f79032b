"""PATCH /bots/{bot_id}: a bot's name and, from level 447, its address (short_name), with
the realm_bot update for an address from level 461."""
from __future__ import annotations

import dataclasses

from tests.functional.conftest import Account

NO_BOT = "There is no bot with this id that you may manage."


def make_bot(realm, owner, short_name: str = "build") -> Account:
    response = owner.post("/bots", {"full_name": f"{short_name.title()} Bot",
                                    "short_name": short_name})
    assert response.ok, response.json
    user = realm.owner.get(f"/users/{response.json['user_id']}").json["user"]
    return Account(owner.client, realm.realm_id, user["user_id"], user["email"],
                   response.json["api_key"], user["full_name"], 400)


def strip(events, kind):
    return [{k: v for k, v in e.items() if k != "id"} for e in events if e["type"] == kind]


def test_below_level_447_the_address_stays(realm, advertise):
    advertise(446)
    bot = make_bot(realm, realm.member)
    assert realm.member.patch(f"/bots/{bot.user_id}", {"short_name": "deploy"}).ok
    assert realm.owner.get(f"/users/{bot.user_id}").json["user"]["email"] == bot.email


def test_the_owner_renames_and_readdresses_a_bot_with_its_events(
        realm, advertise, register_queue, fetch_events, drain_events):
    advertise(461)
    bot = make_bot(realm, realm.member)
    drain_events()
    queues = {who: register_queue(getattr(realm, who), event_types=["realm_bot", "realm_user"])
              ["queue_id"] for who in ("member", "admin", "moderator")}
    # WHEN its owner renames it and changes its address
    assert realm.member.patch(f"/bots/{bot.user_id}", {"full_name": "Deploy Bot"}).ok
    response = realm.member.patch(f"/bots/{bot.user_id}", {"short_name": "Deploy"})
    assert response.ok, response.json
    new_email = "deploy-bot@" + bot.email.rsplit("@", 1)[1]
    # THEN everyone sees the new name and address, and the bot's key works with it
    shown = realm.owner.get(f"/users/{bot.user_id}").json["user"]
    assert (shown["full_name"], shown["email"]) == ("Deploy Bot", new_email)
    renamed = dataclasses.replace(bot, email=new_email)
    assert renamed.get("/users/me").json["email"] == new_email
    # AND the owner and the administrators are told through realm_bot, others not
    drain_events()
    expected = [{"type": "realm_bot", "op": "update",
                 "bot": {"user_id": bot.user_id, "full_name": "Deploy Bot"}},
                {"type": "realm_bot", "op": "update",
                 "bot": {"user_id": bot.user_id, "email": new_email}}]
    for who in ("member", "admin"):
        assert strip(fetch_events(getattr(realm, who), queues[who]), "realm_bot") == expected
    moderator_events = fetch_events(realm.moderator, queues["moderator"])
    assert strip(moderator_events, "realm_bot") == []
    assert {"user_id": bot.user_id, "full_name": "Deploy Bot"} in [
        e["person"] for e in moderator_events if e["type"] == "realm_user"]


def test_who_may_change_a_bot_and_what(realm, advertise):
    advertise(447)
    bot = make_bot(realm, realm.member)
    other = make_bot(realm, realm.admin, "other")
    for account in (realm.moderator, realm.guest):
        refused = account.patch(f"/bots/{bot.user_id}", {"full_name": "Mine"})
        assert refused.status == 400 and refused.json["msg"] == NO_BOT
    assert realm.admin.patch(f"/bots/{bot.user_id}", {"full_name": "Admin's pick"}).ok
    taken = realm.member.patch(f"/bots/{other.user_id}", {"short_name": "x"})
    assert taken.json["msg"] == NO_BOT
    clash = realm.admin.patch(f"/bots/{other.user_id}", {"short_name": "build"})
    assert clash.status == 400 and clash.json["msg"] == "Another account already uses that bot username."
    bad = realm.member.patch(f"/bots/{bot.user_id}", {"short_name": "no spaces"})
    assert bad.status == 400 and "Bad name or username" in bad.json["msg"]
    person = realm.admin.patch(f"/bots/{realm.member.user_id}", {"full_name": "Bot?"})
    assert person.json["msg"] == NO_BOT


def test_a_bots_key_is_shown_to_its_owner_and_administrators(realm):
    from chalicelib.models.users import User

    bot = make_bot(realm, realm.member)
    # THEN its owner and an administrator see the key it was given, nobody else
    for account in (realm.member, realm.admin):
        shown = account.get(f"/bots/{bot.user_id}/api_key")
        assert shown.ok and shown.json["api_key"] == bot.api_key, shown.json
    for account in (realm.moderator, realm.guest):
        refused = account.get(f"/bots/{bot.user_id}/api_key")
        assert refused.status == 400 and refused.json["msg"] == NO_BOT
    assert realm.admin.get(f"/bots/{realm.member.user_id}/api_key").json["msg"] == \
        NO_BOT
    # AND it is kept sealed, not as it is
    sealed = User.get(realm.realm_id, bot.user_id).bot_api_key_sealed
    assert sealed and bot.api_key not in sealed
    # AND after a new key, the new one is shown, and works
    new_key = realm.member.post(f"/bots/{bot.user_id}/api_key/regenerate").json["api_key"]
    assert realm.member.get(f"/bots/{bot.user_id}/api_key").json["api_key"] == new_key
    assert dataclasses.replace(bot, api_key=new_key).get("/users/me").ok
    # AND a bot whose key was not kept sealed is told to get a new one
    User(realm.realm_id, bot.user_id).update(actions=[User.bot_api_key_sealed.remove()])
    unknown = realm.member.get(f"/bots/{bot.user_id}/api_key")
    assert unknown.status == 400 and "regenerate" in unknown.json["msg"]
