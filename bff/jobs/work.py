"""The worker-process side of file jobs (bff/jobs/service.py): a kind's work runs through
`limited`, under the job's memory limit; `Unreadable` is how it says a file can never be read."""

from __future__ import annotations

import contextlib
import os
import resource
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# Tesseract starts a thread per core unless told otherwise: each job is one core's worth.
os.environ["OMP_THREAD_LIMIT"] = "1"


@dataclass(frozen=True)
class FileFacts:
    """What a kind's work is told about the file besides its content. Defined here, beside the
    work, not in bff/jobs/service.py: a worker unpickling it imports this module only, not the
    server's (Quart, Tortoise), which cost each new worker process seconds on a busy machine."""

    name: str
    content_type: str
    size: int


class Unreadable(Exception):
    """The file can never be read (encrypted, damaged, not what its name says): the job fails
    at once with this reason, a sentence a person can read."""


def limit_memory(max_bytes: int) -> None:
    """Cap this process's address space (it and the programs it starts: tesseract) at max_bytes:
    beyond it, allocations fail (MemoryError) instead of the machine running out."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        max_bytes = min(max_bytes, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (max_bytes, hard))


def limited(
    work: Callable[[str, Any, Any], Any], path: str, facts: Any, options: Any, max_bytes: int
) -> Any:
    """work(path, facts, options) in this worker process, its memory capped at max_bytes."""
    limit_memory(max_bytes)
    return work(path, facts, options)


class Unavailable(Exception):
    """The file cannot be read now for a reason outside it (a program or its data missing on
    the server, a step that ran out of time): the job is tried again later, and if it still
    fails in the end, this reason is shown."""
