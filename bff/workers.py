"""A small pool of worker processes for CPU- and memory-heavy work in the request path (image
decoding, RTF conversion): at most `workers` jobs at once, at most `queue` more waiting (beyond
that WorkerBusy at once, rather than a wait), each job killed with its process after `seconds`,
each process's address space capped at `memory` bytes (beyond it an allocation fails: the job
ends with WorkerOutOfMemory and its worker is replaced).

The server process never runs the work itself, so a slow or huge job costs it neither a core
nor memory. Workers start on first use (`python -m bff.workers`, at low priority), are reused,
and are replaced after a job that timed out, crashed or was abandoned by its request. Jobs are
pickled module-level functions and arguments; frames are length-prefixed pickles over the
worker's stdin and stdout (the worker is our own code: its answers are trusted).

What a worker writes to its standard error (a library's warning: Pillow's, pdfium's; a stray
print; a program it runs) is read by the server and logged, a line a record, through the
server's log formatter (config/logs.py: control characters `shown`, JSON when configured), not
written past it to the server's own standard error (`_log_stderr`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import importlib
import logging
import os
import pickle
import resource
import signal
import struct
import sys
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")

_HEADER = struct.Struct("!Q")
_READY = b"ready"
WORKER_NICENESS = 10  # below the server's priority: the server answers first
START_SECONDS = 30.0  # a worker's own start-up (interpreter and imports), not part of a job
_MEMORY_ARG = "--memory="
# Bytes of one line of a worker's standard error that are logged (the rest of the line is cut,
# never held), and read at a time.
STDERR_LINE_LIMIT = 2000
_STDERR_CHUNK = 4096

log = logging.getLogger(__name__)


def process_alive(pid: int) -> bool:
    """Whether a process of this id exists (one of another user's counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class WorkerBusy(Exception):
    """Every worker is busy and the wait queue is full."""


class WorkerTimeout(Exception):
    """The job ran out of time; its worker was killed."""


class WorkerFailed(Exception):
    """The worker process died during the job (killed, out of memory, crashed)."""


class WorkerOutOfMemory(WorkerFailed):
    """The job needed more memory than the pool allows its processes; its worker was killed."""


def limit_memory(max_bytes: int) -> None:
    """Cap this process's address space (it and the programs it starts: tesseract) at max_bytes:
    beyond it, allocations fail (MemoryError) instead of the machine running out."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        max_bytes = min(max_bytes, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (max_bytes, hard))


async def _log_stderr(stream: asyncio.StreamReader, pid: int) -> None:
    """Log what a worker writes to its standard error until it ends: each line one warning
    (`bff.workers`, the formatter shows its control characters escaped), at most
    STDERR_LINE_LIMIT bytes of it (the rest dropped as it arrives, so nothing grows with a
    line that never ends), blank lines skipped."""
    line = bytearray()
    cut = False

    def take(part: bytes) -> None:
        nonlocal cut
        room = STDERR_LINE_LIMIT - len(line)
        line.extend(part[:room])
        cut = cut or len(part) > room

    def say() -> None:
        nonlocal cut
        text = line.decode("utf-8", "replace").rstrip()
        if text:
            log.warning("Worker process %d: %s%s", pid, text, " [cut]" if cut else "")
        line.clear()
        cut = False

    while chunk := await stream.read(_STDERR_CHUNK):
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            take(chunk[start:end])
            say()
            start = end + 1
        take(chunk[start:])
    say()


def die_with_worker() -> None:
    """In a program a job starts, before it runs (`preexec_fn`): killed when the worker that
    started it dies, as the pool kills a worker past its time limit (Linux's PR_SET_PDEATHSIG)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)


class _Worker:
    """One worker process, its pipes, and the task logging its standard error."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        assert process.stderr is not None
        self.stderr = asyncio.get_running_loop().create_task(
            _log_stderr(process.stderr, process.pid)
        )

    @classmethod
    async def start(cls, preload: Iterable[str], memory: int | None) -> _Worker:
        limit = () if memory is None else (f"{_MEMORY_ARG}{memory}",)
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bff.workers",
            *limit,
            *preload,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        worker = cls(process)
        try:
            ready = await asyncio.wait_for(worker._read(), START_SECONDS)
        except TimeoutError:
            await worker.kill()
            raise WorkerFailed("The worker process did not start in time.") from None
        except BaseException:
            await worker.kill()
            raise
        if ready != _READY:
            await worker.kill()
            raise WorkerFailed("The worker process did not start.")
        return worker

    @property
    def pid(self) -> int:
        return self.process.pid

    async def _read(self) -> bytes:
        assert self.process.stdout is not None
        try:
            (size,) = _HEADER.unpack(await self.process.stdout.readexactly(_HEADER.size))
            return await self.process.stdout.readexactly(size)
        except asyncio.IncompleteReadError:
            raise WorkerFailed("The worker process ended during the job.") from None

    async def run(self, func: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        """func(*args) in this worker: its result, or the exception it raised."""
        assert self.process.stdin is not None
        frame = pickle.dumps((func, args), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self.process.stdin.write(_HEADER.pack(len(frame)) + frame)
            await self.process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            raise WorkerFailed("The worker process ended during the job.") from None
        ok, value = pickle.loads(await self._read())  # noqa: S301 - our own worker's answer
        if not ok:
            raise value
        return value

    async def kill(self) -> None:
        """Kill the process and reap it (what it wrote to its standard error logged)."""
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        await self.process.wait()
        await self._logged()

    async def close(self) -> None:
        """Ask the process to end (end of its input), killing it if it does not at once."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 2)
        except TimeoutError:
            await self.kill()
        else:
            await self._logged()

    async def _logged(self) -> None:
        """Once the process has ended: its standard error's last lines logged (at once: its
        pipe is closed), or given up after a second (a program it started still holds it)."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(self.stderr), 1)


class Reservation:
    """A place among a pool's jobs (WorkerPool.reserve), for one job."""

    def __init__(self, pool: WorkerPool) -> None:
        self._pool: WorkerPool | None = pool

    async def run(self, func: Callable[..., T], *args: Any, seconds: float | None = None) -> T:
        """func(*args) in a worker process, in this place (see WorkerPool.run)."""
        if self._pool is None:
            raise RuntimeError("This place in the worker pool was released already.")
        return await self._pool._run(func, args, seconds)

    def release(self) -> None:
        """Give the place back (once)."""
        if self._pool is not None:
            self._pool._release()
            self._pool = None

    def __enter__(self) -> Reservation:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


class WorkerPool:
    """Up to `workers` worker processes, `queue` jobs waiting, `seconds` per job, `memory`
    bytes of address space per process (None: no limit of the pool's own)."""

    def __init__(
        self,
        workers: int,
        queue: int,
        seconds: float,
        preload: Iterable[str] = (),
        *,
        memory: int | None = None,
    ) -> None:
        self.workers = workers
        self.queue = queue
        self.seconds = seconds
        self.memory = memory
        self._preload = tuple(preload)
        self._idle: list[_Worker] = []
        self._running: set[_Worker] = set()
        self._slots: asyncio.Semaphore | None = None
        self._pending = 0  # jobs running or waiting for a slot
        self._closed = False
        self._ending: set[asyncio.Task[None]] = set()

    @property
    def pids(self) -> set[int]:
        """The process ids of every live worker (idle or busy)."""
        return {w.pid for w in (*self._idle, *self._running)}

    @property
    def running_pids(self) -> set[int]:
        """The process ids of the workers running a job now."""
        return {w.pid for w in self._running}

    def reserve(self) -> Reservation:
        """A place among the jobs running or waiting, held until released (or the end of its
        `with` block): take it before reading a job's input, so that requests over the bound
        are refused before their bodies are read into memory. WorkerBusy when none is left."""
        if self._closed:
            raise WorkerFailed("The worker pool is closed.")
        if self._pending >= self.workers + self.queue:
            raise WorkerBusy
        self._pending += 1
        return Reservation(self)

    def _release(self) -> None:
        self._pending -= 1

    async def run(self, func: Callable[..., T], *args: Any, seconds: float | None = None) -> T:
        """func(*args) in a worker process: its result, or the exception it raised there.

        WorkerBusy when `workers + queue` jobs are already running or waiting; WorkerTimeout
        when it takes over `seconds` (the pool's, or a shorter one given here; the worker is
        killed and replaced); WorkerOutOfMemory when it ran out of the pool's `memory` (the
        worker is killed and replaced); WorkerFailed when the worker died. A cancelled
        caller's job is killed with its worker.
        """
        with self.reserve() as place:
            return await place.run(func, *args, seconds=seconds)

    async def _run(
        self, func: Callable[..., T], args: tuple[Any, ...], seconds: float | None = None
    ) -> T:
        limit = self.seconds if seconds is None else min(seconds, self.seconds)
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.workers)
        async with self._slots:
            if self._closed:
                raise WorkerFailed("The worker pool is closed.")
            worker = (
                self._idle.pop() if self._idle else await _Worker.start(self._preload, self.memory)
            )
            self._running.add(worker)
            try:
                result: T = await asyncio.wait_for(worker.run(func, args), limit)
            except BaseException as exc:
                # A job that did not answer (time out, crash, cancelled request) or ran out of
                # memory (half-built objects, a C library's state) leaves its worker in an
                # unknown state: it is killed, and the next job starts anew. Another exception
                # the job raised arrives as a whole answer: the worker is fine.
                self._running.discard(worker)
                if isinstance(
                    exc, TimeoutError | WorkerFailed | MemoryError | asyncio.CancelledError
                ):
                    await asyncio.shield(worker.kill())
                    if isinstance(exc, TimeoutError):
                        raise WorkerTimeout from None
                    if isinstance(exc, MemoryError):
                        raise WorkerOutOfMemory(
                            "The job needed more memory than its worker may use."
                        ) from None
                else:
                    self._keep(worker)
                raise
            self._running.discard(worker)
            self._keep(worker)
            return result

    def _keep(self, worker: _Worker) -> None:
        if self._closed:  # a job that ended as the pool closed: its worker ends too
            ending = asyncio.get_running_loop().create_task(worker.close())
            self._ending.add(ending)
            ending.add_done_callback(self._ending.discard)
        else:
            self._idle.append(worker)

    async def close(self) -> None:
        """End every worker (idle ones asked to, busy ones killed) and refuse further jobs."""
        self._closed = True
        idle, self._idle = self._idle, []
        busy = list(self._running)
        await asyncio.gather(
            *(w.close() for w in idle), *(w.kill() for w in busy), *list(self._ending)
        )


def _frame(data: bytes) -> bytes:
    return _HEADER.pack(len(data)) + data


def _serve(argv: list[str]) -> None:
    """The worker's loop: read a job, answer (True, result) or (False, exception), until the
    end of input. argv: `--memory=BYTES` (the pool's limit, set before anything is imported),
    then the modules to import before the first job."""
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    preload = [arg for arg in argv if not arg.startswith(_MEMORY_ARG)]
    for arg in argv:
        if arg.startswith(_MEMORY_ARG):
            limit_memory(int(arg.removeprefix(_MEMORY_ARG)))
    for module in preload:
        importlib.import_module(module)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print in a job must not corrupt the answers
    stdout.write(_frame(_READY))
    stdout.flush()
    while True:
        header = stdin.read(_HEADER.size)
        if len(header) < _HEADER.size:
            return
        (size,) = _HEADER.unpack(header)
        func, args = pickle.loads(stdin.read(size))  # noqa: S301 - from the server that started us
        try:
            answer = (True, func(*args))
        except Exception as exc:  # noqa: BLE001 - every failure goes back to the caller
            try:
                pickle.dumps(exc)
            except Exception:  # noqa: BLE001 - an exception that cannot travel
                exc = RuntimeError(f"{type(exc).__name__}: {exc}")
            answer = (False, exc)
        stdout.write(_frame(pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)))
        stdout.flush()


if __name__ == "__main__":
    _serve(sys.argv[1:])
