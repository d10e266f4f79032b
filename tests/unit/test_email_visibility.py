"""The address rules without AWS: which roles see a hidden address, the stand-in's form,
and the form of an event each queue gets (actions/users/reads/email_access.email_form)."""
from __future__ import annotations

import pytest

from chalicelib.actions.users.reads.email_access import email_form, may_see_real_email
from chalicelib.rules.email_visibility import (
    ADMINISTRATORS,
    EVERYONE,
    MEMBERS,
    MODERATORS,
    NOBODY,
    role_sees,
    stand_in_email,
    stand_in_user_id,
)

OWNER, ADMIN, MODERATOR, MEMBER, GUEST = 100, 200, 300, 400, 600


@pytest.mark.parametrize(("visibility", "seeing"), [
    (EVERYONE, {OWNER, ADMIN, MODERATOR, MEMBER, GUEST}),
    (MEMBERS, {OWNER, ADMIN, MODERATOR, MEMBER}),
    (MODERATORS, {OWNER, ADMIN, MODERATOR}),
    (ADMINISTRATORS, {OWNER, ADMIN}),
    (NOBODY, set()),
])
def test_each_value_lets_its_roles_see(visibility, seeing):
    assert {r for r in (OWNER, ADMIN, MODERATOR, MEMBER, GUEST) if role_sees(r, visibility)} \
        == seeing
    assert role_sees(None, visibility) == (visibility == EVERYONE)   # a queue of unknown role
    assert role_sees(ADMIN, 99) is False                            # no such value: nobody


def test_the_person_always_sees_their_own():
    assert may_see_real_email(7, GUEST, 7, NOBODY)
    assert not may_see_real_email(8, OWNER, 7, NOBODY)


def test_the_stand_in_names_its_user_id():
    address = stand_in_email(42, "acme")
    assert address == "user42@acme.localhost"
    assert stand_in_user_id(address) == 42
    assert stand_in_user_id(" USER42@Acme.localhost ") == 42
    assert stand_in_user_id("someone@acme.localhost") is None
    assert stand_in_user_id("user@acme.localhost") is None


def person_event(op: str, visibility: int, was: int | None = None) -> tuple[dict, dict]:
    """The event and the facts it is stored with."""
    event = {"type": "realm_user", "op": op,
             "person": {"user_id": 7, "delivery_email": "real@example.com"}}
    facts = {"email_visibility": visibility}
    return event, facts if was is None else {**facts, "email_visibility_was": was}


def shown(event: dict | None) -> object:
    return "nothing" if event is None else event["person"]["delivery_email"]


def test_a_new_person_arrives_with_the_address_or_null():
    event = person_event("add", ADMINISTRATORS)
    assert shown(email_form(*event, 1, ADMIN)) == "real@example.com"
    assert shown(email_form(*event, 2, MEMBER)) is None
    assert shown(email_form(*event, 7, MEMBER)) == "real@example.com"   # themself


def test_a_changed_address_goes_only_to_those_who_see_it():
    event = person_event("update", MODERATORS)
    assert shown(email_form(*event, 1, MODERATOR)) == "real@example.com"
    assert shown(email_form(*event, 2, GUEST)) == "nothing"


def test_a_changed_setting_tells_only_those_whose_access_changed():
    widened = person_event("update", MEMBERS, was=ADMINISTRATORS)
    assert shown(email_form(*widened, 1, ADMIN)) == "nothing"      # saw it, still does
    assert shown(email_form(*widened, 2, MEMBER)) == "real@example.com"
    assert shown(email_form(*widened, 3, GUEST)) == "nothing"      # never saw it
    narrowed = person_event("update", NOBODY, was=EVERYONE)
    assert shown(email_form(*narrowed, 1, OWNER)) is None
    assert shown(email_form(*narrowed, 7, MEMBER)) == "nothing"    # themself: unchanged


def test_other_events_pass_untouched():
    other = {"type": "realm_user", "op": "update", "person": {"user_id": 7, "role": 400}}
    assert email_form(other, {}, 1, GUEST) is other
