"""File views at the proxy's speed: BFF_VIEW_OFFLOAD=nginx beside the BFF streaming and beside
nginx serving the same file as a static file, in one run.

Starts two BFF instances behind two nginx (config/nginx/bff.conf.template, as tools/devcluster
renders it) on one throwaway PostgreSQL database and one storage directory: one with
BFF_VIEW_OFFLOAD=none (the BFF streams), one with BFF_VIEW_OFFLOAD=nginx (X-Accel-Redirect),
plus a third nginx serving the storage directory as static files. Then prints, one a line:

1. Single views of a 50 MB and a 1 MB file (a fresh connection each, a plain socket client
   that only counts bytes), interleaved, median of --rounds: seconds for static, offloaded
   and streamed, and each as a ratio of static (target: offloaded >= 0.8).
2. --viewers concurrent viewers downloading the 50 MB file over and over for --seconds through
   each instance, while GET /api/auth/me is timed every 20 ms: the BFF's CPU (its process
   group, user+system, as a share of one core), views completed, and /me p50/p99 beside
   the same probe with no viewers (target: /me p99 unaffected with offload).

Every loop is bounded in count and time. Usage:
    .venv/bin/python bench/view_offload_bench.py [--rounds 15] [--viewers 50] [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

# Run as a script (bench/x.py), the repo root is not on the path: the tooling lives there.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.devcluster import Cluster, nginx_binary
from tools.devserver import (
    create_postgres_database,
    drop_postgres_database,
    free_port,
    kill_group,
    wait_for_port,
)

MB = 1024 * 1024
ADMIN_PASSWORD = "bench-admin-password"
STATIC_CONF = """worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/client_body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    server {{
        listen 127.0.0.1:{port};
        location /static/ {{
            alias {root}/;
            sendfile on;
            tcp_nopush on;
            sendfile_max_chunk 2m;
        }}
    }}
}}
"""


def get(port: int, path: str, headers: dict[str, str], buffer: bytearray) -> tuple[int, int]:
    """One GET on a fresh connection; (status, body bytes), the body counted and dropped."""
    lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(65536)
            if not chunk:
                raise OSError("connection closed in the head")
            head += chunk
        head, _, rest = head.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = None
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        received = len(rest)
        view = memoryview(buffer)
        while length is None or received < length:
            n = sock.recv_into(view)
            if not n:
                break
            received += n
        if length is not None and received != length:
            raise OSError(f"short body: {received} of {length}")
        return status, received


def timed(port: int, path: str, headers: dict[str, str], size: int, buffer: bytearray) -> float:
    start = time.perf_counter()
    status, received = get(port, path, headers, buffer)
    elapsed = time.perf_counter() - start
    if status != 200 or received != size:
        raise SystemExit(f"GET {path} on :{port}: {status}, {received} bytes (want {size})")
    return elapsed


def group_cpu_seconds(pgid: int) -> float:
    """user+system CPU seconds of every process in a process group."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # pgrp
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


async def probe_me(port: int, token: str, seconds: float) -> list[float]:
    """GET /api/auth/me every 20 ms for seconds (at most seconds * 50 requests); latencies."""
    latencies: list[float] = []
    request = (
        f"GET /api/auth/me HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nx-auth-token: {token}\r\n\r\n"
    ).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    deadline = time.monotonic() + seconds
    try:
        for _ in range(int(seconds * 50)):
            if time.monotonic() >= deadline:
                break
            start = time.perf_counter()
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - start)
            await asyncio.sleep(max(0.0, 0.02 - (time.perf_counter() - start)))
    finally:
        writer.close()
    return latencies


async def viewer(port: int, path: str, token: str, deadline: float, limit: int) -> int:
    """Download path over and over until deadline (at most limit times); views completed."""
    request = (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nx-auth-token: {token}\r\n\r\n"
    ).encode()
    done = 0
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=4 * MB)
    try:
        while done < limit and time.monotonic() < deadline:
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            while length > 0 and time.monotonic() < deadline + 30:
                chunk = await reader.read(min(length, MB))
                if not chunk:
                    raise OSError("closed mid-body")
                length -= len(chunk)
            done += 1
    finally:
        writer.close()
    return done


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def under_load(
    cluster: Cluster, path: str, token: str, viewers: int, seconds: float
) -> tuple[float, int, list[float]]:
    """(BFF CPU share of one core, views done, /me latencies) with viewers viewing path."""
    pgid = cluster.pids()[0]
    assert pgid is not None
    port = cluster.port
    cpu_before, wall_before = group_cpu_seconds(pgid), time.monotonic()
    deadline = time.monotonic() + seconds
    tasks = [
        asyncio.create_task(viewer(port, path, token, deadline, limit=10_000))
        for _ in range(viewers)
    ]
    latencies = await probe_me(port, token, seconds)
    done = sum(await asyncio.gather(*tasks))
    cpu = (group_cpu_seconds(pgid) - cpu_before) / (time.monotonic() - wall_before)
    return cpu, done, latencies


async def sign_in(port: int) -> str:
    import aiohttp

    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"http://127.0.0.1:{port}/api/auth/login",
            json={"username": "admin", "password": ADMIN_PASSWORD},
        ) as response,
    ):
        response.raise_for_status()
        token: str = (await response.json())["token"]
        return token


