"""Emoji reactions (POST and DELETE /messages/{id}/reactions) and their reaction events.

A message's reactions live on the message item (one map entry per emoji and user), so
fetching a page of messages reads its reactions with it. Adding one is a single
conditional write of that entry with its event: of two identical reactions sent at once,
one is stored and the other is told it already exists.
"""
from __future__ import annotations

import time
from typing import Any, Literal, NotRequired, TypedDict

from pynamodb.exceptions import TransactWriteError
from pynamodb.expressions.condition import size

from chalicelib.actions.messages.historical import keep_as_historical
from chalicelib.actions.messages.reads.access import Access, AccessedMessage, access_message
from chalicelib.actions.messages.reads.audience import readers_audience
from chalicelib.actions.realm.reads.emoji import check_emoji_request, emoji_data
from chalicelib.core.errors import ApiError, ErrorCode
from chalicelib.core.feature_levels import withheld
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import add_event
from chalicelib.delivery.types import EventFacts
from chalicelib.models.base import is_condition_failure, transaction
from chalicelib.models.message_properties import add_property_changes
from chalicelib.models.messages import Message, parse_reaction_key, reaction_key
from chalicelib.models.races import LostRace, retry_lost_races
from chalicelib.models.users import User
from chalicelib.rules.emoji import REACTION_TYPES, UNICODE_EMOJI

# Longer than any emoji's name or code: refused before anything is read.
MAX_EMOJI_TEXT_LENGTH = 100
# Distinct (emoji, user) reactions on one message: keeps the message item (content, edit
# history and reactions) well within DynamoDB's 400 KB.
MAX_REACTIONS_PER_MESSAGE = 500
MAX_ATTEMPTS = 5
REACTIONS_KEPT_CHANGING = "The message's reactions kept changing; try again."


class ReactionUser(TypedDict):
    """The deprecated `user` object of reaction events (re-added at feature level 339,
    removed at 484: sent only while the advertised level is below it)."""

    user_id: int
    email: str
    full_name: str


class ReactionFields(TypedDict):
    """What both reaction events carry: the message, the emoji and who reacted."""

    message_id: int
    emoji_name: str
    emoji_code: str
    reaction_type: str
    user_id: int
    user: NotRequired[ReactionUser]


class ReactionAddEvent(ReactionFields):
    type: Literal["reaction"]
    op: Literal["add"]


class ReactionRemoveEvent(ReactionFields):
    type: Literal["reaction"]
    op: Literal["remove"]


class ReactionResult(TypedDict):
    pass


def reaction_exists() -> ApiError:
    return ApiError("You have already reacted with this emoji.", code=ErrorCode.REACTION_ALREADY_EXISTS)


def reaction_missing() -> ApiError:
    return ApiError("You have not reacted with this emoji.", code=ErrorCode.REACTION_DOES_NOT_EXIST)


def _check_lengths(**values: str | None) -> None:
    for name, value in values.items():
        if value is not None and len(value) > MAX_EMOJI_TEXT_LENGTH:
            raise ApiError(f"{name} has an unacceptable value")


def check_add_reaction(caller: Principal, message_id: int, emoji_name: str,
                       emoji_code: str | None, reaction_type: str | None) -> ReactionResult:
    """As the reference: the name alone names an emoji (custom emoji first); a reaction
    with an emoji someone already reacted with is a vote for it, under its first name."""
    _check_lengths(emoji_name=emoji_name, emoji_code=emoji_code)
    accessed = access_message(caller, message_id, modifying=True)
    if emoji_code is None or reaction_type is None:
        found = emoji_data(caller.realm_id, emoji_name)
        emoji_code = found.emoji_code if emoji_code is None else emoji_code
        reaction_type = found.reaction_type if reaction_type is None else reaction_type
    if reaction_type not in REACTION_TYPES:
        raise ApiError("Unknown emoji type.")
    person = _reaction_user(caller)
    key = reaction_key(reaction_type, emoji_code, caller.user_id)
    def attempt() -> ReactionResult:
        nonlocal accessed
        stored = accessed.message.reaction_map()
        if key in stored:
            raise reaction_exists()
        name = _existing_name(stored, reaction_type, emoji_code)
        if name is None:
            check_emoji_request(caller.realm_id, emoji_name, emoji_code, reaction_type)
            name = emoji_name
        if len(stored) >= MAX_REACTIONS_PER_MESSAGE:
            raise ApiError("This message has too many reactions.")
        _keep_if_not_received(caller, accessed)
        if not _write(caller, accessed, key,
                      {"emoji_name": name, "at": int(time.time() * 1000)}, "add", person):
            accessed = _reread(caller, message_id)
            raise LostRace()
        return {}

    return retry_lost_races(attempt, conflict=REACTIONS_KEPT_CHANGING, attempts=MAX_ATTEMPTS)


def _keep_if_not_received(caller: Principal, accessed: AccessedMessage) -> None:
    """A reaction to a message the caller did not receive makes it theirs (a historical
    row), as the reference does; a subscriber's message needs no read to tell."""
    message, subscription = accessed.message, accessed.subscription
    if message.type == "private" or (subscription is not None
                                     and subscription.has_received(message.message_id)):
        return
    keep_as_historical(Access(caller), [message])


