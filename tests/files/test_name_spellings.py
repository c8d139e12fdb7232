"""One spelling per name (issue 30 point 5), through the real app, database and storage: two
spellings of one name are one file, look-alike names are refused with a reason, and a name
stored before the rule keeps working (listed by `storage reindex`, guarded at upload)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from bff.files.models import StoredFile
from bff.files.reindex import reindex
from tests import samples
from tests.files.conftest import Ward

COMPOSED = "caf\u00e9.txt"
DECOMPOSED = "cafe\u0301.txt"


async def _chunks(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def _message(response: Any, status: int) -> str:
    assert response.status_code == status, await response.get_data()
    message: str = (await response.get_json())["message"]
    return message


async def test_two_spellings_of_one_name_are_one_file(any_ward: Ward) -> None:
    """Before: the decomposed upload was a second file beside the composed one."""
    ward = any_ward
    await _message(await ward.upload(ward.nurse, COMPOSED, b"genuine"), 201)
    clash = await ward.upload(ward.nurse, DECOMPOSED, b"forged")
    assert "already exists" in await _message(clash, 409)
    replaced = await ward.upload(ward.nurse, DECOMPOSED, b"second", query={"overwrite": "true"})
    await _message(replaced, 201)
    assert (await replaced.get_json())["blob"]["name"] == COMPOSED
    assert (await replaced.get_json())["replaced"] is True
    [blob] = (await ward.listing(ward.nurse))["blobs"]
    assert blob["name"] == COMPOSED and blob["versionCount"] == 2  # the genuine one kept
    assert [n.name for n in await StoredFile.all()] == [COMPOSED]
    stored = await ward.storage.list_files(ward.container.name, ward.folder.name)
    assert [info.name for info in stored] == [COMPOSED]
    assert await ward.stored(COMPOSED) == b"second"


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("h\u0435llo.txt", "mixes Latin and Cyrillic letters"),
        ("hello\u200b.txt", "invisible character (U+200B, zero width space)"),
        ("reports\uff0f2026.txt", "looks like the folder separator"),
    ],
    ids=["cyrillic-e", "zero-width-space", "full-width-slash"],
)
async def test_a_look_alike_of_a_name_is_400_and_nothing_is_written(
    ward: Ward, name: str, words: str
) -> None:
    """Before: each was stored beside the genuine 'hello.txt' / 'reports/2026.txt' look-alike."""
    await _message(await ward.upload(ward.nurse, "hello.txt", b"genuine"), 201)
    message = await _message(await ward.upload(ward.nurse, name, b"forged"), 400)
    assert message.startswith("Invalid file name: ") and words in message
    assert [n.name for n in await StoredFile.all()] == ["hello.txt"]
    stored = await ward.storage.list_files(ward.container.name, ward.folder.name)
    assert [info.name for info in stored] == ["hello.txt"]


async def test_names_of_one_script_are_accepted(ward: Ward) -> None:
    names = [
        "\u0410\u043d\u0430\u043b\u0438\u0437 \u043a\u0440\u043e\u0432\u0438.pdf",
        "\u0391\u03bd\u03ac\u03bb\u03c5\u03c3\u03b7.pdf",
        "\u691c\u67fb\u7d50\u679c\u30ec\u30dd\u30fc\u30c8 2026.pdf",
    ]
    for name in names:
        await _message(await ward.upload(ward.nurse, name, samples.pdf()), 201)
    listed = {blob["name"] for blob in (await ward.listing(ward.nurse))["blobs"]}
    assert listed == set(names)


async def test_a_name_stored_before_the_rule_keeps_working(ward: Ward) -> None:
    """A decomposed name written before names were normalised (or by another tool): reindex
    indexes it as it is and lists it; it opens; a new upload of the composed spelling is
    refused until it is deleted, rather than becoming a second file of the same name."""
    c, f = ward.container.name, ward.folder.name
    await ward.storage.write(c, f, DECOMPOSED, _chunks(b"old"))
    report = await reindex(ward.storage)
    assert report.files_added == 1
    assert report.kept_names == [
        f"{c}/{f}/{DECOMPOSED!a} (not in NFC: a person can no longer give this spelling)"
    ]
    assert any(
        DECOMPOSED.encode("ascii", "backslashreplace").decode() in line for line in report.lines()
    )
    [blob] = (await ward.listing(ward.nurse))["blobs"]
    assert blob["name"] == DECOMPOSED
    view = await ward.client.get(ward.url(DECOMPOSED, "view"), headers=ward.nurse.headers)
    assert view.status_code == 200 and await view.get_data() == b"old"
    for overwrite in ("false", "true"):
        clash = await ward.upload(ward.nurse, COMPOSED, b"new", query={"overwrite": overwrite})
        assert "spelt with other Unicode characters" in await _message(clash, 409)
    deleted = await ward.client.delete(ward.url(DECOMPOSED), headers=ward.admin.headers)
    await _message(deleted, 200)
    await _message(await ward.upload(ward.nurse, COMPOSED, b"new"), 201)
    # The trashed old spelling cannot come back beside the new one.
    restore = await ward.client.post(
        ward.url("trash", DECOMPOSED, "restore"), headers=ward.admin.headers
    )
    assert COMPOSED in await _message(restore, 409)
