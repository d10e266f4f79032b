"""What an integration is: its description (name, event types, options), the request a
translator reads, the messages it returns, and the errors a translator raises."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from chalicelib.core.errors import ApiError, ErrorCode

Validator = Literal["check_bool", "check_string"]


@dataclass(frozen=True)
class Option:
    """A URL option (a query parameter of the integration's URL) or a configuration
    option (stored with the bot), as registration advertises them."""

    key: str
    label: str
    validator: Validator = "check_string"


@dataclass(frozen=True)
class Notice:
    """One message an event becomes: its topic, its Markdown, and the event type that
    `only_events` / `exclude_events` match (None: the filters do not apply)."""

    topic: str
    content: str
    event_type: str | None = None


@dataclass(frozen=True)
class Inbound:
    """What a translator reads: the decoded payload, the request's headers (lower-case
    names), the URL options it declared, and whether the URL chose the topic (then a
    message names its object, since the topic no longer does)."""

    payload: Any
    headers: Mapping[str, str]
    options: Mapping[str, str]
    topic_given: bool = False

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def event_header(self, name: str) -> str:
        """The header that names the event type; refused when the tool sent none."""
        value = self.header(name)
        if value is None or not value.strip():
            raise MissingEventHeaderError(name)
        return value.strip()

    def flag(self, key: str) -> bool:
        return self.options.get(key, "").strip().lower() in ("true", "1", "yes")


Translator = Callable[[Inbound], list[Notice]]
# (raw body, headers, secret) -> whether the request proves it knows the secret.
SignatureCheck = Callable[[bytes, Mapping[str, str], str], bool]


@dataclass(frozen=True)
class Integration:
    """One tool: `translate` turns its payload into messages; the rest describes it."""

    name: str
    display_name: str
    translate: Translator
    # The event types the filters know (None: the integration has none to filter).
    all_event_types: tuple[str, ...] | None = None
    url_options: tuple[Option, ...] = ()
    config_options: tuple[Option, ...] = ()
    # Where the secret configured on the bot is checked; None: the tool signs nothing.
    check_signature: SignatureCheck | None = None
    # A form-encoded body carries the JSON payload in this field (Slack's `payload=`).
    form_field: str | None = None


class WebhookError(ApiError):
    """An error about the payload, named after the integration once it is known."""

    def for_integration(self, display_name: str) -> WebhookError:
        self.extra["webhook_name"] = display_name
        self.msg = self.describe(display_name)
        return self

    def describe(self, display_name: str) -> str:
        return self.msg


class UnsupportedEventError(WebhookError):
    """An event the tool really sends, but that no message is made of. Answered with
    HTTP 200, as the reference does, so that the tool neither retries nor disables the
    webhook."""

    code: ErrorCode = ErrorCode.UNSUPPORTED_WEBHOOK_EVENT_TYPE
    http_status = 200

    def __init__(self, event_type: str) -> None:
        super().__init__(f"Event '{event_type}' is not supported; it was ignored.",
                         webhook_name="(unknown)", event_type=event_type)
        self.event_type = event_type

    def describe(self, display_name: str) -> str:
        return (f"The {display_name} integration does not handle the event "
                f"'{self.event_type}'; it was ignored.")


class AnomalousPayloadError(WebhookError):
    """A payload the tool would not send: a missing field, a value of the wrong type."""

    code: ErrorCode = ErrorCode.ANOMALOUS_WEBHOOK_PAYLOAD

    def __init__(self, detail: str) -> None:
        super().__init__(f"Cannot read this payload ({detail}).", webhook_name="(unknown)")
        self.detail = detail

    def describe(self, display_name: str) -> str:
        return (f"Cannot read this payload as one {display_name} sends ({self.detail}): "
                "is the URL the right integration's?")


class MissingEventHeaderError(WebhookError):
    """The tool names its event type in a header, and the request has none."""

    code: ErrorCode = ErrorCode.MISSING_HTTP_EVENT_HEADER

    def __init__(self, header: str) -> None:
        super().__init__(f"The request has no '{header}' header, which names the event "
                         "type.", webhook_name="(unknown)", header=header)
