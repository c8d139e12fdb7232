"""Reads and writes of containers and folders; listings scoped to the caller.

`readable_containers` and `readable_folders` take the caller: admins see every container and
folder, staff only those assigned to them, so a listing cannot forget the scope.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.expressions import Q
from tortoise.queryset import QuerySet

from bff.containers.models import Container, Folder
from bff.naming import sort_key
from bff.patients.dates import DAY_MONTH, DateOrder
from bff.patients.finder import FUZZY_CANDIDATES, Finder, matches, pieces, typo_word
from bff.patients.rules import Demographics, record_key, search_text
from bff.services import running_services

if TYPE_CHECKING:
    from bff.auth.sessions import Principal

NATURAL_ORDER = ("sort_prefix", "sort_number", "name")


def _sort_fields(name: str) -> dict[str, str | int]:
    prefix, number = sort_key(name)
    return {"sort_prefix": prefix, "sort_number": number}


async def container_named(name: str) -> Container | None:
    """A container by name."""
    return await Container.get_or_none(name=name)


async def folder_named(container_name: str, folder_name: str) -> Folder | None:
    """A folder by its container's name and its own, with the container loaded."""
    query = Folder.get_or_none(container__name=container_name, name=folder_name)
    return await query.select_related("container")


async def folders_named(container_id: int, names: list[str]) -> dict[str, Folder]:
    """The folders of a container among names, by name."""
    return {f.name: f for f in await Folder.filter(container_id=container_id, name__in=names)}


async def container_exists(name: str) -> bool:
    """Whether a container of that name exists."""
    return await Container.exists(name=name)


async def folder_exists(container_id: int, name: str) -> bool:
    """Whether a container has a folder of that name."""
    return await Folder.exists(container_id=container_id, name=name)


async def create_container(conn: BaseDBAsyncClient, name: str) -> Container:
    """Insert a container (with its natural sort key) inside transaction conn."""
    return await Container.create(name=name, using_db=conn, **_sort_fields(name))


async def create_folder(conn: BaseDBAsyncClient, container: Container, name: str) -> Folder:
    """Insert a folder of container (with its natural sort key) inside transaction conn."""
    return await Folder.create(container=container, name=name, using_db=conn, **_sort_fields(name))


async def ensure_container(name: str) -> tuple[Container, bool]:
    """The container of that name, created if missing; and whether it was created."""
    return await Container.get_or_create(name=name, defaults=_sort_fields(name))


async def ensure_folder(container: Container, name: str) -> tuple[Folder, bool]:
    """The folder of container with that name, created if missing; and whether it was."""
    return await Folder.get_or_create(container=container, name=name, defaults=_sort_fields(name))


def date_order() -> DateOrder:
    """How the running app reads a date typed in numbers (BFF_DATE_ORDER; outside an app, the
    default)."""
    services = running_services()
    return services.settings.date_order if services is not None else DAY_MONTH


async def _window(
    query: QuerySet[Container] | QuerySet[Folder],
    q: str,
    page: int,
    page_size: int | None,
    order: tuple[str, ...] = NATURAL_ORDER,
) -> tuple[QuerySet[Container] | QuerySet[Folder], QuerySet[Container] | QuerySet[Folder], bool]:
    """The rows matching q (a case-insensitive substring of the name; of a folder's, also of
    its patient's name, record number or date of birth, a date of birth typed as people type
    one, and when nothing matches so, a patient's name with one typo: patients/finder.py), one
    ordered page of them (all when page_size is None), and whether they are approximate (the
    typo's: no row matched as typed, so none may be opened as the one asked for)."""
    approximate = False
    if q:
        match = Q(name__icontains=q)
        if query.model is Folder:
            finder = Finder.of(q, date_order())
            if finder.key:
                match |= Q(patient_search__contains=finder.key)  # both sides folded
            if finder.born is not None:
                match |= Q(patient_birth_date=finder.born)
            exact = query.filter(match)
            if finder.may_have_typo() and not await exact.exists():
                ids = await _one_typo(query, finder)
                query = query.filter(id__in=ids)
                approximate = bool(ids)
            else:
                query = exact
        else:
            query = query.filter(match)
    ordered = query.order_by(*order)
    if page_size is not None:
        ordered = ordered.offset((page - 1) * page_size).limit(page_size)
    return query, ordered, approximate