def check_remove_reaction(caller: Principal, message_id: int, emoji_name: str | None,
                          emoji_code: str | None, reaction_type: str | None) -> ReactionResult:
    _check_lengths(emoji_name=emoji_name, emoji_code=emoji_code)
    if emoji_name is None and emoji_code is None:
        raise ApiError("Send emoji_name, emoji_code or both")
    accessed = access_message(caller, message_id, modifying=True)
    if emoji_code is None:
        assert emoji_name is not None  # nosec B101 # type narrowing (set above)
        found = emoji_data(caller.realm_id, emoji_name)
        emoji_code = found.emoji_code
        reaction_type = reaction_type or found.reaction_type
    reaction_type = reaction_type or UNICODE_EMOJI
    key = reaction_key(reaction_type, emoji_code, caller.user_id)
    person = _reaction_user(caller)
    def attempt() -> ReactionResult:
        nonlocal accessed
        entry = accessed.message.reaction_map().get(key)
        if entry is None:
            raise reaction_missing()
        if not _write(caller, accessed, key, entry, "remove", person):
            accessed = _reread(caller, message_id)
            raise LostRace()
        return {}

    return retry_lost_races(attempt, conflict=REACTIONS_KEPT_CHANGING, attempts=MAX_ATTEMPTS)


def _existing_name(stored: dict[str, dict[str, Any]], reaction_type: str, emoji_code: str
                   ) -> str | None:
    """The name of the earliest reaction with this emoji, if anyone reacted with it."""
    same = [(int(value.get("at", 0)), str(value["emoji_name"]))
            for key, value in stored.items()
            if parse_reaction_key(key)[:2] == (reaction_type, emoji_code)]
    return min(same)[1] if same else None


def _reread(caller: Principal, message_id: int) -> AccessedMessage:
    """The message as stored now (consistent read), still accessible, after a lost race."""
    return access_message(caller, message_id, modifying=True)


def _write(caller: Principal, accessed: AccessedMessage, key: str, entry: dict[str, Any],
           op: Literal["add", "remove"], person: ReactionUser | None) -> bool:
    """The reaction change and its event in one transaction; False if the message changed
    since it was read (the caller reads it again and decides anew)."""
    message = accessed.message
    exists = Message.message_id.exists()
    if op == "remove":
        actions = [Message.reactions[key].remove()]
        condition = exists & Message.reactions[key].exists()
    elif message.reactions is None:   # the message's first reaction creates the map
        actions = [Message.reactions.set({key: entry})]
        condition = exists & Message.reactions.does_not_exist()
    else:
        actions = [Message.reactions[key].set(entry)]
        condition = exists & Message.reactions.exists() & Message.reactions[key].does_not_exist()
    # The has:reaction row goes with the first reaction and the last; the condition
    # holds the map's emptiness to what was read, so a race cannot leave reactions
    # without their row (the loser reads again).
    count = len(message.reaction_map())
    after = count + (1 if op == "add" else -1)
    stored = size(Message.reactions)
    if op == "remove":
        condition = condition & (stored == 1 if after == 0 else stored > 1)
    elif count > 0:
        condition = condition & (stored > 0)
    event = _event(message.message_id, key, str(entry["emoji_name"]), op, person)
    facts: EventFacts = {}
    if accessed.stream is not None and accessed.subscription is None:
        # Readers who may not access them see a placeholder.
        facts["actor_outside_channel"] = caller.user_id
    audience = readers_audience(caller.realm_id, [message], accessed.stream, caller.user_id)
    try:
        with transaction() as tx:
            tx.update(Message(message.realm_id, message.message_id), actions=actions,
                      condition=condition)
            add_property_changes(tx, message.realm_id, message.message_id,
                                 ["reaction"] if count else [], ["reaction"] if after else [])
            add_event(tx, caller.realm_id, event, audience, facts)
    except TransactWriteError as error:
        if is_condition_failure(error):
            return False
        raise
    return True


def _reaction_user(caller: Principal) -> ReactionUser | None:
    """The event's `user` object, or None where the level no longer sends it (no read)."""
    if "user" in withheld("reaction_event"):
        return None
    user = User.get_or_none(caller.realm_id, caller.user_id, consistent_read=False)
    return {"user_id": caller.user_id, "email": caller.email,
            "full_name": user.full_name if user is not None else ""}


def _event(message_id: int, key: str, emoji_name: str, op: Literal["add", "remove"],
           person: ReactionUser | None) -> ReactionAddEvent | ReactionRemoveEvent:
    reaction_type, emoji_code, user_id = parse_reaction_key(key)
    fields: ReactionFields = {"message_id": message_id, "emoji_name": emoji_name,
                              "emoji_code": emoji_code, "reaction_type": reaction_type,
                              "user_id": user_id}
    if person is not None:
        fields["user"] = person
    if op == "add":
        added: ReactionAddEvent = {"type": "reaction", "op": "add", **fields}
        return added
    removed: ReactionRemoveEvent = {"type": "reaction", "op": "remove", **fields}
    return removed
