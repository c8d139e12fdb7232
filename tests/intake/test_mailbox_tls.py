"""The intake's mailbox and TLS, against a real dovecot (tests/intake/imap_server.py): TLS
required unless the settings say otherwise, STARTTLS and IMAPS with the server's certificate
checked, the password never shown."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bff.intake.mailbox import Mailbox, MailboxUnavailable, MailConfig
from config.settings import load_settings
from tests.intake.imap_server import ImapServer, imap_server
from tests.intake.test_mailbox import PDF_ONE, PDF_TWO, Taker, ids, mail, mailbox


@pytest.fixture
def server() -> Iterator[ImapServer]:
    with imap_server() as running:
        yield running


async def test_tls_is_required_unless_a_setting_says_otherwise(
    server: ImapServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The test server offers no STARTTLS: with TLS required, nothing is sent before it, so
    the password never crosses the network in the clear."""
    server.append(mail("<tls@gp.example>", ("one.pdf", "application/pdf", PDF_ONE)))
    take = Taker(server)
    logins = server.log.read_text().count("Login: user=")  # the test's own APPEND
    with pytest.raises(MailboxUnavailable) as refused:
        await mailbox(server, take, tls="starttls").poll()
    assert "TLS not supported" in str(refused.value)
    assert server.password not in str(refused.value)
    assert take.calls == 0
    assert server.log.read_text().count("Login: user=") == logins
    assert ids(server) == ["Message-ID: <tls@gp.example>"]


async def test_starttls_and_imaps_with_the_servers_certificate_checked() -> None:
    """A server that requires TLS, with a certificate of its own: STARTTLS on the IMAP port
    and IMAPS on its port both work when the certificate is trusted, and a client that does
    not trust it refuses before signing in."""
    with imap_server(tls=True) as server:
        server.append(mail("<starttls@gp.example>", ("one.pdf", "application/pdf", PDF_ONE)))
        take = Taker(server)
        starttls = MailConfig(
            server.host, server.port, server.user, server.password, tls="starttls"
        )
        assert (
            await Mailbox(starttls, take, max_bytes=10_000, ssl_context=server.trusting()).poll()
            == 1
        )
        server.append(mail("<imaps@gp.example>", ("two.pdf", "application/pdf", PDF_TWO)))
        imaps = MailConfig(server.host, server.imaps_port, server.user, server.password)
        assert imaps.tls == "imaps"
        logins = server.log.read_text().count("Login: user=")
        with pytest.raises(MailboxUnavailable, match="CERTIFICATE_VERIFY_FAILED"):
            await Mailbox(imaps, take, max_bytes=10_000).poll()  # the system's trust only
        assert server.log.read_text().count("Login: user=") == logins
        assert (
            await Mailbox(imaps, take, max_bytes=10_000, ssl_context=server.trusting()).poll() == 1
        )
        assert [data for _, data in take.taken] == [PDF_ONE, PDF_TWO]
        assert ids(server) == []
        assert "TLS" in server.log.read_text()


def test_the_settings_choose_imaps_on_993_starttls_elsewhere_and_plain_only_if_allowed(
    tmp_path: Path,
) -> None:
    def tls(**values: object) -> str | None:
        config = MailConfig.of(load_settings(var_dir=tmp_path, **values))
        return None if config is None else config.tls

    assert tls() is None  # no host: no mailbox
    assert tls(intake_imap_host="mail.example") == "imaps"
    assert tls(intake_imap_host="mail.example", intake_imap_port=143) == "starttls"
    assert (
        tls(intake_imap_host="mail.example", intake_imap_port=143, intake_imap_tls_required=False)
        == "none"
    )


async def test_a_wrong_password_is_refused_without_showing_it(server: ImapServer) -> None:
    take = Taker(server)
    with pytest.raises(MailboxUnavailable) as refused:
        await mailbox(server, take, password="wrong-secret-4711").poll()
    assert "wrong-secret-4711" not in str(refused.value)
    assert "MailboxLoginError" in str(refused.value)
