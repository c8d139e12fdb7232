"""Profile images: decode-checked, upright, centre-cropped to 150x150 and re-encoded as JPEG.

Re-encoding drops every piece of metadata (EXIF with GPS, camera serials, comments). The work
runs in a worker process (bff/files/conversions.py) and is bounded before anything is decoded:
only the header is read first (Pillow opens lazily), JPEGs are decoded already scaled down
(`draft`), and an image whose decoded pixels would exceed MAX_PIXELS or MAX_DECODED_BYTES, or
whose pixel format is not an ordinary 8-bit one, is refused (decompression bombs, 16-bit
images that Pillow would widen to 32 bits per pixel).
"""

from __future__ import annotations

import io
import warnings

from PIL import Image, ImageOps, UnidentifiedImageError

PROFILE_SIZE = (150, 150)
# A 150x150 picture needs nothing near this; a 12-megapixel phone photo passes (JPEGs are
# decoded scaled down first, so larger JPEGs pass too), a decompression bomb does not.
MAX_PIXELS = 12_000_000
MAX_DECODED_BYTES = 48 * 1024 * 1024  # width x height x bands x bytes per sample
# Pillow's own guard, checked when an image is opened (before `draft`), refuses any image of
# more pixels than this: a JPEG this large still decodes at 1/8 scale within MAX_PIXELS.
MAX_SOURCE_PIXELS = 100_000_000
Image.MAX_IMAGE_PIXELS = MAX_SOURCE_PIXELS
# Ordinary pixel formats, one byte per sample. Not: 16-bit greyscale (I;16*), 32-bit integer
# (I) or float (F) images, which make no sense for a profile picture and cost 2-4x the memory.
ACCEPTED_MODES = frozenset(
    {"1", "L", "LA", "La", "P", "PA", "RGB", "RGBA", "RGBa", "CMYK", "YCbCr"}
)
ACCEPTED_FORMATS = frozenset({"JPEG", "PNG", "GIF", "BMP", "WEBP"})
INVALID_IMAGE = "Please select a valid image file (JPEG, PNG, GIF, BMP, WebP)"
TOO_MANY_PIXELS = (
    "This image has too many pixels to be processed safely (the limit is 12 megapixels). "
    "Please use a smaller one."
)
UNUSUAL_MODE = (
    "This image uses an unusual pixel format (such as 16-bit or floating-point greyscale). "
    "Please save it as an ordinary 8-bit JPEG or PNG and try again."
)
DAMAGED_IMAGE = "The image could not be read. It may be damaged or incomplete."


class InvalidImage(ValueError):
    """The bytes are not an acceptable, readable image."""


def decoded_bytes(size: tuple[int, int], mode: str) -> int:
    """The memory a decoded image of this size and mode takes (pixels x bands x bytes)."""
    if mode.startswith("I;16"):
        sample_bytes = 2
    elif mode in ("I", "F"):
        sample_bytes = 4
    else:
        sample_bytes = 1
    return size[0] * size[1] * Image.getmodebands(mode) * sample_bytes


def over_budget(size: tuple[int, int], mode: str) -> bool:
    """Whether an image of this size and mode is beyond the decompression budget (MAX_PIXELS,
    MAX_DECODED_BYTES): what profile images and thumbnails refuse to decode, and what the
    viewer never hands to a browser to decode (bff/files/viewer.py)."""
    width, height = size
    return width * height > MAX_PIXELS or decoded_bytes(size, mode) > MAX_DECODED_BYTES


def check_kind(image: Image.Image) -> None:
    """Refuse, from the header alone, what is not an ordinary image of an accepted format."""
    if image.format not in ACCEPTED_FORMATS:
        raise InvalidImage(INVALID_IMAGE)
    if image.mode not in ACCEPTED_MODES:
        raise InvalidImage(UNUSUAL_MODE)


def check_header(image: Image.Image) -> None:
    """Refuse, from the header alone, what must not be decoded."""
    check_kind(image)
    if over_budget(image.size, image.mode):
        raise InvalidImage(TOO_MANY_PIXELS)


def _flatten(image: Image.Image) -> Image.Image:
    """RGB on a white background (JPEG has no transparency)."""
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGB", rgba.size, (255, 255, 255))
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    return image.convert("RGB")


def _reduced(image: Image.Image) -> Image.Image:
    """A large decoded image shrunk by a whole factor (cheap box averaging) to no less than
    twice the profile size, so that converting and cropping it costs little memory."""
    factor = min(image.size) // (PROFILE_SIZE[0] * 2)
    if factor < 2 or image.mode in ("1", "P", "PA"):  # palette indices cannot be averaged
        return image
    return image.reduce(factor)


def process_profile_image(data: bytes) -> bytes:
    """The 150x150 JPEG for an uploaded image; InvalidImage with a readable message otherwise."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(data)) as image:
                if image.format == "JPEG":  # decode scaled down by 1/2 to 1/8: less of everything
                    image.draft("RGB", (PROFILE_SIZE[0] * 2, PROFILE_SIZE[1] * 2))
                check_header(image)
                image.load()
                upright = ImageOps.exif_transpose(_reduced(image))
                fitted = ImageOps.fit(
                    _flatten(upright), PROFILE_SIZE, Image.Resampling.LANCZOS, centering=(0.5, 0.5)
                )
        except UnidentifiedImageError:
            raise InvalidImage(INVALID_IMAGE) from None
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise InvalidImage(TOO_MANY_PIXELS) from None
        except (OSError, SyntaxError, ValueError) as exc:
            if isinstance(exc, InvalidImage):
                raise
            raise InvalidImage(DAMAGED_IMAGE) from None
    out = io.BytesIO()
    fitted.save(out, format="JPEG", quality=88, optimize=True)
    return out.getvalue()
