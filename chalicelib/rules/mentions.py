"""Finds mention syntax in message Markdown (pure: no lookups)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

USER_MENTION = re.compile(r"(?<![\w@])@(_?)\*\*([^*|\n]+?)(?:\|(\d+))?\*\*")
GROUP_MENTION = re.compile(r"(?<![\w@*])@(_?)\*(?!\*)([^*\n]+?)\*")
CHANNEL_WILDCARDS = {"all", "everyone", "channel", "stream"}
TOPIC_WILDCARDS = {"topic"}


@dataclass
class Mentions:
    names: set[str] = field(default_factory=set)        # @**Full Name**
    ids: set[int] = field(default_factory=set)           # @**Full Name|12**
    groups: set[str] = field(default_factory=set)        # @*group*
    channel_wildcard: bool = False
    topic_wildcard: bool = False
    # The subsets written without the silent "@_" prefix: only these notify (and set the
    # mentioned flag); silent ones are rendered as mentions and nothing more.
    loud_names: set[str] = field(default_factory=set)
    loud_ids: set[int] = field(default_factory=set)
    loud_groups: set[str] = field(default_factory=set)


def find_mentions(content: str) -> Mentions:
    found = Mentions()
    for silent, name, user_id in USER_MENTION.findall(content):
        lowered = name.strip().lower()
        if user_id:
            found.ids.add(int(user_id))
            if not silent:
                found.loud_ids.add(int(user_id))
        elif lowered in CHANNEL_WILDCARDS and not silent:
            found.channel_wildcard = True
        elif lowered in TOPIC_WILDCARDS and not silent:
            found.topic_wildcard = True
        else:
            found.names.add(name.strip())
            if not silent:
                found.loud_names.add(name.strip())
    for silent, name in GROUP_MENTION.findall(content):
        found.groups.add(name.strip())
        if not silent:
            found.loud_groups.add(name.strip())
    return found
