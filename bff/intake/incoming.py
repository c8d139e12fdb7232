"""A document arriving by one of the intake's automatic ways in (the scan folder, the mailbox),
as each hands it to the intake's commit: `Take`, awaited before the document is marked done
there (moved to the processed area or folder), so a failure or a crash leaves it to be taken
again. The commit dedupes by sha256, which makes taking a document again harmless."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Source = Literal["scanner", "mailbox"]

CHUNK = 1024 * 1024
COPY_PREFIX = "bff-intake-"


@dataclass(frozen=True)
class Incoming:
    """One arriving document. `path` is a private copy of its bytes on local disk, there only
    until `take` returns (the commit stages what it keeps before it returns); `name` is the
    file or attachment name as sent (untrusted: may carry a patient's name, never logged);
    `sender`, `subject` and `message_id` only for mail."""

    source: Source
    name: str
    path: Path
    size: int
    sha256: str
    sender: str = ""
    subject: str = ""
    message_id: str = ""

    @property
    def ref(self) -> str:
        """What logs may name it by: a prefix of its content's hash."""
        return self.sha256[:12]


Take = Callable[[Incoming], Awaitable[None]]


def name_ref(name: str) -> str:
    """What logs may name a file by before its content is read: a prefix of its name's hash
    (names carry patients' names)."""
    return hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:12]


def work_dir(var_dir: Path, way: str) -> Path:
    """Where a way in keeps its private copies: var/intake-copies/<way>."""
    return var_dir / "intake-copies" / way


def private_copy(folder: Path | None) -> Path:
    """A new empty private file for a document's copy, in folder (None: the system's
    temporary folder)."""
    handle, name = tempfile.mkstemp(prefix=COPY_PREFIX, dir=folder)
    os.close(handle)
    return Path(name)


def clear_copies(folder: Path | None) -> None:
    """Create folder, or remove the copies a process killed during a take left there. Called
    by the one taker (it holds the way's lease) as it starts: no other take is under way."""
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    for leftover in folder.glob(COPY_PREFIX + "*"):
        leftover.unlink(missing_ok=True)
