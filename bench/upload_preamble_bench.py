"""Upload-limit benchmark: a chunked upload (no Content-Length) that puts a large preamble before
the first multipart boundary, followed by a tiny file, against a real server process.

Before every byte of the body counted, the preamble was not counted and was held in memory:
the request was accepted (201) and the server grew by the preamble's size. Prints the answer's
status, how long it took and the server's peak memory growth, then the same for a body of the
same size sent with Content-Length, then for a chunked JSON body of that size sent to sign-in.

Usage: .venv/bin/python bench/upload_preamble_bench.py [--preamble-mb 200] [--max-upload-mb 50]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from pathlib import Path

import aiohttp

# Run as a script (bench/x.py), the repo root is not on the path: the tooling lives there.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.devserver import ServerProcess, temporary_server

MB = 1024 * 1024
BOUNDARY = "bench-preamble-boundary-9c1e"
ADMIN_PASSWORD = "bench-admin-password"
PIECE = b"p" * (256 * 1024)  # the preamble is sent in pieces of this size


async def _prepare(session: aiohttp.ClientSession, server: ServerProcess) -> tuple[str, str]:
    """An admin token and a container/folder path to upload into."""
    async with session.post(
        f"{server.base}/api/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}
    ) as response:
        token: str = (await response.json())["token"]
    for path, body in (
        ("/api/admin/containers", {"name": "bench-ward"}),
        ("/api/admin/containers/bench-ward/folders", {"name": "patient-1"}),
    ):
        async with session.post(
            server.base + path, json=body, headers={"x-auth-token": token}
        ) as response:
            assert response.status == 201
    return token, "bench-ward/patient-1"


def _tail(name: str) -> bytes:
    return (
        f'\r\n--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
        f"Content-Type: text/plain\r\n\r\nhello\r\n--{BOUNDARY}--\r\n"
    ).encode()


async def _post_raw(
    server: ServerProcess, path: str, headers: str, body: list[bytes], chunked: bool
) -> tuple[int, float, int]:
    """POST body (a list of pieces) on a raw connection, chunked or with a Content-Length;
    stop sending once the server answers. (status, seconds, the server's peak memory growth)."""
    framing = (
        "Transfer-Encoding: chunked\r\n"
        if chunked
        else f"Content-Length: {sum(len(piece) for piece in body)}\r\n"
    )
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n{headers}{framing}\r\n"
    ).encode()
    server.reset_peak()
    before = server.memory("VmRSS")
    start = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    answer = asyncio.ensure_future(reader.readline())
    writer.write(head)
    with contextlib.suppress(ConnectionError):
        for piece in [*body, b""] if chunked else body:
            if answer.done():
                break
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            await writer.drain()
    status_line = await answer
    elapsed = time.perf_counter() - start
    growth = server.memory("VmHWM") - before
    writer.transport.abort()
    status = int(status_line.split()[1]) if status_line else 0
    return status, elapsed, growth


async def _send(
    server: ServerProcess, token: str, folder: str, name: str, preamble_mb: int, chunked: bool
) -> tuple[int, float, int]:
    """The upload with a preamble of preamble_mb before its file part."""
    headers = f"x-auth-token: {token}\r\nContent-Type: multipart/form-data; boundary={BOUNDARY}\r\n"
    body = [PIECE] * (preamble_mb * MB // len(PIECE)) + [_tail(name)]
    return await _post_raw(server, f"/api/blobs/{folder}", headers, body, chunked)


async def _listing(session: aiohttp.ClientSession, server: ServerProcess, token: str) -> list[str]:
    async with session.get(
        f"{server.base}/api/blobs/bench-ward/patient-1", headers={"x-auth-token": token}
    ) as response:
        return [blob["name"] for blob in (await response.json())["blobs"]]


async def run(args: argparse.Namespace, server: ServerProcess) -> None:
    """Send the upload chunked, then with a Content-Length, and print what happened."""
    async with aiohttp.ClientSession() as session:
        token, folder = await _prepare(session, server)
        print(
            f"BFF_MAX_UPLOAD_MB={args.max_upload_mb}, a {args.preamble_mb} MB preamble "
            "before a 5-byte file"
        )
        for chunked in (True, False):
            name = f"after-preamble-{'chunked' if chunked else 'length'}.txt"
            status, seconds, growth = await _send(
                server, token, folder, name, args.preamble_mb, chunked
            )
            stored = name in await _listing(session, server, token)
            framing = "chunked (no Content-Length)" if chunked else "with Content-Length"
            print(
                f"{framing}: status {status} in {seconds:.2f} s, server peak memory growth "
                f"{growth / MB:+.1f} MB, file stored: {'yes' if stored else 'no'}"
            )
        # JSON bodies have the app-wide 1MB limit, also when chunked and without a session.
        body = [b'{"username": "' + PIECE] * (args.preamble_mb * MB // len(PIECE))
        status, seconds, growth = await _post_raw(
            server, "/api/auth/login", "Content-Type: application/json\r\n", body, True
        )
        print(
            f"sign-in with a chunked {args.preamble_mb} MB JSON body, no session: status "
            f"{status} in {seconds:.2f} s, server peak memory growth {growth / MB:+.1f} MB"
        )


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preamble-mb", type=int, default=200)
    parser.add_argument("--max-upload-mb", type=int, default=50)
    args = parser.parse_args()
    with temporary_server(
        "bff-preamble-bench-", admin_password=ADMIN_PASSWORD, max_upload_mb=str(args.max_upload_mb)
    ) as server:
        asyncio.run(run(args, server))


if __name__ == "__main__":
    main()
