"""Sign-in under attack: how many of a burst of wrong passwords are checked, and how long a real
sign-in of someone else waits behind a burst.

Starts `python -m bff serve` on 127.0.0.1 (SQLite, local disk, BFF_TRUSTED_PROXY_HOPS=1 so each
request names its client address in X-Forwarded-For) in a temporary directory, then fires, all
at once:

1. 25 wrong passwords for one username from one address (limit per pair: 5);
2. 60 wrong passwords for 60 usernames from one address (limit per address: 30);
3. 40 wrong passwords from one address, and 40 from 40 addresses, each with a real sign-in of
   another user sent just after the burst, from the address they signed in from before and from
   a new one: its latency, beside the same sign-in alone.

Prints the status codes of each burst and the latencies.

Usage: .venv/bin/python bench/login_bench.py
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections import Counter
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.devserver import temporary_server

ADMIN_PASSWORD = "bench-admin-password"
CLINICIAN_PASSWORD = "bench-clinician-password"


async def _login(
    http: aiohttp.ClientSession, base: str, username: str, password: str, address: str
) -> tuple[int, float]:
    started = time.perf_counter()
    async with http.post(
        base + "/api/auth/login",
        json={"username": username, "password": password},
        headers={"X-Forwarded-For": address},
    ) as response:
        await response.read()
        return response.status, time.perf_counter() - started


async def _burst(
    http: aiohttp.ClientSession, base: str, attempts: list[tuple[str, str]]
) -> Counter[int]:
    results = await asyncio.gather(
        *(_login(http, base, user, "wrong password", address) for user, address in attempts)
    )
    return Counter(status for status, _ in results)


async def _behind(
    http: aiohttp.ClientSession, base: str, attempts: list[tuple[str, str]], address: str
) -> tuple[Counter[int], int, float]:
    bad = [
        asyncio.ensure_future(_login(http, base, user, "wrong password", addr))
        for user, addr in attempts
    ]
    await asyncio.sleep(0.05)  # the burst is in the server first
    status, latency = await _login(http, base, "clinician", CLINICIAN_PASSWORD, address)
    results = await asyncio.gather(*bad)
    return Counter(s for s, _ in results), status, latency


async def run(base: str) -> None:
    """The scenarios against a running server."""
    timeout = aiohttp.ClientTimeout(total=120)
    connector = aiohttp.TCPConnector(limit=200)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as http:
        async with http.post(
            base + "/api/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}
        ) as response:
            admin = (await response.json())["token"]
        user = {"name": "Bench Clinician", "username": "clinician", "role": "doctor"}
        async with http.post(
            base + "/api/auth/register",
            json={**user, "password": CLINICIAN_PASSWORD},
            headers={"x-auth-token": admin},
        ) as response:
            assert response.status == 201, await response.text()

        same_pair = await _burst(http, base, [("admin", "10.1.0.1")] * 25)
        print(f"25 wrong passwords, one username, one address: {dict(sorted(same_pair.items()))}")
        one_address = await _burst(http, base, [(f"guess{i}", "10.2.0.1") for i in range(60)])
        print(f"60 wrong passwords, 60 usernames, one address: {dict(sorted(one_address.items()))}")
        alone = [
            (await _login(http, base, "clinician", CLINICIAN_PASSWORD, "10.6.0.1"))
            for _ in range(3)
        ]
        print(f"a real sign-in alone: {[f'{latency:.2f} s' for _, latency in alone]}")
        scenarios = [
            (who, source)
            for who in ("its usual address", "a new address")
            for source in ("one address", "40 addresses")
        ]
        for run_number, (who, source) in enumerate(scenarios):
            if source == "one address":
                attempts = [(f"probe{i}", f"10.4.{run_number}.1") for i in range(40)]
            else:
                attempts = [(f"probe{i}", f"10.5.{run_number}.{i}") for i in range(40)]
            here = "10.6.0.1" if who == "its usual address" else f"10.7.{run_number}.1"
            burst, status, latency = await _behind(http, base, attempts, here)
            print(
                f"a real sign-in from {who} behind 40 wrong passwords from {source}: "
                f"{status} in {latency:.2f} s (the burst: {dict(sorted(burst.items()))})"
            )
            await asyncio.sleep(2)


def main() -> None:
    """Start a server, run the scenarios, stop it."""
    with temporary_server(
        "bff-login-bench-", admin_password=ADMIN_PASSWORD, trusted_proxy_hops="1"
    ) as server:
        asyncio.run(run(server.base))


if __name__ == "__main__":
    main()
