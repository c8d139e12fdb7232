"""The documentation's links lead somewhere: every relative link of README.md, ARCHITECTURE.md
and docs/ names a file of this repository, every #anchor a heading of its page, and nothing
points outside the repository except to public web pages (standards, libraries)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")
IMAGE = re.compile(r"!\[[^\]\n]*\]\(([^)\s]+)\)")


def _without_code(text: str) -> str:
    """The page without fenced blocks and inline code, where brackets are not links."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(page: Path) -> set[str]:
    """The anchors a Git host gives the page's headings (lower case, punctuation dropped)."""
    found = set()
    for heading in re.findall(r"^#+ (.+)$", _without_code_blocks(page.read_text()), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(slug)
    return found


def _without_code_blocks(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_link_leads_to_a_file_and_heading_of_the_repository(page: Path) -> None:
    text = _without_code(page.read_text())
    broken = []
    for target in LINK.findall(text) + IMAGE.findall(text):
        if target.startswith(("https://", "http://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.is_relative_to(ROOT) or not file.exists():
            broken.append(f"{target}: no such file in the repository")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no such heading")
    assert not broken, f"{page.name}: {broken}"


def test_every_document_is_linked_from_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    for page in (ROOT / "docs").glob("*.md"):
        assert f"docs/{page.name}" in readme, f"README.md does not link docs/{page.name}"


def test_the_readme_fits_on_a_screen_or_two_and_needs_nothing_beside_the_checkout() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 150
    for page in PAGES:
        assert "../shared" not in page.read_text(), f"{page.name} points outside the repository"
