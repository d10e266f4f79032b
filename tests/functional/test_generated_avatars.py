"""Level 456's default_avatar_source and level 466's avatar_source "J": people created
while the organization says "J" get a picture the server draws (GET /user_avatars/...)."""
from __future__ import annotations

import re
from xml.etree import ElementTree  # nosec B405 # parses our own SVG in a test

from chalicelib.core.errors import ADMINISTRATOR_REQUIRED

GENERATED = re.compile(r"^/user_avatars/(\d+)/generated/([0-9a-f]{32})(-medium)?\.svg"
                       r"\?version=1$")


def _picture(chalice_client, url: str):
    return chalice_client.http.get(url.split("?", 1)[0])


def test_new_users_get_generated_pictures_after_the_setting_changes(
        realm, register_queue, fetch_events, drain_events, advertise, chalice_client):
    advertise(456)
    # GIVEN a new organization: Gravatar, as before the setting
    state = register_queue(realm.member, event_types=["realm"])
    assert state["realm_default_avatar_source"] == "G"
    queue_id = state["queue_id"]
    # WHEN an administrator chooses generated pictures
    response = realm.admin.patch("/realm", {"default_avatar_source": "J"})
    assert response.ok, response.json
    drain_events()
    # THEN everyone is told, and registration says so
    assert [e["data"] for e in fetch_events(realm.member, queue_id)] == [
        {"default_avatar_source": "J"}]
    assert register_queue(realm.guest, event_types=["realm"])[
        "realm_default_avatar_source"] == "J"
    # AND a person created now (through the API) has a generated picture
    created = realm.admin.post("/users", {"email": "pat@example.com", "full_name": "Pat"})
    assert created.ok, created.json
    shown = realm.member.get(f"/users/{created.json['user_id']}").json["user"]
    match = GENERATED.match(shown["avatar_url"])
    assert match and int(match[1]) == realm.realm_id
    # ... which clients that compute Gravatars are still given (it is no Gravatar)
    listed = realm.member.get("/users", {"client_gravatar": "true"}).json["members"]
    assert {u["user_id"]: u["avatar_url"] for u in listed}[created.json["user_id"]] == \
        shown["avatar_url"]
    # ... and so is a bot made now; people made before keep their Gravatar
    bot = realm.member.post("/bots", {"full_name": "Helper", "short_name": "helper"})
    assert bot.ok, bot.json
    bot_shown = realm.member.get(f"/users/{bot.json['user_id']}").json["user"]
    assert GENERATED.match(bot_shown["avatar_url"])
    gravatars = {"client_gravatar": "false"}
    assert realm.member.get(f"/users/{realm.guest.user_id}", gravatars).json["user"][
        "avatar_url"].startswith("https://secure.gravatar.com/avatar/")
    # AND back to Gravatar: people created afterwards have theirs
    assert realm.admin.patch("/realm", {"default_avatar_source": "G"}).ok
    later = realm.add_user("Later Person")
    assert realm.member.get(f"/users/{later.user_id}", gravatars).json["user"][
        "avatar_url"].startswith("https://secure.gravatar.com/avatar/")


def test_the_setting_takes_only_the_reference_values_and_only_from_administrators(
        realm, register_queue, advertise):
    advertise(456)
    for value in ("U", "jdenticon", "", "G" * 500):
        bad = realm.admin.patch("/realm", {"default_avatar_source": value})
        assert bad.status == 400, (value, bad.json)
    refused = realm.member.patch("/realm", {"default_avatar_source": "J"})
    assert refused.status == 400 and refused.json["msg"] == \
        ADMINISTRATOR_REQUIRED
    assert register_queue(realm.member, event_types=["realm"])[
        "realm_default_avatar_source"] == "G"


def test_below_level_456_the_setting_is_not_shown(realm, register_queue, advertise):
    advertise(455)
    assert "realm_default_avatar_source" not in register_queue(
        realm.member, event_types=["realm"])


