"""The intake's mailbox against a real dovecot (tests/intake/imap_server.py): each message's
documents handed to the take with their sender, subject and Message-ID; the message moved to
the processed folder (or flagged, without MOVE) only after every take returned, or left in the
inbox flagged for a person when something in it was not taken; a failed or
interrupted take leaves it to be taken at the next poll; TLS required by default."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import logging
import os
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from quart import Quart

from bff.intake.incoming import Incoming
from bff.intake.mailbox import (
    FLAG_DONE,
    FLAG_REVIEW,
    INLINE_PICTURE_BYTES,
    MAIL_LEASE,
    MESSAGE_CAP,
    Mailbox,
    MailConfig,
    mailbox_job,
    message_limit,
)
from bff.leases import take_lease
from tests.conftest import make_settings
from tests.intake.imap_server import ImapServer, imap_server

PROCESSED = "Processed"
ROOT = Path(__file__).resolve().parents[2]
PDF_ONE = b"%PDF-1.4 referral letter\n%%EOF\n"
PDF_TWO = b"%PDF-1.4 lab report\n%%EOF\n"
JPEG = b"\xff\xd8\xff\xe0 a photo of a letter"
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


@pytest.fixture
def server() -> Iterator[ImapServer]:
    with imap_server() as running:
        yield running


def mail(message_id: str, *attachments: tuple[str, str, bytes]) -> EmailMessage:
    message = EmailMessage()
    message["From"] = "Dr Who <gp@surgery.example>"
    message["To"] = "intake@hospital.example"
    message["Subject"] = "Referral: Jane Smith"
    message["Message-ID"] = message_id
    message.set_content("Please find the documents attached.")
    for name, kind, data in attachments:
        maintype, subtype = kind.split("/")
        message.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)
    return message


def mailbox(server: ImapServer, take: Taker, **config: object) -> Mailbox:
    values: dict[str, object] = {
        "host": server.host,
        "port": server.port,
        "user": server.user,
        "password": server.password,
        "processed_folder": PROCESSED,
        "tls": "none",
    }
    values.update(config)
    return Mailbox(MailConfig(**values), take, max_bytes=1_000_000)  # type: ignore[arg-type]


class Taker:
    """The intake's commit as the mailbox sees it: records each Incoming with its bytes and
    where its message was while the take ran; fails the calls numbered in `failing`."""

    def __init__(self, server: ImapServer, failing: tuple[int, ...] = ()) -> None:
        self.server = server
        self.failing = failing
        self.calls = 0
        self.taken: list[tuple[Incoming, bytes]] = []
        self.inbox_during_take: list[list[str]] = []

    async def __call__(self, incoming: Incoming) -> None:
        self.calls += 1
        self.inbox_during_take.append(
            [mid for mid, _ in await asyncio.to_thread(self.server.messages)]
        )
        if self.calls in self.failing:
            raise RuntimeError("commit failed")
        self.taken.append((incoming, incoming.path.read_bytes()))


def ids(server: ImapServer, folder: str = "INBOX") -> list[str]:
    return [mid for mid, _ in server.messages(folder)]


async def test_two_pdfs_make_two_incomings_and_the_message_moves_after_both(
    server: ImapServer,
) -> None:
    server.append(
        mail(
            "<two@gp.example>",
            ("referral Smith.pdf", "application/pdf", PDF_ONE),
            ("labs.pdf", "application/pdf", PDF_TWO),
        )
    )
    take = Taker(server)
    assert await mailbox(server, take).poll() == 1
    assert [(i.name, data) for i, data in take.taken] == [
        ("referral Smith.pdf", PDF_ONE),
        ("labs.pdf", PDF_TWO),
    ]
    first = take.taken[0][0]
    assert first.source == "mailbox"
    assert first.sender == "gp@surgery.example"
    assert first.subject == "Referral: Jane Smith"
    assert first.message_id == "<two@gp.example>"
    assert first.size == len(PDF_ONE)
    assert first.sha256 == hashlib.sha256(PDF_ONE).hexdigest()
    assert not first.path.exists(), "the private copy is removed once taken"
    # while each take ran, the message was still in the inbox
    assert take.inbox_during_take == [["Message-ID: <two@gp.example>"]] * 2
    assert ids(server) == []
    assert ids(server, PROCESSED) == ["Message-ID: <two@gp.example>"]


async def test_a_failed_take_leaves_the_message_for_the_next_poll(
    server: ImapServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bff.intake")
    server.append(
        mail(
            "<retry@gp.example>",
            ("one.pdf", "application/pdf", PDF_ONE),
            ("two.pdf", "application/pdf", PDF_TWO),
        )
    )
    take = Taker(server, failing=(2,))  # the second attachment's commit fails
    box = mailbox(server, take)
    assert await box.poll() == 0
    assert ids(server) == ["Message-ID: <retry@gp.example>"]
    assert ids(server, PROCESSED) == []
    assert all(FLAG_DONE.encode() not in flags for _, flags in server.messages())
    assert "attachment 2 of 2 not taken (RuntimeError)" in caplog.text
    assert await box.poll() == 1  # the next poll takes the whole message again
    assert [i.name for i, _ in take.taken] == ["one.pdf", "one.pdf", "two.pdf"]
    assert ids(server) == []
    assert ids(server, PROCESSED) == ["Message-ID: <retry@gp.example>"]
    assert "Smith" not in caplog.text and "gp@surgery" not in caplog.text


async def test_a_take_cut_off_leaves_the_message_unprocessed(server: ImapServer) -> None:
    """A crash while the commit runs: the message stays in the inbox, unflagged."""
    server.append(mail("<crash@gp.example>", ("one.pdf", "application/pdf", PDF_ONE)))
    started = asyncio.Event()

    async def never(incoming: Incoming) -> None:
        started.set()
        await asyncio.Event().wait()

    poll = asyncio.get_running_loop().create_task(
        Mailbox(
            MailConfig(server.host, server.port, server.user, server.password, tls="none"),
            never,
            max_bytes=1_000_000,
        ).poll()
    )
    async with asyncio.timeout(10):
        await started.wait()
    poll.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await poll
    assert ids(server) == ["Message-ID: <crash@gp.example>"]
    take = Taker(server)
    assert await mailbox(server, take).poll() == 1
    assert [data for _, data in take.taken] == [PDF_ONE]


def flagged_for_review(server: ImapServer) -> list[str]:
    """The messages left in the inbox for a person (FLAG_REVIEW, not done)."""
    left = [(mid, flags) for mid, flags in server.messages() if FLAG_REVIEW.encode() in flags]
    assert all(FLAG_DONE.encode() not in flags for _, flags in left)
    return sorted(mid for mid, _ in left)


async def test_a_message_without_documents_is_left_for_a_person(
    server: ImapServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bff.intake")
    server.append(mail("<plain@gp.example>"))
    server.append(mail("<text@gp.example>", ("notes.txt", "text/plain", b"not a document")))
    take = Taker(server)
    box = mailbox(server, take)
    assert await box.poll() == 2
    assert take.calls == 0
    assert ids(server, PROCESSED) == []
    assert flagged_for_review(server) == [
        "Message-ID: <plain@gp.example>",
        "Message-ID: <text@gp.example>",
    ]
    assert "0 attachments taken, 0 skipped" in caplog.text
    assert "0 attachments taken, 1 skipped" in caplog.text
    assert "Jane Smith" not in caplog.text and "notes.txt" not in caplog.text
    assert await box.poll() == 0  # never taken again


async def test_a_message_with_skipped_parts_keeps_its_documents_and_waits_for_a_person(
    server: ImapServer,
) -> None:
    server.append(
        mail(
            "<lab@gp.example>",
            ("result.pdf", "application/pdf", PDF_ONE),
            ("result.xml", "application/xml", b"<result/>"),
        )
    )
    scan = mail("<inline@gp.example>", ("cover.pdf", "application/pdf", PDF_TWO))
    page = JPEG + bytes(INLINE_PICTURE_BYTES)  # a scanned page embedded in the text
    scan.add_attachment(page, maintype="image", subtype="jpeg", disposition="inline", cid="<p1>")
    server.append(scan)
    signed = mail("<logo@gp.example>", ("letter.pdf", "application/pdf", PDF_ONE + b"2"))
    signed.add_attachment(JPEG, maintype="image", subtype="png", disposition="inline", cid="<l>")
    server.append(signed)  # a logo in the text is no document: done, moved
    take = Taker(server)
    box = mailbox(server, take)
    assert await box.poll() == 3
    assert [i.name for i, _ in take.taken] == ["result.pdf", "cover.pdf", "letter.pdf"]
    assert ids(server, PROCESSED) == ["Message-ID: <logo@gp.example>"]
    assert flagged_for_review(server) == [
        "Message-ID: <inline@gp.example>",
        "Message-ID: <lab@gp.example>",
    ]
    assert await box.poll() == 0
    assert take.calls == 3


async def test_documents_are_pdfs_images_and_docx_and_embedded_pictures_are_not(
    server: ImapServer,
) -> None:
    message = mail(
        "<mixed@gp.example>",
        ("scan.pdf", "application/pdf", PDF_ONE),
        ("photo.jpg", "image/jpeg", JPEG),
        ("letter.docx", DOCX_TYPE, b"PK\x03\x04 a docx"),
        ("fax.TIF", "application/octet-stream", b"II*\x00 a fax"),
        ("notes.txt", "text/plain", b"skipped"),
        ("big.pdf", "application/pdf", b"%PDF" + b"x" * 1_000_001),
    )
    message.add_attachment(
        JPEG, maintype="image", subtype="png", disposition="inline", cid="<logo>"
    )
    server.append(message)
    take = Taker(server)
    assert await mailbox(server, take).poll() == 1
    assert [i.name for i, _ in take.taken] == ["scan.pdf", "photo.jpg", "letter.docx", "fax.TIF"]


async def test_too_many_attachments_and_too_large_messages_are_bounded(
    server: ImapServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bff.intake")
    pdfs = [(f"page{n}.pdf", "application/pdf", PDF_ONE + bytes([n])) for n in range(4)]
    server.append(mail("<many@gp.example>", *pdfs))
    server.append(mail("<huge@gp.example>", ("big.pdf", "application/pdf", b"%PDF" * 20_000)))
    take = Taker(server)
    config = MailConfig(
        server.host, server.port, server.user, server.password, "INBOX", PROCESSED, "none"
    )
    box = Mailbox(config, take, max_bytes=1_000_000, max_attachments=3, max_message_bytes=50_000)
    assert await box.poll() == 2
    assert [i.name for i, _ in take.taken] == ["page0.pdf", "page1.pdf", "page2.pdf"]
    assert ids(server, PROCESSED) == []
    assert flagged_for_review(server) == [
        "Message-ID: <huge@gp.example>",
        "Message-ID: <many@gp.example>",
    ]
    assert "3 attachments taken, 1 skipped" in caplog.text
    assert "not read (too large); left for a person" in caplog.text


async def test_a_message_over_the_limit_is_flagged_and_never_fetched(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A message larger than one attachment may be (the upload maximum base64-encoded:
    message_limit) is left for a person after only its size was asked (RFC822.SIZE): dovecot's
    rawlog of every session shows nothing of its body sent, while the message within the limit
    beside it was read (it had been fetched whole, up to 200 MB, into the server's memory)."""
    caplog.set_level(logging.INFO, logger="bff.intake")
    small, large = b"%PDF-1.4 " + os.urandom(30_000), b"%PDF-1.4 " + os.urandom(2_000_000)
    with imap_server("rawlog_dir = %h/rawlog") as server:
        server.append(mail("<small@gp.example>", ("small.pdf", "application/pdf", small)))
        server.append(mail("<large@gp.example>", ("large.pdf", "application/pdf", large)))
        sessions = server.log.parent / "mail" / server.user / "rawlog"  # the user's home
        sessions.mkdir()
        sessions.chmod(0o777)  # written by the mail processes (nobody, as root)
        take = Taker(server)
        box = Mailbox(
            MailConfig(server.host, server.port, server.user, server.password, tls="none"),
            take,
            max_bytes=1_000_000,
        )
        assert message_limit(1_000_000) < len(mail("<x@y>", ("l.pdf", "a/b", large)).as_bytes())
        assert await box.poll() == 2
        assert [data for _, data in take.taken] == [small]
        assert flagged_for_review(server) == ["Message-ID: <large@gp.example>"]
        sent = b"".join(log.read_bytes() for log in sessions.glob("*.out"))
    assert base64.b64encode(small)[:76] in sent  # a fetched body shows in the rawlog
    assert base64.b64encode(large)[:76] not in sent
    assert "not read (too large); left for a person" in caplog.text


