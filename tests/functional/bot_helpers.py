"""A bot of a test realm that calls the API as itself."""
from __future__ import annotations

from chalicelib.core.principal import ROLE_MEMBER
from tests.functional.conftest import Account


def generic_bot(owner: Account, short_name: str = "helper", role: int = ROLE_MEMBER
                ) -> Account:
    """A generic bot `owner` creates; an administrator gives it `role` when asked."""
    created = owner.post("/bots", {"full_name": short_name.title() + " Bot",
                                   "short_name": short_name})
    assert created.ok, created.json
    user_id = created.json["user_id"]
    email = owner.get(f"/users/{user_id}").json["user"]["email"]
    bot = Account(owner.client, owner.realm_id, user_id, email, created.json["api_key"],
                  short_name.title() + " Bot", ROLE_MEMBER)
    if role != ROLE_MEMBER:
        changed = owner.patch(f"/users/{user_id}", {"role": role})
        assert changed.ok, changed.json
        bot.role = role
    return bot
