"""A multiple-choice answer read from the corpus's sentences when the KG facts do not separate
the options.

Options are often phrases that link to one node or to none ("Abeta monomers" / "soluble Abeta
protofibrils", both Abeta; "no significant benefit vs placebo"): no fact tells them apart, and
the lexical lift of :mod:`kgbuild.query.choices` measures co-occurrence with the question's
neighbourhood, not what a sentence says. This is the IR solver of Clark et al. 2016
("Combining retrieval, statistics, and inference to answer elementary science questions",
AAAI; the Aristo IR solver): the option whose question + option words best match *one*
sentence of the corpus wins, over the snapshot's own abstracts.

- **Sentences**: those of the snapshot's documents that name the question's subject — its
  most specific linked entity (fewest documents) by its annotated mentions, or, with none
  linked, its rarest content word (its stem) — cut with the extractor's splitter. The other
  linked entities (hubs such as the corpus's topic) count as question words. One catalog
  query reads, per option, the newest :data:`DOCS_PER_PAIR` documents naming the subject and
  the option's words.
- **Option words**: only what an option has that the others and the question do not (its
  *distinctive* stems; "soluble", "protofibril" against "monomer"), found by stem prefix.
- **Sentence score**: the share of the option's distinctive words the sentence holds (IDF
  weighted) × the share of the question's remaining content words — the asked predicate and
  its qualifiers ("binds", "non-amyloidogenic", "phase 3") — it holds, IDF weighted. A
  sentence holding none of them says nothing about what is asked and does not count.
- **Negation**: a negated sentence ("did not", "no significant", "failed to") counts for an
  option that states a negative outcome and against one that does not.
- **Option score**: its best sentence + 1/2 × its second + 1/4 × its third (distinct PMIDs).
- **Decision**: the best option, when its score exceeds :data:`MIN_SCORE` and is
  :data:`RATIO` × the runner-up's; else the reading abstains (and the scores of
  :mod:`kgbuild.query.choices` answer as before).

The engine asks for a reading only when the facts (graph NPMI and asked relation) do not
single out one option, and not for a question asking for the exception ("all EXCEPT": the
sentences say what is so; on MedMCQA's 12 such questions the reading decided it was right 3
times, as the scores were); the answer then says it was read from sentences and shows them.
Measured on DALK's ADQA without an LLM (``kgbuild eval adqa``; thresholds chosen on MedMCQA by
5-fold cross-validation, MedQA held out): see docs/querying.md. On the per-question sweep the
reading decides 31 MedMCQA questions, right on 13 where the scores were right on 5, and 6
MedQA ones, right on 2 against 1. Measured and left out: facts leading by less than 0.05
handed to the reading (MedMCQA 71 → 67 right: a fact's lead, however small, beats the
sentences), and question words counted in full only within 60 characters of the option's
(71 → 65).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from kgbuild.corpus.documents import doc_sentences, lowered_text, row_mentions
from kgbuild.corpus.marks import disjoint_spans, excerpt
from kgbuild.corpus.stems import stem_regex, word_stems
from kgbuild.search.index import SnapshotIndex
from kgbuild.search.sentences import SentenceIndex
from kgbuild.search.text import STOPWORDS

#: Documents read per (subject, option) pair, newest first: bounded on a hub subject.
DOCS_PER_PAIR = 40
#: Weights of an option's best, second and third sentence (distinct PMIDs).
DECAY = (1.0, 0.5, 0.25)
#: Option score a decision must exceed, and how many times the runner-up's it must be
#: (chosen on ADQA MedMCQA, 5-fold cross-validated; MedQA reported apart: docs/querying.md).
MIN_SCORE = 0.3
RATIO = 1.5
#: How far the best option's facts must lead the runner-up's for the facts to decide.
FACT_MARGIN = 0.0
#: Characters before an option's word where a negation cue governs it.
NEG_WINDOW = 40
#: Sentences shown for the chosen option.
MAX_SHOWN = 3
#: Shortest stem read (characters), as the yes/no sentence reader.
MIN_STEM = 3
#: Words that frame a multiple-choice question, not what it asks about.
FRAME = frozenset(
    re.findall(
        r"\w+",
        "which what following most mainly main primarily usually commonly likely best true "
        "correct statement form type kind option answer question known called describe",
    )
)
#: A negated statement (NegEx-style cues, Chapman et al. 2001) in a sentence or an option.
NEGATION = re.compile(
    r"\b(?:not|no|never|neither|nor|without|fail(?:s|ed)?\s+to|failure|lack(?:s|ed)?\s+of"
    r"|did\s+not|does\s+not|unable|ineffective|negative|absence\s+of)\b",
    re.IGNORECASE,
)


@dataclass(slots=True)
class Reading:
    """What the sentences say about each option, and the option they single out (or None)."""

    scores: list[float]
    choice: int | None = None
    #: Per option: (score, pmid, year, shown sentence), best first.
    sentences: list[list[tuple[float, str, int, str]]] = field(default_factory=list)
    why: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "basis": "sentences",
            "choice": self.choice,
            "scores": [round(s, 4) for s in self.scores],
            "why": self.why,
            "sentences": [
                [{"score": round(s, 4), "pmid": p, "year": y, "sentence": t} for s, p, y, t in ss]
                for ss in self.sentences
            ],
        }


def _stems(text: str) -> list[str]:
    """A text's word stems, without stopwords, short stems and the question's frame."""
    return [
        s
        for w, s in zip(_words(text), word_stems(_joined(text)), strict=False)
        if (len(s) >= MIN_STEM or s.isdigit()) and w not in STOPWORDS and w not in FRAME
    ]


def _words(text: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[A-Za-z0-9]+", _joined(text))]


def _joined(text: str) -> str:
    """A negating prefix joined to its word ("non-amyloidogenic" → "nonamyloidogenic"): apart,
    "amyloidogenic" would find the very opposite."""
    return _PREFIXED.sub(lambda m: m.group(1) + m.group(2), text)


_PREFIXED = re.compile(r"\b(non|anti|un|in|dis)-(?=[a-z])(\w)", re.IGNORECASE)


def distinctive(choices: list[str], question: str) -> list[list[str]]:
    """Each option's stems that no other option and not the question has."""
    per = [set(_stems(c)) for c in choices]
    asked = set(_stems(question))
    out = []
    for i, mine in enumerate(per):
        others = set().union(*(p for j, p in enumerate(per) if j != i))
        out.append(sorted(mine - others - asked))
    return out


