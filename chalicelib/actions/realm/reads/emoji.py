"""The organization's custom emoji as readers see them: the list and its shape, and what an
emoji name means in the organization (its custom emoji first, then the built-in ones)."""
from __future__ import annotations

from typing import TypedDict

from chalicelib.core.errors import ApiError
from chalicelib.models.realm_emoji import RealmEmoji
from chalicelib.models.realms import UniqueName
from chalicelib.rules.emoji import CustomEmoji, EmojiData, EmojiError, builtin_emoji_data, check_emoji

MAX_EMOJI_NAME_LENGTH = 60


class RealmEmojiDict(TypedDict):
    id: str
    name: str
    source_url: str
    still_url: str | None
    deactivated: bool
    author_id: int | None


def emoji_name_key(realm_id: int, name: str) -> tuple[str, str]:
    return f"realm:{realm_id}", f"emoji:{name}"


def realm_emoji_items(realm_id: int) -> list[RealmEmoji]:
    return list(RealmEmoji.query(realm_id))


def realm_emoji_dict(item: RealmEmoji) -> RealmEmojiDict:
    """The reference shape; still images of animations are not made, so still_url is null."""
    return {"id": str(item.emoji_id), "name": item.name,
            "source_url": f"/user_avatars/{item.path_id}", "still_url": None,
            "deactivated": bool(item.deactivated), "author_id": item.author_id}


def active_emoji_sources(realm_id: int) -> dict[str, str]:
    """Active custom emoji names and their image addresses, for rendering (one Query)."""
    return {i.name: realm_emoji_dict(i)["source_url"] for i in realm_emoji_items(realm_id)
            if not i.deactivated}


def realm_emoji_state(realm_id: int) -> dict[str, RealmEmojiDict]:
    return {str(i.emoji_id): realm_emoji_dict(i) for i in realm_emoji_items(realm_id)}


def active_emoji_id(realm_id: int, name: str) -> int | None:
    if len(name) > MAX_EMOJI_NAME_LENGTH:   # no emoji has it; DynamoDB refuses such keys
        return None
    claim = UniqueName.get_or_none(*emoji_name_key(realm_id, name))
    return None if claim is None else int(claim.target_id)


def emoji_data(realm_id: int, name: str) -> EmojiData:
    """What an emoji name means in this realm: its custom emoji first, then built-in ones."""
    emoji_id = active_emoji_id(realm_id, name)
    if emoji_id is not None:
        return EmojiData(str(emoji_id), "realm_emoji")
    data = builtin_emoji_data(name)
    if data is None:
        raise ApiError(f"No emoji called '{name}' exists")
    return data


def check_emoji_request(realm_id: int, name: str, code: str, reaction_type: str) -> None:
    custom = None
    if reaction_type == "realm_emoji" and code.isdigit():
        item = RealmEmoji.get_or_none(realm_id, int(code))
        if item is not None:
            custom = CustomEmoji(item.emoji_id, item.name, bool(item.deactivated))
    try:
        check_emoji(name, code, reaction_type, custom)
    except EmojiError as error:
        raise ApiError(str(error)) from None
