"""The reference's development data the published API examples assume (people such as
iago, hamlet and cordelia, the channels Verona and Denmark, the group hamletcharacters,
a custom profile field), made through the API in the demo organization `make run` seeds.

The reference's `client` is iago, an administrator: here the demo administrator, so
"iago" names that account. Its `owner_client` is the demo owner and its `nonadmin_client`
the demo member.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.e2e.example_client import RecordingClient, take_answers

DOMAIN = "demo.example.com"
PEOPLE = {"hamlet": "King Hamlet", "cordelia": "Cordelia, Lear's daughter",
          "zoe": "Zoe", "aaron": "aaron"}
CHANNELS = ("Verona", "Denmark")

# A JPEG is told by its first bytes; the server stores the image as sent.
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"


@dataclass
class DevData:
    client: RecordingClient      # the reference's iago: an administrator
    owner: RecordingClient       # its owner_client
    nonadmin: RecordingClient    # its nonadmin_client
    users: dict[str, int]        # reference name -> our user id
    emails: dict[str, str]       # reference name -> our email address
    image: Path                  # the reference's zerver/tests/images/img.jpg
    profile_field_id: int        # the reference's custom profile field 9
    site: str
    found: dict[str, Any] = field(default_factory=dict)   # handed from one example on

    def email(self, name: str) -> str:
        return self.emails[name]

    def users_newbie(self) -> int:
        """The user the create_user example made."""
        return int(self.found["newbie"])


def _ok(result: dict[str, Any], what: str) -> dict[str, Any]:
    assert result.get("result") == "success", (what, result)
    return result


def _person(client: RecordingClient, name: str) -> int:
    email = f"{name}@{DOMAIN}"
    made = client.create_user({"email": email, "full_name": PEOPLE[name]})
    if made.get("result") == "success":
        return int(made["user_id"])
    # Made by an earlier run on the same stack.
    return int(_ok(client.call_endpoint(f"users/{email}", method="GET"), email)["user"]["user_id"])


def make_dev_data(accounts: dict[str, dict[str, Any]], site: str, tmp: Path) -> DevData:
    def client_of(role: str) -> RecordingClient:
        account = accounts[role]
        return RecordingClient(email=account["email"], api_key=account["api_key"], site=site)

    client, owner, nonadmin = client_of("admin"), client_of("owner"), client_of("member")
    # The reference's development organization has read receipts on; the demo's is off.
    _ok(owner.call_endpoint("realm", method="PATCH", request={"enable_read_receipts": True}),
        "read receipts")
    users = {name: _person(client, name) for name in PEOPLE}
    users["iago"] = accounts["admin"]["user_id"]
    emails = {name: f"{name}@{DOMAIN}" for name in PEOPLE}
    emails["iago"] = accounts["admin"]["email"]
    emails["newbie"] = f"newbie@{DOMAIN}"   # made by the create_user example
    everyone = [*users.values(), accounts["owner"]["user_id"], accounts["member"]["user_id"]]
    for channel in CHANNELS:
        _ok(client.add_subscriptions(streams=[{"name": channel}], principals=everyone), channel)
        _ok(client.send_message({"type": "stream", "to": channel, "topic": "test",
                                 "content": f"Welcome to {channel}."}), channel)
    groups = _ok(client.get_user_groups(), "groups")["user_groups"]
    if not any(group["name"] == "hamletcharacters" for group in groups):
        _ok(client.create_user_group({"name": "hamletcharacters",
                                      "description": "Characters of Hamlet",
                                      "members": [users["hamlet"], users["cordelia"]]}),
            "hamletcharacters")
    fields = _ok(client.call_endpoint("realm/profile_fields", method="GET"),
                 "fields")["custom_fields"]
    known = [f["id"] for f in fields if f["name"] == "Favorite food"]
    field_id = known[0] if known else _ok(client.call_endpoint(
        "realm/profile_fields", method="POST",
        request={"name": "Favorite food", "hint": "Or drink", "field_type": 1}), "field")["id"]
    image = tmp / "img.jpg"
    image.write_bytes(JPEG)
    take_answers()   # the set-up's answers are not the examples'
    return DevData(client, owner, nonadmin, users, emails, image, int(field_id), site)
