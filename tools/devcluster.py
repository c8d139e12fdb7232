"""Several BFF instances behind nginx on PostgreSQL, Redis and an S3-protocol server, locally.

`make cluster` (python -m tools.devcluster) runs it in the foreground until Ctrl-C; the cluster
tests drive the same `Cluster` class. Migrations run once, before any instance starts. Each
instance is `hypercorn bff.asgi:app` with config/hypercorn.production.toml, in its own process
group (so a SIGKILL takes its workers too), trusting one proxy hop for client addresses.

How the pieces map to managed services in a real deployment: PostgreSQL -> RDS or Cloud SQL;
Redis -> ElastiCache or Memorystore; the S3-protocol server (moto here) -> S3 or any
S3-compatible store (GCS interoperability, MinIO); nginx -> the platform's load balancer or an
nginx tier; the instances -> containers or VMs running the same command.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import click

from tools.devserver import (
    REPO,
    create_postgres_database,
    drop_postgres_database,
    free_port,
    kill_group,
    start_moto,
    wait_for_port,
)

NGINX_TEMPLATE = REPO / "config" / "nginx" / "bff.conf.template"
HYPERCORN_CONFIG = REPO / "config" / "hypercorn.production.toml"
# The template's LIVE_PER_ADDRESS here (its own default, 2000, is for an operator's site):
# every client of a local cluster is 127.0.0.1, and bench/live_bench.py opens up to 5,000 live
# connections from it.
LIVE_PER_ADDRESS = 10_000
# A placeholder of the template, {{NAME}}, or {{NAME=DEFAULT}} with the value it takes when
# not filled in.
_PLACEHOLDER = re.compile(r"\{\{([A-Z_]+)(?:=([^}]*))?\}\}")
# How often `make cluster` looks for an instance that died: a restart waits for nothing else
# before it starts the instance (polling two processes costs nothing; it was 0.5 s).
RESTART_POLL_SECONDS = 0.05
# moto accepts any credentials; real ones come from the environment or an instance role.
MOTO_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "cluster",
    "AWS_SECRET_ACCESS_KEY": "cluster",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def nginx_binary() -> str:
    """Debian's nginx (apt-get install nginx)."""
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else "")
    if not found:
        raise SystemExit("nginx is not installed: apt-get install -y --no-install-recommends nginx")
    return found


@dataclass(frozen=True)
class Tls:
    """HTTPS at nginx: the certificate chain and key (PEM), and the plain-HTTP address that
    redirects to it."""

    certificate: Path
    key: Path
    http_listen: str


def render_nginx(
    listen: str,
    ports: list[int],
    max_upload_mb: int,
    prefix: Path,
    storage_url: str = "",
    tls: Tls | None = None,
    live_per_address: int | None = LIVE_PER_ADDRESS,
) -> str:
    """The nginx site for these instances, from config/nginx/bff.conf.template (its "#tls "
    lines switched on with tls, as the template tells an operator to); live_per_address None:
    the template's default. ValueError if a placeholder is left without a value."""
    # Local storage: nginx's internal location sends offloaded views from that directory.
    local = storage_url.removeprefix("file://") if storage_url.startswith("file://") else ""
    storage_root = str((REPO / local).resolve()) if local else str(prefix / "no-local-storage")
    upstreams = "\n        ".join(
        f"server 127.0.0.1:{port} max_fails=1 fail_timeout=5s;" for port in ports
    )
    template = NGINX_TEMPLATE.read_text()
    values = {
        "UPSTREAMS": upstreams,
        "MAX_BODY_MB": str(max_upload_mb + 1),
        "PREFIX": str(prefix),
        "STORAGE_ROOT": storage_root,
    }
    if live_per_address is not None:
        values["LIVE_PER_ADDRESS"] = str(live_per_address)
    if tls is not None:
        template = template.replace("#tls ", "")
        values |= {
            "HTTP_LISTEN": tls.http_listen,
            "TLS_CERTIFICATE": str(tls.certificate),
            "TLS_CERTIFICATE_KEY": str(tls.key),
        }
        listen += " ssl"
    values["LISTEN"] = listen
    return fill_placeholders(template, values)


def fill_placeholders(template: str, values: dict[str, str]) -> str:
    """template with each placeholder outside comments given its value, or its default
    ({{NAME=DEFAULT}}) when values has none (ValueError if it has no default either), as the
    template tells an operator to."""

    def value(found: re.Match[str]) -> str:
        name, default = found.group(1), found.group(2)
        if name in values:
            return values[name]
        if default is None:
            raise ValueError(f"No value for the template's placeholder {name}")
        return default

    return "".join(
        line if line.lstrip().startswith("#") else _PLACEHOLDER.sub(value, line)
        for line in template.splitlines(keepends=True)
    )


