"""The backup tests use the files tests' ward (a container, folders and staff on local disk)."""

from tests.files.conftest import ward

__all__ = ["ward"]
