"""The one error type the API raises, and its named subclasses."""
from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal, NotRequired, TypedDict


class ErrorCode(StrEnum):
    """Every machine-readable code the API answers with, declared once (the reference's
    codes; their meanings are in the API specification)."""

    ANOMALOUS_WEBHOOK_PAYLOAD = "ANOMALOUS_WEBHOOK_PAYLOAD"
    AUTHENTICATION_FAILED = "AUTHENTICATION_FAILED"
    BAD_EVENT_QUEUE_ID = "BAD_EVENT_QUEUE_ID"
    BAD_NARROW = "BAD_NARROW"
    BAD_REQUEST = "BAD_REQUEST"
    CANNOT_DEACTIVATE_GROUP_IN_USE = "CANNOT_DEACTIVATE_GROUP_IN_USE"
    CANNOT_DEACTIVATE_LAST_USER = "CANNOT_DEACTIVATE_LAST_USER"
    CHANNEL_ALREADY_EXISTS = "CHANNEL_ALREADY_EXISTS"
    CONFLICT = "CONFLICT"
    EXPECTATION_MISMATCH = "EXPECTATION_MISMATCH"
    INTERNAL_SERVER_ERROR = "INTERNAL_SERVER_ERROR"
    INVALID_API_KEY = "INVALID_API_KEY"
    INVALID_JSON = "INVALID_JSON"
    INVALID_PUSH_DEVICE_TOKEN = "INVALID_PUSH_DEVICE_TOKEN"  # nosec B105 # an error code
    INVITATION_FAILED = "INVITATION_FAILED"
    MISSING_HTTP_EVENT_HEADER = "MISSING_HTTP_EVENT_HEADER"
    MOVE_MESSAGES_TIME_LIMIT_EXCEEDED = "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED"
    NOT_FOUND = "NOT_FOUND"
    RATE_LIMIT_HIT = "RATE_LIMIT_HIT"
    REACTION_ALREADY_EXISTS = "REACTION_ALREADY_EXISTS"
    REACTION_DOES_NOT_EXIST = "REACTION_DOES_NOT_EXIST"
    REALM_DEACTIVATED = "REALM_DEACTIVATED"
    REQUEST_CONFUSING_VAR = "REQUEST_CONFUSING_VAR"
    REQUEST_VARIABLE_MISSING = "REQUEST_VARIABLE_MISSING"
    STREAM_DOES_NOT_EXIST = "STREAM_DOES_NOT_EXIST"
    STREAM_WILDCARD_MENTION_NOT_ALLOWED = "STREAM_WILDCARD_MENTION_NOT_ALLOWED"
    TOPIC_WILDCARD_MENTION_NOT_ALLOWED = "TOPIC_WILDCARD_MENTION_NOT_ALLOWED"
    UNAUTHORIZED = "UNAUTHORIZED"
    UNAUTHORIZED_PRINCIPAL = "UNAUTHORIZED_PRINCIPAL"
    UNSUPPORTED_WEBHOOK_EVENT_TYPE = "UNSUPPORTED_WEBHOOK_EVENT_TYPE"
    USER_DEACTIVATED = "USER_DEACTIVATED"


class Objection(TypedDict):
    """Something that still uses a user group that is to be deactivated."""

    type: Literal["subgroup", "realm", "user_group", "channel"]
    settings: NotRequired[list[str]]
    supergroup_ids: NotRequired[list[int]]
    group_id: NotRequired[int]
    channel_id: NotRequired[int]


# RATE_LIMIT_HIT (503 when AWS throttles): seconds to wait. A name Python cannot spell
# as a class attribute, hence this form.
_RetryHint = TypedDict("_RetryHint", {"retry-after": NotRequired[int]})


class ErrorResult(_RetryHint):
    """The error envelope; the optional keys are the extra fields of particular codes."""

    result: Literal["error"]
    msg: str
    code: str
    # REQUEST_VARIABLE_MISSING: the parameter's wire name.
    var_name: NotRequired[str]
    # REQUEST_CONFUSING_VAR: the two parameters sent for one (e.g. topic and subject).
    var_name1: NotRequired[str]
    var_name2: NotRequired[str]
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
    # 405 (a method the path does not serve): the methods it does.
    allowed_methods: NotRequired[list[str]]
    # CANNOT_DEACTIVATE_GROUP_IN_USE: what still uses the group.
    objections: NotRequired[list[Objection]]
    # CANNOT_DEACTIVATE_LAST_USER: who the caller is the last of.
    entity: NotRequired[str]
    is_last_owner: NotRequired[bool]
    # The integrations' errors (POST /external/{integration}): which integration, and
    # the event type it does not support or the header the event type was expected in.
    webhook_name: NotRequired[str]
    event_type: NotRequired[str | None]
    header: NotRequired[str]


