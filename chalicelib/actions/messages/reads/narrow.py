"""A narrow for a reader (the narrow package parses and evaluates; this reads what it
needs): channel names and user emails to ids (with access checked, missing and forbidden
alike), `with` to its message's conversation, and the reader's topic and channel
settings that `is:followed` and `is:muted` read."""
from __future__ import annotations

from chalicelib.actions.channels.reads.channels import (
    get_subscription,
    stream_id_by_name,
)
from chalicelib.actions.channels.reads.permissions import has_content_access
from chalicelib.actions.messages.reads.access import Access
from chalicelib.actions.users.reads.users import get_user_by_email
from chalicelib.core.principal import Principal
from chalicelib.models.channels import get_stream
from chalicelib.models.messages import Message
from chalicelib.models.users import User
from chalicelib.narrow.errors import bad_operator
from chalicelib.narrow.evaluate import Evaluator, ReaderContext, SearchTest
from chalicelib.narrow.events import check_event_narrow
from chalicelib.narrow.reader import needs_settings, reader_context
from chalicelib.narrow.types import Narrow, Operator, Term, UserRef

CONVERSATION_OPERATORS: tuple[Operator, ...] = ("channel", "topic", "dm", "dm-including", "channels")


def resolve_narrow(caller: Principal, narrow: Narrow,
                   search_test: SearchTest | None = None) -> Evaluator:
    """The evaluator of the narrow for this caller (raises BAD_NARROW for a channel or a
    user that does not exist or that the caller may not see)."""
    narrow = _with_conversation(caller, narrow)
    terms = tuple(_resolve_term(caller, term) for term in narrow.terms)
    resolved = Narrow(terms)
    return Evaluator(resolved, _reader(caller, resolved), search_test)


def _with_conversation(caller: Principal, narrow: Narrow) -> Narrow:
    """`with:<id>`: the conversation the message is in now (after any move), in place of
    the narrow's own channel, topic and direct-message terms; dropped if the caller may
    not read the message."""
    term = narrow.first("with")
    if term is None:
        return narrow
    rest = narrow.without("with")
    message = Message.get_or_none(caller.realm_id, term.id)
    if message is None or not Access(caller).may_read(message):
        return rest
    kept = rest.without(*CONVERSATION_OPERATORS).terms
    place: tuple[Term, ...]
    if message.type == "stream":
        place = (Term("channel", int(message.stream_id)), Term("topic", message.topic))
    else:
        others = tuple(sorted(set(message.recipient_ids) - {caller.user_id}))
        place = (Term("dm", others or (caller.user_id,)),)
    return Narrow(place + kept)


def _resolve_term(caller: Principal, term: Term) -> Term:
    if term.operator == "channel":
        return Term("channel", _channel_id(caller, term.operand), term.negated)
    if term.operator == "dm" and isinstance(term.operand, tuple):
        return Term("dm", tuple(_user_id(caller, u) for u in term.operand), term.negated)
    if term.operator in ("sender", "dm-including") and not isinstance(term.operand, tuple):
        return Term(term.operator, _user_id(caller, term.operand), term.negated)
    return term


def _channel_id(caller: Principal, operand: object) -> int:
    stream_id = operand if isinstance(operand, int) else stream_id_by_name(
        caller.realm_id, str(operand))
    stream = get_stream(caller.realm_id, stream_id) if stream_id is not None else None
    if stream is None or not has_content_access(
            caller, stream, get_subscription(caller.realm_id, caller.user_id,
                                             stream.stream_id) is not None):
        raise bad_operator("unknown channel")
    return stream.stream_id


def _user_id(caller: Principal, user: UserRef) -> int:
    if user == "me":
        return caller.user_id
    if isinstance(user, int):
        found = User.get_or_none(caller.realm_id, user)
    else:
        found = get_user_by_email(caller.realm_id, user)
    if found is None:
        raise bad_operator("unknown user")
    return found.user_id


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
