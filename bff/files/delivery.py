"""Sending a file view's bytes, once the view route has authorised and audited it.

`send_view` is the one way a viewed object leaves the server, whatever object it is (a file,
or one of the product's own objects such as an old version) and whoever sends the bytes
(BFF_VIEW_OFFLOAD):

- "none": the BFF streams them (Range supported), as a small deployment without a proxy needs;
- "nginx": the BFF answers with `X-Accel-Redirect: /_bff_storage/<key>` and an empty body;
  nginx's internal location (config/nginx/bff.conf.template) sends the file from the storage
  directory with sendfile, answers Range itself, and passes on the headers set here;
- "s3": the BFF redirects the browser to a presigned GetObject URL, valid for
  BFF_VIEW_OFFLOAD_SECONDS, that makes S3 answer with the same Content-Type,
  Content-Disposition and Cache-Control (docs/operations.md: what the sandboxing CSP becomes there).

The headers (disposition, sandboxing CSP, no caching) are decided here for all three, so an
offloaded view is exactly as safe as a streamed one. An image is inline only when its header
says a browser may decode it (bff/files/pixels.py: at most the thumbnail's 12 megapixels; its
first bytes read here, by hand, nothing decoded); an image bomb, or an image whose header does
not say, is a download, whatever asked for it. Deciding who may see what stays in the route's
`@allow` policy and the service's audit entry, before this runs.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Literal
from urllib.parse import quote

from quart import Response

from bff import metrics
from bff.files.pixels import HEAD_BYTES, read_head, within_budget
from bff.files.service import ViewSource
from storage.base import ObjectKey, ReadStream, Storage

# The internal nginx location that serves the storage directory (config/nginx/bff.conf.template).
NGINX_STORAGE_LOCATION = "/_bff_storage/"

# Shown in the browser itself; everything else is downloaded, never rendered on our origin.
INLINE_TYPES = frozenset(
    {
        "application/pdf",
        "image/png",
        "image/jpeg",
        "image/gif",
        "image/webp",
        "image/bmp",
        "text/plain",
        "text/csv",
    }
)
# Even inline content runs in a sandbox: no script, no same-origin access. (Chromium's PDF
# viewer does not start in a sandboxed document, so PDFs get the restrictions without it.)
VIEW_CSP = "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'"
VIEW_CACHE_CONTROL = "private, no-store"

Offload = Literal["none", "nginx", "s3"]


def _base(content_type: str) -> str:
    return content_type.split(";")[0].strip().lower()


def is_inline(content_type: str) -> bool:
    """Whether the browser may show this type itself (else it is downloaded)."""
    base = _base(content_type)
    return base in INLINE_TYPES or base.startswith(("audio/", "video/"))


async def may_show(source: ViewSource) -> bool:
    """Whether source may be shown by the browser (inline): a type it shows, and for an image,
    a header that says at most the pixels a browser is given to decode."""
    if not is_inline(source.content_type):
        return False
    if not _base(source.content_type).startswith("image/"):
        return True
    if source.size <= 0:
        return False
    return within_budget(await read_head(await source.open(0, min(HEAD_BYTES, source.size))))


def content_disposition(kind: str, name: str) -> str:
    """A Content-Disposition header that no file name can break (RFC 6266 with RFC 5987)."""
    fallback = "".join(ch if 32 <= ord(ch) < 127 and ch not in '"\\%;' else "_" for ch in name)
    return f"{kind}; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"


def view_headers(source: ViewSource, *, inline: bool) -> dict[str, str]:
    """The headers every view carries, whoever sends its bytes (inline: `may_show`)."""
    content_type = source.content_type
    return {
        "Content-Disposition": content_disposition(
            "inline" if inline else "attachment", source.name
        ),
        "Content-Security-Policy": VIEW_CSP
        if content_type.startswith("application/pdf")
        else VIEW_CSP + "; sandbox",
        "Cache-Control": VIEW_CACHE_CONTROL,
        # The viewer stays in the app's browsing context group, so the app can close it when
        # the session ends; it is sandboxed and gets no opener, so it cannot reach the app.
        "Cross-Origin-Opener-Policy": "unsafe-none",
    }


def rendered_headers(max_age: int) -> dict[str, str]:
    """The headers of a picture the server rendered (a thumbnail, a viewer's page): sandboxed
    as views are, and cached by the browser alone (its URL holds a session's signed link),
    never by a shared cache."""
    return {
        "Content-Disposition": "inline",
        "Content-Security-Policy": VIEW_CSP + "; sandbox",
        "Cache-Control": f"private, max-age={max(max_age, 0)}",
        "Cross-Origin-Opener-Policy": "unsafe-none",
        "Cross-Origin-Resource-Policy": "same-origin",
    }


def accel_path(key: ObjectKey) -> str:
    """The internal nginx URI of a stored object (each segment percent-encoded; nginx decodes
    it once and refuses '..', so the key's validated segments are what it opens)."""
    return NGINX_STORAGE_LOCATION + "/".join(quote(part, safe="") for part in key.segments)


async def _body(stream: ReadStream) -> AsyncIterator[bytes]:
    async with stream:  # released even when the client goes away mid-download
        async for chunk in stream:
            metrics.VIEW_BYTES.inc(len(chunk))
            yield chunk


async def send_view(
    source: ViewSource, offload: Offload, storage: Storage, seconds: int
) -> Response:
    """The response that delivers source's bytes: streamed, through nginx, or from S3."""
    headers = view_headers(source, inline=await may_show(source))
    if offload == "nginx":
        headers["X-Accel-Redirect"] = accel_path(source.key)
        return Response(b"", status=200, headers=headers, content_type=source.content_type)
    if offload == "s3":
        url = await storage.presigned_get(
            source.key,
            seconds=seconds,
            response_headers={
                "Content-Type": source.content_type,
                "Content-Disposition": headers["Content-Disposition"],
                "Cache-Control": VIEW_CACHE_CONTROL,
            },
        )
        if url is not None:
            # The URL is a bearer credential for this one object until it expires: never
            # cached, never sent on as a Referer (the app's headers already say no-referrer).
            return Response(
                b"",
                status=302,
                headers={
                    "Location": url,
                    "Cache-Control": "no-store",
                    "Cross-Origin-Opener-Policy": headers["Cross-Origin-Opener-Policy"],
                },
            )
    stream = await source.open(source.start, source.stop - source.start)
    headers.update(
        {
            "Content-Length": str(source.stop - source.start),
            "Accept-Ranges": "bytes",
            "Last-Modified": source.last_modified.strftime("%a, %d %b %Y %H:%M:%S GMT"),
        }
    )
    if source.partial:
        headers["Content-Range"] = f"bytes {source.start}-{source.stop - 1}/{source.size}"
    response = Response(
        _body(stream),
        status=206 if source.partial else 200,
        headers=headers,
        content_type=source.content_type,
    )
    response.timeout = None  # a long video on a slow line must not be cut off
    return response
