"""Request and response shapes of patient files (spec section 3: Blob, upload response, stats)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from bff.containers.schemas import Approximate
from bff.patients.schemas import PatientDetails


class FileSource(BaseModel):
    """Where a file's content came from when the intake filed it (bff/files/sources.py)."""

    kind: Literal["scanner", "mailbox", "upload"] = Field(
        description="scanner: the scan folder (scanners, fax servers); mailbox: the intake's "
        "mailbox (sender says who sent it); upload: a batch uploaded to the Intake page"
    )
    sender: str | None = Field(None, description="kind mailbox: the mail's sender address")
    coverSheet: bool = Field(
        False,
        description="Filed automatically by the folder's cover sheet; false: a person filed it "
        "from the intake's inbox",
    )


class Blob(BaseModel):
    """One file of a patient folder."""

    name: str
    contentType: str
    contentLength: int
    lastModified: datetime
    isProfileImage: bool
    isConvertedFromRtf: bool
    originalRtfFileName: str | None
    versionCount: int = Field(
        1, description="How many versions the file has, the current one included"
    )
    preview: str | None = Field(
        None,
        description="A signed short-lived link to the file's thumbnail (WebP, 256 px on its "
        "long side) for this session; null while there is none (not made yet, or not possible "
        "for this file). `file:preview` tells the folder's room when one is ready.",
    )
    previewState: Literal["pending", "ready", "failed"] | None = Field(
        None,
        description="Whether the file's thumbnail is made: pending (`file:preview` follows), "
        "ready, failed (none will be), or null when the file's type has none",
    )
    textState: Literal["pending", "ready", "failed"] | None = Field(
        None,
        description="Whether the file's text is searchable: pending (being read), ready, failed "
        "(textProblem says why), or null when the file's content is not searched (profile "
        "images, other types)",
    )
    textProblem: str | None = Field(
        None, description="Why the file's text could not be read (textState failed)"
    )
    activeContent: str = Field(
        "",
        description="A PDF's active content the content checks found, named and comma-separated "
        '("JavaScript, launch actions, embedded files"); "" when none (BFF_PDF_ACTIVE_CONTENT)',
    )
    displayable: bool = Field(
        True,
        description="false for a damaged PDF kept by BFF_DAMAGED_PDF=keep: it cannot be "
        "displayed (no viewer, no thumbnail), only downloaded",
    )
    scanState: Literal["unscanned", "clean", "held"] = Field(
        "unscanned",
        description="The malware scan: clean (clamd found nothing), held (stored while the "
        "scanner was unavailable, BFF_SCAN_UNAVAILABLE=hold: not scanned yet), or unscanned "
        "(no scanner configured, or stored before scanning existed)",
    )
    source: FileSource | None = Field(
        None,
        description="Where the content came from when the intake filed it (the scanner, the "
        "mailbox and its sender, an upload to the intake; by a cover sheet or a person); null "
        "for a file uploaded to its folder, and in the emergency view",
    )


class BlobList(BaseModel):
    """A folder's files sorted by name, and whether it has a profile image."""

    blobs: list[Blob]
    hasProfileImage: bool
    maxUploadBytes: int | None = Field(
        None,
        description="The upload limit (BFF_MAX_UPLOAD_MB) in bytes, in the staff listing: the "
        "web app refuses a larger file before sending it (the server still checks)",
    )


class RtfConversion(BaseModel):
    """Whether an RTF upload was converted, and the name of the text file it became."""

    converted: bool
    txtFileName: str | None = None


class ProfileImageProcessing(BaseModel):
    """The standard name a processed profile image was stored under."""

    standardName: str | None = None


class UploadResponse(BaseModel):
    """The result of an upload (spec section 3), with the stored file."""

    message: str
    blob: Blob
    replaced: bool
    rtfConversion: RtfConversion
    profileImageProcessing: ProfileImageProcessing


class UploadQuery(BaseModel):
    """overwrite=true replaces an existing file of the same name (else 409)."""

    overwrite: bool = False


class ViewLink(BaseModel):
    """A short-lived signed link that opens one file for the caller's session."""

    url: str
    expiresAt: datetime


class Uploader(BaseModel):
    """Who uploaded (or deleted) a file's content: the name and role at the time."""

    name: str
    role: str


class VersionOut(BaseModel):
    """One version of a file (the current one included)."""

    versionId: str
    contentLength: int
    contentType: str
    lastModified: datetime
    uploadedBy: Uploader
    current: bool
    activeContent: str = Field("", description="As the file's Blob: this content's")
    displayable: bool = Field(True, description="As the file's Blob: this content's")
    source: FileSource | None = Field(None, description="As the file's Blob: this content's")


class VersionList(BaseModel):
    """A file's versions, newest first."""

    versions: list[VersionOut]