def _idf(lexical: SentenceIndex, stem: str) -> float:
    t = lexical.vocab.get(stem)
    df = lexical.df(t) if t is not None else 0
    return math.log((lexical.n_docs + 1) / (df + 1)) + 1.0


def _pattern(stem: str) -> re.Pattern[str]:
    """A stem and the rest of its word; a joined prefix ("nonamyloidogen") also written
    apart ("non-amyloidogenic")."""
    body = stem_regex(stem)
    m = _PREFIX.match(stem)
    if m and len(stem) > len(m.group(1)) + MIN_STEM:
        body = re.escape(m.group(1)) + r"[-\s]?" + stem_regex(stem[len(m.group(1)) :])
    return re.compile(rf"(?<![a-z0-9]){body}", re.IGNORECASE)


_PREFIX = re.compile(r"(non|anti|dis)")


def fetch(wh: Any, snapshot_id: str, ids: list[str], subject_stem: str | None,
          options: list[list[str]], as_of: int | None) -> list[tuple[Any, ...]]:  # fmt: skip
    """(pmid, year, title, abstract, [{c, a, b}]) of the documents naming the subject (a
    concept of ``ids`` or ``subject_stem``) and an option's words: per pair the newest
    :data:`DOCS_PER_PAIR` (one read-only catalog query)."""
    pats = [
        "(^|[^a-z0-9])(" + "|".join(stem_regex(s).replace(r"\w", "[a-z0-9]") for s in o) + ")"
        for o in options
        if o
    ]
    subj = (
        "SELECT DISTINCT pmid, concept_id AS s FROM mentions_at($sid) "
        "WHERE list_contains($ids::VARCHAR[], concept_id)"
        if ids
        else "SELECT pmid, 'phrase' AS s FROM documents_at($sid) WHERE regexp_matches("
        f"{lowered_text('')}, $subj)"
    )
    sql = (
        f"WITH q AS ({subj}), o AS (SELECT unnest($pats::VARCHAR[]) AS pat), "
        f"d AS (SELECT x.pmid, x.year, {lowered_text()} AS t FROM documents_at($sid) x "
        "WHERE ($asof IS NULL OR x.year <= $asof)), "
        "p AS (SELECT d.pmid, row_number() OVER (PARTITION BY q.s, o.pat ORDER BY d.year DESC, "
        "d.pmid) AS rn FROM q JOIN d USING (pmid) JOIN o ON regexp_matches(d.t, o.pat)), "
        f"k AS (SELECT DISTINCT pmid FROM p WHERE rn <= {DOCS_PER_PAIR}) "
        "SELECT x.pmid, x.year, x.title, x.abstract, list(struct_pack(c := m.concept_id, "
        'a := m.start, b := m."end")) FILTER (WHERE m.concept_id IS NOT NULL) '
        "FROM documents_at($sid) x JOIN k USING (pmid) LEFT JOIN mentions_at($sid) m "
        "USING (pmid) GROUP BY ALL ORDER BY x.year DESC, x.pmid"
    )
    subj_re = "(^|[^a-z0-9])" + stem_regex(subject_stem or "").replace(r"\w", "[a-z0-9]")
    named = {"sid": snapshot_id, "asof": as_of, "ids": ids, "pats": pats, "subj": subj_re}
    named.pop("subj" if ids else "ids")
    return wh.query(sql, named) if pats else []


