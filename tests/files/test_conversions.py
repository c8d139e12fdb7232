"""RTF uploads become text (the original kept); profile images become clean 150x150 JPEGs."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bff.files.images import MAX_PIXELS
from bff.files.names import PROFILE_IMAGE_NAME, RTF_ORIGINAL_PREFIX
from tests.files.conftest import Ward

RTF = rb"{\rtf1\ansi\deff0 {\fonttbl {\f0 Times;}}\f0 Patient stable.\par Caf\'e9 \b allergy\b0.}"


def _image(
    fmt: str, size: tuple[int, int] = (200, 100), exif_orientation: int | None = None
) -> bytes:
    """Left half red, right half blue; optionally tagged with an EXIF orientation."""
    image = Image.new("RGB", size, (0, 0, 255))
    image.paste((255, 0, 0), (0, 0, size[0] // 2, size[1]))
    out = io.BytesIO()
    if exif_orientation is not None:
        exif = Image.Exif()
        exif[0x0112] = exif_orientation
        exif[0x010F] = "Camera maker with GPS"
        image.save(out, format=fmt, exif=exif)
    else:
        image.save(out, format=fmt)
    return out.getvalue()


async def test_rtf_is_listed_as_text_and_the_original_is_kept(any_ward: Ward) -> None:
    ward = any_ward
    response = await ward.upload(ward.nurse, "Visit Notes.rtf", RTF)
    assert response.status_code == 201
    body = await response.get_json()
    assert body["message"] == "RTF file converted and saved as Visit Notes.txt"
    assert body["rtfConversion"] == {"converted": True, "txtFileName": "Visit Notes.txt"}
    [blob] = (await ward.listing(ward.nurse))["blobs"]
    assert blob["name"] == "Visit Notes.txt"
    assert blob["isConvertedFromRtf"] is True
    assert blob["originalRtfFileName"] == "Visit Notes.rtf"
    assert blob["contentType"] == "text/plain; charset=utf-8"
    text = (await ward.stored("Visit Notes.txt") or b"").decode()
    assert "Patient stable." in text and "Café allergy." in text
    assert await ward.stored(RTF_ORIGINAL_PREFIX + "Visit Notes.rtf") == RTF
    # Deleting the text removes the kept original too.
    deleted = await ward.client.delete(ward.url("Visit Notes.txt"), headers=ward.admin.headers)
    assert deleted.status_code == 200
    assert await ward.stored(RTF_ORIGINAL_PREFIX + "Visit Notes.rtf") is None


async def test_rtf_name_clash_is_on_the_text_name(ward: Ward) -> None:
    assert (await ward.upload(ward.nurse, "a.txt", b"plain")).status_code == 201
    clash = await ward.upload(ward.nurse, "a.rtf", RTF)
    assert clash.status_code == 409
    assert await ward.stored("a.txt") == b"plain"
    assert await ward.stored(RTF_ORIGINAL_PREFIX + "a.rtf") is None


@pytest.mark.parametrize(
    "data", [b"not rtf at all", rb"{\rtf1 unclosed {\b group", b"", b"\x00\xff" * 10]
)
async def test_a_malformed_rtf_is_422_and_nothing_is_kept(ward: Ward, data: bytes) -> None:
    response = await ward.upload(ward.nurse, "broken.rtf", data)
    assert response.status_code == 422
    assert "not a valid RTF" in (await response.get_json())["message"]
    assert await ward.storage.list_files(ward.container.name, ward.folder.name) == []


async def test_a_profile_image_is_upright_cropped_and_stripped(any_ward: Ward) -> None:
    ward = any_ward
    # EXIF orientation 6: the camera was turned; upright, red is on top and blue below.
    photo = _image("JPEG", exif_orientation=6)
    response = await ward.upload(ward.nurse, "IMG_0001.JPG", photo, isProfileImage="true")
    assert response.status_code == 201, await response.get_data()
    body = await response.get_json()
    assert body["message"] == "Profile image processed and saved as patient-profile.jpg"
    assert body["profileImageProcessing"] == {"standardName": PROFILE_IMAGE_NAME}
    assert body["replaced"] is False
    listing = await ward.listing(ward.assistant)
    assert listing["hasProfileImage"] is True
    [blob] = listing["blobs"]
    assert (blob["name"], blob["isProfileImage"], blob["contentType"]) == (
        PROFILE_IMAGE_NAME,
        True,
        "image/jpeg",
    )
    served = await ward.client.get(ward.url("profile-image"), headers=ward.assistant.headers)
    assert served.status_code == 200
    assert served.headers["Content-Type"] == "image/jpeg"
    image = Image.open(io.BytesIO(await served.get_data()))
    assert (image.format, image.size) == ("JPEG", (150, 150))
    assert not image.getexif()  # no camera data, no GPS
    top, bottom = image.getpixel((75, 10)), image.getpixel((75, 140))
    assert top[0] > 200 and top[2] < 60, top  # red
    assert bottom[2] > 200 and bottom[0] < 60, bottom  # blue


@pytest.mark.parametrize("fmt", ["PNG", "GIF", "BMP", "WEBP"])
async def test_each_accepted_format_becomes_a_jpeg_and_replaces_the_last(
    ward: Ward, fmt: str
) -> None:
    first = await ward.upload(ward.nurse, "a.jpg", _image("JPEG"), isProfileImage="true")
    assert first.status_code == 201
    second = await ward.upload(ward.nurse, f"b.{fmt.lower()}", _image(fmt), isProfileImage="true")
    assert second.status_code == 201
    assert (await second.get_json())["replaced"] is True
    stored = await ward.stored(PROFILE_IMAGE_NAME)
    assert stored is not None and Image.open(io.BytesIO(stored)).size == (150, 150)
    assert len((await ward.listing(ward.nurse))["blobs"]) == 1


async def test_transparent_images_get_a_white_background(ward: Ward) -> None:
    clear = Image.new("RGBA", (60, 60), (0, 0, 0, 0))
    out = io.BytesIO()
    clear.save(out, format="PNG")
    assert (
        await ward.upload(ward.nurse, "c.png", out.getvalue(), isProfileImage="true")
    ).status_code == 201
    stored = await ward.stored(PROFILE_IMAGE_NAME)
    assert stored is not None
    assert min(Image.open(io.BytesIO(stored)).getpixel((75, 75))) > 240


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("fake.png", b"this is text, not an image"),
        ("vector.svg", b'<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>'),
        ("scan.tiff", b"II*\x00" + b"\x00" * 64),
    ],
)
async def test_non_images_are_refused_by_content(ward: Ward, name: str, data: bytes) -> None:
    response = await ward.upload(ward.nurse, name, data, isProfileImage="true")
    assert response.status_code == 400
    assert (await response.get_json())["message"] in (
        "Please select a valid image file (JPEG, PNG, GIF, BMP, WebP)",
        "The image could not be read. It may be damaged or incomplete.",
    )
    assert await ward.stored(PROFILE_IMAGE_NAME) is None


async def test_a_tiff_is_refused_as_the_wrong_type(ward: Ward) -> None:
    out = io.BytesIO()
    Image.new("RGB", (20, 20)).save(out, format="TIFF")
    response = await ward.upload(ward.nurse, "scan.tiff", out.getvalue(), isProfileImage="true")
    assert (await response.get_json())["message"] == (
        "Please select a valid image file (JPEG, PNG, GIF, BMP, WebP)"
    )


async def test_a_truncated_image_is_refused(ward: Ward) -> None:
    photo = _image("PNG", size=(400, 400))
    response = await ward.upload(ward.nurse, "cut.png", photo[:200], isProfileImage="true")
    assert response.status_code == 400
    assert await ward.stored(PROFILE_IMAGE_NAME) is None


async def test_decompression_bombs_are_refused(ward: Ward) -> None:
    bomb = io.BytesIO()
    Image.new("1", (10_000, MAX_PIXELS // 10_000 + 10)).save(bomb, format="PNG")
    assert len(bomb.getvalue()) < 1_000_000  # tiny on disk, huge in memory
    response = await ward.upload(ward.nurse, "bomb.png", bomb.getvalue(), isProfileImage="true")
    assert response.status_code == 400
    assert "too many pixels" in (await response.get_json())["message"]


async def test_profile_images_over_10mb_are_413(ward: Ward) -> None:
    response = await ward.upload(
        ward.nurse,
        "huge.jpg",
        b"\xff\xd8\xff" + b"\x00" * (10 * 1024 * 1024),  # a JPEG's first bytes, then too many
        isProfileImage="true",
    )
    assert response.status_code == 413
    assert (await response.get_json())["message"] == "Profile image must be less than 10MB"


async def test_profile_image_permissions_and_deletion(ward: Ward) -> None:
    assistant = await ward.upload(ward.assistant, "a.jpg", _image("JPEG"), isProfileImage="true")
    assert assistant.status_code == 403
    missing = await ward.client.get(ward.url("profile-image"), headers=ward.nurse.headers)
    assert missing.status_code == 404
    assert (await missing.get_json())["message"] == "This folder has no profile image."
    assert (
        await ward.upload(ward.nurse, "a.jpg", _image("JPEG"), isProfileImage="true")
    ).status_code == 201
    nurse = await ward.client.delete(ward.url(PROFILE_IMAGE_NAME), headers=ward.nurse.headers)
    assert nurse.status_code == 403
    admin = await ward.client.delete(ward.url(PROFILE_IMAGE_NAME), headers=ward.admin.headers)
    assert (await admin.get_json())["message"] == "Profile image deleted successfully"
    assert (await ward.listing(ward.nurse))["hasProfileImage"] is False