def test_a_generated_picture_is_avatar_source_j_from_level_466(realm, register_queue,
                                                              advertise):
    advertise(466)
    assert realm.admin.patch("/realm", {"default_avatar_source": "J"}).ok
    person = realm.add_user("Jo Generated")
    state = register_queue(person, event_types=["realm_user"])
    assert state["avatar_source"] == "J"
    assert GENERATED.match(state["avatar_url"])
    medium = GENERATED.match(state["avatar_url_medium"])
    assert medium and medium[3] == "-medium"
    # below 466 the same picture is told as one the server hosts, as an upload is
    advertise(465)
    assert register_queue(person, event_types=["realm_user"])["avatar_source"] == "U"


def test_the_picture_is_served_to_anyone_as_a_safe_cacheable_svg(
        realm, register_queue, advertise, chalice_client):
    advertise(466)
    assert realm.admin.patch("/realm", {"default_avatar_source": "J"}).ok
    first, second = realm.add_user("Ann One"), realm.add_user("Bob Two")
    urls = [register_queue(a, event_types=["realm_user"])["avatar_url"]
            for a in (first, second)]
    assert urls[0] != urls[1]   # one picture a person
    # WHEN fetched without signing in (as <img> does)
    response = _picture(chalice_client, urls[0])
    assert response.status_code == 200
    headers = {k.lower(): v for k, v in response.headers.items()}
    assert headers["content-type"] == "image/svg+xml"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["content-security-policy"] == "default-src 'none'; style-src 'unsafe-inline'"
    assert "max-age=31536000" in headers["cache-control"]
    # THEN an SVG of rectangles only, the same every time, with nothing of the person
    body = response.body.decode()
    root = ElementTree.fromstring(body)  # nosec B314 # our own output
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert {el.tag.split("}")[1] for el in root.iter()} == {"svg", "rect", "g"}
    assert "Ann" not in body and first.email not in body
    assert _picture(chalice_client, urls[0]).body == response.body
    assert _picture(chalice_client, urls[0].replace(".svg", "-medium.svg")).status_code == 200
    # AND a name that is no digest is not found
    for bad in ("/user_avatars/1/generated/nothex.svg",
                f"/user_avatars/x/generated/{'a' * 32}.svg",
                f"/user_avatars/1/generated/{'a' * 32}.png",
                f"/user_avatars/1/generated/{'A' * 32}.svg"):
        assert _picture(chalice_client, bad).status_code == 404, bad


def test_an_address_change_keeps_a_generated_picture(realm, advertise):
    from chalicelib.actions.users.email_visibility import api_email_events
    from chalicelib.models.users import User

    advertise(466)
    assert realm.admin.patch("/realm", {"default_avatar_source": "J"}).ok
    person = realm.add_user("Kim Hidden")
    events = api_email_events(User.get(realm.realm_id, person.user_id), "user9@x.example")
    assert [entry.event["person"].keys() for entry in events] == [{"user_id", "new_email"}]


def test_a_new_organization_gives_its_people_generated_pictures(chalice_client, advertise,
                                                               register_queue):
    from chalicelib.actions.users.users import NewUser
    from chalicelib.actions.workflows.realms import do_create_realm
    from tests.functional.conftest import Account

    advertise(466)
    # GIVEN an organization made now, as the reference makes one
    created, owner_id, key = do_create_realm("Fresh", "freshpics", NewUser(
        email="boss@freshpics.example", full_name="Boss", role=100))
    owner = Account(chalice_client, created.realm_id, owner_id, "boss@freshpics.example",
                    key, "Boss", 100)
    # THEN its setting is "J" and its owner already has a generated picture
    state = register_queue(owner, event_types=["realm", "realm_user"])
    assert state["realm_default_avatar_source"] == "J"
    assert state["avatar_source"] == "J" and GENERATED.match(state["avatar_url"])
    # AND so has the next person
    person = owner.post("/users", {"email": "next@freshpics.example", "full_name": "Next"})
    shown = owner.get(f"/users/{person.json['user_id']}").json["user"]
    assert GENERATED.match(shown["avatar_url"])