@dataclass
class Cluster:
    """N instances + nginx; the database, Redis and S3 are given as settings."""

    root: Path
    database_url: str
    redis_url: str
    storage_url: str
    instances: int = 2
    # Hypercorn workers per instance: 1 spares a small machine's cores; the production profile
    # runs 2 (config/hypercorn.production.toml).
    workers: int = 1
    port: int = 0
    settings: dict[str, str] = field(default_factory=dict)
    tls: Tls | None = None
    live_per_address: int = LIVE_PER_ADDRESS  # nginx's limit on live connections per address
    _ports: list[int] = field(default_factory=list)
    _processes: list[subprocess.Popen[bytes] | None] = field(default_factory=list)
    _nginx: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        """The address behind nginx."""
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    def instance_base(self, index: int) -> str:
        """One instance's own address (bypassing nginx)."""
        return f"http://127.0.0.1:{self._ports[index]}"

    def env(self) -> dict[str, str]:
        """The settings every instance runs with."""
        return {
            **os.environ,
            "BFF_DATABASE_URL": self.database_url,
            "BFF_REDIS_URL": self.redis_url,
            "BFF_STORAGE_URL": self.storage_url,
            "BFF_VAR_DIR": str(self.root / "var"),
            "BFF_PUBLIC_URL": self.base,
            "BFF_TRUSTED_PROXY_HOPS": "1",
            **{f"BFF_{k.upper()}": v for k, v in self.settings.items()},
        }

    def start(self) -> None:
        """Migrate once, start the instances, then nginx in front of them."""
        nginx_binary()  # fail before starting anything when nginx is missing
        self.root.mkdir(parents=True, exist_ok=True)
        self.port = self.port or free_port()
        compile_bytecode()
        subprocess.run(
            [sys.executable, "-m", "bff", "migrate"], env=self.env(), cwd=REPO, check=True
        )
        self._ports = [free_port() for _ in range(self.instances)]
        self._processes = [None] * self.instances
        try:
            self._start_servers()
        except BaseException:  # e.g. nginx missing: leave no instance running
            self.stop()
            raise

    def _start_servers(self) -> None:
        for index in range(self.instances):
            self.start_instance(index)
        prefix = self.root / "nginx"
        prefix.mkdir(exist_ok=True)
        conf = prefix / "nginx.conf"
        max_mb = int(self.env().get("BFF_MAX_UPLOAD_MB", "50"))
        conf.write_text(
            render_nginx(
                f"127.0.0.1:{self.port}",
                self._ports,
                max_mb,
                prefix,
                self.env()["BFF_STORAGE_URL"],
                self.tls,
                self.live_per_address,
            )
        )
        directives = "daemon off;"
        if os.geteuid() == 0:
            # Started as root, nginx's workers would run as nobody and could not read the
            # storage directory it sends offloaded views from (BFF_VIEW_OFFLOAD=nginx): keep
            # them as the user who owns it, as an operator does with `user` or group rights.
            directives += " user root;"
        self._nginx = subprocess.Popen(  # noqa: S603 - a fixed command
            [nginx_binary(), "-p", str(prefix), "-c", str(conf), "-g", directives],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        wait_for_port(self.port, self._nginx, 20)

    def start_instance(self, index: int) -> None:
        """Start (or restart) instance index on its port."""
        process = subprocess.Popen(  # noqa: S603 - our own interpreter, fixed arguments
            [
                sys.executable,
                "-m",
                "hypercorn",
                "bff.asgi:app",
                "--config",
                str(HYPERCORN_CONFIG),
                "--bind",
                f"127.0.0.1:{self._ports[index]}",
                "--workers",
                str(self.workers),
            ],
            env=self.env(),
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._processes[index] = process
        wait_for_port(self._ports[index], process, 60)

    def pids(self) -> list[int | None]:
        """Each instance's Hypercorn process id (None while it is not running)."""
        return [process.pid if process else None for process in self._processes]

    def restart_dead(self) -> list[int]:
        """Start again every instance whose process has exited (a crash, kill -9, or a worker
        that died and took Hypercorn with it); what `make cluster` does every RESTART_POLL_SECONDS,
        as systemd's `Restart=always` or a platform would. Returns the restarted indexes.
        Instances stopped on purpose (`kill`) are left alone."""
        restarted = []
        for index, process in enumerate(self._processes):
            if process is not None and process.poll() is not None:
                kill_group(process)  # whatever of its group is left
                # Its worker may still be exiting, its socket still listening: the new
                # instance's port is checked only once that one has closed.
                wait_until_closed(self._ports[index], 10)
                self.start_instance(index)
                restarted.append(index)
        return restarted

    def kill(self, index: int) -> None:
        """SIGKILL an instance and its workers, as a crash would."""
        process = self._processes[index]
        if process is not None:
            kill_group(process)
            self._processes[index] = None

    def stop_instance(self, index: int, seconds: float = 20) -> None:
        """SIGTERM an instance (its Hypercorn master, which stops its workers gracefully) and
        wait up to seconds for it to exit; what is left of it then is killed."""
        process = self._processes[index]
        if process is not None:
            process.terminate()
            try:
                process.wait(timeout=seconds)
            except subprocess.TimeoutExpired:
                kill_group(process)
            self._processes[index] = None

    def stop(self) -> None:
        """Stop nginx and every instance."""
        if self._nginx is not None:
            kill_group(self._nginx)
            self._nginx = None
        for index in range(len(self._processes)):
            self.stop_instance(index)


def wait_until_closed(port: int, seconds: float) -> None:
    """Wait until nothing accepts connections on port (a killed process's socket, closed as
    it exits), for at most `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        except OSError:
            return
        time.sleep(0.01)


def compile_bytecode() -> None:
    """Compile the server's modules once, as a deployment does when it installs a release
    (Dockerfile, docs/operations.md): where no bytecode is written (PYTHONDONTWRITEBYTECODE, or
    an app folder the server may not write) every start compiled each module it imports again,
    about 0.2 s of CPU (docs/operations.md, "Restarting after a crash"). A file changed later is
    compiled again by the import that finds it out of date, so this is never stale."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "bff", "storage", "config"],
        env=env,
        cwd=REPO,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def create_bucket(endpoint: str, bucket: str) -> None:
    """Create a bucket on the local S3 server (moto accepts anonymous requests)."""
    import urllib.request

    request = urllib.request.Request(f"{endpoint}/{bucket}", method="PUT")  # noqa: S310 - loopback
    urllib.request.urlopen(request, timeout=10).close()  # noqa: S310 - loopback


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--port", default=8080, show_default=True, help="nginx's port")
@click.option("--instances", default=2, show_default=True)
@click.option("--database", default="bff_cluster", show_default=True, help="PostgreSQL database")
@click.option("--redis", default="redis://127.0.0.1:6379/9", show_default=True)
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=REPO / "var" / "cluster",
    help="where the instances and nginx keep their files  [default: var/cluster]",
)
def main(port: int, instances: int, database: str, redis: str, root: Path) -> None:
    """Run a local cluster in the foreground until Ctrl-C or SIGTERM (`make cluster`)."""
    # SIGTERM (a process manager, `kill`) stops everything like Ctrl-C does.
    signal.signal(signal.SIGTERM, _exit_on_signal)
    with contextlib.ExitStack() as stack:
        # The S3 server (moto) keeps its bucket in memory, so the database starts afresh too:
        # the file index then matches the files, and the admin password printed below is the one.
        asyncio.run(drop_postgres_database(database))
        database_url = asyncio.run(create_postgres_database(database))
        moto, endpoint = start_moto()
        stack.callback(kill_group, moto)
        create_bucket(endpoint, "bff-cluster")
        os.environ.update(MOTO_CREDENTIALS)
        password = os.environ.get("BFF_ADMIN_PASSWORD") or secrets.token_urlsafe(12)
        cluster = Cluster(
            root=root,
            database_url=database_url,
            redis_url=redis,
            storage_url=f"s3://bff-cluster/records?endpoint_url={endpoint}&region=us-east-1",
            instances=instances,
            port=port,
            settings={"admin_password": password},
        )
        stack.callback(cluster.stop)
        try:
            cluster.start()
            print(f"Cluster: {cluster.base} -> {instances} instances", flush=True)
            for index, pid in enumerate(cluster.pids()):
                print(f"  instance {index}: {cluster.instance_base(index)} (pid {pid})")
            print(f"  PostgreSQL {database_url}, Redis {redis}, S3 (moto) {endpoint}")
            print(f"  Sign in as admin with password {password}")
            print("  An instance that dies is started again. Ctrl-C or SIGTERM stops it all.")
            sys.stdout.flush()
            while True:
                time.sleep(RESTART_POLL_SECONDS)
                for index in cluster.restart_dead():
                    print(
                        f"  instance {index} died: restarted (pid {cluster.pids()[index]})",
                        flush=True,
                    )
        except KeyboardInterrupt:
            pass


def _exit_on_signal(signum: int, frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the clean-up short
    raise KeyboardInterrupt


if __name__ == "__main__":
    main(prog_name="python -m tools.devcluster")
