"""One channel update: its attribute changes, the conditions that keep it atomic, its events."""
from __future__ import annotations

import builtins  # the class's own `set` method shadows the type in its body
from typing import Any, Literal, NotRequired, TypedDict, cast

from pynamodb.attributes import MapAttribute

from chalicelib.core.feature_levels import withheld
from chalicelib.models.channels import Stream

# Changed together, these must all still hold what was read (a default channel is never
# private nor archived; a web-public one is public with public history).
INVARIANTS = ("invite_only", "is_web_public", "history_public_to_subscribers", "is_default",
              "is_archived")


class StreamUpdateEvent(TypedDict):
    """One changed property of a channel; a privacy change carries the related ones."""

    type: Literal["stream"]
    op: Literal["update"]
    stream_id: int
    name: str
    property: str
    value: Any   # the property's new value, of the property's type
    rendered_description: NotRequired[str]             # with description
    history_public_to_subscribers: NotRequired[bool]   # with invite_only
    is_web_public: NotRequired[bool]                   # with invite_only


class StreamUpdate:
    """The changes of one request to one channel and the `stream` update events they make."""

    def __init__(self, stream: Stream) -> None:
        self.stream = stream
        self.name = stream.name                  # events name the channel as it is by then
        self.values: dict[str, Any] = {}         # Stream attribute name -> new value
        self.groups: dict[str, Any] = {}         # group setting -> new value
        self.events: list[StreamUpdateEvent] = []
        self.unarchived = False
        self.old_defaults: set[int] = set()
        self.new_defaults: set[int] | None = None   # the realm's default channels, if changed

    @property
    def changed(self) -> bool:
        return bool(self.values or self.groups)

    def set(self, prop: str, value: Any, **extra: Any) -> None:
        """A change of the attribute `prop`, told as property `prop` (extra: event fields)."""
        self.values[prop] = value
        self._event(prop, value, **extra)
        if prop == "name":
            self.name = value

    def set_group_setting(self, name: str, value: Any) -> None:
        self.groups[name] = value
        self._event(name, value)

    def set_default(self, is_default: bool, defaults: builtins.set[int]) -> None:
        self.values["is_default"] = is_default
        self.old_defaults = set(defaults)
        stream_id = self.stream.stream_id
        self.new_defaults = defaults | {stream_id} if is_default else defaults - {stream_id}

    def unarchive(self) -> None:
        self.values["is_archived"] = False
        self.unarchived = True

    def _event(self, prop: str, value: Any, **extra: Any) -> None:
        if prop in withheld("stream_property"):
            return   # a property the advertised level does not know yet: no event
        event: StreamUpdateEvent = {"type": "stream", "op": "update",
                                    "stream_id": self.stream.stream_id, "name": self.name,
                                    "property": prop, "value": value}
        self.events.append(cast(StreamUpdateEvent, {**event, **extra}))

    def actions(self) -> list[Any]:
        actions = [getattr(Stream, name).remove() if value is None
                   else getattr(Stream, name).set(value) for name, value in self.values.items()]
        if self.groups:
            if self._has_group_map():
                # One path per setting: concurrent changes to other settings keep theirs.
                actions += [Stream.group_settings[n].set(v) for n, v in self.groups.items()]
            else:
                actions.append(Stream.group_settings.set(self._merged_groups()))
        return actions

    def condition(self) -> Any:
        """Every changed value is still the one read: a concurrent change fails this one
        (a stale `old` of a group setting included) instead of being overwritten."""
        condition = Stream.stream_id.exists()
        names = set(self.values)
        if names & set(INVARIANTS):
            names |= set(INVARIANTS)
        for name in sorted(names):
            condition &= _unchanged(getattr(Stream, name), getattr(self.stream, name))
        if self.groups:
            if not self._has_group_map():
                return condition & Stream.group_settings.does_not_exist()
            stored = self.stream.group_settings.as_dict()
            for name in sorted(self.groups):
                condition &= _unchanged(Stream.group_settings[name], stored.get(name))
        return condition

    def applied(self) -> Stream:
        """The channel as it is after the change (for events that carry whole channels)."""
        stream = Stream.from_raw_data(self.stream.serialize())
        for name, value in self.values.items():
            setattr(stream, name, value)
        if self.groups:
            stream.group_settings = MapAttribute(**self._merged_groups())
        return stream

    def _has_group_map(self) -> bool:
        return self.stream.attribute_values.get("group_settings") is not None

    def _merged_groups(self) -> dict[str, Any]:
        stored = self.stream.group_settings.as_dict() if self._has_group_map() else {}
        return {**stored, **self.groups}


def _unchanged(path: Any, value: Any) -> Any:
    return path.does_not_exist() if value is None else path == value