async def test_a_server_without_move_has_the_message_flagged_and_never_taken_again() -> None:
    no_move = "imap_capability = IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE UIDPLUS LITERAL+"
    with imap_server(no_move) as server:
        server.append(mail("<flag@gp.example>", ("one.pdf", "application/pdf", PDF_ONE)))
        take = Taker(server)
        box = mailbox(server, take)
        assert await box.poll() == 1
        [(mid, flags)] = server.messages()
        assert mid == "Message-ID: <flag@gp.example>"
        assert FLAG_DONE.encode() in flags
        assert await box.poll() == 0
        assert len(take.taken) == 1


async def test_one_process_at_a_time_polls_the_mailbox(
    app: Quart, database_url: str, run_dir: Path, server: ImapServer
) -> None:
    """The mailbox's job polls only while it holds the lease another instance holds first."""
    settings = make_settings(
        database_url,
        run_dir,
        intake_imap_host=server.host,
        intake_imap_port=server.port,
        intake_imap_user=server.user,
        intake_imap_password=server.password,
        intake_imap_processed_folder=PROCESSED,
        intake_imap_tls_required=False,
        intake_imap_poll_seconds=1,
    )
    now = datetime.now(UTC)
    await take_lease(MAIL_LEASE, "other-instance:1", now, now + timedelta(minutes=1))
    server.append(mail("<turn@gp.example>", ("one.pdf", "application/pdf", PDF_ONE)))
    take = Taker(server)
    job = mailbox_job(settings, take)
    assert job is not None
    job.start()
    try:
        await asyncio.sleep(2.5)  # polls came and found the lease taken
        assert take.calls == 0
        await take_lease(MAIL_LEASE, "other-instance:1", now, now - timedelta(seconds=1))
        for _ in range(80):  # 8 s at most for the next poll to take and move it
            if take.taken and not ids(server):
                break
            await asyncio.sleep(0.1)
    finally:
        await job.stop()
    assert ids(server, PROCESSED) == ["Message-ID: <turn@gp.example>"]
    assert mailbox_job(make_settings(database_url, run_dir), take) is None


