"""Fuzzing the API from its own OpenAPI document (schemathesis), as an admin and as a nurse:
no 5xx, no response that breaks its documented schema, and nothing of unassigned folders
reaching the nurse."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tools.devserver import ServerProcess, local_env

ADMIN_PASSWORD = "fuzz-admin-password"
NURSE_PASSWORD = "fuzz-nurse-password"
SECRETS = ["secret-ward", "hidden-patient", "hidden-report.txt"]
# Operations that would end the fuzzer's own session (then everything after is a 401).
EXCLUDED = r"^/api/auth/logout|^/api/users/\{user_id\}$"


def _api(base: str, method: str, path: str, token: str | None = None, **kw: Any) -> Any:
    headers = {"x-auth-token": token} if token else {}
    response = requests.request(method, base + path, headers=headers, timeout=30, **kw)
    assert response.status_code < 400, (path, response.status_code, response.text)
    return response.json()


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str]]:
    root = tmp_path_factory.mktemp("fuzz")
    server = ServerProcess(local_env(root, admin_password=ADMIN_PASSWORD))
    try:
        base = server.base
        admin = _api(
            base, "POST", "/api/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}
        )["token"]
        for container, folder in (("open-ward", "patient-1"), ("secret-ward", "hidden-patient")):
            _api(base, "POST", "/api/admin/containers", admin, json={"name": container})
            _api(
                base,
                "POST",
                f"/api/admin/containers/{container}/folders",
                admin,
                json={"name": folder},
            )
        _api(
            base,
            "POST",
            "/api/blobs/secret-ward/hidden-patient",
            admin,
            files={"file": ("hidden-report.txt", b"not for the nurse")},
        )
        _api(
            base, "POST", "/api/blobs/open-ward/patient-1", admin, files={"file": ("ok.txt", b"ok")}
        )
        nurse = _api(
            base,
            "POST",
            "/api/auth/register",
            admin,
            json={
                "name": "Fuzz Nurse",
                "username": "fuzz.nurse",
                "password": NURSE_PASSWORD,
                "role": "nurse",
            },
        )
        nurse_id = nurse["user"]["id"] if "user" in nurse else nurse["id"]
        _api(base, "POST", f"/api/assignments/containers/open-ward/users/{nurse_id}", admin)
        _api(
            base,
            "POST",
            "/api/assignments/containers/open-ward/folders",
            admin,
            json={"userId": nurse_id, "folderNames": ["patient-1"]},
        )
        nurse_token = _api(
            base,
            "POST",
            "/api/auth/login",
            json={"username": "fuzz.nurse", "password": NURSE_PASSWORD},
        )["token"]
        yield base, admin, nurse_token
    finally:
        server.stop()


def _fuzz(
    base: str, token: str, checks: str, extra_env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    st = shutil.which("st", path=str(Path(sys.executable).parent)) or "st"
    return subprocess.run(  # noqa: S603 - schemathesis' own CLI, fixed arguments
        [
            st,
            "run",
            f"{base}/openapi.json",
            "--url",
            base,
            "--header",
            f"x-auth-token: {token}",
            "--checks",
            checks,
            "--max-examples",
            "8",
            "--seed",
            "20261122",
            "--exclude-path-regex",
            EXCLUDED,
            "--request-timeout",
            "20",
            # One worker: hypothesis parses lambdas with ast in each thread, and CPython 3.11
            # can crash doing that concurrently ("AST constructor recursion depth mismatch").
            "--workers",
            "1",
        ],
        env={**os.environ, **extra_env},
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_fuzzing_as_an_admin_finds_no_server_error(seeded: tuple[str, str, str]) -> None:
    base, admin, _ = seeded
    done = _fuzz(base, admin, "not_a_server_error,response_schema_conformance", {})
    assert done.returncode == 0, done.stdout[-6000:]


def test_fuzzing_as_a_nurse_reveals_nothing_unassigned(seeded: tuple[str, str, str]) -> None:
    base, _, nurse = seeded
    done = _fuzz(
        base,
        nurse,
        "not_a_server_error,response_schema_conformance,no_unassigned_data",
        {"SCHEMATHESIS_HOOKS": "tests.fuzz_checks", "BFF_FUZZ_SECRETS": ",".join(SECRETS)},
    )
    assert done.returncode == 0, done.stdout[-6000:]
