"""Whether a text is a web page or an SVG image (issue 49's review: HTML smuggled in as text),
for bff/files/content.py's `kind_of`. Such a text runs its scripts when a browser opens it
(downloaded and opened from the disk, or shown by a browser that sniffs), so it is of the
`html` kind, which BFF_ALLOWED_TYPES leaves out by default.

The rule, on a text's first bytes (UTF-8, UTF-16 by its byte-order mark, or an 8-bit text):
skip byte-order marks, whitespace and zero-width characters, then XML declarations and other
processing instructions (`<?...?>`), comments and a document type declaration, in any order;
then it is a page or an SVG image when

- its document type is HTML or SVG (`<!DOCTYPE html`, `<!DOCTYPE svg`, in any case);
- it starts with a comment (`<!--`) and no XML declaration came first (a browser sniffing the
  text takes it for HTML);
- its first element is an HTML element a browser sniffing the text takes for HTML (WHATWG MIME
  Sniffing: html, head, body, script, iframe, h1, div, font, table, a, style, title, b, br, p)
  or one that runs or loads content (svg, math, object, embed, frame, frameset, img, form,
  meta, link, base...), a prefix (`h:html`) aside, followed by whitespace, `/` or `>`;
- its first element is itself in the XHTML or SVG namespace (`<page xmlns="http://www.w3.org/
  1999/xhtml">`, `<x:doc xmlns:x="...svg">`): an XML document a browser shows as a page or an
  image, whose scripts run, however far after the first bytes they come;
- the text has an `<?xml-stylesheet ...?>` instruction anywhere in its first bytes: a browser
  opening the XML transforms or styles it by that sheet, which can make it a page;
- its first element is any other, the text declares the XHTML or SVG namespace and it
  scripts (a `script` element, with a prefix or not, an `on...=` event attribute or a
  `javascript:` address): an XML document whose XHTML or SVG scripts a browser runs. An XML
  record that merely declares the namespace (a clinical document's narrative) stays text;
- a processing instruction, comment, document type or first element's start tag is not
  closed within the first bytes (HEAD_BYTES of bff/files/content.py): what follows it cannot
  be seen, so it is taken for a page (fails closed; an SVG after a 70 KB comment).

A text whose first thing is not markup (a note that mentions `<script>` further on, a letter
quoting a tag) is text. Whether markup is refused under a name a browser opens as plain text
(`.txt`, `.csv`...) is content.py's decision, not this module's.
"""

from __future__ import annotations

import re

HTML, SVG = "html", "svg"

_SVG_ELEMENTS = frozenset({"svg"})
_HTML_ELEMENTS = frozenset(
    {
        # WHATWG MIME Sniffing's patterns for HTML.
        "html", "head", "body", "script", "iframe", "h1", "div", "font", "table", "a",
        "style", "title", "b", "br", "p",
        # Elements that run, load or show other content.
        "math", "object", "embed", "applet", "frame", "frameset", "img", "image", "video",
        "audio", "form", "meta", "link", "base", "template", "noscript", "xmp", "plaintext",
        "isindex", "marquee",
    }
)  # fmt: skip
_NAMESPACES = (
    ("http://www.w3.org/1999/xhtml", HTML),
    ("http://www.w3.org/2000/svg", SVG),
)
# Skipped before anything: whitespace and the characters that show as nothing.
_INVISIBLE = "\ufeff\u200b\u200c\u200d\u2060\u00ad"
_SCRIPTS = re.compile(r"<(?:[\w.-]+:)?script[\s/>]|\son[a-z]+\s*=|javascript:", re.IGNORECASE)
_ELEMENT = re.compile(r"<(?:[A-Za-z_][\w.-]*:)?([A-Za-z][\w.-]*)(?=[\s/>]|$)")
_DOCTYPE = re.compile(r"<!doctype\s+(?:[\w.-]*:)?([\w.-]+)", re.IGNORECASE)
_ROOT = re.compile(r"<(?:([A-Za-z_][\w.-]*):)?[A-Za-z][\w.-]*")
_STYLESHEET = re.compile(r"<\?xml-stylesheet[\s?]")
_DECLARATION = re.compile(r"""\sxmlns(?::([\w.-]+))?\s*=\s*(["'])(.*?)\2""")


def _decoded(head: bytes) -> str:
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        encoding = "utf-16-le" if head[0] == 0xFF else "utf-16-be"
        return head[2:].decode(encoding, "replace")
    return head.decode("utf-8", "replace")


def _skip(text: str, at: int) -> int:
    while at < len(text) and (text[at].isspace() or text[at] in _INVISIBLE):
        at += 1
    return at


def _doctype_end(text: str, at: int) -> int:
    """Where a document type declaration starting at `at` ends (after its internal subset's
    `]`, if it has one); -1 if not in the text."""
    close = text.find(">", at)
    bracket = text.find("[", at)
    if 0 <= bracket < close:
        subset = text.find("]", bracket)
        close = text.find(">", subset) if subset >= 0 else -1
    return close + 1 if close >= 0 else -1


def _root_namespace(text: str, at: int) -> str:
    """HTML or SVG when the element starting at `at` is in the XHTML or SVG namespace (by its
    own start tag's declaration of its prefix, or of the default one), "" when it is not, and
    HTML (fail closed) when its start tag does not end within the text."""
    root = _ROOT.match(text, at)
    if root is None:
        return ""
    end = text.find(">", root.end())
    if end < 0:
        return HTML
    prefix = root.group(1)
    for declared in _DECLARATION.finditer(text, root.end(), end):
        if declared.group(1) != prefix:
            continue
        for namespace, kind in _NAMESPACES:
            if declared.group(3).strip() == namespace:
                return kind
    return ""


def markup_of(head: bytes) -> str | None:
    """HTML or SVG when a text's first bytes are a web page or an SVG image (the module's
    rule), else None."""
    text = _decoded(head)
    at = _skip(text, 0)
    xml = False
    while at < len(text):
        if text.startswith("<?", at):
            xml = xml or text.startswith("<?xml", at)
            end = text.find("?>", at)
            if end < 0:
                return HTML  # not closed within the head: what follows it is unseen
            at = _skip(text, end + 2)
        elif text.startswith("<!--", at):
            if not xml:
                return HTML
            end = text.find("-->", at + 4)
            if end < 0:
                return HTML
            at = _skip(text, end + 3)
        elif (doctype := _DOCTYPE.match(text, at)) is not None:
            name = doctype.group(1).lower()
            if name in (HTML, SVG, "xhtml"):
                return SVG if name == SVG else HTML
            end = _doctype_end(text, at)
            if end < 0:
                return HTML
            at = _skip(text, end)
        else:
            break
    element = _ELEMENT.match(text, at)
    if element is None:
        return None
    name = element.group(1).lower()
    if name in _SVG_ELEMENTS:
        return SVG
    if name in _HTML_ELEMENTS:
        return HTML
    if _STYLESHEET.search(text) is not None:
        return HTML
    in_namespace = _root_namespace(text, at)
    if in_namespace != "":
        return in_namespace
    if _SCRIPTS.search(text) is None:
        return None
    for namespace, kind in _NAMESPACES:
        if namespace in text:
            return kind
    return None
