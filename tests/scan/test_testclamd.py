"""tools/testclamd.py runs a real clamd that knows the EICAR file and the project's marker."""

from __future__ import annotations

import socket
import struct
from pathlib import Path

from bff.scan import clamd as client
from tools.devserver import free_port
from tools.testclamd import EICAR, MARKER, RunningClamd, ping


def _scan(clamd: RunningClamd, data: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(clamd.socket))
        sock.sendall(b"zINSTREAM\0" + struct.pack(">I", len(data)) + data + b"\0\0\0\0")
        reply = b""
        while not reply.endswith(b"\0"):
            part = sock.recv(256)
            if not part:
                break
            reply += part
        return reply.rstrip(b"\0")


def test_signatures(clamd: RunningClamd) -> None:
    assert _scan(clamd, EICAR) == b"stream: Eicar-Test-Signature.UNOFFICIAL FOUND"
    assert _scan(clamd, b"x" * 5000 + MARKER + b"y") == b"stream: Bff-Test-Marker.UNOFFICIAL FOUND"
    assert _scan(clamd, b"a harmless letter") == b"stream: OK"


def test_stop_and_start(scanner_down: RunningClamd) -> None:
    assert not ping(scanner_down.socket)
    scanner_down.start()
    assert ping(scanner_down.socket)
    scanner_down.stop()


async def test_the_client_over_tcp(tmp_path: Path) -> None:
    """BFF_CLAMD=tcp://host:port reaches clamd as the Unix socket does."""
    port = free_port()
    with RunningClamd(tmp_path, stream_max_mb=1, tcp_port=port):
        address = f"tcp://127.0.0.1:{port}"
        assert await client.ping(address)
        assert (await client.command(address, "VERSION", 5)).startswith("ClamAV ")
        for data, signature in ((EICAR, "Eicar-Test-Signature"), (b"fine", None)):
            stream = client.Instream(address, 5)
            await stream.open()
            await stream.send(data)
            assert (await stream.answer()).signature == signature
    assert not await client.ping(address, 0.5)
