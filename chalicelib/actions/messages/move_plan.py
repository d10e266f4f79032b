"""What a topic or channel move will do: the plan that edits, notices and resumes share."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from chalicelib.models.channels import Stream
from chalicelib.models.messages import Message

PropagateMode = Literal["change_one", "change_later", "change_all"]


@dataclass
class MovePlan:
    old_stream: Stream
    new_stream: Stream
    old_topic: str
    new_topic: str
    propagate_mode: PropagateMode
    resolve_only: bool
    notify_old: bool
    notify_new: bool
    messages: list[Message] = field(default_factory=list)
    edit_timestamp: int | None = None    # set when resuming a recorded move
    finished: bool = False               # a retry of a move that already completed
    total: int | None = None             # messages of the whole move, for the notices

    @property
    def channel_changed(self) -> bool:
        return self.old_stream.stream_id != self.new_stream.stream_id

    @property
    def topic_changed(self) -> bool:
        return self.old_topic != self.new_topic

    def record(self) -> dict[str, Any]:
        return {"old_stream_id": self.old_stream.stream_id,
                "new_stream_id": self.new_stream.stream_id, "old_topic": self.old_topic,
                "new_topic": self.new_topic, "propagate_mode": self.propagate_mode,
                "resolve_only": self.resolve_only, "notify_old": self.notify_old,
                "notify_new": self.notify_new, "total": self.total}

    @classmethod
    def from_record(cls, saved: dict[str, Any], old_stream: Stream, new_stream: Stream, *,
                    edit_timestamp: int, finished: bool) -> MovePlan:
        """The plan a recorded move (`record()`) was made with, to resume it."""
        return cls(old_stream, new_stream, saved["old_topic"], saved["new_topic"],
                   saved["propagate_mode"], saved["resolve_only"], saved["notify_old"],
                   saved["notify_new"], edit_timestamp=edit_timestamp, finished=finished,
                   total=saved.get("total"))
