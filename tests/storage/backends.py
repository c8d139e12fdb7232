"""What the contract tests get: a started backend, plus ways to look behind its interface."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from storage.base import Storage


@dataclass
class Backend:
    """A started storage under test, with ways to look behind its interface."""

    kind: str
    storage: Storage
    # Everything physically present (local: every file under the root; S3: every key and
    # every unfinished multipart upload), to prove that a failed write left nothing behind.
    everything: Callable[[], Awaitable[list[str]]]
    # Puts a stray in-progress upload artefact into a folder, the way a crash would leave one.
    plant_temp: Callable[[str, str], Awaitable[None]]
