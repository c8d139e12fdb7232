"""The worker-process side of file jobs (bff/jobs/service.py): what a kind's work is told
(`FileFacts`) and how it says a file can never be read (`Unreadable`) or not now
(`Unavailable`). Its memory limit is the job pool's (bff/workers.py, BFF_JOB_MEMORY_MB)."""

from __future__ import annotations

import os
from dataclasses import dataclass

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


class Unavailable(Exception):
    """The file cannot be read now for a reason outside it (a program or its data missing on
    the server, a step that ran out of time): the job is tried again later, and if it still
    fails in the end, this reason is shown."""