# Messages many call sites share: one wording each (the codes and statuses stay each site's).
ADMINISTRATOR_REQUIRED = "Only the organization's administrators can do this."
OWNER_REQUIRED = "Only the organization's owners can do this."
NOT_PERMITTED = "You are not allowed to do this."
UNKNOWN_CHANNEL_ID = "No channel you can see has that ID."
UNKNOWN_USER = "No such person in this organization."
ACCOUNT_DEACTIVATED = "This account has been deactivated."


class ApiError(Exception):
    """An error the client sees: message, machine code, HTTP status and extra fields."""

    code: ErrorCode = ErrorCode.BAD_REQUEST
    http_status = 400

    def __init__(self, msg: str, *, code: ErrorCode | None = None, http_status: int | None = None,
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

    code: ErrorCode = ErrorCode.UNAUTHORIZED
    http_status = 401

    def __init__(self, msg: str, *, code: ErrorCode | None = None) -> None:
        super().__init__(msg, code=code, headers={"WWW-Authenticate": 'Basic realm="teamchat"'})


class WrongApiKeyError(UnauthorizedError):
    """An API key that is malformed or matches no account of that email: answered as the
    reference answers it (UNAUTHORIZED), and counted as a failed login by the rate limits."""


class ResourceNotFoundError(ApiError):
    """A route or object that does not exist, where the API answers 404."""

    http_status = 404

    def __init__(self, msg: str = "Endpoint not found") -> None:
        super().__init__(msg, code=ErrorCode.NOT_FOUND)


class ConflictError(ApiError):
    """A concurrent writer won; the client may retry."""

    http_status = 409

    def __init__(self, msg: str) -> None:
        super().__init__(msg, code=ErrorCode.CONFLICT)


class ServiceBusyError(ApiError):
    """AWS throttled or briefly failed a request: nothing was written, retry shortly.

    Shaped like the reference's rate-limit answer (a `Retry-After` header and a
    `retry-after` field), with 503 since it is the server's capacity, not the client's."""

    code: ErrorCode = ErrorCode.RATE_LIMIT_HIT
    http_status = 503

    def __init__(self, retry_after: int = 1) -> None:
        super().__init__(f"The server is busy; retry in {retry_after} s.",
                         headers={"Retry-After": str(retry_after)})
        self.extra["retry-after"] = retry_after


class NoBackendError(ApiError):
    """The server has no AWS credentials at all, so no request can reach its data: a
    configuration, not a bug (a Lambda always has its role's)."""

    code: ErrorCode = ErrorCode.INTERNAL_SERVER_ERROR
    http_status = 503

    def __init__(self) -> None:
        super().__init__("This server has no AWS credentials, so it cannot reach its data. "
                         "Developing locally? Start the local stack first (make run): "
                         "`chalice local` in the repository then uses it.")


class InternalServerError(ApiError):
    """A bug: the request failed for a reason the API does not describe (logged)."""

    code: ErrorCode = ErrorCode.INTERNAL_SERVER_ERROR
    http_status = 500

    def __init__(self, request_id: str) -> None:
        super().__init__(f"Internal server error (request ID {request_id}); it has been "
                         "logged.")


def missing_argument(name: str) -> ApiError:
    """The reference's one error that names its parameter in a field (`var_name`)."""
    return ApiError(f"The '{name}' parameter is required", code=ErrorCode.REQUEST_VARIABLE_MISSING,
                    var_name=name)


def unknown_channel_name(name: str) -> ApiError:
    """STREAM_DOES_NOT_EXIST for a channel asked for by name, which goes back in `stream`."""
    return ApiError(f"No channel named '{name}' exists, or you cannot see it",
                    code=ErrorCode.STREAM_DOES_NOT_EXIST, stream=name)


def confusing_arguments(first: str, second: str) -> ApiError:
    """Both a parameter and its alias were sent (e.g. `topic` and `subject`)."""
    return ApiError(f"Send '{first}' or '{second}', not both",
                    code=ErrorCode.REQUEST_CONFUSING_VAR, var_name1=first, var_name2=second)


def expectation_mismatch(name: str) -> ApiError:
    """A guard value (`prev_content_sha256`, a group setting's `old`) is stale."""
    return ApiError(f"'{name}' value does not match the expected value.",
                    code=ErrorCode.EXPECTATION_MISMATCH)


def principal_error(msg: str) -> ApiError:
    """Acting above one's role (e.g. inviting an administrator as a member)."""
    return ApiError(msg, code=ErrorCode.UNAUTHORIZED_PRINCIPAL)
