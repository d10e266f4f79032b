"""What bots may do and how they are shown, by the reference's levels of its 12.x series
(473: administrator bots set users' statuses)."""
from __future__ import annotations

from chalicelib.core.principal import ROLE_ADMINISTRATOR
from tests.functional.bot_helpers import generic_bot


def test_administrator_bots_set_users_statuses_from_level_473(realm, advertise):
    bot = generic_bot(realm.owner, "statuses", role=ROLE_ADMINISTRATOR)
    plain = generic_bot(realm.member, "plain")
    path = f"/users/{realm.member.user_id}/status"
    advertise(472)
    refused = bot.post(path, {"status_text": "on call"})
    assert refused.status == 400 and refused.json["msg"] == "Insufficient permission"
    advertise(473)
    assert bot.post(path, {"status_text": "on call"}).ok
    assert realm.member.get(path).json["status"] == {"status_text": "on call"}
    # A bot without the role still may not
    refused = plain.post(path, {"status_text": "hacked"})
    assert refused.status == 400 and refused.json["msg"] == "Insufficient permission"
