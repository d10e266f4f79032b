"""Integer ids from per-realm atomic counters (one UpdateItem ADD each)."""
from __future__ import annotations

from chalicelib.models.counters import Counter

GLOBAL_COUNTER = "global"


def realm_scope(realm_id: int) -> str:
    return f"realm:{realm_id}"


def realm_counter(realm_id: int) -> Counter | None:
    """The realm's counters as they stand (how many ids of each kind were handed out)."""
    return Counter.get_or_none(realm_scope(realm_id))


def allocate_ids(scope: str, kind: str, count: int = 1) -> range:
    """Reserves `count` consecutive ids of `kind`; ids are never reused."""
    attribute = getattr(Counter, kind)
    counter = Counter(scope)
    counter.update(actions=[attribute.add(count)])
    last = int(getattr(counter, kind))
    return range(last - count + 1, last + 1)


def allocate_id(realm_id: int, kind: str) -> int:
    return allocate_ids(realm_scope(realm_id), kind)[0]
