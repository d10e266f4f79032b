"""The one error type the API raises, and its named subclasses."""
from __future__ import annotations

from typing import Any


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
