"""A yes/no verdict read from the corpus's sentences when the served facts do not decide.

The extractor (trained on BioRED, Luo et al. 2022) makes no Disease–Disease facts and misses
many pairs, and some things a question names are no entity kind PubTator annotates
("exercise"). Yet the snapshot's abstracts say them: "type 2 diabetes increases the risk of
AD" is a sentence naming both sides. So when the facts give "no evidence", "no stated evidence"
or "not found" for an unlinked phrase, the sentences of the snapshot's documents that name both
sides are read against the asked predicate's cues (:mod:`kgbuild.question.predicates`) and the
epistemic rules the extractor uses (:func:`kgbuild.extract.epistemics.classify`: a negated cue
states the opposite, a hedged one states nothing).

A concept side is found by its mentions (offsets, the annotator's concept ID, or an
unnormalised mention written as one of the node's names); a phrase side by its words' stems,
spelling-corrected against the snapshot's sentence vocabulary ("excercise" → "exercis"). One
DuckDB query fetches the documents naming every side; sentences are cut with the extractor's
splitter (:func:`kgbuild.extract.sentences.sentence_spans`). The answer says it comes from
sentences, not from extracted facts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kgbuild.corpus.marks import MAX_SENTENCE, disjoint_spans, excerpt
from kgbuild.extract.epistemics import classify
from kgbuild.extract.sentences import sentence_spans
from kgbuild.query.verdict import decide
from kgbuild.question.intent import Intent
from kgbuild.question.predicates import Predicate, predicate_for
from kgbuild.question.question_phrase import stem_regex
from kgbuild.search.sentences import terms

#: Documents read at most (newest first): enough to decide, bounded on a hub pair.
MAX_DOCS = 300
#: Sentences shown as the verdict's evidence.
MAX_SHOWN = 5
#: Least rapidfuzz ratio for a phrase word's stem to be corrected to a vocabulary stem.
SPELLING = 85
#: Fact verdicts that do not decide, so the sentences are read.
UNDECIDED = ("no evidence", "no stated evidence", "not found")
#: Shortest stem read (characters): shorter words match too much.
MIN_STEM = 3
#: Characters either side of the two names where a cue governs the pair: a cue elsewhere in a
#: sentence naming several entities is about another pair ("the risk of AD in T2D" still
#: counts). Measured by :mod:`kgbuild.evaluate.sentence_verdicts` on BioRED Dev (associates):
#: precision of "yes" 0.295 with the whole sentence, 0.562 at 20 (recall 0.381 → 0.277).
WINDOW = 20
#: PMIDs whose sentences carry the opposite cue needed for a "no" without a negation. One
#: sentence's "decreases" is most often about another role of the pair ("monoHER decreases
#: DOX-induced cardiotoxicity" against "does monoHER decrease DOX"): on BioRED Dev's yes/no
#: questions (``bench/yes_no_verdicts.py``) every one of the 10 sentence "no"s that rested on
#: one abstract's opposite cue answered a gold "yes". A negated statement ("did not increase
#: the risk") says "no" outright.
OPPOSITE_PMIDS = 2
#: The answer when every stating abstract is an animal study and the claim is about a disease
#: ("do statins prevent AD", "does DHA slow cognitive decline in AD"): a disease outcome in
#: mice is a model's, and preclinical promise often fails in people (statins: Feldman et al.
#: 2010, LEADe; ginkgo: DeKosky et al. 2008, GEM; DHA: Quinn et al. 2010). Not decisive.
IN_ANIMALS = "in animal studies only"
#: The asked relations that claim a disease outcome in people (treat, prevent, cause, risk),
#: where :data:`IN_ANIMALS` applies; a molecular association read in mice stands.
CLINICAL = frozenset({"treats", "causes", "risk_factor", "downregulates+risk_factor"})


@dataclass(frozen=True, slots=True)
class Side:
    """One side of the question: a concept (its CURIEs) or a phrase (its words' stems)."""

    label: str
    ids: tuple[str, ...] = ()
    stems: tuple[str, ...] = ()
    #: The concept's node kind ("Disease"); empty for a phrase.
    kind: str = ""

    def words(self) -> list[re.Pattern[str]]:
        return [re.compile(rf"(?<!\w){stem_regex(s)}(?!\d)", re.IGNORECASE) for s in self.stems]


@dataclass(slots=True)
class Reading:
    """The sentences naming every side, and what they say."""

    yes: set[str] = field(default_factory=set)
    no: set[str] = field(default_factory=set)
    #: PMIDs whose sentence negates the predicate's cue (a subset of ``no``).
    negated: set[str] = field(default_factory=set)
    hedged: set[str] = field(default_factory=set)
    #: PMIDs with a sentence read "yes" whose own negated finding outweighs it.
    overruled: set[str] = field(default_factory=set)
    docs: set[str] = field(default_factory=set)
    sentences: int = 0
    shown: list[dict[str, Any]] = field(default_factory=list)


#: Shortest stem a spelling correction is tried on.
MIN_SPELLED = 5


def phrase_side(phrase: str, vocab: dict[str, int] | None = None) -> Side | None:
    """The side of an unlinked phrase: its stems, each unknown one replaced by the closest
    vocabulary stem sharing its first letter (a misspelling rarely starts wrong)."""
    stems = [s for s in terms(phrase) if len(s) >= MIN_STEM]
    if vocab:
        from rapidfuzz import fuzz, process

        fixed = []
        for s in stems:
            # a short word is too near too many others: "let" of "let-7" is no slip of "left"
            if s not in vocab and len(s) >= MIN_SPELLED:
                pool = [v for v in vocab if v[:1] == s[:1]]
                got = process.extractOne(s, pool, scorer=fuzz.ratio, score_cutoff=SPELLING)
                s = got[0] if got else s
            fixed.append(s)
        stems = fixed
    return Side(phrase, stems=tuple(stems)) if stems else None


def without_cues(phrase: str, pred: Predicate) -> str:
    """The phrase without the words that state the asked predicate or its opposite: in "is
    ginkgo biloba effective at preventing AD" the unlinked "ginkgo biloba effective" names
    ginkgo biloba; "effective" is what is asked of it, read as a cue in the sentences."""
    for pat in (pred.cues, pred.against):
        if pat is not None:
            phrase = pat.sub(" ", phrase)
    return " ".join(phrase.split())


def _sql(concepts: list[Side], phrases: list[Side]) -> tuple[str, list[Any]]:
    parts, params = [], []
    for k, s in enumerate(concepts):
        parts.append(
            f'SELECT {k} AS k, pmid, start, "end" FROM mentions_at($sid) WHERE '
            f"list_contains($ids{k}, concept_id) OR (concept_id IS NULL AND lower(text) IN "
            f"(SELECT lower(unnest(list_append(aliases, name))) FROM entities_at($sid) "
            f"WHERE list_contains($ids{k}, id)))"
        )
        params.append(list(s.ids))
    # a phrase's documents need its last word (English noun phrases end in their head)
    words = [f"regexp_matches(lower(d.title || ' ' || d.abstract), $w{i})"
             for i, _ in enumerate(phrases)]  # fmt: skip
    sql = (
        f"WITH s AS ({' UNION ALL '.join(parts)}) SELECT d.pmid, d.year, d.title, d.abstract, "
        'list(struct_pack(k := s.k, a := s.start, b := s."end")) FROM s JOIN documents_at($sid) '
        "d USING (pmid) WHERE ($asof IS NULL OR d.year <= $asof) "
        + "".join(f"AND {w} " for w in words)
        + f"GROUP BY ALL HAVING count(DISTINCT s.k) = {len(concepts)} "
        f"ORDER BY d.year DESC, d.pmid LIMIT {MAX_DOCS}"
    )
    return sql, params


def fetch(wh: Any, snapshot_id: str, concepts: list[Side], phrases: list[Side],
          as_of: int | None) -> list[tuple[Any, ...]]:  # fmt: skip
    """(pmid, year, title, abstract, [{k, a, b}]) of the snapshot's documents naming every
    side: one read-only catalog query (named parameters)."""
    sql, ids = _sql(concepts, phrases)
    named: dict[str, Any] = {"sid": snapshot_id, "asof": as_of}
    named |= {f"ids{k}": v for k, v in enumerate(ids)}
    named |= {f"w{i}": rf"(^|[^a-z0-9]){re.escape(p.stems[-1].lower())}"
              for i, p in enumerate(phrases)}  # fmt: skip
    return wh.query(sql, named)


def _phrase_spans(sent: str, side: Side, whole: bool) -> list[tuple[int, int]] | None:
    """Spans of the phrase's words in the sentence: every word (``whole``), else its first and
    its head ("estrogen … replacement" of "estrogen hormone replacement"; the head alone,
    "replacement", found enzyme and cell replacement sentences)."""
    words = side.words()
    pats = words if whole else [*words[:1], *words[-1:]] if len(words) > 1 else words
    got = [p.search(sent) for p in pats]
    return [(m.start(), m.end()) for m in got if m] if all(got) else None


def read(rows: list[tuple[Any, ...]], concepts: list[Side], phrases: list[Side],
         pred: Predicate) -> Reading:  # fmt: skip
    """Every sentence naming every side, read against ``pred``; a phrase named whole where
    some sentence names it so, else by its first and head words."""
    found: list[tuple[str, int, str, list[tuple[int, int]], str, int]] = []
    for whole in (True, False):
        for pmid, year, title, abstract, spans in rows:
            text = f"{title or ''} {abstract or ''}"
            by = [[(int(x["a"]), int(x["b"])) for x in spans if x["k"] == k]
                  for k in range(len(concepts))]  # fmt: skip
            protected = [s for side in by for s in side]
            for s0, s1 in sentence_spans(text, protected, [len(title or "") + 1]):
                if s1 - s0 > MAX_SENTENCE:
                    continue
                ends = [next(((a, b) for a, b in side if s0 <= a and b <= s1), None) for side in by]
                if None in ends:
                    continue
                sent = text[s0:s1]
                marks = [(a - s0, b - s0) for a, b in ends if a is not None]  # type: ignore[misc]
                for p in phrases:
                    got = _phrase_spans(sent, p, whole)
                    if got is None:
                        break
                    marks += got
                else:
                    found.append((str(pmid), int(year), text, marks, sent, s0))
        if found or not phrases:
            break
    out = Reading()
    for pmid, year, text, marks, sent, s0 in found:
        out.docs.add(pmid)
        out.sentences += 1
        said = cue_reading(pred, text, sent, s0, marks)
        if said == "negated":
            out.negated.add(pmid)
            said = "no"
        {"yes": out.yes, "no": out.no, "hedged": out.hedged}.get(said, set()).add(pmid)
        gap = max(b for _, b in marks) - min(a for a, _ in marks)
        # the pair's first side (the question's subject) named before its last: "T2D increases
        # the risk of AD" reads the asked way round, "AD patients are susceptible to T2D" not
        backward = not phrases and len(concepts) > 1 and marks[0][0] > marks[len(concepts) - 1][0]
        out.shown.append({"pmid": pmid, "year": year, "reading": said or "", "gap": gap,
                          "backward": backward,
                          "sentence": excerpt(sent, disjoint_spans(marks))})  # fmt: skip
    # an abstract that states the negation ("ginkgo … did not reduce the risk of progression to
    # AD") answers no, whatever its title or aims say the study set out to show ("ginkgo … for
    # the prevention of AD: a randomised trial"): the finding is the abstract's answer
    out.overruled = out.yes & out.negated
    out.yes -= out.negated
    # what each reading says first (a "yes" its abstract's finding overrules after the "no"s),
    # then the subject first, then the names closest together (the plainest statement)
    rank = {"yes": 0, "no": 1, "hedged": 2, "": 3}

    def order(x: dict[str, Any]) -> tuple[Any, ...]:
        said = 1.5 if x["reading"] == "yes" and x["pmid"] in out.overruled else rank[x["reading"]]
        return (said, x["backward"], x["gap"], -x["year"], x["pmid"])

    out.shown.sort(key=order)
    return out


def cue_reading(pred: Predicate, text: str, sent: str, s0: int,
             marks: list[tuple[int, int]]) -> str | None:  # fmt: skip
    """ "yes" when the sentence carries the predicate's cue between or next to the two names
    (:data:`WINDOW`), "no" for its opposite cue, "negated" for a negated cue ("did not
    increase the risk"), "hedged" for a hedged one, else None."""
    lo = max(0, min(a for a, _ in marks) - WINDOW)
    hi = max(b for _, b in marks) + WINDOW
    side = pred.cue_side(sent[lo:hi])
    if side is None:
        return None
    pro = side == "yes"
    a, b = (marks + marks)[:2]
    status, _ = classify(text, (s0, s0 + len(sent)), (s0 + a[0], s0 + a[1]),
                         (s0 + b[0], s0 + b[1]))  # fmt: skip
    if status == "negated":
        return "negated" if pro else None
    if status == "hypothesis":
        return "hedged"
    return "yes" if pro else "no"


def animal_only(wh: Any, snapshot_id: str, pmids: set[str]) -> set[str]:
    """Which of ``pmids`` name a non-human species and no human one (PubTator's Species
    mentions: "mice", "rats" but no "patients" or "participants"; a bare "human" modifies a
    transgene in "human APP mice" and is no human study): a statement read there is about an
    animal model. Preclinical promise is not clinical evidence — statins and
    ginkgo "protect" in mice and failed in trials (Feldman et al. 2010; DeKosky et al. 2008,
    GEM) — so the verdict says how much of its evidence is animal-only."""
    if not pmids:
        return set()
    sql = ("SELECT pmid FROM mentions_at($sid) WHERE list_contains($pmids, pmid) AND "
           "concept_id LIKE 'NCBITaxon:%' GROUP BY pmid HAVING "
           "count_if(concept_id = 'NCBITaxon:9606' AND lower(text) <> 'human') = 0")  # fmt: skip
    rows = wh.query(sql, {"sid": snapshot_id, "pmids": sorted(pmids)})
    return {str(r[0]) for r in rows}


def verdict(base: dict[str, Any], sides: list[Side], got: Reading, pred: Predicate,
            animal: set[str] = frozenset()) -> dict:  # type: ignore[assignment]  # fmt: skip
    """The verdict of a sentence reading, on top of the facts' verdict ``base``; ``animal``:
    the PMIDs of ``got`` whose abstracts name only non-human species (:func:`animal_only`)."""
    yes, no = len(got.yes), len(got.no - got.yes)
    weak = no and not (got.negated - got.yes) and no < OPPOSITE_PMIDS
    answer = decide(yes, 0 if weak else no, len(got.docs))
    in_animals = len(got.yes & animal)
    if (answer == "yes" and in_animals == yes and pred.asked in CLINICAL
            and any(s.kind == "Disease" for s in sides)):  # fmt: skip
        answer = IN_ANIMALS
    names = " and ".join(s.label for s in sides)
    both = "all three" if len(sides) > 2 else "both"
    claim = f"{sides[0].label} {pred.says} {sides[-1].label}"
    if len(sides) > 2:
        claim += f" (via {', '.join(s.label for s in sides[1:-1])})"
    head = (f"{answer} (from {got.sentences} sentences naming {both} in {len(got.docs)} "
            "abstracts; not extracted as facts)")  # fmt: skip
    if yes or no:
        line = f"{head}: {yes} PMIDs' sentences state {claim}"
        line += f"; {no} state the opposite" if no else ""
        line += " (too few, none negated, to answer no)" if weak else ""
        if got.overruled:
            line += (f"; {len(got.overruled)} PMIDs whose other sentences (a title, an aim) say "
                     "so negate it in their finding: the finding counts")  # fmt: skip
        if answer == IN_ANIMALS:
            line += (f"; all {yes} in animal studies only (their abstracts name no human): "
                     "not shown in people")  # fmt: skip
        elif in_animals == yes and yes:
            line += f"; all {yes} in animal studies only (their abstracts name no human)"
        elif in_animals:
            line += f"; {in_animals} of the {yes} in animal studies only"
    else:
        line = f"{head}: no sentence naming {names} states {claim}"
    if got.hedged:
        line += f"; {len(got.hedged)} hedged"
    read_as = [" ".join(f"{w}*" for w in s.stems) for s in sides if s.stems]
    if read_as:  # the words a phrase was found by, after spelling correction
        line += f"; phrase read as: {', '.join(read_as)}"
    out = dict(base)
    pm = sorted(got.yes) + sorted(got.no - got.yes) or sorted(got.docs)
    out.update(basis="sentences", answer=answer, line=line, sentences=got.shown[:MAX_SHOWN],
               sentence_counts={"sentences": got.sentences, "abstracts": len(got.docs),
                                "yes": yes, "no": no, "hedged": len(got.hedged),
                                "yes_animal_only": len(got.yes & animal)},
               pmids=pm[:10], names=[s.label for s in sides])  # fmt: skip
    out.setdefault("predicate", pred.says)
    return out


def _in_order(question: str, sides: list[Side], at: dict[str, int]) -> list[Side]:
    """Sides in the order the question names them (subject first): "does exercise lower the
    risk of AD" reads exercise → AD. ``at``: where each linked CURIE's surface starts."""

    def pos(s: Side) -> int:
        return at.get(s.ids[0], 0) if s.ids else max(question.find(s.label), 0)

    return sorted(sides, key=pos)


def sentence_verdict(wh: Any, index: Any, lexical: Any, question: str, base: dict | None,
                     pair: tuple[int, int] | None, nodes: list[int], intent: Intent,
                     as_of: int | None = None,
                     links: Sequence[Any] = ()) -> dict | None:  # fmt: skip
    """``base`` (the facts' verdict) unless it is undecided and sentences naming its sides
    decide or count: the pair's (A and B; with a third question entity C, first the
    sentences naming A, C and B: "does lithium reduce tau phosphorylation by inhibiting
    GSK3B"), or an unlinked phrase's with the question's entities."""
    if base is None or base.get("answer") not in UNDECIDED:
        return base
    pred = predicate_for(intent.asked)
    ids, names = index.nodes["id"], index.nodes["display"]

    def concept(n: int) -> Side:
        return Side(str(names[n]), ids=(str(ids[n]),), kind=str(index.nodes["type"][n]))

    tries: list[tuple[list[Side], list[Side]]] = []
    if base["answer"] == "not found":
        vocab = lexical.vocab if lexical is not None else None
        cands = [p for m in base.get("missing") or []
                 if (p := phrase_side(without_cues(m, pred), vocab))]  # fmt: skip
        if not cands or not nodes:
            return base

        def df(s: Side) -> int:
            t = vocab.get(s.stems[-1]) if vocab else None
            return int(lexical.df(t)) if t is not None else 0

        phrase = min(cands, key=lambda s: (df(s) == 0, df(s)))  # the most specific, if known
        tries.append(([concept(n) for n in nodes[:2]], [phrase]))
    elif pair is not None:
        a, b = pair
        third = [n for n in nodes if n not in (a, b)][:1]
        if third:
            tries.append(([concept(a), concept(third[0]), concept(b)], []))
        tries.append(([concept(a), concept(b)], []))
    for concepts, phrases in tries:
        got = read(fetch(wh, index.snapshot_id, concepts, phrases, as_of), concepts, phrases,
                   pred)  # fmt: skip
        if got.docs:
            at = {str(ids[x.node]): x.start for x in reversed(links)
                  if x.where == "question" and x.node is not None}  # fmt: skip
            sides = concepts if not phrases else _in_order(question, concepts + phrases, at)
            return verdict(base, sides, got, pred, animal_only(wh, index.snapshot_id, got.yes))
    if base["answer"] == "not found" and tries:
        out = dict(base)
        concepts, phrases = tries[0]
        words = ", ".join(f"'{p.label}'" for p in phrases)
        named = " and ".join(s.label for s in concepts)
        out["line"] = f"{base['line']}; no sentence of the corpus names {words} with {named}"
        return out
    return base