async def _one_typo(query: QuerySet[Container] | QuerySet[Folder], finder: Finder) -> list[int]:
    """The ids of the folders of query whose patient's name matches finder with one typo: the
    first FUZZY_CANDIDATES in natural order that hold a piece of the word (finder.pieces),
    compared in Python (finder.matches)."""
    candidates = Q()
    for index, word in enumerate(finder.words):
        if not typo_word(word):
            continue
        held = Q()
        for piece in pieces(word):
            held |= Q(patient_search__contains=piece)
        for other in finder.words[:index] + finder.words[index + 1 :]:
            held &= Q(patient_search__contains=other)
        candidates |= held
    rows = (
        await query.filter(candidates)
        .order_by(*NATURAL_ORDER)
        .limit(FUZZY_CANDIDATES)
        .values("id", "patient_search")
    )
    return [int(r["id"]) for r in rows if matches(finder, str(r["patient_search"]))]


async def _page(
    query: QuerySet[Container] | QuerySet[Folder], q: str, page: int, page_size: int | None
) -> tuple[list[str], int]:
    """One page of names in natural order (all when page_size is None), and the total."""
    matching, ordered, _ = await _window(query, q, page, page_size)
    names = await ordered.values_list("name", flat=True)
    return [str(n) for n in names], await matching.count()


async def readable_containers(
    principal: Principal, q: str, page: int, page_size: int | None
) -> tuple[list[str], int]:
    """Names of the containers the caller may see (matching q), one page, and the total."""
    query = Container.all()
    if not principal.is_admin:
        query = query.filter(assignments__user_id=principal.user_id)
    return await _page(query, q, page, page_size)


_PATIENT_COLUMNS = ("patient_name", "patient_birth_date", "patient_record_number")


def patient_of(row: Folder | dict[str, Any]) -> Demographics:
    """The demographics of a folder (a model or a row of values with _PATIENT_COLUMNS)."""
    values = row if isinstance(row, dict) else {c: getattr(row, c) for c in _PATIENT_COLUMNS}
    return Demographics(
        values["patient_name"], values["patient_birth_date"], values["patient_record_number"]
    )


async def readable_folders(
    principal: Principal, container: Container, q: str, page: int, page_size: int | None
) -> tuple[list[tuple[str, Demographics]], int, bool]:
    """The folders of container the caller may see (matching q), one page of (name, patient),
    the total, and whether the match is approximate (a name with one typo)."""
    query = Folder.filter(container=container)
    if not principal.is_admin:
        query = query.filter(assignments__user_id=principal.user_id)
    matching, ordered, approximate = await _window(query, q, page, page_size)
    rows = await ordered.values("name", *_PATIENT_COLUMNS)
    found = [(str(r["name"]), patient_of(r)) for r in rows]
    return found, await matching.count(), approximate


# The caller's folders across containers: by container, then folder, each in natural order.
_ASSIGNED_ORDER = (
    "container__sort_prefix",
    "container__sort_number",
    "container__name",
    *NATURAL_ORDER,
)


async def assigned_folders(
    user_id: int, q: str, page: int, page_size: int | None
) -> tuple[list[tuple[int, str, str, Demographics]], int, bool]:
    """The folders assigned to the caller in every container (matching q), one page as
    (folder id, container name, folder name, patient), the total, and whether the match is
    approximate (a name with one typo)."""
    query = Folder.filter(assignments__user_id=user_id)
    matching, ordered, approximate = await _window(query, q, page, page_size, _ASSIGNED_ORDER)
    rows = await ordered.values("id", "name", "container__name", *_PATIENT_COLUMNS)
    found = [(int(r["id"]), str(r["container__name"]), str(r["name"]), patient_of(r)) for r in rows]
    return found, await matching.count(), approximate


