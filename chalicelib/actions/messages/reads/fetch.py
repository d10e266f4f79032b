"""GET /messages and GET /messages/{id}: the range a narrow holds, rendered with flags."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict, cast

from chalicelib.actions.messages.reads.access import Access, access_message
from chalicelib.actions.messages.reads.bound import load_messages
from chalicelib.actions.messages.reads.date_anchor import check_anchor_date, date_anchor
from chalicelib.actions.messages.reads.dicts import (
    FetchedMessageDict,
    load_people_and_channels,
    message_api_dict,
)
from chalicelib.actions.messages.reads.range import MAX_BATCH, fetch_range, matching, resolve
from chalicelib.actions.messages.reads.received import in_a_period
from chalicelib.actions.read_state.reads.flags import flags_of
from chalicelib.actions.realm.reads.linkifiers import linkifier_rules
from chalicelib.actions.users.reads.access import hide_sender, inaccessible_ids
from chalicelib.core.errors import ApiError, missing_argument
from chalicelib.core.principal import Principal
from chalicelib.models.messages import Message
from chalicelib.models.realms import empty_topic_display_name, get_realm
from chalicelib.narrow import Evaluator
from chalicelib.narrow.search_terms import highlight_match

RANGE_PARAMETERS = ("anchor", "include_anchor", "use_first_unread_anchor", "num_before",
                    "num_after")


class FoundMessageDict(FetchedMessageDict):
    """A message of GET /messages; a search narrow adds where the words matched."""

    match_content: NotRequired[str]
    match_subject: NotRequired[str]


class GetMessagesResult(TypedDict):
    messages: list[FoundMessageDict]
    anchor: NotRequired[int]   # absent when message_ids named the messages
    found_anchor: bool
    found_oldest: bool
    found_newest: bool
    history_limited: bool


class GetMessageResult(TypedDict):
    message: FetchedMessageDict
    raw_content: str


@dataclass(frozen=True)
class RangeRequest:
    """The parameters that pick a range around an anchor (None: not sent)."""

    anchor: str | int | None
    include_anchor: bool | None
    num_before: int | None
    num_after: int | None
    use_first_unread_anchor: bool | None
    anchor_date: str | None


@dataclass(frozen=True)
class RenderOptions:
    apply_markdown: bool = True
    client_gravatar: bool = False
    allow_empty_topic_name: bool = False


def get_messages(caller: Principal, *, narrow_terms: list[Any], request: RangeRequest,
                 message_ids: list[int] | None, options: RenderOptions) -> GetMessagesResult:
    ev = resolve(caller, narrow_terms)
    if message_ids is not None:
        sent = [name for name in RANGE_PARAMETERS if getattr(request, name) is not None]
        if sent:
            raise ApiError("Unsupported parameter combination: " + ", ".join(
                ["message_ids", *sent]))
        access = Access(caller)
        listed = matching(caller, ev, load_messages(caller.realm_id,
                                                    sorted(set(message_ids))), access)
        return {"messages": _found(caller, listed, options, ev, access),
                "found_anchor": False, "found_oldest": False, "found_newest": False,
                "history_limited": False}
    if request.num_before is None:
        raise missing_argument("num_before")
    if request.num_after is None:
        raise missing_argument("num_after")
    num_before, num_after = request.num_before, request.num_after
    if num_before < 0 or num_after < 0:
        raise ApiError("num_before and num_after cannot be negative")
    if num_before + num_after > MAX_BATCH:
        raise ApiError(f"At most {MAX_BATCH} messages can be fetched at once.")
    anchor = _anchor(caller, ev, request)
    found = fetch_range(caller, ev, anchor, request.include_anchor is not False,
                        num_before, num_after)
    return {
        "messages": _found(caller, found.messages, options, ev, found.access),
        "anchor": found.anchor,
        "found_anchor": found.found_anchor,
        "found_oldest": found.found_oldest,
        "found_newest": found.found_newest,
        "history_limited": False,
    }


def _anchor(caller: Principal, ev: Evaluator, request: RangeRequest) -> str | int:
    """The anchor asked for: `date` becomes the first message of the narrow the caller
    may read sent since anchor_date (reads/date_anchor.py)."""
    anchor = request.anchor
    if request.use_first_unread_anchor:
        # The deprecated form wins over any anchor sent with it (older clients, such as
        # the terminal client, send anchor=0 beside it).
        return "first_unread"
    moment = check_anchor_date(anchor, request.anchor_date)
    if moment is not None:
        return date_anchor(caller, ev, moment)
    return "newest" if anchor is None else anchor


def render(caller: Principal, messages: list[Message], options: RenderOptions,
           access: Access | None = None) -> list[FoundMessageDict]:
    """The messages in the API's shape, each with the caller's flags (batched reads);
    `access`: what was read to check them (their channels and the caller's
    subscriptions), or None to read it here."""
    if not messages:
        return []
    access = access or Access(caller)
    access.load(messages)
    realm = get_realm(caller.realm_id)
    users, streams = load_people_and_channels(caller.realm_id, messages)
    flags = flags_of(caller.realm_id, caller.user_id, [m.message_id for m in messages],
                     messages)
    empty = None if options.allow_empty_topic_name else empty_topic_display_name(realm)
    # The realm's linkifiers link topic names: compiled once per process, read again
    # only after they change (the realm's token), and only when a topic could match.
    linkifiers = linkifier_rules(caller.realm_id, realm) if any(
        m.type == "stream" and m.topic for m in messages) else []
    # Channel senders the caller may not access (a direct message's are its partners).
    hidden = inaccessible_ids(caller, {users[m.sender_id] for m in messages
                                       if m.type == "stream" and m.sender_id in users})
    rendered: list[FoundMessageDict] = []
    for message in messages:
        fetched: FetchedMessageDict = {
            **message_api_dict(message, users, streams, realm, linkifiers=linkifiers,
                               apply_markdown=options.apply_markdown,
                               empty_topic_name=empty),
            "flags": _with_historical(flags[message.message_id], access, message)}
        # A FetchedMessageDict is a FoundMessageDict without its optional match fields.
        data = cast(FoundMessageDict, fetched)
        if options.client_gravatar:
            # Every avatar here is a Gravatar and every email visible: clients that
            # compute Gravatar URLs get null, as the reference gives them.
            data["avatar_url"] = None
        if message.sender_id in hidden:
            data = cast(FoundMessageDict, hide_sender(data, realm))
        rendered.append(data)
    return rendered


def _with_historical(flags: list[str], access: Access, message: Message) -> list[str]:
    """A message the caller did not receive (read from a channel's history) has the flag
    `historical`, as the reference shows it; a historical row lists it already."""
    if "historical" in flags or in_a_period(access, message):
        return flags
    return sorted([*flags, "historical"])


def _found(caller: Principal, messages: list[Message], options: RenderOptions,
           ev: Evaluator, access: Access) -> list[FoundMessageDict]:
    """Rendered; for a search narrow, with where the words matched."""
    rendered = render(caller, messages, options, access)
    search = ev.narrow.search_text
    if search is None:
        return rendered
    for message, data in zip(messages, rendered, strict=True):
        data["match_content"], data["match_subject"] = highlight_match(
            search, message.rendered_content,
            message.topic if message.type == "stream" else "")
    return rendered


def get_message(caller: Principal, message_id: int, apply_markdown: bool,
                allow_empty_topic_name: bool) -> GetMessageResult:
    message = access_message(caller, message_id).message
    rendered = render(caller, [message], RenderOptions(
        apply_markdown=apply_markdown, allow_empty_topic_name=allow_empty_topic_name))[0]
    return {"message": rendered, "raw_content": message.content}

