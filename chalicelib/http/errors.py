"""The one error type the API raises, and its named subclasses."""
from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict


class Objection(TypedDict):
    """Something that still uses a user group that is to be deactivated."""

    type: Literal["subgroup", "realm", "user_group", "channel"]
    settings: NotRequired[list[str]]
    supergroup_ids: NotRequired[list[int]]
    group_id: NotRequired[int]
    channel_id: NotRequired[int]


class ErrorResult(TypedDict):
    """The error envelope; the optional keys are the extra fields of particular codes."""

    result: Literal["error"]
    msg: str
    code: str
    # REQUEST_VARIABLE_MISSING and invalid arguments: the parameter's wire name.
    var_name: NotRequired[str]
    # STREAM_DOES_NOT_EXIST (by name): the name asked for.
    stream: NotRequired[str]
    # BAD_EVENT_QUEUE_ID: the queue id asked for.
    queue_id: NotRequired[str]
    # MOVE_MESSAGES_TIME_LIMIT_EXCEEDED.
    first_message_id_allowed_to_move: NotRequired[int | None]
    total_messages_allowed_to_move: NotRequired[int]
    total_messages_in_topic: NotRequired[int]
    # INVITATION_FAILED.
    errors: NotRequired[list[tuple[str, str, bool]]]
    sent_invitations: NotRequired[bool]
    daily_limit_reached: NotRequired[bool]
    license_limit_reached: NotRequired[bool]
    # CANNOT_DEACTIVATE_GROUP_IN_USE: what still uses the group.
    objections: NotRequired[list[Objection]]


class ApiError(Exception):
    """An error the client sees: message, machine code, HTTP status and extra fields."""

    code = "BAD_REQUEST"
    http_status = 400

    def __init__(self, msg: str, *, code: str | None = None, http_status: int | None = None,
                 headers: dict[str, str] | None = None, **extra: Any) -> None:
        super().__init__(msg)
        self.msg = msg
        if code is not None:
            self.code = code
        if http_status is not None:
            self.http_status = http_status
        self.headers = headers or {}
        self.extra = extra

    def to_dict(self) -> dict[str, Any]:
        return {"result": "error", "msg": self.msg, "code": self.code, **self.extra}


class UnauthorizedError(ApiError):
    """Missing or wrong credentials, or a deactivated account or organization."""

    code = "UNAUTHORIZED"
    http_status = 401

    def __init__(self, msg: str, *, code: str | None = None) -> None:
        super().__init__(msg, code=code, headers={"WWW-Authenticate": 'Basic realm="teamchat"'})


class ResourceNotFoundError(ApiError):
    """A route or object that does not exist, where the API answers 404."""

    http_status = 404

    def __init__(self, msg: str = "Endpoint not found") -> None:
        super().__init__(msg, code="NOT_FOUND")


class ConflictError(ApiError):
    """A concurrent writer won; the client may retry."""

    http_status = 409

    def __init__(self, msg: str) -> None:
        super().__init__(msg, code="CONFLICT")


def missing_argument(name: str) -> ApiError:
    return ApiError(f"Missing '{name}' argument", code="REQUEST_VARIABLE_MISSING", var_name=name)


def invalid_argument(name: str, detail: str) -> ApiError:
    return ApiError(detail, code="BAD_REQUEST", var_name=name)
