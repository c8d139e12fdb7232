"""Profile images: decode-checked, upright, centre-cropped to 150x150 and re-encoded as JPEG.

Re-encoding drops every piece of metadata (EXIF with GPS, camera serials, comments). Images of
more pixels than MAX_PIXELS are refused before they are decoded (decompression bombs).
"""

from __future__ import annotations

import io
import warnings

from PIL import Image, ImageOps, UnidentifiedImageError

PROFILE_SIZE = (150, 150)
MAX_PIXELS = 40_000_000  # a 40-megapixel photo decodes to about 120MB: enough for any camera
ACCEPTED_FORMATS = frozenset({"JPEG", "PNG", "GIF", "BMP", "WEBP"})
INVALID_IMAGE = "Please select a valid image file (JPEG, PNG, GIF, BMP, WebP)"
TOO_MANY_PIXELS = "This image has too many pixels to be processed safely. Please use a smaller one."
DAMAGED_IMAGE = "The image could not be read. It may be damaged or incomplete."


class InvalidImage(ValueError):
    """The bytes are not an acceptable, readable image."""


def _flatten(image: Image.Image) -> Image.Image:
    """RGB on a white background (JPEG has no transparency)."""
    if image.mode in ("RGBA", "LA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGB", rgba.size, (255, 255, 255))
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    return image.convert("RGB")


def process_profile_image(data: bytes) -> bytes:
    """The 150x150 JPEG for an uploaded image; InvalidImage with a readable message otherwise."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(data)) as image:
                if image.format not in ACCEPTED_FORMATS:
                    raise InvalidImage(INVALID_IMAGE)
                width, height = image.size
                if width * height > MAX_PIXELS:
                    raise InvalidImage(TOO_MANY_PIXELS)
                image.draft("RGB", (PROFILE_SIZE[0] * 2, PROFILE_SIZE[1] * 2))  # fast JPEG decode
                image.load()
                upright = ImageOps.exif_transpose(image)
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
