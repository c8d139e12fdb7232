"""The intake's mailbox (BFF_INTAKE_IMAP_*): an IMAP folder polled for messages, each message's
PDF, image (JPEG, PNG, TIFF) and DOCX attachments handed to `take` (the intake's commit) one by
one, with the message's sender, subject and Message-ID. Only once every attachment of a
message was taken is the message moved to the processed folder (UID MOVE; a server without
MOVE has it flagged FLAG_DONE instead, and flagged messages are never polled again); a take
that fails leaves the message as it was, taken again at the next poll (the commit dedupes by
hash while their items wait in the inbox, so the attachments taken before the failure are
harmless again). At most MAX_ATTACHMENTS attachments of a message are taken, each at most the
upload maximum. A message a person must look at is left in the mailbox's folder, flagged
FLAG_REVIEW (never polled again; its taken attachments keep their items), with a log line of
counts only: one with parts skipped (another type, too large, past the count, a picture in the
text larger than INLINE_PICTURE_BYTES), one without a usable attachment (a letter in the mail's
text), one larger than `message_limit` (its size asked first, RFC822.SIZE: never fetched). Nothing
that came in is lost unseen.

A message is read whole into the server's memory while its attachments are taken, so its size
is bounded by what one upload may be: `message_limit`, the upload maximum base64-encoded (as
mail carries it) plus MESSAGE_OVERHEAD for its text and headers (about 70 MB with the default
BFF_MAX_UPLOAD_MB of 50). A message with several large attachments is left for a person.

The client is imap-tools (over the standard library's imaplib, run in a thread, one call at a
time): IMAPS on port 993, STARTTLS on any other port (refused before the password is sent
when the server does not offer it) with the system's certificate checks, plain IMAP only with
BFF_INTAKE_IMAP_TLS_REQUIRED=false. The password is never logged; logs name messages by their
UID and counts, never a sender, subject or file name.

One process at a time polls (`mailbox_job`: a Periodic whose step holds the lease MAIL_LEASE)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import re
import ssl
from dataclasses import dataclass
from email.message import Message
from pathlib import Path, PurePath
from typing import Literal

from imap_tools import MailBox, MailBoxStartTls, MailBoxUnencrypted, MailMessage
from imap_tools.mailbox import BaseMailBox

from bff.intake.incoming import Incoming, Take, clear_copies, private_copy, work_dir
from bff.leases import Periodic, leased
from config.logs import shown
from config.settings import Settings

log = logging.getLogger(__name__)

MAIL_LEASE = "intake-mailbox"
LEASE_SECONDS = 600.0
BATCH = 20  # messages a poll
MAX_ATTACHMENTS = 20  # taken from one message
MESSAGE_OVERHEAD = 1024 * 1024  # a message's text, headers and MIME boundaries
# A message is read whole into memory: never more than this, whatever the upload maximum.
MESSAGE_CAP = 200 * 1024 * 1024
TIMEOUT_SECONDS = 30.0
FLAG_DONE = "$BffIntake"
FLAG_REVIEW = "$BffReview"  # left in the folder for a person: something in it was not taken
# A picture in the text (inline, with a Content-ID) up to this size is a logo or a signature;
# a larger one may be a scanned page, so its message is left for a person.
INLINE_PICTURE_BYTES = 32 * 1024
IMAPS_PORT = 993

TYPES = {
    "application/pdf": ".pdf",
    "image/jpeg": ".jpg",
    "image/png": ".png",
    "image/tiff": ".tif",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
}
SUFFIXES = {".pdf", ".jpg", ".jpeg", ".png", ".tif", ".tiff", ".docx"}


@dataclass(frozen=True)
class MailConfig:
    """Where the mailbox is and how to reach it."""

    host: str
    port: int
    user: str
    password: str
    folder: str = "INBOX"
    processed_folder: str = "Processed"
    # "imaps": TLS from the start; "starttls": plain IMAP upgraded before anything is sent;
    # "none": no TLS at all (only where the settings allow it)
    tls: Literal["imaps", "starttls", "none"] = "imaps"

    @classmethod
    def of(cls, settings: Settings) -> MailConfig | None:
        """The mailbox the settings name, or None while BFF_INTAKE_IMAP_HOST is unset."""
        if not settings.intake_imap_host:
            return None
        return cls(
            settings.intake_imap_host,
            settings.intake_imap_port,
            settings.intake_imap_user,
            settings.intake_imap_password,
            settings.intake_imap_folder,
            settings.intake_imap_processed_folder,
            _tls(settings),
        )


def _tls(settings: Settings) -> Literal["imaps", "starttls", "none"]:
    if not settings.intake_imap_tls_required:
        return "none"
    return "imaps" if settings.intake_imap_port == IMAPS_PORT else "starttls"


def message_limit(max_bytes: int) -> int:
    """The largest message read: one attachment of max_bytes base64-encoded (4 bytes for 3,
    in lines of 76 characters), with MESSAGE_OVERHEAD for the rest."""
    encoded = (max_bytes + 2) // 3 * 4
    return encoded + encoded // 76 * 2 + MESSAGE_OVERHEAD


class Mailbox:
    """Polls one mailbox folder (see the module's docstring). max_bytes: an attachment's
    largest size (the upload maximum); max_message_bytes: a message's (default:
    `message_limit(max_bytes)`)."""

    def __init__(
        self,
        config: MailConfig,
        take: Take,
        *,
        max_bytes: int,
        max_attachments: int = MAX_ATTACHMENTS,
        max_message_bytes: int | None = None,
        work_dir: Path | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self._config = config
        self._take = take
        self._max_bytes = max_bytes
        self._max_attachments = max_attachments
        self._max_message_bytes = max_message_bytes or min(message_limit(max_bytes), MESSAGE_CAP)
        self._work_dir = work_dir
        self._ssl = ssl_context

    async def poll(self) -> int:
        """Take the messages waiting (at most BATCH); how many were marked done or left for a
        person."""
        await asyncio.to_thread(clear_copies, self._work_dir)
        try:
            box, can_move = await asyncio.to_thread(self._connect)
        except Exception as failure:  # noqa: BLE001 - reported without the password
            raise MailboxUnavailable(self._redacted(failure)) from None
        try:
            waiting = f"UNDELETED UNKEYWORD {FLAG_DONE} UNKEYWORD {FLAG_REVIEW}"
            uids = await asyncio.to_thread(box.uids, waiting, None)
            done = 0
            for uid in uids[:BATCH]:
                done += await self._message(box, uid, can_move)
            return done
        finally:
            with contextlib.suppress(Exception):
                await asyncio.to_thread(box.logout)

    def _connect(self) -> tuple[BaseMailBox, bool]:
        config = self._config
        context = self._ssl or ssl.create_default_context()
        box: BaseMailBox
        if config.tls == "none":
            box = MailBoxUnencrypted(config.host, config.port, timeout=TIMEOUT_SECONDS)
        elif config.tls == "imaps":
            box = MailBox(config.host, config.port, timeout=TIMEOUT_SECONDS, ssl_context=context)
        else:
            box = MailBoxStartTls(
                config.host, config.port, timeout=TIMEOUT_SECONDS, ssl_context=context
            )
        try:
            box.login(config.user, config.password, initial_folder=None)
            if not box.folder.exists(config.processed_folder):
                box.folder.create(config.processed_folder)
            box.folder.set(config.folder)
            # imaplib keeps the capabilities from before the login; ask again (MOVE among them)
            status, data = box.client.capability()
            can_move = status == "OK" and b"MOVE" in (data[-1] or b"").upper().split()
        except BaseException:
            with contextlib.suppress(Exception):
                box.logout()
            raise
        return box, can_move

    async def _message(self, box: BaseMailBox, uid: str, can_move: bool) -> int:
        # Its size first (RFC822.SIZE): a message over the limit is never fetched.
        size = await asyncio.to_thread(_size, box, uid)
        if size is None:
            return 0  # gone meanwhile (another client moved it)
        if size > self._max_message_bytes:
            log.warning(
                "Mailbox: message %s of %d bytes not read (too large); left for a person (%s).",
                uid,
                size,
                FLAG_REVIEW,
            )
            await asyncio.to_thread(_flag, box, uid, FLAG_REVIEW)
            return 1
        fetched = await asyncio.to_thread(lambda: list(box.fetch(uid_list=[uid], mark_seen=False)))
        if not fetched:
            return 0
        message = fetched[0]
        parts, skipped = _documents(message.obj, self._max_bytes, self._max_attachments)
        for index, (name, payload) in enumerate(parts):
            try:
                await self._take_one(message, name, payload)
            except Exception as failure:  # noqa: BLE001 - the message is taken again later
                log.warning(
                    "Mailbox: message %s, attachment %d of %d not taken (%s); "
                    "the message stays for the next poll.",
                    uid,
                    index + 1,
                    len(parts),
                    shown(type(failure).__name__),
                )
                return 0
        if not parts or skipped:
            await asyncio.to_thread(_flag, box, uid, FLAG_REVIEW)
            log.info(
                "Mailbox: message %s: %d attachments taken, %d skipped (type, size, count or "
                "a picture in the text); left for a person (%s).",
                uid,
                len(parts),
                skipped,
                FLAG_REVIEW,
            )
            return 1
        await asyncio.to_thread(self._done, box, uid, can_move)
        return 1

    async def _take_one(self, message: MailMessage, name: str, payload: bytes) -> None:
        path = private_copy(self._work_dir)
        try:
            await asyncio.to_thread(path.write_bytes, payload)
            message_id = str(message.obj.get("Message-ID", "")).strip()
            await self._take(
                Incoming(
                    "mailbox",
                    name,
                    path,
                    len(payload),
                    hashlib.sha256(payload).hexdigest(),
                    sender=message.from_,
                    subject=message.subject,
                    message_id=message_id,
                )
            )
        finally:
            path.unlink(missing_ok=True)

    def _done(self, box: BaseMailBox, uid: str, can_move: bool) -> None:
        if can_move:
            box.move(uid, self._config.processed_folder)
        else:  # imap-tools' own fallback would expunge every message flagged \Deleted
            _flag(box, uid, f"{FLAG_DONE} \\Seen")

    def _redacted(self, failure: BaseException) -> str:
        text = f"{type(failure).__name__}: {failure}"
        if self._config.password:
            text = text.replace(self._config.password, "***")
        return text


class MailboxUnavailable(Exception):
    """The mailbox could not be reached, signed in to or changed (the reason has no password)."""


def _flag(box: BaseMailBox, uid: str, flags: str) -> None:
    """Add flags (space-separated) to a message."""
    status, _ = box.client.uid("STORE", uid, "+FLAGS", f"({flags})")
    if status != "OK":
        raise MailboxUnavailable(f"flagging message {uid} failed")


def _size(box: BaseMailBox, uid: str) -> int | None:
    status, data = box.client.uid("FETCH", uid, "(RFC822.SIZE)")
    for item in data if status == "OK" else []:
        found = re.search(rb"RFC822\.SIZE (\d+)", item if isinstance(item, bytes) else b"")
        if found:
            return int(found.group(1))
    return None


def _documents(
    message: Message, max_bytes: int, max_count: int
) -> tuple[list[tuple[str, bytes]], int]:
    """A message's usable attachments (name, bytes), at most max_count of at most
    max_bytes each, and how many others were skipped (other types, too large, past the count,
    a picture in the text larger than INLINE_PICTURE_BYTES). A smaller picture in the text
    (inline, with a Content-ID: a logo, a signature) is neither."""
    found: list[tuple[str, bytes]] = []
    skipped = 0
    for part in message.walk():
        if part.is_multipart():
            continue
        kind = part.get_content_type()
        name = (part.get_filename() or "").strip()
        suffix = PurePath(name).suffix.lower()
        if kind not in TYPES and suffix not in SUFFIXES:
            if name:
                skipped += 1
            continue
        payload = part.get_payload(decode=True)
        inline = part.get_content_disposition() == "inline"
        if inline and part.get("Content-ID") and kind.startswith("image/"):
            if isinstance(payload, bytes) and len(payload) > INLINE_PICTURE_BYTES:
                skipped += 1  # a picture in the text that may be a scanned page
            continue  # else a logo or a signature, not a document
        if not isinstance(payload, bytes) or not payload:
            skipped += 1
            continue
        if len(payload) > max_bytes or len(found) >= max_count:
            skipped += 1
            continue
        found.append((name or f"attachment-{len(found) + 1}{TYPES.get(kind, '')}", payload))
    return found, skipped


def mailbox_job(settings: Settings, take: Take) -> Periodic | None:
    """The mailbox's background job (None while BFF_INTAKE_IMAP_HOST is unset): one process at
    a time polls it every BFF_INTAKE_IMAP_POLL_SECONDS, under the lease MAIL_LEASE."""
    config = MailConfig.of(settings)
    if config is None:
        return None
    mailbox = Mailbox(
        config,
        take,
        max_bytes=settings.max_upload_bytes,
        work_dir=work_dir(settings.var_dir, "mailbox"),
    )

    async def poll() -> None:
        async with leased(MAIL_LEASE, LEASE_SECONDS) as held:
            if held:
                await mailbox.poll()

    return Periodic(settings.intake_imap_poll_seconds, [("Intake mailbox", poll)], at_start=True)
