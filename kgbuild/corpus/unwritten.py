"""Which of a question's words no abstract of the snapshot writes.

When nothing in a question links to the KG ("what does masitinib target?"), the user is owed
the reason, not only "no entity found": a drug the corpus never names is outside what this
KG can know (DALK's corpus is a PubMed Alzheimer's query, 2011–2020), while a word the
abstracts do write but the annotator never tagged is a gap of the annotation. One read-only
catalog query counts, per word, the snapshot's abstracts writing it as a whole word, or
inside a list that leaves its prefix out ("miR-9, -16 and -195" writes miR-195).
"""

from __future__ import annotations

import re
from typing import Any

from kgbuild.corpus.documents import lowered_text, whole_words
from kgbuild.search.text import STOPWORDS

#: Words checked at most (the rarest-looking first: longest, with digits or capitals).
MAX_WORDS = 6
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9]")


def marked_as_name(word: str) -> bool:
    """Does ``word`` carry a name's marks: a digit, or a capital after its first letter?"""
    return any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:])


def name_like(word: str) -> bool:
    """Is ``word`` written as a name, not an English word: a letter first, then a digit or a
    capital inside ("miR-195", "TTP488", "DaTscan", "ARGO"; not "12-fold", "Alzheimer's")?"""
    return bool(_NAME_LIKE.fullmatch(word)) and marked_as_name(word)


_NAME_LIKE = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*")


def content_words(surfaces: list[str]) -> list[str]:
    """The words of the unlinked ``surfaces`` worth looking up: not stop words, ≥ 4
    characters or with a digit; those that look most like names first."""
    seen: dict[str, str] = {}
    for s in surfaces:
        for w in _WORD.findall(s):
            low = w.lower()
            if low in STOPWORDS or (len(w) < 4 and not any(c.isdigit() for c in w)):
                continue
            seen.setdefault(low, w)
    names = sorted(seen.values(), key=lambda w: (not marked_as_name(w), -len(w)))
    return names[:MAX_WORDS]


def written_pattern(word: str) -> str:
    """RE2 finding ``word`` in lower-cased text as a whole word, or, for a name with a prefix
    ("miR-195"), inside a list that leaves the prefix out ("miR-9, -16, -195 and -29c":
    coordinated ellipsis, which no whole-word search finds)."""
    whole = whole_words(word)
    m = re.fullmatch(r"([A-Za-z]+)-([A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)", word)
    if m is None:
        return whole
    item = r"-?[0-9a-z]+(?:-[0-9a-z]+)*"
    sep = r"\s*(?:,|/|and|or)\s*"
    listed = (rf"(?:^|[^a-z0-9]){re.escape(m.group(1).lower())}-{item}(?:{sep}{item})*{sep}"
              rf"-{re.escape(m.group(2).lower())}(?:[^0-9a-z]|$)")  # fmt: skip
    return f"{whole}|{listed}"


def unwritten(wh: Any, snapshot_id: str, words: list[str],
              as_of: int | None = None) -> tuple[int, list[str]]:  # fmt: skip
    """(the snapshot's abstracts up to ``as_of``, the ``words`` none of them writes)."""
    words = words[:MAX_WORDS]
    named: dict[str, Any] = {"sid": snapshot_id, "asof": as_of}
    counts = []
    for i, w in enumerate(words):
        named[f"p{i}"] = written_pattern(w)
        counts.append(f"count_if(regexp_matches(t, $p{i}))")
    sql = (
        f"WITH d AS (SELECT {lowered_text('')} AS t "
        "FROM documents_at($sid) WHERE $asof IS NULL OR year <= $asof) "
        f"SELECT count(*){''.join(', ' + c for c in counts)} FROM d"
    )
    row = wh.query(sql, named)[0]
    return int(row[0]), [w for w, n in zip(words, row[1:], strict=True) if not n]


def unwritten_note(wh: Any, snapshot_id: str, surfaces: list[str],
                   as_of: int | None = None) -> str:  # fmt: skip
    """One clause for the "no entity found" message: which unlinked words no abstract writes
    ("" when every word is written or nothing is left to look up)."""
    words = content_words(surfaces)
    if not words:
        return ""
    n, absent = unwritten(wh, snapshot_id, words, as_of)
    if not absent:
        return ""
    quoted = ", ".join(f'"{w}"' for w in absent)
    return f"none of this snapshot's {n:,} abstracts writes {quoted}, so this KG cannot answer it"
