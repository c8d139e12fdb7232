"""The storage's errors: every one is a StorageError."""

from __future__ import annotations


class StorageError(Exception):
    """Base class of every storage error."""


class NotFound(StorageError):
    """The file does not exist."""


class InvalidName(StorageError, ValueError):
    """A container, folder or file name is not acceptable (it could escape the root)."""


class StorageUnavailable(StorageError):
    """The storage could not be reached or refused the operation."""


class InvalidStorageURL(StorageError, ValueError):
    """A storage URL names no supported backend or has bad parameters."""
