"""One error type for the API, and the handlers that render every failure as JSON."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError
from quart import Quart, Response, jsonify, request
from quart_schema import RequestSchemaValidationError
from tortoise.exceptions import DBConnectionError, IntegrityError, OperationalError
from tortoise.exceptions import ValidationError as FieldValidationError
from werkzeug.exceptions import HTTPException

from bff.db import CONNECTION_FAILURES
from storage.base import InvalidName, StorageUnavailable

log = logging.getLogger(__name__)


class ApiError(Exception):
    """A failure with an HTTP status and a message a person can read."""

    def __init__(
        self,
        status: int,
        message: str,
        headers: dict[str, str] | None = None,
        *,
        body: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}
        self.body = body or {}  # machine-readable fields beside the message (`reauth`)


def error_response(
    status: int,
    message: str,
    headers: dict[str, str] | None = None,
    body: dict[str, Any] | None = None,
) -> Response:
    """A JSON body {message} (with any extra fields) with the given status."""
    response = jsonify({**(body or {}), "message": message})
    response.status_code = status
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response


_HTTP_MESSAGES = {
    400: "The request could not be understood. Check that it is valid JSON.",
    404: "Not found.",
    405: "This method is not allowed here.",
    413: "The request is too large.",
    415: "Unsupported content type.",
}


def _describe_validation(exc: RequestSchemaValidationError) -> str:
    """Turn a pydantic validation failure into one readable sentence."""
    inner: Any = exc.validation_error
    if isinstance(inner, ValidationError):
        parts = []
        for err in inner.errors()[:3]:
            field = ".".join(str(p) for p in err["loc"]) or "body"
            parts.append(f"{field}: {err['msg']}")
        return "Invalid request - " + "; ".join(parts) + "."
    if isinstance(inner, TypeError | ValueError):
        return "Invalid request - the body must be a JSON object with the documented fields."
    return "Invalid request."


def register_error_handlers(app: Quart) -> None:
    """Render ApiError, validation errors, HTTP errors and crashes as JSON."""

    @app.errorhandler(ApiError)
    async def _api_error(exc: ApiError) -> Response:
        return error_response(exc.status, exc.message, exc.headers, exc.body)

    @app.errorhandler(RequestSchemaValidationError)
    async def _validation_error(exc: RequestSchemaValidationError) -> Response:
        return error_response(400, _describe_validation(exc))

    @app.errorhandler(UnicodeDecodeError)
    async def _not_utf8(exc: UnicodeDecodeError) -> Response:
        return error_response(400, "The request body must be UTF-8 encoded JSON.")

    @app.errorhandler(FieldValidationError)
    async def _value_does_not_fit(exc: FieldValidationError) -> Response:
        # A value longer than its column (or otherwise invalid for it) reached the database
        # layer: no such record can exist, and nothing was written.
        return error_response(400, "Invalid request - a value is longer than allowed.")

    @app.errorhandler(IntegrityError)
    async def _integrity_error(exc: IntegrityError) -> Response:
        # Unique constraints that a concurrent request won: the state is unchanged.
        return error_response(409, "This conflicts with an existing record.")

    # Every way the database can be unavailable (bff/db.py's CONNECTION_FAILURES: refused,
    # reset, restarting, shutting down, a connection it ended), and SQLite's "locked".
    @app.errorhandler(DBConnectionError)
    @app.errorhandler(OperationalError)
    @app.errorhandler(OSError)
    async def _database_down(exc: Exception) -> Response:
        log.error("Service unavailable: %s", type(exc).__name__)
        return error_response(
            503,
            "The service is temporarily unavailable. Please try again shortly.",
            {"Retry-After": "5"},
        )

    for failure in CONNECTION_FAILURES:
        app.register_error_handler(failure, _database_down)

    @app.errorhandler(InvalidName)
    async def _invalid_name(exc: InvalidName) -> Response:
        return error_response(400, str(exc) or "Invalid name.")

    @app.errorhandler(StorageUnavailable)
    async def _storage_down(exc: StorageUnavailable) -> Response:
        log.error("File storage unavailable: %s", type(exc).__name__)
        return error_response(
            503,
            "File storage is temporarily unavailable. Please try again shortly.",
            {"Retry-After": "5"},
        )

    @app.errorhandler(HTTPException)
    async def _http_error(exc: HTTPException) -> Response:
        status = exc.code or 500
        if status >= 500:
            return error_response(status, "Internal server error.")
        return error_response(status, _HTTP_MESSAGES.get(status, exc.description or "Error."))

    @app.errorhandler(Exception)
    async def _crash(exc: Exception) -> Response:
        rule = request.url_rule.rule if request.url_rule is not None else "unmatched"
        log.exception("Unhandled error on %s %s", request.method, rule)  # never the path
        return error_response(500, "Internal server error.")
