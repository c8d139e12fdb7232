"""Request and response shapes of patient files (spec section 3: Blob, upload response, stats)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


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


class BlobList(BaseModel):
    """A folder's files sorted by name, and whether it has a profile image."""

    blobs: list[Blob]
    hasProfileImage: bool


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
