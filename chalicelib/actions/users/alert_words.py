"""Alert words: a per-user list, changed with a condition on what was read."""
from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypedDict

from chalicelib.core.errors import ApiError
from chalicelib.core.principal import Principal
from chalicelib.delivery.outbox import add_event, to_users
from chalicelib.models.alert_words import AlertWords
from chalicelib.models.base import transaction
from chalicelib.models.races import retry_lost_races
from chalicelib.models.users import User

MAX_ALERT_WORD_LENGTH = 100
MAX_ATTEMPTS = 10


class AlertWordsEvent(TypedDict):
    type: Literal["alert_words"]
    alert_words: list[str]


def clean_alert_words(words: list[str]) -> list[str]:
    stripped = [word.strip() for word in words]
    return [word for word in stripped if word]


def check_alert_word_lengths(words: list[str]) -> None:
    for index, word in enumerate(words):
        if len(word) > MAX_ALERT_WORD_LENGTH:
            raise ApiError(f"alert_words[{index}] is over the limit of {MAX_ALERT_WORD_LENGTH} characters")


def get_alert_words(caller: Principal) -> list[str]:
    user = User.get(caller.realm_id, caller.user_id)
    return list(user.alert_words or [])


def add_alert_words(caller: Principal, words: list[str]) -> list[str]:
    check_alert_word_lengths(words)
    new_words = clean_alert_words(words)

    def change(current: list[str]) -> list[str]:
        # Case-insensitive: the first spelling of a word is the one kept.
        seen = {word.lower() for word in current}
        added = []
        for word in new_words:
            if word.lower() not in seen:
                seen.add(word.lower())
                added.append(word)
        return current + added

    return _update_alert_words(caller, change)


def remove_alert_words(caller: Principal, words: list[str]) -> list[str]:
    removed = {word.lower() for word in clean_alert_words(words)}
    return _update_alert_words(caller, lambda current: [w for w in current
                                                        if w.lower() not in removed])


def _update_alert_words(caller: Principal, change: Callable[[list[str]], list[str]]
                        ) -> list[str]:
    """Applies `change` to the stored list; a concurrent change makes it re-read and retry."""
    def attempt() -> list[str]:
        user = User.get(caller.realm_id, caller.user_id)
        stored = user.alert_words
        current = list(stored or [])
        updated = change(current)
        if updated == current:
            return current
        condition = (User.alert_words.does_not_exist() if stored is None
                     else User.alert_words == current)
        with transaction() as tx:
            tx.update(User(caller.realm_id, caller.user_id),
                      actions=[User.alert_words.set(updated)], condition=condition)
            # The fan-out's copy, read per realm to flag has_alert_word.
            index = AlertWords(caller.realm_id, caller.user_id, words=updated)
            if updated:
                tx.save(index)
            else:
                tx.delete(index)
            event: AlertWordsEvent = {"type": "alert_words", "alert_words": updated}
            add_event(tx, caller.realm_id, event, to_users([caller.user_id]))
        return updated

    # Growing pauses between attempts let the other writer finish.
    return retry_lost_races(attempt, conflict="Alert words changed concurrently; try again.",
                            attempts=MAX_ATTEMPTS, backoff=0.01)
