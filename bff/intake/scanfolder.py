"""The intake's scan folder (BFF_INTAKE_FOLDER): a directory scanners and fax servers write to
(often an SMB or NFS share mounted on the server), watched with watchfiles and swept on a timer
as well (inotify sees nothing another NFS or SMB client writes), its top level only.

A file is taken once it has stopped growing: its device, inode, size and modification time the
same for `settle_seconds`. It is then opened without following links, checked to be the file
that settled, copied to a private file while its sha256 is computed (the share's copy may
change under us; copies are kept in var/intake-copies/scanner, those a killed process left
removed at the next start), handed to `take` (the intake's commit) and, only after `take` returns,
renamed into `<folder>/.processed/<date>/`. A failing `take` leaves the file where it is,
tried again after a backoff (doubling, bounded); a crash or a cancellation at any point
leaves it in the folder, taken again at the next start (the commit dedupes by hash). Files
are taken one at a time, so one file is never handed over twice at once.

Ignored: hidden and temporary names ('.', '~$', '.tmp', '.part'), anything but a regular file
(symlinks are never followed: whoever can write to the share must not make us read elsewhere),
subfolders. A file over `max_bytes` is moved to `<folder>/.refused/<date>/` with a log line.
Logs name a file by a prefix of its content's hash, or of its name's before it is read (names
carry patients' names), never by the name itself.

One process at a time watches (`scan_folder_job`: a Periodic whose step holds the lease
SCAN_LEASE while it watches for a window)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import stat
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from watchfiles import awatch

from bff.intake.incoming import (
    CHUNK,
    Incoming,
    Take,
    clear_copies,
    name_ref,
    private_copy,
    work_dir,
)
from bff.leases import Periodic, leased
from config.logs import shown
from config.settings import Settings

log = logging.getLogger(__name__)

PROCESSED = ".processed"
REFUSED = ".refused"
IGNORED_PREFIXES = (".", "~$")
IGNORED_SUFFIXES = (".tmp", ".part")

SCAN_LEASE = "intake-scan-folder"
WINDOW_SECONDS = 60.0  # one watch under the lease; the lease outlives it by a take's time
LEASE_SECONDS = 300.0
IDLE_SWEEP_SECONDS = 5.0  # a sweep at least this often, events or not (network shares)

Identity = tuple[int, int, int, int]  # device, inode, size, mtime in ns


def ignored(name: str) -> bool:
    """Whether a name is hidden or a file still being written by its usual tools."""
    lowered = name.lower()
    return lowered.startswith(IGNORED_PREFIXES) or lowered.endswith(IGNORED_SUFFIXES)


def _identity(st: os.stat_result) -> Identity:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


@dataclass
class _Seen:
    identity: Identity
    since: float  # monotonic time the identity was first seen


@dataclass
class _Failed:
    identity: Identity
    attempts: int
    next_at: float


class ScanFolder:
    """Takes each settled file of `folder` (see the module's docstring)."""

    def __init__(
        self,
        folder: Path,
        take: Take,
        *,
        max_bytes: int,
        settle_seconds: float = 2.0,
        retry_seconds: float = 10.0,
        retry_max_seconds: float = 600.0,
        work_dir: Path | None = None,
    ) -> None:
        self.folder = folder
        self._take = take
        self._max_bytes = max_bytes
        self._settle = settle_seconds
        self._retry = retry_seconds
        self._retry_max = retry_max_seconds
        self._work_dir = work_dir
        self._seen: dict[str, _Seen] = {}
        self._failed: dict[str, _Failed] = {}

    async def watch(self, seconds: float | None = None) -> None:
        """Watch the folder and take its settled files, those already there included, for
        `seconds` (None: until cancelled); a take under way is finished first."""
        deadline = None if seconds is None else time.monotonic() + seconds
        await asyncio.to_thread(clear_copies, self._work_dir)
        changed = asyncio.Event()
        stop = asyncio.Event()
        watcher = asyncio.get_running_loop().create_task(self._notice(changed, stop))
        try:
            while True:
                changed.clear()
                wait = await self.sweep()
                if deadline is not None:
                    wait = min(wait, deadline - time.monotonic())
                    if wait <= 0:
                        return
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), wait)
        finally:
            stop.set()
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await watcher

    async def _notice(self, changed: asyncio.Event, stop: asyncio.Event) -> None:
        try:
            async for _ in awatch(
                self.folder, stop_event=stop, recursive=False, debounce=200, rust_timeout=1000
            ):
                changed.set()
        except Exception as failure:  # noqa: BLE001 - the timer's sweeps still see every file
            log.warning("Scan folder: not watched for changes: %s", type(failure).__name__)

    async def sweep(self) -> float:
        """Look at the folder once and take the files settled since; how soon to look again
        (sooner while files settle or a failed one is due again)."""
        now = time.monotonic()
        due: list[tuple[str, Identity]] = []
        present: set[str] = set()
        pending = False
        with os.scandir(self.folder) as entries:
            for entry in entries:
                if ignored(entry.name):
                    continue
                try:
                    st = entry.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue
                if not stat.S_ISREG(st.st_mode):
                    continue
                present.add(entry.name)
                identity = _identity(st)
                seen = self._seen.get(entry.name)
                if seen is None or seen.identity != identity:
                    self._seen[entry.name] = _Seen(identity, now)
                    pending = True
                elif now - seen.since < self._settle:
                    pending = True
                else:
                    failed = self._failed.get(entry.name)
                    if failed is None or failed.identity != identity or now >= failed.next_at:
                        due.append((entry.name, identity))
        for gone in set(self._seen) - present:
            del self._seen[gone]
        for gone in set(self._failed) - present:
            del self._failed[gone]
        for name, identity in sorted(due):
            await self._take_file(name, identity)
        wait = self._settle / 2 if pending else IDLE_SWEEP_SECONDS
        for failed in self._failed.values():
            wait = min(wait, max(failed.next_at - time.monotonic(), 0.05))
        return wait

    async def _take_file(self, name: str, identity: Identity) -> None:
        path = self.folder / name
        if identity[2] > self._max_bytes:
            self._refuse(name, identity[2])
            return
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:  # gone, or swapped for a link since it was seen: looked at again
            self._seen.pop(name, None)
            return
        with os.fdopen(fd, "rb") as source:
            opened = os.fstat(source.fileno())
            if not stat.S_ISREG(opened.st_mode) or _identity(opened) != identity:
                self._seen.pop(name, None)  # changed since it settled: it settles again
                return
            copy = private_copy(self._work_dir)
            try:
                size, digest = await asyncio.to_thread(_copy, source, copy, self._max_bytes)
                if size > self._max_bytes:  # grew after all
                    self._seen.pop(name, None)
                    return
                incoming = Incoming("scanner", name, copy, size, digest)
                try:
                    await self._take(incoming)
                except Exception as failure:  # noqa: BLE001 - any failure: tried again later
                    self._failed_take(name, identity, incoming.ref, failure)
                    return
            finally:
                copy.unlink(missing_ok=True)
        self._failed.pop(name, None)
        self._seen.pop(name, None)
        self._done(name, identity, incoming.ref)

    def _failed_take(self, name: str, identity: Identity, ref: str, failure: Exception) -> None:
        earlier = self._failed.get(name)
        attempts = earlier.attempts + 1 if earlier and earlier.identity == identity else 1
        delay = min(self._retry * 2 ** (attempts - 1), self._retry_max)
        self._failed[name] = _Failed(identity, attempts, time.monotonic() + delay)
        log.warning(
            "Scan folder: file %s not taken (%s), attempt %d; again in %.0f s.",
            ref,
            shown(type(failure).__name__),
            attempts,
            delay,
        )

    def _done(self, name: str, identity: Identity, ref: str) -> None:
        """Move a taken file to the processed area, unless it changed while it was taken: then
        it stays (or comes back) to be taken again."""
        path = self.folder / name
        try:
            moved = _move(path, self.folder / PROCESSED)
        except OSError as failure:
            log.warning("Scan folder: file %s taken but not moved: %s", ref, type(failure).__name__)
            return
        if _identity(moved.lstat()) != identity:
            with contextlib.suppress(OSError):
                os.rename(moved, _free(path))
            log.info("Scan folder: file %s changed while taken; it is taken again.", ref)
            return
        log.info("Scan folder: file %s taken (%d bytes).", ref, identity[2])

    def _refuse(self, name: str, size: int) -> None:
        ref = name_ref(name)
        try:
            _move(self.folder / name, self.folder / REFUSED)
        except OSError as failure:
            log.warning("Scan folder: file %s not refused: %s", ref, type(failure).__name__)
            return
        self._seen.pop(name, None)
        log.warning(
            "Scan folder: file %s refused: %d bytes, over %d; moved to %s.",
            ref,
            size,
            self._max_bytes,
            REFUSED,
        )


