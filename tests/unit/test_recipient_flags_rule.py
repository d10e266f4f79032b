"""The one rule for a recipient's flags on a new message (recipient_flags in
actions/read_state/reads/pending.py), case by case; tests/functional/
test_recipient_flags.py checks that the in-flight readers and the fan-out agree."""
from __future__ import annotations

from chalicelib.actions.read_state.reads.pending import NewMessage, recipient_flags

SENDER, READER = 1, 2


def _flags(message: NewMessage, user_id: int = READER, *, receives: bool = True,
           muted_sender: bool = False, alert_word: bool = False) -> set[str]:
    return recipient_flags(message, user_id, receives=receives, muted_sender=muted_sender,
                           alert_word=alert_word)


def test_a_plain_message_is_unread_for_its_recipients_and_read_for_its_sender() -> None:
    message = NewMessage.told(SENDER, None, True)
    assert _flags(message) == set()
    assert _flags(message, SENDER) == {"read"}


def test_a_message_sent_on_the_senders_behalf_is_unread_for_them_if_they_receive_it() -> None:
    message = NewMessage.told(SENDER, None, read_by_sender=False)
    assert _flags(message, SENDER, receives=True) == set()
    assert _flags(message, SENDER, receives=False) == {"read"}


def test_mentions_and_wildcards() -> None:
    mentioned = NewMessage.told(SENDER, {"users": [READER], "wildcard": None}, True)
    assert _flags(mentioned) == {"mentioned"}
    wildcard = NewMessage.told(SENDER, {"users": [], "wildcard": "topic"}, True)
    assert _flags(wildcard) == {"topic_wildcard_mentioned"}
    assert _flags(wildcard, receives=False) == set()   # only recipients
    assert _flags(wildcard, SENDER) == {"read", "topic_wildcard_mentioned"}


def test_a_muted_sender_and_alert_words() -> None:
    mentioned = NewMessage.told(SENDER, {"users": [READER], "wildcard": None}, True)
    assert _flags(mentioned, muted_sender=True) == {"mentioned", "read"}
    plain = NewMessage.told(SENDER, None, True)
    assert _flags(plain, alert_word=True) == {"has_alert_word"}
    assert _flags(plain, SENDER, alert_word=True) == {"read"}   # never on one's own