def facts_decide(facts: list[float | None]) -> bool:
    """Do the options' fact scores (graph NPMI + asked relation) single out one option, by
    more than :data:`FACT_MARGIN` over the runner-up?"""
    vals = sorted((v or 0.0 for v in facts), reverse=True)
    return len(vals) > 1 and vals[0] > 0 and vals[0] - vals[1] > FACT_MARGIN


def read_choices(wh: Any, index: SnapshotIndex, lexical: SentenceIndex, question: str,
                 choices: list[str], subject: list[int], as_of: int | None = None
                 ) -> Reading | None:  # fmt: skip
    """The sentences' reading of the options (module docstring); None when no option has a
    distinctive word or the subject names nothing to read by."""
    if len(choices) < 2:
        return None
    opts = distinctive(choices, question)
    if sum(1 for o in opts if o) < 2:
        return None
    # the subject a sentence must name: the question's most specific entity (fewest
    # documents); the others, hubs such as the corpus's topic, are qualifiers it may name
    anchor = min(subject, key=lambda n: (int(index.node_docs[n]), n)) if subject else None
    ids = [str(index.nodes["id"][anchor])] if anchor is not None else []
    qstems = list(dict.fromkeys(_stems(question)))
    names = {s for n in subject for s in _stems(str(index.nodes["display"][n]))}
    subject_stem = None
    if not ids:  # a phrase subject: the question's rarest content word
        if not qstems:
            return None
        subject_stem = max(qstems, key=lambda s: (_idf(lexical, s), s))
    asked = [s for s in qstems if s not in names and s != subject_stem]
    rows = fetch(wh, index.snapshot_id, ids, subject_stem, opts, as_of)
    n = max(1, index.n_docs)
    weights = {
        str(index.nodes["id"][x]): math.log((n + 1) / (int(index.node_docs[x]) + 1)) + 1.0
        for x in subject
    }
    return judge(rows, ids[0] if ids else None, weights, subject_stem, opts, asked, choices,
                 lexical)  # fmt: skip