async def folder_patient(folder_id: int) -> Demographics:
    """A folder's patient by the folder's id (empty when the folder is gone)."""
    rows = await Folder.filter(id=folder_id).values(*_PATIENT_COLUMNS)
    return patient_of(rows[0]) if rows else Demographics()


async def folder_for_update(conn: BaseDBAsyncClient, folder_id: int) -> Folder:
    """A folder's row, locked until transaction conn ends (PostgreSQL; SQLite writes one at a
    time), so two changes of its patient are one after the other."""
    return await Folder.select_for_update().using_db(conn).get(id=folder_id)


async def set_patient(conn: BaseDBAsyncClient, folder_id: int, patient: Demographics) -> None:
    """Write a folder's demographics (and their search text) inside transaction conn."""
    await (
        Folder.filter(id=folder_id)
        .using_db(conn)
        .update(
            patient_name=patient.name,
            patient_birth_date=patient.birth_date,
            patient_record_number=patient.record_number,
            patient_search=search_text(patient),
            patient_record_key=record_key(patient.record_number),
        )
    )


@dataclass(frozen=True)
class Holder:
    """A folder holding a record number: its id and names, and whether it holds the number's
    key (the folders without one share their number with the key's holder since before
    migration 0032)."""

    folder_id: int
    container: str
    folder: str
    keyed: bool


async def record_holders(
    keys: Collection[str], conn: BaseDBAsyncClient | None = None
) -> dict[str, list[Holder]]:
    """The folders holding each of keys (rules.record_key): by the unique key, and those
    without one whose record number has it (duplicates found by migration 0032)."""
    found: dict[str, list[Holder]] = {}
    wanted = sorted(set(keys))
    for at in range(0, len(wanted), 500):  # bounded IN lists
        rows = (
            await Folder.filter(patient_record_key__in=wanted[at : at + 500])
            .using_db(conn)
            .values("id", "name", "container__name", "patient_record_key")
        )
        for r in rows:
            holder = Holder(int(r["id"]), str(r["container__name"]), str(r["name"]), True)
            found.setdefault(str(r["patient_record_key"]), []).append(holder)
    for number, holder in await unkeyed_numbers(conn):
        key = record_key(number)
        if key in wanted and key is not None:
            found.setdefault(key, []).append(holder)
    return found


async def unkeyed_numbers(conn: BaseDBAsyncClient | None = None) -> list[tuple[str, Holder]]:
    """The folders with a record number but no key (each shares its number with another
    folder since before migration 0032), with their numbers, in id order."""
    rows = (
        await Folder.filter(patient_record_key=None, patient_record_number__not_isnull=True)
        .using_db(conn)
        .order_by("id")
        .values("id", "name", "container__name", "patient_record_number")
    )
    return [
        (
            str(r["patient_record_number"]),
            Holder(int(r["id"]), str(r["container__name"]), str(r["name"]), False),
        )
        for r in rows
    ]


async def clear_record_keys(conn: BaseDBAsyncClient, folder_ids: list[int]) -> None:
    """Forget the keys of folders whose record numbers are about to change in transaction conn
    (so that two folders may swap theirs: each key is written again with its number)."""
    for at in range(0, len(folder_ids), 500):
        chunk = folder_ids[at : at + 500]
        await Folder.filter(id__in=chunk).using_db(conn).update(patient_record_key=None)


async def patients_named(
    container_name: str, names: list[str]
) -> dict[str, tuple[int, Demographics]]:
    """The folders of a container among names, by name: each one's id and patient."""
    found: dict[str, tuple[int, Demographics]] = {}
    for at in range(0, len(names), 500):  # bounded IN lists
        rows = await Folder.filter(
            container__name=container_name, name__in=names[at : at + 500]
        ).values("id", "name", *_PATIENT_COLUMNS)
        found.update({str(r["name"]): (int(r["id"]), patient_of(r)) for r in rows})
    return found