def _copy(source: BinaryIO, copy: Path, limit: int) -> tuple[int, str]:
    """Copy up to limit + 1 bytes of an open file; its size so far and sha256."""
    digest = hashlib.sha256()
    size = 0
    with copy.open("wb") as out:
        while size <= limit:
            chunk = source.read(CHUNK)
            if not chunk:
                break
            digest.update(chunk)
            out.write(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


def _move(path: Path, area: Path) -> Path:
    """Rename a file into area/<today> (same file system: atomic), under a free name."""
    day = area / datetime.now(UTC).strftime("%Y-%m-%d")
    day.mkdir(parents=True, exist_ok=True)
    target = _free(day / path.name)
    os.rename(path, target)
    return target


def _free(target: Path) -> Path:
    """target, or target with a number before its suffix if that name is taken."""
    number = 1
    free = target
    while free.exists() or free.is_symlink():
        free = target.with_name(f"{target.stem}-{number}{target.suffix}")
        number += 1
    return free


def scan_folder_job(settings: Settings, take: Take) -> Periodic | None:
    """The scan folder's background job (None while BFF_INTAKE_FOLDER is unset): one process
    at a time watches it, for WINDOW_SECONDS a turn under the lease SCAN_LEASE."""
    if settings.intake_folder is None:
        return None
    folder = ScanFolder(
        settings.intake_folder,
        take,
        max_bytes=settings.max_upload_bytes,
        settle_seconds=settings.intake_settle_seconds,
        work_dir=work_dir(settings.var_dir, "scanner"),
    )

    missing = False  # told once, not every second, until the folder is back

    async def watch() -> None:
        nonlocal missing
        if not await asyncio.to_thread(folder.folder.is_dir):
            if not missing:
                log.warning("Scan folder: BFF_INTAKE_FOLDER is not a folder (not mounted?).")
            missing = True
            return
        missing = False
        async with leased(SCAN_LEASE, LEASE_SECONDS) as held:
            if held:
                await folder.watch(WINDOW_SECONDS)

    return Periodic(1.0, [("Intake scan folder", watch)], at_start=True)
