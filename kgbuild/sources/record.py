"""The one shape every literature source yields, and the checks every source shares.

A :class:`SourceRecord` is one input record as read (before dedupe): a source never raises on bad
input, it records :class:`~kgbuild.records.Problem` rows and, when the record is unusable, a
``reject_reason``. Offsets are checked here against the text they index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kgbuild import settings
from kgbuild.records import Document, Mention, Problem
from kgbuild.schema import ID_PROBLEM_TEXT, hetionet_kind, parse_ids
from kgbuild.sources.values import missing_pmid_problem

#: How far (characters) a mention may be moved to the nearest exact occurrence of its text.
OFFSET_REPAIR_WINDOW = 64
#: Longest title + abstract built (``--max-doc-chars``, :mod:`kgbuild.settings`).
MAX_DOCUMENT_CHARS = settings.MAX_DOCUMENT_CHARS
#: C0 control characters other than tab and line feed (NUL, BEL, ESC, a CR left in BioC text…):
#: no abstract means them, and they reach prompts, exports and terminals.
CONTROL_CHARS = re.compile("[\x00-\x08\x0b-\x1f]")


@dataclass(slots=True)
class SourceRecord:
    """One input record: text, raw annotations, and everything that went wrong reading it."""

    pmid: str
    source_file: str
    record_no: int
    line_no: int
    title: str = ""
    abstract: str = ""
    year: int | None = None
    journal: str | None = None
    mentions: list[Mention] = field(default_factory=list)
    relations: list[tuple[str, ...]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    reject_reason: str | None = None

    @property
    def text(self) -> str:
        return f"{self.title} {self.abstract}"

    def problem(self, line_no: int, kind: str, detail: str) -> None:
        self.problems.append(Problem(self.pmid, self.source_file, line_no, kind, detail))

    def document(self, year: int, source: str) -> Document:
        return Document(self.pmid, year, self.title, self.abstract, self.journal, source)


def make_mention(
    rec: SourceRecord,
    line_no: int,
    start: int,
    end: int,
    text: str,
    source_type: str,
    raw_id: str,
    annotator: str,
) -> Mention | None:
    """A validated mention, or None with a Problem recorded.

    Offsets must index ``text`` in title + " " + abstract. A mention whose text sits within
    ``OFFSET_REPAIR_WINDOW`` characters of the given offsets is moved there (recorded as
    ``offset_repaired``); anything else is ``bad_offset`` and not used.
    """
    doc_text = rec.text
    if start < 0 or end <= start:
        rec.problem(line_no, "bad_offset", f"{start}-{end} {text!r}: not a span")
        return None
    if not (start < end <= len(doc_text)) or doc_text[start:end] != text:
        found = nearest_occurrence(doc_text, text, start, end)
        if found < 0:
            got = doc_text[start:end] if 0 <= start < end <= len(doc_text) else "<out of range>"
            rec.problem(line_no, "bad_offset", f"{start}-{end} {text!r} != text {got!r}")
            return None
        rec.problem(line_no, "offset_repaired", f"{text!r} moved {start}->{found}")
        start, end = found, found + len(text)
    ids = parse_ids(source_type, raw_id)
    curies = ids.curies
    for kind, refused in ids.refused.items():  # unknown prefix, bad local ID: not a node ID
        shown = ", ".join(repr(r[:60]) for r in refused)
        kept = "not used" if curies else "kept as free text"
        rec.problem(line_no, kind, f"{source_type} id {shown}: {ID_PROBLEM_TEXT[kind]}; {kept}")
    if raw_id.strip() not in ("", "-", "-1") and not curies and not ids.refused:  # CDR: -1
        rec.problem(line_no, "unparsable_id", f"{source_type} id {raw_id!r} kept as no ID")
    return Mention(
        pmid=rec.pmid,
        start=start,
        end=end,
        text=text,
        source_type=source_type,
        hetionet_type=hetionet_kind(source_type),
        concept_id=curies[0] if curies else None,
        concept_ids=curies,
        annotator=annotator,
    )


def nearest_occurrence(doc_text: str, text: str, start: int, end: int) -> int:
    """Where ``text`` occurs within the repair window around ``start..end``, nearest to
    ``start`` (ties: the earlier); -1 if nowhere (or the offsets are nowhere near the text)."""
    if not text or end < -OFFSET_REPAIR_WINDOW or start > len(doc_text) + OFFSET_REPAIR_WINDOW:
        return -1
    lo, hi = max(0, start - OFFSET_REPAIR_WINDOW), max(0, end + OFFSET_REPAIR_WINDOW)
    best, at = -1, doc_text.find(text, lo, hi)
    while at >= 0:
        if best < 0 or abs(at - start) < abs(best - start):
            best = at
        at = doc_text.find(text, at + 1, hi)
    return best


def scrub_controls(rec: SourceRecord) -> None:
    """Replace each control character (:data:`CONTROL_CHARS`) of the title and abstract, and
    of the mentions that quote them, by a space, with a ``control_chars`` problem row per field
    naming how many and which. A space, not a deletion: offsets into the text stay right."""
    hit = False
    for what in ("title", "abstract"):
        value: str = getattr(rec, what)
        found = CONTROL_CHARS.findall(value)
        if not found:
            continue
        hit = True
        setattr(rec, what, CONTROL_CHARS.sub(" ", value))
        which = ", ".join(f"U+{ord(c):04X}" for c in list(dict.fromkeys(found))[:5])
        plural = "s" if len(found) > 1 else ""
        detail = f"{what}: {len(found):,} control character{plural} ({which}) replaced by spaces"
        rec.problem(rec.line_no, "control_chars", detail)
    if hit:
        rec.warnings.append("control characters replaced by spaces")
        for m in rec.mentions:
            m.text = CONTROL_CHARS.sub(" ", m.text)


def finish(rec: SourceRecord) -> SourceRecord:
    """Final per-record checks shared by all sources (control characters in the text, an id
    that names no document, empty text, empty abstract)."""
    scrub_controls(rec)
    if why := missing_pmid_problem(rec.pmid):
        rec.reject_reason = rec.reject_reason or why
    if not rec.title.strip() and not rec.abstract.strip():
        rec.reject_reason = rec.reject_reason or "empty document: no title and no abstract"
    elif not rec.abstract.strip():
        rec.warnings.append("empty abstract (title only)")
    return rec