class TrashedBlob(BaseModel):
    """A file in its folder's trash."""

    name: str
    versionCount: int
    contentLength: int
    contentType: str
    isProfileImage: bool
    deletedAt: datetime
    deletedBy: Uploader
    purgeAfter: datetime


class TrashList(BaseModel):
    """A folder's trash, most recently deleted first, and how long files stay in it."""

    blobs: list[TrashedBlob]
    trashDays: int = Field(description="BFF_TRASH_DAYS: days a deleted file stays in the trash")


class PurgeRequest(BaseModel):
    """Deleting from the trash for good: confirmation must be "DELETE"."""

    confirmation: str = Field(max_length=20)


class FileStats(BaseModel):
    """File count and counts per extension (a file without one counts under 'none')."""

    totalFiles: int
    fileTypes: dict[str, int]


class SummaryStats(FileStats):
    """Files over all of the caller's assigned folders."""

    containerCount: int
    folderCount: int


class FolderStats(FileStats):
    """Files of one assigned folder."""

    containerName: str
    folderName: str
    patient: PatientDetails | None = Field(
        default=None, description="The folder's patient, when known (the paged list only)"
    )


class MyStatsResponse(BaseModel):
    """GET /api/assignments/my-assignments/stats: one request instead of one per folder."""

    summary: SummaryStats
    folders: list[FolderStats] = Field(
        description="Every assigned folder, in the order of my-assignments"
    )


class MyFoldersResponse(BaseModel):
    """GET /api/assignments/my-assignments/folders: one page of the caller's folders in every
    container, by container then folder in natural order, with the total matching the search."""

    folders: list[FolderStats]
    total: int
    page: int
    pageSize: int | None
    approximate: Approximate = False


class ViewerOpen(BaseModel):
    """A file opened in the in-app viewer (one audited view): what to show and the links of
    this viewer session, valid until expiresAt, for this content version only."""

    kind: Literal["image", "pdf", "text", "html", "other"] = Field(
        description="pdf: pages as images (pageUrl); image: imageUrl; text: textUrl (the "
        "file's text; an RTF's text as the server read it); html: htmlUrl (a Word .docx as "
        "a sanitised HTML page, for a sandboxed frame); other: a card with Open original "
        "(reason says why when it is a file the viewer could not show)"
    )
    name: str
    contentType: str
    contentLength: int
    versionId: str = Field(description="The content version these links show")
    pageCount: int | None = None
    pageUrl: str | None = Field(
        None,
        description="A template: replace {page} (1..pageCount) and {width} (CSS pixels times "
        "the device pixel ratio, 200-2000; snapped up to one of pageWidths) to get a page "
        "as WebP",
    )
    pageWidths: list[int] = Field(description="The widths pages are rendered at")
    imageUrl: str | None = None
    imageReduced: bool = Field(
        False,
        description="The image has more pixels than the viewer hands to a browser: imageUrl is "
        "a reduced copy the server rendered (WebP, at most 2000 px on its long side); the "
        "original, every pixel, is a download (originalDownload)",
    )
    originalDownload: bool = Field(
        False,
        description="An image whose header says more pixels than a browser is given to decode "
        "(12 megapixels), or does not say: the view routes send its original only as a "
        "download (Content-Disposition: attachment), never shown in a tab",
    )
    textUrl: str | None = None
    htmlUrl: str | None = Field(
        None,
        description="kind html: the document as one HTML page the server rendered and "
        "sanitised (no script, no remote resource, images only as data: URIs), served with a "
        "CSP of its own (sandbox; framed by the app only)",
    )
    reason: str | None = None
    activeContent: str = Field(
        "",
        description="As the Blob's: the PDF's active content, named, for the viewer's warning; "
        '"" when none',
    )
    displayable: bool = Field(
        True, description="As the Blob's: false for a damaged file kept (kind other, reason says)"
    )
    expiresAt: datetime
    textLayer: bool = Field(
        False,
        description="Words with their boxes are stored for this version (a PDF's, an image's): "
        "wordsUrl and findUrl answer",
    )
    wordsUrl: str | None = Field(
        None,
        description="textLayer: a template, replace {page} (1..) to get a page's words with "
        "their boxes (PageWords), under this viewer session's link until expiresAt",
    )
    findUrl: str | None = Field(
        None,
        description="textLayer: append &q=<the words, URL-encoded> to find them in the "
        "document (TextMatches), under this viewer session's link until expiresAt",
    )


class VisitOut(BaseModel):
    """The caller's visit to a folder just recorded, and when the one before it ended."""

    previousVisitAt: datetime | None = Field(
        description="When the caller's previous visit to this folder ended (null: this is "
        "their first): the web app marks files added since as new. Requests within 30 minutes "
        "of the last are one visit, two hours at most, and answer the same"
    )


class PageQuery(BaseModel):
    """The width (px) a page image is wanted at; snapped up to one of the rendered widths."""

    width: int = Field(ge=200, le=2000)
