"""Every new content's screening on its way in, at the one chokepoint every way in passes
(bff/files/storing.py's `_stage_and_index`: uploads, new versions, the demo, and every future
way in): its bytes watched as they are staged (`Screening.watch`), then a verdict once they are
all in (`Screening.verdict`), before anything is indexed. A refusal raises `ApiError`; the
staged bytes are then abandoned as every failure before the commit abandons them (an infected
file's kept in quarantine first). Every refusal is audited `file_rejected` (who, where, why: the
scan's in bff/scan/, the content checks' here, a user's repeats within a minute one entry with
their count). What screening found and let in (`Screened`) is stored with the file's row.

Two parts fill it (issue 49): the malware scan by clamd (bff/scan/) and the content checks
(the type from the bytes, empty and damaged files, a PDF's active content: content.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from bff.audit.service import Actor, record_repeated
from bff.containers.models import Folder
from bff.errors import ApiError
from bff.files.content import ContentCheck, Findings
from bff.scan.service import Place, Scan, Scanned
from storage.base import Storage


@dataclass
class Screened:
    """What screening found in content it let in: the file's row's columns (`values`).

    active_content: a PDF's active content, named ("JavaScript, embedded files"; "" for none);
    displayable: false for a damaged PDF kept by BFF_DAMAGED_PDF=keep (content.py)."""

    active_content: str = field(default="")
    displayable: bool = field(default=True)
    scanned: Scanned = field(default_factory=Scanned)  # the malware scan's state (bff/scan/)

    def values(self) -> dict[str, Any]:
        """The columns of the file's row this sets."""
        return {
            "active_content": self.active_content,
            "displayable": self.displayable,
            **self.scanned.values(),
        }


async def refused(actor: Actor, folder: Folder | Place, name: str, message: str) -> None:
    """Audit content the checks refused (`file_rejected`: who, the container, folder and name,
    and the message the uploader was given). Only the same refusal repeated (the same user,
    folder, name and message, as a script retrying it would) within a minute is one entry
    with its count: a refusal of any other file is written in full, as its upload would be.
    folder: a folder, or the place of one of the product's own areas (the intake's)."""
    place = Place.of(folder)
    where = f"{place.container}/{place.folder}/{name}"
    ident = folder.id if isinstance(folder, Folder) else place.key.path
    await record_repeated(
        actor,
        "file_rejected",
        reason=f"content checks\n{ident}\n{name}\n{message}",
        container=place.container,
        folder=place.folder,
        blob=name,
        details=f"content checks refused it: {message}",
        counted_as=f"the same upload refused again ({where}): {message}",
    )


class Screening:
    """One content's screening: `watch` its chunks on their way to staging, then `verdict`.

    name: the name it is stored under (the RTF's own name for a converted RTF's original);
    declared_type: the content type it is stored with; checked: whether the content checks
    apply (not to content the portal made itself, such as a profile image's JPEG)."""

    def __init__(self, name: str, declared_type: str, *, checked: bool = True) -> None:
        self.name = name
        self.declared_type = declared_type
        self.checked = checked
        # The content checks (content.py): the head kept as the chunks pass, judged after.
        self.content = ContentCheck(name) if checked else None
        self.scan = Scan()  # the malware scan, of the staged content once it is all in

    async def watch(self, chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        """The chunks as they pass to staging, seen on their way."""
        if self.content is not None:
            chunks = self.content.watch(chunks)
        async for chunk in chunks:
            self.scan.count(chunk)
            yield chunk

    async def verdict(
        self, storage: Storage, staging_key: str, folder: Folder | Place, actor: Actor
    ) -> Screened:
        """Once every chunk is staged (under staging_key): what was found, or a refusal
        (`ApiError`)."""
        scanned = await self.scan.verdict(storage, staging_key, folder, actor, self.name)
        # The content checks come after the scan's verdict: an infected file is quarantined
        # whatever its type or name.
        found = Findings()
        if self.content is not None:
            try:
                found = await self.content.verdict(storage, staging_key)
            except ApiError as refusal:
                if refusal.status == 422:  # the content refused (503: the worker pool was full)
                    await refused(actor, folder, self.name, refusal.message)
                raise
        return Screened(found.active_content, found.displayable, scanned=scanned)
