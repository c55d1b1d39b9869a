"""What a question's acronym stands for, read from the corpus's own definitions.

"Does donepezil delay conversion from MCI to AD?": PubTator tags "mild cognitive impairment"
(MeSH Cognition Disorders) but never the bare "MCI", so the dictionary has no such alias and
the question loses its subject. Abstracts define their acronyms where they first use them —
"mild cognitive impairment (MCI)" — which is what the Schwartz & Hearst (2003) algorithm
reads; here the long form is the annotator's own mention that ends right before "(MCI)", so
its concept is the acronym's. A mention counts only when its words' initials spell the end of
the acronym, covering at least :data:`MIN_COVER` of its letters ("cognitive impairment" for
MCI; never "dementia" for FTD, nor "fever" for CSF), and the acronym means the concept most
documents define it as. One read-only catalog query per acronym, prefiltered on the literal
"(MCI)".
"""

from __future__ import annotations

import bisect
import math
import re
from typing import Any

#: An acronym's letters: 2–6 capitals or digits, the first a capital.
_LETTERS = r"([A-Z][A-Z0-9]{1,5})"
#: An acronym in running text, an optional plural "s".
ACRONYM = re.compile(rf"(?<![\w-]){_LETTERS}s?(?![\w-])")
#: An acronym defined in parentheses after its long form, "(ASL)".
_DEFINED = re.compile(rf"\(\s*{_LETTERS}s?\s*\)")
#: A word a long form is made of.
_LONG_WORD = re.compile(r"[\w'-]+")
#: Share of the acronym's letters the long form's initials must cover (from its end).
MIN_COVER = 2 / 3
#: Fewest documents defining the acronym as the concept. Chosen on the train splits' hidden
#: builds (``python -m kgbuild.evaluate.acronyms``), precision / recall of the gold concept:
#: 1 → BioRED 0.923 / 0.132, BC5CDR 0.969 / 0.196; 2 → 0.900 / 0.020, 1.0 / 0.032.
MIN_DOCS = 1
_MINOR = frozenset({"of", "the", "and", "in", "with", "for", "to", "on", "a", "an", "by"})


def initials(long: str) -> str:
    """The first letters of ``long``'s words, minor words skipped ("cognitive impairment"
    → "ci"; "Parkinson's disease" → "pd")."""
    words = [w for w in re.split(r"[\s/-]+", long) if w and w.lower() not in _MINOR]
    return "".join(w[0].lower() for w in words if w[0].isalnum())


def spells(acronym: str, long: str) -> bool:
    """Do ``long``'s initials spell the end of ``acronym``, covering :data:`MIN_COVER`?"""
    got, short = initials(long), acronym.lower()
    need = max(2, math.ceil(MIN_COVER * len(short))) if len(short) > 2 else len(short)
    return need <= len(got) <= len(short) and short.endswith(got)


def defined_as(wh: Any, snapshot_id: str, acronym: str) -> str | None:
    """The concept the snapshot's abstracts define ``acronym`` as, or None."""
    sql = (
        "WITH d AS (SELECT pmid, coalesce(title, '') || ' ' || coalesce(abstract, '') AS t "
        "FROM documents_at($sid) WHERE contains(abstract, '(' || $s || ')') "
        "OR contains(abstract, '(' || $s || ',') OR contains(abstract, '(' || $s || ';')) "
        "SELECT m.concept_id, m.text, count(DISTINCT m.pmid) AS n "
        "FROM mentions_at($sid) m JOIN d USING (pmid) WHERE m.concept_id IS NOT NULL "
        'AND regexp_matches(substr(d.t, m."end" + 1, length($s) + 3), $p) '
        "GROUP BY ALL ORDER BY n DESC, m.concept_id, m.text"
    )
    pattern = r"^ ?\(" + re.escape(acronym) + r"[),;]"
    rows = wh.query(sql, {"sid": snapshot_id, "s": acronym, "p": pattern})
    votes: dict[str, int] = {}
    for concept, text, n in rows:
        if spells(acronym, str(text)):
            votes[str(concept)] = votes.get(str(concept), 0) + int(n)
    if not votes:
        return None
    best = max(votes.items(), key=lambda kv: (kv[1], kv[0]))
    return best[0] if best[1] >= MIN_DOCS else None


def acronym_spans(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """The acronyms inside ``spans`` of ``text`` (start, end, acronym without its plural)."""
    out = []
    for a, b in spans:
        for m in ACRONYM.finditer(text, a, b):
            out.append((m.start(), m.end(), m.group(1)))
    return out


def cut_spans(text: str, spans: list[tuple[int, int]],
              cuts: list[tuple[int, int]]) -> list[tuple[int, int]]:  # fmt: skip
    """``spans`` with the ``cuts`` taken out, each remaining piece trimmed of spaces and
    punctuation (empty pieces dropped). A cut covering a span, or part of it, takes that part
    ("oxidative stress" cut out of "oxidative" leaves nothing)."""
    out = []
    for a, b in spans:
        pieces, start = [], a
        for s, e in sorted(c for c in cuts if c[0] < b and a < c[1]):
            if s > start:
                pieces.append((start, s))
            start = max(start, e)
        if start < b:
            pieces.append((start, b))
        for s, e in pieces:
            while s < e and not text[s].isalnum():
                s += 1
            while e > s and not text[e - 1].isalnum():
                e -= 1
            if s < e:
                out.append((s, e))
    return out


#: Words before "(SF)" a question's long form may span, beyond the acronym's letters.
_LONG_EXTRA = 2


def question_definitions(text: str) -> list[tuple[int, int, int, int]]:
    """The acronyms ``text`` defines itself, Schwartz & Hearst's "long form (SF)": (start, end)
    of each acronym inside the parentheses whose preceding words' initials spell it, and
    (start, end) of that long form, the longest such run of words not opening on a minor word
    ("arterial spin labelling (ASL)"). A question that says what its acronym stands for means
    that, whatever else the acronym or the long form's words name."""
    out = []
    every = list(_LONG_WORD.finditer(text))  # once: a text of many "(…)" is not read again
    ends = [w.end() for w in every]
    for m in _DEFINED.finditer(text):
        short = m.group(1)
        # the last words before "(": no more than the long form may span
        last = bisect.bisect_right(ends, m.start())
        words = every[max(0, last - len(short) - _LONG_EXTRA) : last]
        best = None
        for k in range(1, len(words) + 1):
            first = words[-k].group().lower()
            if first not in _MINOR and spells(short, text[words[-k].start() : words[-1].end()]):
                best = (words[-k].start(), words[-1].end())
        if best is not None:
            out.append((m.start(1), m.start(1) + len(short), *best))
    return out
