"""Which part of a stream batch's work one fan-out invocation does.

A batch whose largest audience is more than one slice (fanout/audience_slices.py) is
cut by user id: each invocation takes the people in one range of ids and does for them
everything the fan-out does per person (their subscriptions, flags, unread markers,
queues, forms, appends, notifications), so no invocation reads or writes more than its
range, whatever the audience. The batch-wide steps (the search index, webhook jobs,
edits' and moves' changes to recipients' state, settling the messages' flight, the
marks that make a redelivery skip them) stay with the invocation that took the batch,
which then does no person's work itself.
"""
from __future__ import annotations

from dataclasses import dataclass

# Range bounds: None is open-ended (the first range starts below every id, the last
# ends above every id, so every person of every audience has exactly one range).
Bound = int | None


@dataclass(frozen=True)
class Scope:
    low: Bound = None             # the range's first user id
    high: Bound = None            # its last user id
    batch_steps: bool = True      # the batch-wide steps: only the batch's own invocation
    # Outbox ids whose recipients' rows are written already (their marks exist): the
    # batch's invocation checked, its slices skip them.
    done: frozenset[str] = frozenset()
    nobody: bool = False          # no person's work at all (the batch's own, when cut)

    @property
    def whole(self) -> bool:
        return self.low is None and self.high is None and not self.nobody

    def has(self, user_id: int) -> bool:
        return not self.nobody and (self.low is None or user_id >= self.low) and \
            (self.high is None or user_id <= self.high)


EVERYONE = Scope()
# The batch's own invocation when every range of people went to other invocations.
BATCH_STEPS_ONLY = Scope(nobody=True)
