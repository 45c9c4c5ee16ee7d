"""Errors a user can act on, each with a kind that every surface maps once to its own form
(an HTTP status, an MCP tool error, a CLI exit status): see docs/architecture.md.

The message says what went wrong and what to do instead; it is shown as it is.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorKind(StrEnum):
    INVALID = "invalid"  # the request is malformed or out of bounds
    NOT_FOUND = "not_found"  # what it names does not exist
    AMBIGUOUS = "ambiguous"  # it names several things: the message lists them
    CONFLICT = "conflict"  # the state forbids it now (held by another, expired, exists)
    UNAUTHORIZED = "unauthorized"  # no valid credential
    FORBIDDEN = "forbidden"  # a valid credential without the needed scope
    TOO_LARGE = "too_large"  # the request exceeds a size limit
    UNAVAILABLE = "unavailable"  # a store, broker or server cannot be reached or used


class CartographError(Exception):
    """Base of every error a surface shows to its user."""

    kind: ErrorKind = ErrorKind.INVALID

    def __init__(self, message: str, kind: ErrorKind | None = None) -> None:
        super().__init__(message)
        if kind is not None:
            self.kind = kind


class Invalid(CartographError):
    kind = ErrorKind.INVALID


class NotFound(CartographError):
    kind = ErrorKind.NOT_FOUND


class Ambiguous(CartographError):
    kind = ErrorKind.AMBIGUOUS


class Conflict(CartographError):
    kind = ErrorKind.CONFLICT


class Unauthorized(CartographError):
    kind = ErrorKind.UNAUTHORIZED


class Forbidden(CartographError):
    kind = ErrorKind.FORBIDDEN


class TooLarge(CartographError):
    kind = ErrorKind.TOO_LARGE


class Unavailable(CartographError):
    kind = ErrorKind.UNAVAILABLE


# how HTTP surfaces (REST, GraphQL transport errors, the MCP gateway's own refusals) answer
HTTP_STATUS: dict[ErrorKind, int] = {
    ErrorKind.INVALID: 400,
    ErrorKind.NOT_FOUND: 404,
    ErrorKind.AMBIGUOUS: 400,
    ErrorKind.CONFLICT: 409,
    ErrorKind.UNAUTHORIZED: 401,
    ErrorKind.FORBIDDEN: 403,
    ErrorKind.TOO_LARGE: 413,
    ErrorKind.UNAVAILABLE: 503,
}
