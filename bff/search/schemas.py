"""Shapes of GET /api/search: the query string and the page of results."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, Field

from bff.patients.schemas import PatientDetails
from bff.search.query import MAX_QUERY_LENGTH

MAX_LIMIT = 50


class FileType(StrEnum):
    """A kind of file a search may be narrowed to (by the file's extension)."""

    PDF = "pdf"
    IMAGE = "image"
    WORD = "word"
    TEXT = "text"


class SearchQuery(BaseModel):
    """What to search for, where, and which page."""

    q: Annotated[
        str,
        Field(
            max_length=MAX_QUERY_LENGTH * 5,  # past 200 characters the service says "too long"
            description='Words (all must match), "a phrase", -excluded, prefix*',
        ),
    ] = ""
    container: Annotated[str, Field(max_length=63)] | None = None
    folder: Annotated[str, Field(max_length=100, description="Needs container")] | None = None
    type: FileType | None = None
    modifiedFrom: date | None = Field(None, description="First day, inclusive (UTC)")
    modifiedTo: date | None = Field(None, description="Last day, inclusive (UTC)")
    cursor: Annotated[str, Field(max_length=200)] | None = None
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT)] = 20


class Snippet(BaseModel):
    """Plain text around the best match (or the matching name), and where the matches are."""

    text: str
    highlights: list[Annotated[list[int], Field(min_length=2, max_length=2)]] = Field(
        description="[start, end) of each match in text, in UTF-16 code units (String.slice)"
    )


class SearchResult(BaseModel):
    """A file that matched."""

    containerName: str
    folderName: str
    blobName: str
    contentType: str
    lastModified: datetime
    snippet: Snippet
    page: int | None = Field(None, description="The page the snippet is from (text matches)")
    patient: PatientDetails | None = Field(
        None, description="The folder's patient (null when nothing is known of them)"
    )


class SearchResults(BaseModel):
    """One page of results, best first (ties: newest first)."""

    results: list[SearchResult]
    nextCursor: str | None
    total: int = Field(description="Files matching in the caller's scope (at least, if capped)")
    totalCapped: bool = Field(
        False, description="True when the query matched more than are counted: total is a floor"
    )


# The viewer's text layer (bff/search/text_layer.py).


class WordBox(BaseModel):
    """A word on a page and where it is."""

    text: str
    box: list[float] = Field(
        min_length=4,
        max_length=4,
        description="[x0, y0, x1, y1] in fractions (0..1) of the page's width and height as "
        "shown, origin top-left",
    )


class PageWords(BaseModel):
    """A page's words with their boxes, in reading order (an image's page is 1)."""

    page: int
    words: list[WordBox]


class WordsQuery(BaseModel):
    """Which page's words."""

    page: Annotated[int, Field(ge=1, le=100_000)]


class FindQuery(BaseModel):
    """What to find in the document, as search's box takes it."""

    q: Annotated[
        str,
        Field(
            max_length=MAX_QUERY_LENGTH * 5,  # past 200 characters the service says "too long"
            description='Words (all on a page), "a phrase", -excluded, prefix*',
        ),
    ]


class TextMatch(BaseModel):
    """A match: the words [start, end) of a page's words."""

    page: int
    start: int
    end: int


class TextMatches(BaseModel):
    """The document's matches, in page then word order, at most 1000."""

    total: int = Field(description="How many matches are listed")
    capped: bool = Field(description="True when there are more than the 1000 listed")
    partial: bool = Field(
        False,
        description="True when the find ran out of its time (a few seconds) before the "
        "document's end: the matches found so far, in the pages read",
    )
    matches: list[TextMatch]


class CopiedText(BaseModel):
    """Text copied from a page of the viewer (audited `file_copy`)."""

    page: Annotated[int, Field(ge=1, le=100_000)]
    characters: Annotated[int, Field(ge=0, le=100_000_000)]
