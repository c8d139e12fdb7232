"""A real clamd for tests and development, with a signature database it writes itself.

The signature mirror is not reachable from the development and CI machines, so freshclam cannot
fetch the real database; clamd starts with any database directory holding one signature file.
This writes `<dir>/db/test.ndb` with two body signatures:

- `Eicar-Test-Signature`: the 68-byte EICAR test string (`EICAR`, below) at offset 0;
- `Bff-Test-Marker`: the bytes of `MARKER` (below) anywhere in a file, so a test can hide a
  "virus" inside a larger file, or in its last chunk.

and a `<dir>/clamd.conf` (`Foreground yes`, `LocalSocket <dir>/clamd.sock`, no TCP,
`StreamMaxLength` as asked, `User` the current user, the log in `<dir>/clamd.log`), then runs
Debian's /usr/sbin/clamd (`make clamav` installs it) until stopped. clamd answers an INSTREAM
scan with `stream: Eicar-Test-Signature.UNOFFICIAL FOUND` (unofficial: not from the mirror).

In Python (tests/scan/conftest.py has the pytest fixture):

    with running_clamd(tmp_path / "clamd", stream_max_mb=10) as clamd:
        ...  # BFF_CLAMD=f"unix:{clamd.socket}"
        clamd.stop()   # "the scanner is down"
        clamd.start()  # back, waited for until it answers PING

From a shell, in the foreground until Ctrl-C or SIGTERM (the browser journeys start it so, from
frontend/e2e/support.mjs; a development server then runs with BFF_CLAMD=unix:DIR/clamd.sock):

    .venv/bin/python -m tools.testclamd DIR [--stream-max-mb 100]

It prints `clamd ready: unix:DIR/clamd.sock` once clamd answers PING (within ~8 s here).
"""

from __future__ import annotations

import argparse
import getpass
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType

CLAMD = "/usr/sbin/clamd"
# The EICAR anti-virus test file: harmless, and every scanner reports it.
EICAR = rb"X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*"
EICAR_SIGNATURE = "Eicar-Test-Signature"
# The project's own test signature: these bytes anywhere in a file.
MARKER = b"BFF-TEST-MALWARE-MARKER-7d1f0c2a"
MARKER_SIGNATURE = "Bff-Test-Marker"
READY_SECONDS = 60.0


def write_config(
    directory: Path,
    *,
    stream_max_mb: int = 100,
    tcp_port: int | None = None,
    max_file_mb: int | None = None,
    read_timeout: int = 30,
) -> Path:
    """Write the signature database and clamd.conf into directory; return the config's path
    (tcp_port: clamd also listens on 127.0.0.1:tcp_port; read_timeout: clamd's ReadTimeout,
    how long it waits for a stream's next chunk before it drops the connection)."""
    directory = directory.resolve()
    database = directory / "db"
    database.mkdir(parents=True, exist_ok=True)
    (database / "test.ndb").write_text(
        f"{EICAR_SIGNATURE}:0:0:{EICAR.hex()}\n{MARKER_SIGNATURE}:0:*:{MARKER.hex()}\n"
    )
    config = directory / "clamd.conf"
    config.write_text(
        "\n".join(
            [
                "Foreground yes",
                f"LocalSocket {directory / 'clamd.sock'}",
                "LocalSocketMode 600",
                "FixStaleSocket yes",
                f"DatabaseDirectory {database}",
                f"PidFile {directory / 'clamd.pid'}",
                f"LogFile {directory / 'clamd.log'}",
                "LogTime yes",
                f"User {getpass.getuser()}",
                f"StreamMaxLength {stream_max_mb}M",
                # As docs/operations.md asks: clamd scans a whole stream it accepts (MaxFileSize
                # and MaxScanSize at least StreamMaxLength; Debian's are 25M and 100M) and says
                # so when a limit stopped it (AlertExceedsMax), never a silent OK.
                f"MaxFileSize {max_file_mb or stream_max_mb}M",
                f"MaxScanSize {4 * stream_max_mb}M",
                "AlertExceedsMax yes",
                "MaxThreads 4",
                f"ReadTimeout {read_timeout}",
                "CommandReadTimeout 10",
                "SelfCheck 3600",
                *([f"TCPSocket {tcp_port}", "TCPAddr 127.0.0.1"] if tcp_port else []),
                "",
            ]
        )
    )
    return config