def judge(rows: list[tuple[Any, ...]], anchor: str | None, ids: dict[str, float],
          subject_stem: str | None,
          opts: list[list[str]], asked: list[str], choices: list[str],
          lexical: SentenceIndex) -> Reading:  # fmt: skip
    """Score every option over the documents ``rows`` (module docstring) and decide."""
    opt_pats = [[(_pattern(s), _idf(lexical, s)) for s in o] for o in opts]
    ask_pats = [(_pattern(s), _idf(lexical, s)) for s in asked]
    ask_total = sum(w for _, w in ask_pats)
    subj_pat = _pattern(subject_stem) if subject_stem else None
    negative = [bool(NEGATION.search(c)) for c in choices]
    best: list[dict[str, tuple[float, int, str]]] = [{} for _ in choices]
    for pmid, year, title, abstract, spans in rows:
        for ds in doc_sentences(pmid, year, title, abstract, row_mentions(spans)):
            sent = ds.text
            if anchor is not None:
                at = [(a, b) for c, a, b in ds.mentions if c == anchor]
            else:
                at = [m.span() for m in subj_pat.finditer(sent)] if subj_pat else []
            if not at:
                continue
            held = [(p.search(sent), w) for p, w in ask_pats]
            if ask_pats and not any(m for m, _ in held):
                continue  # nothing of what is asked
            named = {c for c, _, _ in ds.mentions if c in ids}
            q = (sum(w for m, w in held if m) + sum(ids[c] for c in named) + (not ids)) / (
                ask_total + sum(ids.values()) + (not ids)
            )
            found = [[(p.search(sent), w) for p, w in pats] for pats in opt_pats]
            covers = [sum(w for m, w in f if m) / sum(w for _, w in f) if f else 0.0 for f in found]
            # a sentence naming several options supports each by a share
            share = 1.0 / max(1, sum(1 for c in covers if c > 0))
            for i, cover in enumerate(covers):
                if cover <= 0:
                    continue
                sign = -1.0 if _negated(sent, found[i]) and not negative[i] else 1.0
                score = sign * cover * q * share
                spans_ = at[:1] + [m.span() for m, _ in found[i] if m]
                spans_ += [m.span() for m, _ in held if m]
                got = best[i].get(str(pmid))
                if got is None or score > got[0]:
                    best[i][str(pmid)] = (score, int(year), excerpt(sent, disjoint_spans(spans_)))
    scores, shown = [], []
    for per in best:
        ranked = sorted(per.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[0]))
        pos = [v[0] for _, v in ranked if v[0] > 0]
        neg = sorted(v[0] for _, v in ranked if v[0] < 0)
        scores.append(sum(w * s for w, s in zip(DECAY, pos, strict=False))
                      + sum(w * s for w, s in zip(DECAY, neg, strict=False)))  # fmt: skip
        shown.append([(v[0], p, v[1], v[2]) for p, v in ranked if v[0] > 0][:MAX_SHOWN])
    out = Reading(scores, sentences=shown)
    order = sorted(range(len(choices)), key=lambda i: -scores[i])
    top, second = scores[order[0]], max(0.0, scores[order[1]])
    if top > MIN_SCORE and top >= RATIO * second:
        out.choice = order[0]
        out.why = (
            f"read from sentences, not KG facts: '{choices[order[0]]}' {top:.2f} against "
            f"'{choices[order[1]]}' {scores[order[1]]:.2f} (sentences naming the subject, "
            "the option's own words and the question's)"
        )
    else:
        out.why = "the sentences do not separate the options"
    return out


def _negated(sent: str, found: list[tuple[re.Pattern[str] | None, float]]) -> bool:
    """Does a negation cue stand just before one of the option's words (NegEx's scope: the
    few words after the cue), so the sentence says the option is not so?"""
    for m, _ in found:
        if m is None:
            continue
        a, b = m.span()
        if NEGATION.search(sent[max(0, a - NEG_WINDOW) : b]):
            return True
    return False
