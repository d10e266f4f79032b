"""A narrow for a reader (the narrow package parses and evaluates; this reads what it
needs): channel names and user emails to ids (with access checked, missing and forbidden
alike; a channel the reader was subscribed to stays a narrow after they leave it, for
the messages they received), whether it reads a channel's history or only what the
reader received (narrow/history.py's rule, with the channel-access helpers' answer),
`with` to its message's conversation, and the reader's topic and channel settings that
`is:followed` and `is:muted` read."""
from __future__ import annotations

from chalicelib.actions.channels.reads.permissions import has_content_access
from chalicelib.actions.messages.reads.access import Access
from chalicelib.actions.messages.reads.narrow_users import resolve_users
from chalicelib.core.principal import Principal
from chalicelib.models.channels import Subscription, get_stream, stream_id_by_name, user_key
from chalicelib.models.messages import Message
from chalicelib.narrow.errors import bad_message_id, bad_operator
from chalicelib.narrow.evaluate import Evaluator, ReaderContext, SearchTest
from chalicelib.narrow.events import check_event_narrow
from chalicelib.narrow.history import includes_history
from chalicelib.narrow.parser import check_narrow
from chalicelib.narrow.reader import needs_settings, reader_context
from chalicelib.narrow.types import Narrow, Operator, Term, UserRef

CONVERSATION_OPERATORS: tuple[Operator, ...] = ("channel", "topic", "dm", "dm-including",
                                                "group-pm-with", "channels")
USER_OPERATORS: tuple[Operator, ...] = ("dm", "dm-including", "group-pm-with", "sender",
                                        "mentions")


def resolve_narrow(caller: Principal, narrow: Narrow,
                   search_test: SearchTest | None = None) -> Evaluator:
    """The evaluator of the narrow for this caller (raises BAD_NARROW for a channel or a
    user that does not exist or that the caller may not see), and whether it reads the
    history of a channel or only what the caller received (narrow/history.py)."""
    narrow = _with_conversation(caller, narrow)
    check_narrow(narrow)
    users = resolve_users(caller, _user_refs(narrow))
    history: dict[int, bool] = {}   # each named channel: may the caller read its history
    terms = tuple(_resolve_term(caller, term, users, history) for term in narrow.terms)
    resolved = Narrow(terms)
    return Evaluator(resolved, _reader(caller, resolved), search_test,
                     include_history=includes_history(
                         resolved, lambda stream_id: history.get(stream_id, False),
                         reads_public_channels=not caller.is_guest))


def _with_conversation(caller: Principal, narrow: Narrow) -> Narrow:
    """`with:<id>`: the conversation the message is in now (after any move), in place of
    the narrow's own channel, topic and direct-message terms. A message the caller may
    not read (or none) leaves the rest of the narrow, if that names a conversation, and
    is BAD_NARROW otherwise, as the reference answers."""
    term = narrow.first("with")
    if term is None:
        return narrow
    rest = narrow.without("with")
    message = Message.get_or_none(caller.realm_id, term.id)
    if message is None or not Access(caller).may_read(message):
        if _names_conversation(rest):
            return rest
        raise bad_message_id("with", "no message you can read has this id")
    kept = rest.without(*CONVERSATION_OPERATORS).terms
    place: tuple[Term, ...]
    if message.type == "stream":
        place = (Term("channel", int(message.stream_id)), Term("topic", message.topic))
    else:
        others = tuple(sorted(set(message.recipient_ids) - {caller.user_id}))
        place = (Term("dm", others or (caller.user_id,)),)
    return Narrow(place + kept)


def _names_conversation(narrow: Narrow) -> bool:
    """A direct-message conversation, or a channel and a topic (negated or not, as the
    reference reads them)."""
    operators = {t.operator for t in narrow.terms}
    return "dm" in operators or {"channel", "topic"} <= operators


def _user_refs(narrow: Narrow) -> list[UserRef]:
    """Every user the narrow's terms name (each resolved once, whatever the term)."""
    refs: list[UserRef] = []
    for term in narrow.terms:
        if term.operator in USER_OPERATORS:
            operand = term.operand
            refs.extend(operand if isinstance(operand, tuple) else (operand,))
    return refs


def _resolve_term(caller: Principal, term: Term, users: dict[UserRef, int],
                  history: dict[int, bool]) -> Term:
    if term.operator == "channel":
        return Term("channel", _channel_id(caller, term.operand, history), term.negated)
    if term.operator in USER_OPERATORS:
        operand = term.operand
        if isinstance(operand, tuple):
            return Term(term.operator, tuple(dict.fromkeys(users[u] for u in operand)),
                        term.negated)
        return Term(term.operator, users[operand], term.negated)
    return term


def _channel_id(caller: Principal, operand: object, history: dict[int, bool]) -> int:
    """The channel's id, if the caller may read it now or was subscribed to it (its
    messages they received stay theirs to read, as in the reference); notes in `history`
    whether they may read its history."""
    stream_id = operand if isinstance(operand, int) else stream_id_by_name(
        caller.realm_id, str(operand))
    stream = get_stream(caller.realm_id, stream_id) if stream_id is not None else None
    if stream is None:
        raise bad_operator("unknown channel")
    subscription = Subscription.get_or_none(user_key(caller.realm_id, caller.user_id),
                                            stream.stream_id)
    subscribed = subscription is not None and subscription.active
    if subscription is None and not has_content_access(caller, stream, False):
        raise bad_operator("unknown channel")
    # The reference's can_access_stream_history: web-public, or shared history the
    # caller may read the content of.
    history[stream.stream_id] = stream.is_web_public or (
        stream.history_public_to_subscribers and has_content_access(caller, stream,
                                                                    subscribed))
    return stream.stream_id


def _reader(caller: Principal, narrow: Narrow) -> ReaderContext:
    """The reader's topic and channel settings, read only when an is: term needs them."""
    if not needs_settings(narrow):
        return ReaderContext(caller.user_id)
    return reader_context(caller.realm_id, caller.user_id)


def queue_narrow(caller: Principal, narrow: Narrow) -> list[dict[str, object]]:
    """The narrow an event queue stores: resolved to ids now, evaluated on each event
    (narrow.events.event_matches); what a message event cannot decide is refused."""
    check_event_narrow(narrow)
    return resolve_narrow(caller, narrow).narrow.wire()
