"""Second factors: what the second step costs a sign-in, and a burst of wrong codes.

Starts `python -m bff serve` on 127.0.0.1 (SQLite, local disk, BFF_TRUSTED_PROXY_HOPS=1 so each
request names its client address) in a temporary directory, enrols a doctor's authenticator
through the API (codes from pyotp), then:

1. 10 plain sign-ins of a nurse without a factor, one after another: latency;
2. 10 sign-ins of the doctor with the second step (password, then a recovery code each time,
   since an authenticator code works once per 30 s): latency of each step and in all;
3. 25 wrong codes at once for one live mfaToken from one address: the statuses (the sign-in
   throttle lets at most 5 per pair be checked, and at most 2 of one user at once: the rest 429).

Usage: .venv/bin/python bench/mfa_bench.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import aiohttp
import pyotp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.devserver import temporary_server

ADMIN_PASSWORD = "bench-admin-password"
PASSWORD = "bench-staff-password"
ROUNDS = 10


async def _post(
    http: aiohttp.ClientSession, url: str, body: Any, token: str = "", addr: str = "10.9.0.1"
) -> tuple[int, Any, float]:
    headers = {"X-Forwarded-For": addr, **({"x-auth-token": token} if token else {})}
    started = time.perf_counter()
    async with http.post(url, json=body, headers=headers) as response:
        data = await response.json()
        return response.status, data, time.perf_counter() - started


def _ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:.0f} ms, max {max(values) * 1000:.0f} ms"


async def run(base: str) -> None:
    """The scenarios against a running server."""
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120)) as http:
        login = base + "/api/auth/login"
        _, body, _ = await _post(http, login, {"username": "admin", "password": ADMIN_PASSWORD})
        admin = body["token"]
        for role in ("doctor", "nurse"):
            user = {"name": f"Bench {role}", "username": role, "role": role, "password": PASSWORD}
            status, _, _ = await _post(http, base + "/api/auth/register", user, admin)
            assert status == 201
        _, body, _ = await _post(http, login, {"username": "doctor", "password": PASSWORD})
        doctor = body["token"]
        _, setup, _ = await _post(http, base + "/api/auth/mfa/totp", {}, doctor)
        code = pyotp.TOTP(setup["secret"]).now()
        _, body, _ = await _post(http, base + "/api/auth/mfa/totp/confirm", {"code": code}, doctor)
        recovery = list(body["recoveryCodes"])

        plain = []
        for _ in range(ROUNDS):
            status, _, took = await _post(http, login, {"username": "nurse", "password": PASSWORD})
            assert status == 200
            plain.append(took)
        print(f"plain sign-in (no second factor), {ROUNDS} in a row: {_ms(plain)}")

        first, second, total = [], [], []
        for i in range(ROUNDS):
            status, body, took1 = await _post(
                http, login, {"username": "doctor", "password": PASSWORD}
            )
            assert status == 200 and body["mfaRequired"]
            step = {"mfaToken": body["mfaToken"], "code": recovery[i]}
            status, _, took2 = await _post(http, login + "/mfa", step)
            assert status == 200
            first.append(took1)
            second.append(took2)
            total.append(took1 + took2)
        print(f"with the second step, password: {_ms(first)}")
        print(f"with the second step, recovery code: {_ms(second)}")
        print(f"with the second step, both: {_ms(total)}")

        _, body, _ = await _post(
            http, login, {"username": "doctor", "password": PASSWORD}, addr="10.9.1.1"
        )
        wrong = {"mfaToken": body["mfaToken"], "code": "000000"}
        results = await asyncio.gather(
            *(_post(http, login + "/mfa", wrong, addr="10.9.1.1") for _ in range(25))
        )
        statuses = Counter(status for status, _, _ in results)
        print(
            f"25 wrong codes at once, one mfaToken, one address: {dict(sorted(statuses.items()))}"
        )


def main() -> None:
    """Start a server, run the scenarios, stop it."""
    with temporary_server(
        "bff-mfa-bench-", admin_password=ADMIN_PASSWORD, trusted_proxy_hops="1"
    ) as server:
        asyncio.run(run(server.base))


if __name__ == "__main__":
    main()