async def prepare(cluster: Cluster, token: str, files: dict[str, bytes]) -> str:
    """Create a container and folder and upload files; the folder's path under /api/blobs."""
    import aiohttp

    base = cluster.base
    headers = {"x-auth-token": token}
    async with aiohttp.ClientSession(headers=headers) as http:
        for url, body in (
            (f"{base}/api/admin/containers", {"name": "bench-ward"}),
            (f"{base}/api/admin/containers/bench-ward/folders", {"name": "patient-1"}),
        ):
            async with http.post(url, json=body) as response:
                response.raise_for_status()
        for name, data in files.items():
            form = aiohttp.FormData()
            form.add_field("filename", name)
            form.add_field("file", data, filename=name, content_type="application/pdf")
            async with http.post(f"{base}/api/blobs/bench-ward/patient-1", data=form) as response:
                response.raise_for_status()
    return "/api/blobs/bench-ward/patient-1"


async def run(args: argparse.Namespace) -> None:
    work = Path(tempfile.mkdtemp(prefix="view-offload-bench-"))
    storage = work / "storage"
    db_name = "bff_view_bench_" + secrets.token_hex(4)
    database = await create_postgres_database(db_name)
    clusters: dict[str, Cluster] = {}
    secret = secrets.token_urlsafe(48)  # both instances accept the same sessions
    static: subprocess.Popen[bytes] | None = None
    try:
        for mode in ("none", "nginx"):
            clusters[mode] = Cluster(
                root=work / mode,
                database_url=database,
                redis_url="",
                storage_url=f"file://{storage}",
                instances=1,
                settings={
                    "admin_password": ADMIN_PASSWORD,
                    "view_offload": mode,
                    "secret_key": secret,
                },
            )
            clusters[mode].start()
        prefix = work / "static"
        prefix.mkdir()
        static_port = free_port()
        (prefix / "nginx.conf").write_text(
            STATIC_CONF.format(prefix=prefix, port=static_port, root=storage)
        )
        directives = "daemon off;" + (" user root;" if os.geteuid() == 0 else "")
        static = subprocess.Popen(  # noqa: S603, ASYNC220 - a fixed command, started once
            [nginx_binary(), "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", directives],
            start_new_session=True,
        )
        wait_for_port(static_port, static, 20)

        token = await sign_in(clusters["none"].port)
        sizes = {"50 MB": 50 * MB, "1 MB": MB}
        files = {
            f"view-{label.replace(' ', '')}.pdf": os.urandom(size) for label, size in sizes.items()
        }
        folder = await prepare(clusters["none"], token, files)
        auth = {"x-auth-token": token}
        buffer = bytearray(4 * MB)
        print(f"# {args.rounds} rounds of single views, fresh connection each, median seconds")
        for (label, size), name in zip(sizes.items(), files, strict=True):
            view = f"{folder}/{quote(name)}/view"
            paths = {
                "static": (static_port, f"/static/bench-ward/patient-1/{name}", {}),
                "offloaded": (clusters["nginx"].port, view, auth),
                "streamed": (clusters["none"].port, view, auth),
            }
            times: dict[str, list[float]] = {key: [] for key in paths}
            for _ in range(args.rounds):
                for key, (port, path, headers) in paths.items():
                    times[key].append(
                        await asyncio.to_thread(timed, port, path, headers, size, buffer)
                    )
            med = {key: statistics.median(values) for key, values in times.items()}
            print(
                f"view {label}: static {med['static']:.4f} s, offloaded {med['offloaded']:.4f} s,"
                f" streamed {med['streamed']:.4f} s"
            )
            print(
                f"view {label}: offloaded {med['static'] / med['offloaded']:.2f} of nginx static"
                f" (target >= 0.8), streamed {med['static'] / med['streamed']:.2f}"
            )

        view = f"{folder}/{quote(next(iter(files)))}/view"
        print(f"# {args.viewers} concurrent viewers of the 50 MB file for {args.seconds:g} s each")
        for mode, cluster in clusters.items():
            idle = await probe_me(cluster.port, token, args.seconds)
            cpu, done, busy = await under_load(cluster, view, token, args.viewers, args.seconds)
            label = "offloaded" if mode == "nginx" else "streamed"
            print(
                f"{label}: {done} views ({done * 50 / args.seconds:.0f} MB/s), BFF CPU"
                f" {cpu * 100:.0f}% of a core; /me p50 {pct(busy, 50) * 1000:.1f} ms,"
                f" p99 {pct(busy, 99) * 1000:.1f} ms (idle p50 {pct(idle, 50) * 1000:.1f} ms,"
                f" p99 {pct(idle, 99) * 1000:.1f} ms; {len(busy)} probes)"
            )
    finally:
        if static is not None:
            kill_group(static)
        for cluster in clusters.values():
            cluster.stop()
        await drop_postgres_database(db_name)
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--viewers", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    if not (1 <= args.rounds <= 200 and 1 <= args.viewers <= 500 and 1 <= args.seconds <= 120):
        raise SystemExit("--rounds 1..200, --viewers 1..500, --seconds 1..120")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
