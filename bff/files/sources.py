"""Where a file's content came from, kept on its row (`source`, migration 0040) when it did not
come by an upload to its folder: a document the intake filed (bff/intake/filing.py) keeps its
source (the scanner, the mailbox and the mail's sender, an upload to the Intake page), whether
its cover sheet filed it or a person did, and the intake item it was. Its versions and trash
entries keep it with the content; a new upload over it has none.

The folder's listing and a file's versions show it to those who may see the file (the mail's
sender is for the folder's staff: the emergency view leaves it out); live events carry none of
it, the listing refetched on `file:uploaded` does."""

from __future__ import annotations

from typing import Any

from bff.files.schemas import FileSource

KINDS = ("scanner", "mailbox", "upload")


def intake_source(kind: str, item_id: int, *, sender: str, cover_sheet: bool) -> dict[str, Any]:
    """The `source` kept with a document the intake filed: its kind (KINDS), the mail's sender
    (kind mailbox only), whether a cover sheet filed it, and its intake item's id."""
    return {
        "kind": kind,
        "sender": sender if kind == "mailbox" else "",
        "coverSheet": cover_sheet,
        "item": item_id,
    }


def source_out(kept: Any) -> FileSource | None:
    """The API shape of a row's `source`: None for a file uploaded to its folder (or a value
    this version cannot read, rather than a failed listing)."""
    if not isinstance(kept, dict) or kept.get("kind") not in KINDS:
        return None
    sender = kept.get("sender")
    return FileSource(
        kind=kept["kind"],
        sender=sender if isinstance(sender, str) and sender else None,
        coverSheet=kept.get("coverSheet") is True,
    )
