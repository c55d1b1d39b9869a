"""The encoding of an untrusted XML file, settled before any parser sees it.

An XML file names its own encoding (``<?xml version="1.0" encoding="…"?>``, XML 1.0 §4.3.3),
and that name is as hostile as the rest of the file: expat looks an unknown name up in
Python's codec registry and raises ``LookupError`` — not a parse error — so one file declaring
``encoding="x-made-up"`` used to abort a whole build. And a declaration can lie: UTF-8 bytes
declared ``ISO-8859-1`` parse without an error into mojibake ("Ã©" for "é") that would be
stored as the abstract's text.

:func:`utf8_xml` therefore decodes the bytes itself, strictly, and hands the parser UTF-8 with
a declaration that says so:

- an unknown encoding name, or bytes that are not valid in the declared encoding (or in UTF-8
  when none is declared), is :class:`BadEncoding` — the file's ``bad_encoding`` problem row;
- a single-byte declaration over bytes that are valid UTF-8 and not plain ASCII is read as
  UTF-8 (what the bytes are; a real Latin-1 text is almost never valid UTF-8, Dürst 1997) and
  the returned note says so, for a problem row;
- UTF-16/32 with a byte-order mark, and everything else, is decoded as declared.
"""

from __future__ import annotations

import codecs
import re

from kgbuild.sources.values import shown

#: The XML declaration at the very start of the document (after an optional UTF-8 BOM).
_DECLARATION = re.compile(
    rb"^(?:\xef\xbb\xbf)?<\?xml[ \t\r\n][^>]{0,200}?encoding[ \t\r\n]*=[ \t\r\n]*"
    rb"([\"'])([^\"'>]{0,80})\1"
)
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))  # fmt: skip
_UNICODE = {"utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le",
            "utf-32-be"}  # fmt: skip


class BadEncoding(ValueError):
    """The file's bytes cannot be read as text: an unknown or false declared encoding."""


def declared_encoding(data: bytes) -> str | None:
    """The encoding name the XML declaration gives (None when it gives none)."""
    m = _DECLARATION.match(data[:400])
    return m.group(2).decode("ascii", "replace").strip() if m else None


def utf8_xml(data: bytes) -> tuple[bytes, str | None]:
    """``data`` as UTF-8 XML whose declaration (if any) says ``utf-8``, and a note when the
    declared encoding was not what the bytes are. :class:`BadEncoding` when they cannot be
    read as text at all."""
    name = declared_encoding(data)
    declared = None
    if name is not None:
        try:
            declared = codecs.lookup(name).name
        except LookupError:
            raise BadEncoding(
                f"declares encoding {shown(name)}, which is not a known encoding; not read"
            ) from None
    # a byte-order mark says what the bytes are, whatever is declared (XML 1.0, appendix F)
    bom = next((codec for mark, codec in _BOMS if data.startswith(mark)), None)
    codec = bom or declared or "utf-8"
    codec = "utf-8-sig" if codec == "utf-8" else codec
    note, text = None, None
    if codec not in _UNICODE and not data.isascii():
        try:  # a single-byte declaration over valid UTF-8: the bytes are UTF-8 (decoded once)
            text = data.decode("utf-8-sig")
            note = f"declares encoding {shown(name)} but its bytes are UTF-8; read as UTF-8"
        except UnicodeDecodeError:
            pass
    try:
        text = data.decode(codec) if text is None else text
    except UnicodeDecodeError as exc:
        said = f"declared {shown(name)}" if name is not None else "UTF-8, none declared"
        raise BadEncoding(
            f"byte {exc.start:,} is not valid in the file's encoding ({said}): {exc.reason}; "
            "not read"
        ) from None
    except (LookupError, TypeError):  # a codec that is not a text codec (rot13, zlib)
        raise BadEncoding(
            f"declares encoding {shown(name)}, which is not a text encoding; not read"
        ) from None
    if name is not None:
        text, n = _declared_utf8(text)
        if not n:  # e.g. an EBCDIC name over ASCII bytes: the declaration itself is not text
            raise BadEncoding(f"read as {shown(name)}, its own declaration is garbled; not read")
    return text.encode("utf-8"), note


def _declared_utf8(text: str) -> tuple[str, int]:
    """``text`` with its declaration's encoding name replaced by ``utf-8`` (and 0 when no
    declaration was found to replace)."""
    return re.subn(
        r"^(\ufeff?<\?xml[ \t\r\n][^>]{0,200}?encoding[ \t\r\n]*=[ \t\r\n]*)([\"'])[^\"'>]{0,80}\2",
        r'\1"utf-8"',
        text,
        count=1,
    )
