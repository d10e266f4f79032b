"""Backfills the attributes that indexes read, for data written before they existed.

Users' `role_key` (the `by_role` index that finds another owner), `group_ids` (the
direct groups that deactivation leaves) and the `settings` / `profile_data` maps (whose
per-key document paths later updates write) are written by every change or creation
since they were added, like messages' `sender_key` (the `by_sender` index of the
`sender` narrow); this brings older items in line, indexes for search the messages sent
before the search index existed (search/backfill.py), and puts the has: index rows of
messages sent before that index existed (reindex_properties.py). Bulk by nature (it
reads the whole realm), so it runs from the admin CLI, never on a request path. Safe to
run again at any time.
"""
from __future__ import annotations

from collections.abc import Callable

from pynamodb.exceptions import TransactWriteError, UpdateError

from chalicelib.actions.workflows.reindex_properties import backfill_properties
from chalicelib.models.base import (
    is_condition_failure,
    is_write_condition_failure,
    transaction,
)
from chalicelib.models.messages import Message, sender_key
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import BOT_TYPE_INCOMING_WEBHOOK, ApiKey, User, role_key
from chalicelib.search.backfill import backfill_realm


def do_reindex_realm(realm_id: int, progress: Callable[[str], None] = lambda _: None,
                     properties_before: int | None = None) -> dict[str, int]:
    roles = _backfill_role_keys(realm_id)
    progress(f"role keys set: {roles}")
    links = _backfill_group_ids(realm_id)
    progress(f"group links set: {links}")
    maps = _backfill_maps(realm_id)
    progress(f"users given empty settings/profile maps: {maps}")
    senders = _backfill_sender_keys(realm_id)
    progress(f"messages given their sender key: {senders}")
    bot_keys = _backfill_key_bot_types(realm_id)
    progress(f"incoming webhook bots' keys marked: {bot_keys}")
    search = backfill_realm(realm_id, progress)   # messages sent before the search index
    properties = backfill_properties(realm_id, properties_before, progress)  # the has: index
    return {**properties, "role_keys_set": roles, "group_links_set": links, "user_maps_set": maps,
            "sender_keys_set": senders, "bot_keys_marked": bot_keys,
            "search_messages_indexed": search["messages_indexed"],
            "search_postings_written": search["postings_written"]}


def _backfill_sender_keys(realm_id: int) -> int:
    """Messages sent before the by_sender index (a Query of the realm's messages)."""
    changed = 0
    for message in Message.query(realm_id, filter_condition=Message.sender_key.does_not_exist(),
                                 attributes_to_get=["realm_id", "message_id", "sender_id"]):
        try:
            # A message deleted meanwhile stays deleted.
            message.update(actions=[Message.sender_key.set(
                sender_key(realm_id, message.sender_id))],
                condition=Message.message_id.exists())
            changed += 1
        except UpdateError as error:
            if not is_write_condition_failure(error):
                raise
    return changed


def _backfill_key_bot_types(realm_id: int) -> int:
    """Incoming-webhook bots' keys issued before ApiKey.bot_type, which limits them."""
    changed = 0
    for user in User.query(realm_id):
        if user.bot_type != BOT_TYPE_INCOMING_WEBHOOK:
            continue
        for key_hash in [user.api_key_hash, *sorted(user.extra_api_key_hashes or ())]:
            try:   # a key rotated meanwhile is gone: nothing to mark
                ApiKey(key_hash).update(actions=[ApiKey.bot_type.set(user.bot_type)],
                                        condition=ApiKey.key_hash.exists()
                                        & ApiKey.bot_type.does_not_exist())
                changed += 1
            except UpdateError as error:
                if not is_write_condition_failure(error):
                    raise
    return changed


def _backfill_role_keys(realm_id: int) -> int:
    changed = 0
    for user in User.query(realm_id):
        wanted = None if user.is_bot else role_key(realm_id, user.role)
        if user.role_key == wanted:
            continue
        action = User.role_key.set(wanted) if wanted else User.role_key.remove()
        try:
            # A role changed meanwhile has set its own key: leave that one alone.
            user.update(actions=[action], condition=User.role == user.role)
            changed += 1
        except UpdateError as error:
            if not is_write_condition_failure(error):
                raise
    return changed


def _backfill_group_ids(realm_id: int) -> int:
    linked = 0
    for group in UserGroup.query(realm_id):
        if group.is_system_group:
            continue
        for user_id in sorted(group.direct_members or ()):
            try:
                with transaction() as tx:
                    # Only while the user is still a member: a blind ADD could race with a
                    # removal and leave a group the user is no longer in.
                    tx.condition_check(UserGroup, realm_id, group.group_id,
                                       condition=UserGroup.direct_members.contains(user_id))
                    tx.update(User(realm_id, user_id),
                              actions=[User.group_ids.add({group.group_id})],
                              condition=User.user_id.exists())
                linked += 1
            except TransactWriteError as error:
                if not is_condition_failure(error):
                    raise
    return linked


def _backfill_maps(realm_id: int) -> int:
    """Empty `settings` and `profile_data` maps where a user has none: DynamoDB refuses
    to set a key of a map that does not exist (PATCH /settings, profile data)."""
    missing = User.settings.does_not_exist() | User.profile_data.does_not_exist()
    changed = 0
    for user in User.query(realm_id, filter_condition=missing):
        # if_not_exists: a map written meanwhile keeps its keys.
        user.update(actions=[User.settings.set(User.settings | {}),
                             User.profile_data.set(User.profile_data | {})])
        changed += 1
    return changed
