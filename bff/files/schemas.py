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
