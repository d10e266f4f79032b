"""The has: index (models/message_properties.py) as a source of narrow candidates.

Which source a narrow with a positive `has:` or `is:resolved` term reads, in one rule: a conversation
(`topic`, `dm`, `dm-including`, `group-pm-with`) and the sources before it (`id`, `search`, the caller's
own rows) keep their source; otherwise `has:image` and `has:attachment`, rare in most
organizations, read their index even beside `channel` or `sender`; `is:resolved`,
`has:reaction` and `has:link`, common, read theirs only instead of the realm's whole
message list. With several such terms, the first of image, attachment, resolved,
reaction, link. A negated term never picks the index (absence is not indexed).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from chalicelib.models.message_properties import MessageProperty, property_key
from chalicelib.narrow import Narrow
from chalicelib.rules.message_properties import Property

RARE: tuple[Property, ...] = ("image", "attachment")
COMMON: tuple[Property, ...] = ("resolved", "reaction", "link")


def indexed_property(narrow: Narrow) -> Property | None:
    """The property whose index lists the narrow's candidates, if it is read."""
    if narrow.first("topic") or narrow.first("dm") or narrow.first("dm-including") or \
            narrow.first("group-pm-with"):
        return None
    common = () if narrow.first("channel") or narrow.first("sender") else COMMON
    for name in (*RARE, *common):
        if narrow.has_term("is" if name == "resolved" else "has", name):
            return name
    return None


def property_ids(realm_id: int, name: str, condition: Callable[[Any], Any], forward: bool,
                 page: int) -> Iterator[int]:
    """The ids of the realm's messages with the property; `condition` bounds the message
    id (given the attribute), `forward` the order."""
    for row in MessageProperty.query(property_key(realm_id, name),
                                     condition(MessageProperty.message_id),
                                     scan_index_forward=forward, page_size=page):
        yield int(row.message_id)