def ping(path: Path, timeout: float = 1.0) -> bool:
    """Whether the clamd at Unix socket path answers PING with PONG."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(path))
            sock.sendall(b"zPING\0")
            return sock.recv(64).rstrip(b"\0\n") == b"PONG"
    except OSError:
        return False


def scan(path: Path, data: bytes, timeout: float = 10.0) -> str:
    """clamd's answer to an INSTREAM scan of data (`stream: OK`, `stream: <name> FOUND`, or ""
    while it cannot answer, as during a RELOAD)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(path))
            sock.sendall(b"zINSTREAM\0" + len(data).to_bytes(4, "big") + data + bytes(4))
            return sock.recv(256).rstrip(b"\0\n").decode(errors="replace")
    except OSError:
        return ""


class RunningClamd:
    """A clamd process on its own directory: `socket` to connect to, `stop()` and `start()`."""

    def __init__(
        self,
        directory: Path,
        *,
        stream_max_mb: int = 100,
        tcp_port: int | None = None,
        max_file_mb: int | None = None,
        read_timeout: int = 30,
    ) -> None:
        self.directory = directory.resolve()
        self.tcp_port = tcp_port
        self.config = write_config(
            self.directory,
            stream_max_mb=stream_max_mb,
            tcp_port=tcp_port,
            max_file_mb=max_file_mb,
            read_timeout=read_timeout,
        )
        self.socket = self.directory / "clamd.sock"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        """The BFF_CLAMD setting that reaches it."""
        return f"unix:{self.socket}"

    def start(self, timeout: float = READY_SECONDS) -> None:
        """Start clamd (if not running) and wait until it answers PING."""
        if self.process is not None and self.process.poll() is None:
            return
        if not os.path.exists(CLAMD):
            raise RuntimeError(f"{CLAMD} is missing: run `make clamav`.")
        log = (self.directory / "clamd.out").open("ab")
        try:
            self.process = subprocess.Popen(  # noqa: S603 - our own clamd and config
                [CLAMD, f"--config-file={self.config}"],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            log.close()
        deadline = time.monotonic() + timeout
        while not ping(self.socket):
            if self.process.poll() is not None:
                raise RuntimeError(f"clamd ended with {self.process.returncode}: {self._tail()}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"clamd did not answer PING in {timeout:.0f} s: {self._tail()}")
            time.sleep(0.1)

    def stop(self) -> None:
        """Stop clamd (SIGTERM, then SIGKILL after 10 s) and wait for it."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        with suppress(FileNotFoundError):
            self.socket.unlink()

    def add_signature(self, name: str, data: bytes, timeout: float = READY_SECONDS) -> None:
        """Teach the running clamd a new signature (`name`: these bytes anywhere in a file), as
        freshclam's daily update does: written to `<dir>/db/<name>.ndb`, then RELOAD, and
        waited for until a scan of data finds it."""
        (self.directory / "db" / f"{name}.ndb").write_text(f"{name}:0:*:{data.hex()}\n")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(10)
            sock.connect(str(self.socket))
            sock.sendall(b"zRELOAD\0")
            sock.recv(64)
        deadline = time.monotonic() + timeout
        while name not in scan(self.socket, data):
            if time.monotonic() > deadline:
                raise RuntimeError(f"clamd did not load {name} in {timeout:.0f} s")
            time.sleep(0.2)

    def _tail(self) -> str:
        with suppress(OSError):
            return (self.directory / "clamd.out").read_text(errors="replace")[-2000:]
        return ""

    def __enter__(self) -> RunningClamd:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()


@contextmanager
def running_clamd(directory: Path, *, stream_max_mb: int = 100) -> Iterator[RunningClamd]:
    """A clamd on directory, answering PING, until the block ends."""
    with RunningClamd(directory, stream_max_mb=stream_max_mb) as clamd:
        yield clamd


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.testclamd", description=__doc__)
    parser.add_argument("directory", type=Path)
    parser.add_argument("--stream-max-mb", type=int, default=100)
    args = parser.parse_args(argv)
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    clamd = RunningClamd(args.directory, stream_max_mb=args.stream_max_mb)
    clamd.start()
    print(f"clamd ready: {clamd.address}", flush=True)
    try:
        while not stopping:
            if clamd.process is None or clamd.process.poll() is not None:
                print("clamd ended", file=sys.stderr, flush=True)
                return 1
            time.sleep(0.2)
    finally:
        clamd.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