KILLED_TAKER = """
import asyncio, sys
from pathlib import Path
from bff.intake.mailbox import MailConfig, Mailbox

async def take(incoming):
    Path(sys.argv[4]).write_text(incoming.message_id)  # the take has begun: kill me now
    await asyncio.Event().wait()

config = MailConfig("127.0.0.1", int(sys.argv[1]), sys.argv[2], sys.argv[3], tls="none")
asyncio.run(Mailbox(config, take, max_bytes=10**6, work_dir=Path(sys.argv[5])).poll())
"""


async def test_a_process_killed_during_its_take_leaves_the_message_unprocessed(
    server: ImapServer, tmp_path: Path
) -> None:
    """SIGKILL while the commit runs: the message stays in the inbox, unflagged, and the next
    poll takes it (the private copy the killed process left is removed)."""
    server.append(mail("<killed@gp.example>", ("one.pdf", "application/pdf", PDF_ONE)))
    began, copies = tmp_path / "began", tmp_path / "copies"
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        KILLED_TAKER,
        str(server.port),
        server.user,
        server.password,
        str(began),
        str(copies),
        cwd=ROOT,
    )
    try:
        for _ in range(200):  # 20 s at most for the child to start and reach its take
            if began.exists():
                break
            await asyncio.sleep(0.1)
    finally:
        child.kill()
        await child.wait()
    assert began.read_text() == "<killed@gp.example>"
    [(mid, flags)] = server.messages()
    assert mid == "Message-ID: <killed@gp.example>" and FLAG_DONE.encode() not in flags
    assert ids(server, PROCESSED) == []
    assert len(list(copies.iterdir())) == 1  # its copy, left by the kill
    take = Taker(server)
    box = Mailbox(
        MailConfig(server.host, server.port, server.user, server.password, tls="none"),
        take,
        max_bytes=10**6,
        work_dir=copies,
    )
    assert await box.poll() == 1
    assert [data for _, data in take.taken] == [PDF_ONE]
    assert list(copies.iterdir()) == []
    assert ids(server, PROCESSED) == ["Message-ID: <killed@gp.example>"]


async def _no_take(*_: object) -> None:
    raise AssertionError("nothing is taken here")


def test_a_message_read_whole_is_capped_whatever_the_upload_maximum() -> None:
    """A message is read into memory: with a 10,000 MB upload maximum the mailbox still reads
    none larger than MESSAGE_CAP (a larger one is flagged for review, unread)."""
    config = MailConfig("127.0.0.1", 1, "u", "p", tls="none")
    huge = Mailbox(config, _no_take, max_bytes=10_000 * 1024 * 1024)
    assert huge._max_message_bytes == MESSAGE_CAP
    small = Mailbox(config, _no_take, max_bytes=1_000_000)
    assert small._max_message_bytes == message_limit(1_000_000)
