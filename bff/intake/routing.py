"""The intake's routing (issue 51): each new item, once, by exactly one process, after it is
received (and at start and every POLL_SECONDS, for items a crash or a stop left unrouted).

An item is claimed by a conditional UPDATE (repository.claim_routing: pending, or a claim that
ran out; CLAIM_SECONDS, renewed at each step), so a process that dies mid-way leaves it to be
claimed again (claimed more than MAX_ATTEMPTS times, it is left to a person, the problem
said); its heavy work runs in the app's WorkerPool, never in the server's process
(routing_work.py: barcodes, text). The steps:

1. its barcodes read page by page (barcodes.read_codes) and the batch planned (splitting.plan,
   with the deployment's sheet key: a forged, altered or torn sheet never routes, and never
   lets the pages after it join a routed document);
2. a plan of several documents, or one whose cover sheet is to be removed, splits the PDF into
   parts (reshaping.split_item: each part taken in and audited as every document is, the
   original deleted with the split as its reason, `intake_split`); each part is made with the
   sheet routing it and its problems, claimed by this process, and routed in turn: a crash
   between the split and a part's filing leaves the part to be routed by its stored sheet;
3. a document a verified sheet routes is filed to the sheet's folder (looked up by its id:
   a folder no longer there leaves it unfiled, with the problem said; never filed elsewhere)
   as the intake itself, audited `intake_routed` with the sheet's id (filing.file_item: the
   same conditional UPDATE as a person's filing, so of the two exactly one wins);
4. a document that stays in the inbox (suggested by its sheet, or step 5's) gets its
   thumbnail drawn and stored (routing_work.py, bff/intake/thumbnails.py `draw_ahead`), so the
   inbox shows it without a place in the worker pool: before its text is read (a full pool
   gives the item back, as any step does), after a sheet's suggestion (a full pool: drawn on
   demand); a drawing that fails is not the routing's; never for one filed or split (drawn
   for nothing);
5. any other document gets its text (the search's extraction: the PDF's text layer, else OCR)
   and suggest.suggest's folder, if one qualifies, kept as its suggestion with the text around
   each piece of evidence (`excerpts`), audited `intake_suggested` (once: a routing taken
   again after its process died keeps the suggestion it finds): shown, never filed;
6. the problems found kept on the item; `intake:changed` tells the inbox.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

from bff.audit.service import record
from bff.containers.models import Folder
from bff.db import transaction
from bff.errors import ApiError
from bff.intake import repository, sheet_policy
from bff.intake.candidates import candidates_for
from bff.intake.filing import file_item
from bff.intake.models import IntakeItem, Status
from bff.intake.pages import PDF
from bff.intake.reshaping import CHANGED, Workers, split_item
from bff.intake.routing_work import Busy, Unroutable, WorkArea, excerpts
from bff.intake.schemas import FileItem
from bff.intake.service import INTAKE_ACTOR, intake_rooms
from bff.intake.sheets import SheetCode
from bff.intake.splitting import PlannedDocument, plan
from bff.intake.thumbnails import wanted
from bff.leases import INSTANCE
from bff.live.events import INTAKE_CHANGED, publish
from bff.workers import WorkerPool
from config.settings import Settings
from storage.base import Storage, StorageError

log = logging.getLogger(__name__)

CLAIM_SECONDS = 300.0  # a claim's life; each step renews it
POLL_SECONDS = 30.0  # items left unrouted looked for this often (and when woken)
BATCH = 20
MAX_ATTEMPTS = 3  # claims of one item (a process dying, a failure) before it is left to a person
GAVE_UP = "This item could not be routed (tried 3 times): file it by hand."
FOLDER_GONE = "Its cover sheet names a folder that no longer exists: it was not filed."
ONLY_SHEETS = "This scan holds only sheets, no document."
SPLIT_BY_HAND = "This scan holds several documents, but only a PDF can be split: split it by hand."
NOT_SPLIT = "This scan holds several documents but could not be split: {reason}"
NOT_FILED = "Its cover sheet's folder could not be filed to: {reason}"


class Router:
    """One process's routing: one item at a time, in one background task."""

    def __init__(self, storage: Storage, settings: Settings, workers: WorkerPool) -> None:
        self.storage = storage
        self.settings = settings
        self.area = WorkArea(settings, workers)
        self.workers = Workers(workers, settings)  # a split's pages worked on (reshaping.py)
        self.holder = f"{INSTANCE}:{secrets.token_hex(4)}"
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._holding: set[int] = set()  # the items whose claims this router holds now

    def start(self) -> None:
        """Route in the background: now, when woken, and every POLL_SECONDS."""
        self._wake.set()
        self._task = asyncio.get_running_loop().create_task(self._run())

    def wake(self) -> None:
        """An item was received: look for work now."""
        self._wake.set()

    async def stop(self) -> None:
        """Stop; the items being routed (a batch and its parts not yet routed) are given back
        (claimable at once by the next start)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for item_id in sorted(self._holding):
            with contextlib.suppress(Exception):
                await repository.give_back_routing(item_id, self.holder)
        self._holding.clear()

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(POLL_SECONDS):
                    await self._wake.wait()
            self._wake.clear()
            try:
                await self.route_due()
            except Exception:  # the database or storage: tried again later
                log.warning("Intake routing failed; trying again later.", exc_info=True)

    async def route_due(self) -> int:
        """Route the items waiting (until none is left or the workers are busy); how many."""
        routed = 0
        while ids := await repository.routable_ids(datetime.now(UTC), BATCH):
            for item_id in ids:
                try:
                    routed += await self.route(item_id)
                except Busy:
                    return routed  # the next poll or wake tries again
        return routed

    async def _claim(self, item_id: int) -> bool:
        now = datetime.now(UTC)
        until = now + timedelta(seconds=CLAIM_SECONDS)
        return await repository.claim_routing(item_id, self.holder, now, until)

    async def _renew(self, item_id: int) -> None:
        until = datetime.now(UTC) + timedelta(seconds=CLAIM_SECONDS)
        await repository.renew_routing(item_id, self.holder, until)

    async def route(self, item_id: int) -> bool:
        """Route one item if this process can claim it; whether it did."""
        if not await self._claim(item_id):
            return False
        self._holding.add(item_id)  # a batch's parts route inside it: each held till done
        try:
            problems = await self._route(item_id)
        except Busy:
            await repository.give_back_routing(item_id, self.holder)
            self._holding.discard(item_id)
            raise
        except Exception:  # tried again once its claim runs out
            self._holding.discard(item_id)
            raise
        if await repository.end_routing(None, item_id, self.holder, problems):
            publish(INTAKE_CHANGED, {"id": item_id}, intake_rooms)
        self._holding.discard(item_id)
        return True

    async def _route(self, item_id: int) -> list[str]:
        """The steps for a claimed item; the problems a person should know of."""
        item = await repository.item_by_id(item_id)
        if item is None or item.status != Status.NEW:
            return []
        if item.routing_attempts > MAX_ATTEMPTS:  # each claim before ran out or failed
            return [GAVE_UP]
        if item.route:  # a part of a batch, routed by the sheet before it
            code = SheetCode(int(item.route["folderId"]), str(item.route["sheetId"]))
            problems = await self._by_sheet(item, code)
            await self._thumbnail_if_kept(item)
            return problems
        try:
            async with self.area.copy(self.storage, item) as path:
                codes = await self.area.codes(path, item)
                documents = plan(codes, self._key()) if codes is not None else []
                if codes is None or (
                    len(documents) == 1 and documents[0].pages == tuple(range(len(codes)))
                ):
                    route = documents[0].route if documents else None
                    problems = list(documents[0].problems) if documents else []
                    if route is not None:
                        problems += await self._by_sheet(item, route)
                        await self._thumbnail_if_kept(item, path)
                        return problems
                    # It stays in the inbox: its thumbnail first, so the inbox shows it while
                    # its text is read (Busy: given back, nothing kept yet). Not before: a
                    # document its sheet files, or a batch split, would be drawn for nothing.
                    await self._renew(item.id)
                    await self.area.thumbnail(self.storage, path, item)
                    return [*problems, *await self._suggest(item, path)]
                if not documents:
                    return [ONLY_SHEETS]
        except Unroutable as exc:  # its bytes missing, its codes unreadable: for a person
            return [str(exc)]
        return await self._split(item, documents)

    async def _thumbnail_if_kept(self, item: IntakeItem, path: str | None = None) -> None:
        """The thumbnail of an item its sheet did not file (only suggested: it stays in the
        inbox), from its bytes copied to path (None: copied here); drawn now if the pool has room,
        else on demand when the inbox asks (its routing is done either way)."""
        current = await repository.item_by_id(item.id)
        if current is None or current.status != Status.NEW or current.object_id != item.object_id:
            return
        if not wanted(current.content_type, current.size, self.settings):
            return
        try:
            if path is not None:
                await self.area.thumbnail(self.storage, path, current)
                return
            async with self.area.copy(self.storage, current) as copied:
                await self.area.thumbnail(self.storage, copied, current)
        except (Busy, Unroutable, StorageError, OSError) as exc:
            log.info("A routed item's thumbnail was not drawn: %s", type(exc).__name__)

    def _key(self) -> bytes:
        return self.settings.intake_sheet_mac_key()

    async def _split(self, item: IntakeItem, documents: list[PlannedDocument]) -> list[str]:
        """Split a batch into its documents' parts and route each in turn."""
        if item.content_type.split(";")[0].strip().lower() != PDF:
            return [SPLIT_BY_HAND, *(p for d in documents for p in d.problems)]
        ranges = [(d.pages[0] + 1, d.pages[-1] + 1) for d in documents]
        now = datetime.now(UTC)
        claimed = {
            "routing": repository.CLAIMED,
            "routing_holder": self.holder,
            "routing_until": now + timedelta(seconds=CLAIM_SECONDS),
        }
        values = [
            {
                **claimed,
                "route": None
                if d.route is None
                else {"folderId": d.route.folder_id, "sheetId": d.route.sheet_id},
                "problems": list(d.problems) or None,
            }
            for d in documents
        ]
        await self._renew(item.id)  # before the parts are taken in
        try:
            parts = await split_item(
                item.id, ranges, INTAKE_ACTOR, self.storage, self.workers, part_values=values
            )
        except ApiError as refusal:
            if refusal.status == 503:  # the workers or the scanner: tried again later
                raise Busy from None
            if refusal.message == CHANGED:  # turned, or a part discarded meanwhile: again later
                raise Busy from None
            return [NOT_SPLIT.format(reason=refusal.message)]
        self._holding.update(part.id for part in parts)  # given back if stopped meanwhile
        try:
            for part in parts:
                await self.route(part.id)
                self._holding.discard(part.id)
        except Busy:  # the parts not routed yet given back, routed by the next poll
            for part in parts:
                if part.id in self._holding:
                    await repository.give_back_routing(part.id, self.holder)
                    self._holding.discard(part.id)
            raise
        return []

    async def _by_sheet(self, item: IntakeItem, code: SheetCode) -> list[str]:
        """A verified sheet's folder: filed to for the scanner's items and an uploader's who
        may file there (sheet_policy.py); else only suggested, for a person to confirm."""
        folder = await Folder.get_or_none(id=code.folder_id).prefetch_related("container")
        if folder is None:
            return [FOLDER_GONE]
        problem = await sheet_policy.refusal(item, folder.container.name, folder.name)
        if problem is None:
            return await self._file_by_sheet(item, folder, code)
        await sheet_policy.suggest_folder(item, folder, code)
        return [problem]

    async def _file_by_sheet(self, item: IntakeItem, folder: Folder, code: SheetCode) -> list[str]:
        """File item to the folder a verified sheet names (its problem when it cannot)."""
        target = FileItem(container=folder.container.name, folder=folder.name)
        try:
            await file_item(
                item.id,
                target,
                INTAKE_ACTOR,
                self.storage,
                operation="intake_routed",
                details=f"sheet={code.sheet_id}",
            )
        except ApiError as refusal:
            current = await repository.item_by_id(item.id)
            if current is not None and current.status != Status.NEW:
                return []  # a person filed or deleted it meanwhile: theirs stands
            if refusal.status == 503:  # storage or the scanner: tried again later
                raise Busy from None
            return [NOT_FILED.format(reason=refusal.message)]
        return []

    async def _suggest(self, item: IntakeItem, path: str) -> list[str]:
        """The document's text, and the folder it suggests (kept with its evidence)."""
        await self._renew(item.id)  # OCR may take a while: the claim renewed first
        try:
            text = await self.area.text(path, item)
        except Unroutable as exc:
            return [str(exc)]
        try:  # the untrusted text searched in the worker pool, the folders queried here
            keys = await self.area.keys(text)
            found = await self.area.suggestion(
                text, await candidates_for(keys), self.settings.date_order
            )
        except Unroutable as exc:
            return [str(exc)]
        if found is None:
            return []
        kept: dict[str, Any] = {**found.as_json(), "excerpts": excerpts(text, found.evidence)}
        async with transaction() as conn:
            # Only the first: a routing taken again after a crash found it made already.
            if not await repository.set_suggestion(conn, item.id, kept, first=True):
                return []
            c = found.candidate
            await record(
                conn,
                INTAKE_ACTOR,
                "intake_suggested",
                container=c.container,
                folder=c.folder,
                details=f"item={item.id} evidence="
                + ",".join(sorted({e.kind for e in found.evidence})),
            )
        return []
