"""Rendering content: Markdown, mentions and their resolution, as sending and previews share it."""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

from chalicelib import config
from chalicelib.actions.messages.reads.channel_links import resolve_channel_links
from chalicelib.actions.realm.reads.emoji import active_emoji_sources
from chalicelib.actions.realm.reads.linkifiers import linkifier_rules
from chalicelib.actions.users.reads.access import caller_access
from chalicelib.core.errors import ApiError
from chalicelib.core.files import UPLOAD_LINK
from chalicelib.core.principal import Principal
from chalicelib.models.messages import Message
from chalicelib.models.realms import Realm, UniqueName, group_name_key
from chalicelib.models.uploads import Attachment
from chalicelib.models.user_groups import UserGroup
from chalicelib.models.users import User, name_key
from chalicelib.rules.linkifiers import LinkifierRule
from chalicelib.rules.markdown import MentionTargets, render_message
from chalicelib.rules.markdown_emoji import has_emoji_syntax
from chalicelib.rules.mentions import Mentions, find_mentions


@dataclass
class Resolved:
    targets: MentionTargets
    user_ids: set[int]
    group_ids: set[int]
    group_members: set[int]
    users: dict[int, User] = field(default_factory=dict)   # the mentioned people
    # Mentioned aloud (not with "@_"): the users and groups that get the mentioned flag.
    loud_user_ids: set[int] = field(default_factory=set)
    loud_group_ids: set[int] = field(default_factory=set)
    loud_group_members: set[int] = field(default_factory=set)

    @property
    def flagged_user_ids(self) -> set[int]:
        """Who gets the `mentioned` flag: loud mentions of them or of their group."""
        return self.loud_user_ids | self.loud_group_members


def resolve_mentions(realm_id: int, mentions: Mentions,
                     mentionable: Callable[[User], bool] = lambda user: True) -> Resolved:
    """Looks up mentioned people and groups: a fixed number of batched reads per name.
    People the author may not access (`mentionable`) stay unresolved, as the reference
    leaves them, so a mention never shows a hidden name."""
    targets = MentionTargets()
    by_id = {u.user_id: u for u in User.batch_get([(realm_id, i) for i in mentions.ids])}
    people: dict[int, User] = {}
    for user in by_id.values():
        if user.is_active and mentionable(user):
            targets.users_by_id[user.user_id] = user.full_name
            people[user.user_id] = user
    loud_user_ids = {i for i in mentions.loud_ids if i in targets.users_by_id}
    for name in mentions.names:
        matches = [u for u in User.by_name.query(name_key(realm_id, name))
                   if u.is_active and mentionable(u)]
        if len(matches) == 1:   # ambiguous names need the |id form, as the reference says
            targets.users_by_name[name.lower()] = (matches[0].user_id, matches[0].full_name)
            people[matches[0].user_id] = matches[0]
            if name in mentions.loud_names:
                loud_user_ids.add(matches[0].user_id)
    group_ids: set[int] = set()
    members: set[int] = set()
    loud_group_ids: set[int] = set()
    loud_members: set[int] = set()
    for name in mentions.groups:
        claim = UniqueName.get_or_none(*group_name_key(realm_id, name))
        group = UserGroup.get_or_none(realm_id, claim.target_id) if claim else None
        if group is None or group.deactivated or group.is_system_group:
            continue
        targets.groups_by_name[name.lower()] = (group.group_id, group.name)
        group_ids.add(group.group_id)
        members |= set(group.direct_members or ())
        if name in mentions.loud_groups:
            loud_group_ids.add(group.group_id)
            loud_members |= set(group.direct_members or ())
    user_ids = set(targets.users_by_id) | {i for i, _ in targets.users_by_name.values()}
    return Resolved(targets, user_ids, group_ids, members, people, loud_user_ids,
                    loud_group_ids, loud_members)


@dataclass
class RenderedContent:
    """Message content with its mentions looked up and its HTML rendered."""

    content: str
    rendered: str
    mentions: Mentions
    resolved: Resolved
    linkifiers: list[LinkifierRule]   # the realm's, as read for rendering (topic links too)

    def apply_to(self, message: Message) -> None:
        message.content = self.content
        message.rendered_content = self.rendered
        message.content_sha256 = content_sha256(self.content)
        message.is_me_message = self.content.startswith("/me ")
        message.mentioned_user_ids = self.resolved.loud_user_ids or None
        message.mentioned_group_ids = self.resolved.loud_group_ids or None
        message.flagged_user_ids = self.resolved.flagged_user_ids or None
        # Wildcards mention a channel's subscribers: a direct message has none.
        message.wildcard_mention = None if message.type != "stream" else (
            "stream" if self.mentions.channel_wildcard else "topic"
            if self.mentions.topic_wildcard else None)


def content_sha256(content: str) -> str:
    return hashlib.sha256(content.encode()).hexdigest()


def render_content(realm_id: int, content: str, realm: Realm | None = None, *,
                   author: Principal | None = None) -> RenderedContent:
    """`realm`: when the caller has just read it (the linkifiers are then read only if
    they changed since this process last did); `author`: who writes it, whose mentions
    resolve only to people they may access and whose links only to channels they may
    read (None: the system writes it)."""
    content = check_content(content)
    mentions = find_mentions(content)
    resolved = resolve_mentions(realm_id, mentions, caller_access(author) if author
                                else lambda user: True)
    linkifiers = linkifier_rules(realm_id, realm)
    # The organization's emoji are read only for a message that names one not built in.
    custom = active_emoji_sources(realm_id) if has_emoji_syntax(content) else None
    rendered = render_message(content, resolved.targets, linkifiers, custom,
                              audio_uploads(realm_id, content),
                              resolve_channel_links(realm_id, content, author))
    return RenderedContent(content, rendered, mentions, resolved, linkifiers)


# Uploads shown with an audio player (level 405), as the reference lists their types.
AUDIO_TYPES = frozenset({"audio/aac", "audio/flac", "audio/mpeg", "audio/wav"})


def audio_uploads(realm_id: int, content: str) -> set[str]:
    """The organization's uploads the content links that are audio files (one BatchGet,
    only when the content links uploads)."""
    paths = {p for p in UPLOAD_LINK.findall(content) if p.startswith(f"{realm_id}/")}
    if not paths:
        return set()
    return {a.path_id for a in Attachment.batch_get(
        [(realm_id, p) for p in sorted(paths)[:MAX_LINKED_UPLOADS]],
        attributes_to_get=["realm_id", "path_id", "content_type"])
        if a.content_type in AUDIO_TYPES}


MAX_LINKED_UPLOADS = 100   # a message links at most this many files worth a player


def check_content(content: str) -> str:
    if not content.strip():
        raise ApiError("A message needs some content")
    if len(content) > config.MAX_MESSAGE_LENGTH:
        raise ApiError(f"Message too long (limit: {config.MAX_MESSAGE_LENGTH} characters)")
    return content.rstrip()
