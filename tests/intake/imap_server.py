"""A real IMAP server for the intake's tests: Debian's dovecot-imapd (`make dovecot` installs
it without starting its service), run in the foreground (`dovecot -F`) with a config file of
its own, on a free port of 127.0.0.1, its base_dir, state and maildir in a throwaway folder and
one user in a passwd-file. Plain IMAP without TLS (ssl = no): the client under test allows it
with BFF_INTAKE_IMAP_TLS_REQUIRED=false.

As root (these machines, CI), dovecot's own users run its login and internal processes
(dovecot, dovenull, made by the package) and the maildir belongs to `nobody`; as anyone else,
everything runs as that user."""

from __future__ import annotations

import contextlib
import imaplib
import ipaddress
import os
import pwd
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

DOVECOT = shutil.which("dovecot") or "/usr/sbin/dovecot"
USER = "intake"
PASSWORD = "a-test-password-7f3c"
START_SECONDS = 15.0

CONFIG = """\
base_dir = {root}/run
state_dir = {root}/state
log_path = /dev/stderr
protocols = imap
listen = 127.0.0.1
{ssl}
auth_mechanisms = plain login
auth_failure_delay = 0
mail_location = maildir:{root}/mail/%u
first_valid_uid = 1
default_internal_user = {internal}
default_login_user = {login}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN {root}/passwd
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={root}/mail/%u
}}
namespace inbox {{
  inbox = yes
  separator = /
}}
service imap-login {{
  {chroot}
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {imaps_port}
  }}
}}
{unprivileged}
{extra}
"""

NO_TLS = "ssl = no\ndisable_plaintext_auth = no"
TLS = """\
ssl = required
ssl_cert = <{root}/cert.pem
ssl_key = <{root}/key.pem
disable_plaintext_auth = yes"""

UNPRIVILEGED = """\
service anvil {
  chroot =
}
service imap {
  user = $default_internal_user
}
"""


@dataclass(frozen=True)
class ImapServer:
    """A running dovecot: where it listens, its one user, its log."""

    host: str
    port: int
    user: str
    password: str
    log: Path
    imaps_port: int = 0  # with TLS only
    certificate: Path | None = None  # with TLS: the server's self-signed certificate

    @contextlib.contextmanager
    def client(self) -> Iterator[imaplib.IMAP4]:
        """A signed-in imaplib client of the test's own (to append and look)."""
        client = imaplib.IMAP4(self.host, self.port, timeout=10)
        if self.certificate is not None:
            client.starttls(self.trusting())
        try:
            client.login(self.user, self.password)
            yield client
        finally:
            with contextlib.suppress(Exception):
                client.logout()

    def trusting(self) -> ssl.SSLContext:
        """A client's TLS context that trusts this server's certificate (and no other)."""
        return ssl.create_default_context(cafile=str(self.certificate))

    def append(self, message: EmailMessage, folder: str = "INBOX") -> None:
        """APPEND a message to a folder."""
        with self.client() as client:
            status, _ = client.append(folder, None, None, message.as_bytes())
            assert status == "OK"

    def messages(self, folder: str = "INBOX") -> list[tuple[str, bytes]]:
        """Each message of a folder (not deleted): its Message-ID header line and its flags."""
        with self.client() as client:
            status, _ = client.select(folder, readonly=True)
            if status != "OK":
                return []
            status, data = client.uid("SEARCH", "UNDELETED")
            found: list[tuple[str, bytes]] = []
            for uid in (data[0] or b"").decode().split():
                _, parts = client.uid("FETCH", uid, "(FLAGS BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)])")
                header = parts[0]
                assert isinstance(header, tuple)
                found.append((header[1].decode().strip(), header[0]))
            return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def imap_server(extra: str = "", *, tls: bool = False) -> Iterator[ImapServer]:
    """Start dovecot in a throwaway folder (extra: more lines of its config; tls: IMAPS on a
    port of its own and STARTTLS required on the other, with a self-signed certificate for
    127.0.0.1); stop it and remove the folder afterwards."""
    if not os.access(DOVECOT, os.X_OK):
        raise RuntimeError("dovecot is not installed: `make dovecot` (Debian's dovecot-imapd)")
    root = Path(tempfile.mkdtemp(prefix="bff-dovecot-"))
    root.chmod(0o755)  # its login and mail processes run as other users
    for part in ("run", "state", "mail"):
        (root / part).mkdir(mode=0o755)
        (root / part).chmod(0o755)  # whatever the umask (the app's is 077)
    passwd = root / "passwd"
    passwd.write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
    passwd.chmod(0o644)  # read by dovecot's auth worker, which runs as its internal user
    if os.geteuid() == 0:
        mail_user = pwd.getpwnam("nobody")
        os.chown(root / "mail", mail_user.pw_uid, mail_user.pw_gid)
        names = {"internal": "dovecot", "login": "dovenull", "chroot": "", "unprivileged": ""}
        uid, gid = mail_user.pw_uid, mail_user.pw_gid
    else:
        me = pwd.getpwuid(os.getuid()).pw_name
        names = {"internal": me, "login": me, "chroot": "chroot =", "unprivileged": UNPRIVILEGED}
        uid, gid = os.getuid(), os.getgid()
    port = free_port()
    imaps_port = free_port() if tls else 0
    if tls:
        _self_signed(root)
    config = root / "dovecot.conf"
    tls_lines = TLS.format(root=root) if tls else NO_TLS
    config.write_text(
        CONFIG.format(
            root=root,
            port=port,
            imaps_port=imaps_port,
            uid=uid,
            gid=gid,
            ssl=tls_lines,
            extra=extra,
            **names,
        )
    )
    config.chmod(0o644)
    log = root / "dovecot.log"
    with log.open("wb") as log_out:
        process = subprocess.Popen(  # noqa: S603 - the installed dovecot, our config
            [DOVECOT, "-F", "-c", str(config)], stdout=log_out, stderr=subprocess.STDOUT
        )
    try:
        _wait_ready(process, port, log)
        certificate = root / "cert.pem" if tls else None
        yield ImapServer("127.0.0.1", port, USER, PASSWORD, log, imaps_port, certificate)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(root, ignore_errors=True)


def _wait_ready(process: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"dovecot stopped at start:\n{log.read_text(errors='replace')}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1) as s:
            if s.recv(100).startswith(b"* OK"):
                return
        time.sleep(0.05)
    raise RuntimeError(f"dovecot did not answer in time:\n{log.read_text(errors='replace')}")


def _self_signed(root: Path) -> None:
    """A key and a self-signed certificate for 127.0.0.1, good for a day."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.now(UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    (root / "cert.pem").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    (root / "key.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
