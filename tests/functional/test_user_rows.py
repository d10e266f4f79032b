"""A user's row (models/user_rows.py) read straight from the raw item, as registration
reads 10,000 of them, is the row of the same user read as a model; so every shape built
from rows (realm_users, user_status, the system groups' members, bots) is what it was."""
from __future__ import annotations

from chalicelib.actions.users.users import user_api_dict
from chalicelib.core.principal import Principal
from chalicelib.models.user_rows import UserRow, realm_user_rows, row_from_item
from chalicelib.models.users import User


def _variety(realm) -> None:
    """People with every field a row holds set or unset."""
    owner = realm.owner
    field = owner.post("/realm/profile_fields", {"field_type": 1, "name": "Team"})
    assert field.ok, field.json
    assert realm.member.patch("/users/me/profile_data", {"data": [
        {"id": field.json["id"], "value": "Platform"}]}).ok
    assert realm.member.patch("/settings", {"email_address_visibility": 4,
                                            "presence_enabled": False,
                                            "timezone": "Europe/Berlin"}).ok
    assert owner.post("/bots", {"full_name": "Helper Bot", "short_name": "helper"}).ok
    assert owner.delete(f"/users/{realm.add_user('Gone Soon').user_id}").ok


def test_a_row_read_raw_is_the_row_of_the_model(realm):
    _variety(realm)
    models = {u.user_id: UserRow.of(u) for u in User.query(realm.realm_id)}
    rows = {r.user_id: r for r in realm_user_rows(realm.realm_id)}
    assert rows == models
    # AND the variety was there to compare
    assert any(r.is_bot for r in rows.values()) and not all(r.is_active for r in rows.values())
    assert any(r.profile_data for r in rows.values())
    assert {"email_address_visibility", "presence_enabled"} <= set(
        rows[realm.member.user_id].settings)
    assert rows[realm.member.user_id].timezone == "Europe/Berlin"


def test_every_viewer_gets_the_same_user_objects_from_rows(realm):
    _variety(realm)
    models = list(User.query(realm.realm_id))
    rows = {r.user_id: r for r in realm_user_rows(realm.realm_id)}
    for account in (realm.owner, realm.member, realm.guest):
        viewer = Principal(realm_id=realm.realm_id, user_id=account.user_id,
                           email=account.email, role=account.role, is_bot=False)
        for model in models:
            assert user_api_dict(rows[model.user_id], viewer=viewer) == user_api_dict(
                model, viewer=viewer)


def test_an_item_missing_optional_fields_takes_the_models_defaults():
    item = {"realm_id": {"N": "7"}, "user_id": {"N": "12"}, "email": {"S": "a@x.example"},
            "delivery_email": {"S": "a@x.example"}, "full_name": {"S": "A"},
            "date_joined": {"N": "1700000000"}, "bot_type": {"NULL": True}}
    assert row_from_item(item) == UserRow.of(User.from_raw_data(item))
