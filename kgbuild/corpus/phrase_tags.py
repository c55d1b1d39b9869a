"""A question word linked alone, though the corpus writes it in a phrase that means something else.

Why: the dictionary links one word at a time. So "why is oxidative stress an early event" linked
"stress" to Psychological Distress, and "cognitive performance" linked "cognitive" to Cognition
Disorders. The abstracts say what the phrase means. Where DALK's abstracts write "stress"
outside "oxidative stress", PubTator tags it as Psychological Distress 30% of the time (148 of
501); inside the phrase, 6% of the time (45 of 702). "cognitive" starts a Cognition Disorders
mention in 67% of its occurrences elsewhere and in 2% of "cognitive performance". The measure is
the tag share of :mod:`kgbuild.search.tag_share`, GNormPlus's ambiguous-symbol filter: the
share of a surface's occurrences an annotator links to the concept (Wei et al. 2019). Here it
is compared in and out of the question's own two-word context.

For a one-word link and each content word beside it, two counts are taken over the snapshot's
abstracts: the word's occurrences inside the two-word phrase, with how many of them the
annotator tagged as the linked concept, and the same for its occurrences elsewhere. The link is
dropped when all of these hold:
- the phrase is written at least :data:`MIN_PHRASE` times;
- the word is tagged so at least :data:`MIN_TAGS` times elsewhere;
- its share inside the phrase is below :data:`MAX_RATIO` of its share elsewhere, beyond chance
  (one-sided binomial test at :data:`ALPHA`);
- the annotator tags the word, as any concept, in fewer than :data:`MAX_COVERED` of the
  phrase's occurrences. A phrase tagged as something narrower ("ischemic stroke", "lactate
  dehydrogenase") is another concept, not another sense, and BC5CDR's curators tag the word
  there.
The phrase then stands unlinked whole, a phrase to read.

What is not judged:
- A symbol or acronym ("NMDA", "Abeta42", "ER"), which names its concept wherever it stands.
  BC5CDR's curators tag "NMDA" in "NMDA receptor" as the chemical; acronyms are judged by
  :mod:`kgbuild.search.tag_share`.
- A concept's own name: "glucose" in "glucose metabolism" is still Glucose, though DALK's
  annotator tags it there 10% of the time against 69% elsewhere. BioRED's curators tag it
  there, and so did the blind judges of the DALK questions.
- A word the annotator never tags this way (HGNC's "APP" in DALK).
- A word naming the chemical a protein is named after ("lactate dehydrogenase", "glutamate
  receptor"): BC5CDR's curators tag the chemical there.

Some phrases keep their link: in "reduced tau", tau is tagged 29% of the time against 77%
elsewhere; in "cell death", death 26% against 60%.

The cost is one read-only aggregate catalog query per question, only when a one-word link has a
content word beside it, and one more for a link about to be dropped. The question's words reach
the catalog only as parameters.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kgbuild.corpus.documents import (
    WRITES,
    lowered_text,
    ranked_documents,
    row_mentions,
    whole_words,
)
from kgbuild.search.text import STOPWORDS

#: Fewest occurrences of the two-word phrase for it to be judged.
MIN_PHRASE = 10
#: Fewest occurrences of the word tagged as the concept outside the phrase for it to be judged.
MIN_TAGS = 5
#: A link is dropped when its word's tag share inside the phrase is below this share of its
#: share elsewhere ("reduced tau" 0.29 / 0.77 = 0.37 keeps tau; "oxidative stress" 0.06 /
#: 0.30 = 0.2 drops stress).
MAX_RATIO = 0.25
#: One-sided binomial test: the phrase's few tags are unlikely at the word's share elsewhere.
ALPHA = 0.01
#: A phrase whose linked word the annotator tags, as some concept, in this share of its
#: occurrences or more names a narrower concept, not another sense: the link stays.
MAX_COVERED = 0.5
#: Abstracts read for :func:`covered_share` at most.
MAX_DOCS = 500
#: Phrases judged per question at most (a question's first; a pasted abstract asks no more).
MAX_PHRASES = 16
#: A phrase's figures: its occurrences, those tagged, the word's occurrences, those tagged.
Counts = tuple[int, int, int, int]
#: Remembered counts: (snapshot, phrase, key offset, concept) → :func:`counts`' figures.
_COUNTS: dict[tuple[str, str, int, str], Counts] = {}
_LOCK = threading.Lock()
_TEXT = lowered_text()


@dataclass(frozen=True, slots=True)
class Phrase:
    """A one-word link with a content word beside it: the two words' span, the linked word's
    offset in it, the concept, and the two words and the linked word, lower-cased."""

    start: int
    end: int
    key_start: int
    key_end: int
    concept: str
    words: str

    @property
    def word(self) -> str:
        return self.words[self.key_start : self.key_end]


def _neighbour(question: str, a: int, b: int, left: bool) -> tuple[int, int] | None:
    """The content word right before (``left``) or after the span, one space away, else None."""
    if left:
        m = re.search(r"([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?) $", question[:a])
        span = (m.start(1), m.end(1)) if m else None
    else:
        m = re.match(r" ([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)(?![A-Za-z0-9])", question[b:])
        span = (b + m.start(1), b + m.end(1)) if m else None
    if span is None:
        return None
    word = question[span[0] : span[1]].lower()
    if word in STOPWORDS or len(word) < 2 or word.isdigit():
        return None
    return span


#: Heads of protein names built on the chemical they act on ("lactate dehydrogenase",
#: "glutamate receptor", "dopamine transporter"): BC5CDR's curators tag the chemical there.
_PROTEIN_HEAD = re.compile(
    r"(?:ase|ases|receptors?|transporters?|channels?|carriers?|synthases?)$", re.IGNORECASE
)


def plain_word(word: str) -> bool:
    """Is ``word`` a plain word (letters, lower case after its first: "stress", "Cognitive",
    "beta-amyloid"), whose sense a phrase may change, rather than a symbol or acronym ("NMDA",
    "Abeta42", "ER") that names its concept wherever it stands? BC5CDR's curators tag "NMDA"
    in "NMDA receptor" as the chemical; acronyms are judged by :mod:`kgbuild.search.tag_share`."""
    return bool(re.fullmatch(r"[A-Za-z][a-z]+(?:-[a-z]+)*", word))


def own_name(word: str, name: str | None) -> bool:
    """Is ``word`` the linked concept's own name ("glucose" for Glucose, "tau" is no MAPT)? A
    concept's own name keeps naming it in a phrase, however rarely the annotator tags it
    there; an alias or an adjective ("cognitive" for Cognition Disorders) may not."""
    if not name:
        return False
    a, b = (re.sub(r"[^a-z0-9]", "", t.lower()) for t in (word, name))
    return bool(a) and a.rstrip("s") == b.rstrip("s")


def phrases(question: str, links: Sequence[Any]) -> list[Phrase]:
    """The phrases to judge: each one-word question link to a node, with the content word on
    either side of it (the first :data:`MAX_PHRASES`)."""
    out = []
    for x in links:
        if x.where != "question" or x.node is None or not x.curie:
            continue
        word = question[x.start : x.end]
        if own_name(word, x.name):
            continue  # "glucose metabolism": the concept's own name still names it
        if not plain_word(word):
            continue  # "NMDA receptors": an acronym is a name (BC5CDR tags NMDA there)
        for left in (True, False):
            span = _neighbour(question, x.start, x.end, left)
            if span is None:
                continue
            if not left and _PROTEIN_HEAD.search(question[span[0] : span[1]]):
                continue  # "lactate dehydrogenase": the protein is named after the chemical
            a, b = (span[0], x.end) if left else (x.start, span[1])
            out.append(Phrase(a, b, x.start - a, x.end - a, x.curie, question[a:b].lower()))
    return out[:MAX_PHRASES]


def counts(wh: Any, snapshot_id: str, todo: list[Phrase]) -> dict[tuple[str, int, str], Counts]:
    """(phrase, key offset, concept) → (the phrase's occurrences, those whose linked word starts
    a mention of the concept, the word's occurrences, those starting such a mention) over the
    snapshot's abstracts: two aggregate catalog queries for what is not remembered."""
    out: dict[tuple[str, int, str], Counts] = {}
    with _LOCK:
        for p in todo:
            got = _COUNTS.get((snapshot_id, p.words, p.key_start, p.concept))
            if got is not None:
                out[(p.words, p.key_start, p.concept)] = got
    todo = list({(p.words, p.key_start, p.concept): p for p in todo
                 if (p.words, p.key_start, p.concept) not in out}.values())  # fmt: skip
    if not todo:
        return out
    words = sorted({p.word for p in todo})
    params: dict[str, Any] = {"sid": snapshot_id, "cs": sorted({p.concept for p in todo})}
    params |= {f"a{j}": w for j, w in enumerate(words)}
    written, tagged = [], []
    for i, p in enumerate(todo):
        params |= {f"p{i}": whole_words(p.words), f"w{i}": whole_words(p.word),
                   f"c{i}": p.concept, f"s{i}": f"^{re.escape(p.word)}(?:[^a-z0-9]|$)",
                   f"k{i}": p.key_start, f"n{i}": len(p.words), f"q{i}": p.words}  # fmt: skip
        written += [f"sum(len(regexp_extract_all(t, $p{i})))",
                    f"sum(len(regexp_extract_all(t, $w{i})))"]  # fmt: skip
        mine = f"m.concept_id = $c{i} AND regexp_matches(lower(m.text), $s{i})"
        tagged += [f"count(*) FILTER (WHERE {mine} AND substring(t, m.start + 1 - $k{i}, $n{i})"
                   f" = $q{i})", f"count(*) FILTER (WHERE {mine})"]  # fmt: skip
    # one pass: the abstracts writing any of the words, their counts, then their mentions
    either = " OR ".join(f"contains({_TEXT}, $a{j})" for j in range(len(words)))
    sql = (f"WITH d AS (SELECT x.pmid, {_TEXT} AS t FROM documents_at($sid) x WHERE {either}), "
           f"w AS (SELECT {', '.join(written)} FROM d), "
           f"m AS (SELECT {', '.join(tagged)} FROM mentions_at($sid) m JOIN d USING (pmid) "
           "WHERE list_contains($cs::VARCHAR[], m.concept_id)) SELECT * FROM w, m")  # fmt: skip
    row = wh.query(sql, params)[0]
    n_d, n_m = row[: len(written)], row[len(written) :]
    with _LOCK:
        if len(_COUNTS) > 4096:
            _COUNTS.clear()
        for i, p in enumerate(todo):
            got = (int(n_d[2 * i] or 0), int(n_m[2 * i] or 0), int(n_d[2 * i + 1] or 0),
                   int(n_m[2 * i + 1] or 0))  # fmt: skip
            out[(p.words, p.key_start, p.concept)] = got
            _COUNTS[(snapshot_id, p.words, p.key_start, p.concept)] = got
    return out


def differs(in_written: int, in_tagged: int, all_written: int, all_tagged: int) -> bool:
    """Does the phrase mean something else than the linked word alone (module docstring)?"""
    out_written, out_tagged = all_written - in_written, all_tagged - in_tagged
    if in_written < MIN_PHRASE or out_tagged < MIN_TAGS or out_written <= 0:
        return False
    share = min(1.0, out_tagged / out_written)
    if in_tagged >= MAX_RATIO * share * in_written:
        return False
    from scipy.special import bdtr  # the binomial's lower tail, P(X ≤ k)

    return float(bdtr(in_tagged, in_written, share)) < ALPHA


def covered_share(wh: Any, snapshot_id: str, phrase: Phrase) -> float:
    """The share of the phrase's occurrences (in up to :data:`MAX_DOCS` abstracts writing it)
    whose linked word lies inside a mention of any concept."""
    rows = ranked_documents(wh, snapshot_id, WRITES, {"p": whole_words(phrase.words)}, [],
                            None, MAX_DOCS)  # fmt: skip
    find = re.compile(rf"(?<![a-z0-9]){re.escape(phrase.words)}(?![a-z0-9])")
    seen = inside = 0
    for _pmid, _year, title, abstract, spans in rows:
        marks = [(a, b) for _, a, b in row_mentions(spans)]
        for m in find.finditer(f"{title or ''} {abstract or ''}".lower()):
            at = m.start() + phrase.key_start
            seen += 1
            inside += any(a <= at < b for a, b in marks)
    return inside / seen if seen else 0.0


def untagged_phrases(
    wh: Any, snapshot_id: str, question: str, links: Sequence[Any]
) -> tuple[list[Any], list[tuple[int, int]], list[dict[str, Any]]]:
    """(kept links, phrase spans left unlinked, what was judged): the module docstring's rule.
    A link inside or across a dropped phrase goes with it ("ER stress" is one phrase)."""
    todo = phrases(question, links)
    if not todo:
        return list(links), [], []
    figures = counts(wh, snapshot_id, todo)
    dropped: list[tuple[int, int]] = []
    judged = []
    for p in todo:
        in_written, in_tagged, all_written, all_tagged = figures[(p.words, p.key_start, p.concept)]
        drop = differs(in_written, in_tagged, all_written, all_tagged)
        covered = None
        if drop:  # tagged there as something else: a narrower concept, not another sense
            covered = covered_share(wh, snapshot_id, p)
            drop = covered < MAX_COVERED
        at = p.start + p.key_start
        judged.append({"phrase": question[p.start : p.end], "concept": p.concept,
                       "word": question[at : at + p.key_end - p.key_start],
                       "in": [in_tagged, in_written], "all": [all_tagged, all_written],
                       "covered": covered, "dropped": drop})  # fmt: skip
        if drop:
            dropped.append((p.start, p.end))
    spans: list[tuple[int, int]] = []
    for a, b in sorted(dropped):  # "oxidative stress levels": one phrase
        if spans and a < spans[-1][1]:
            spans[-1] = (spans[-1][0], max(b, spans[-1][1]))
        else:
            spans.append((a, b))
    kept = [x for x in links if x.where != "question"
            or not any(x.start < b and a < x.end for a, b in spans)]  # fmt: skip
    return kept, spans, judged
