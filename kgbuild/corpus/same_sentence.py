"""Answers of a kind named in the same *sentence* as the question's entity, when no fact joins
them.

The extractor misses many facts, and then the answers a user sees are entities merely named in
the same abstracts (:func:`kgbuild.query.answer_entities._same_abstract`), ranked by shared
PMIDs × NPMI: "what are the common side effects of donepezil" listed Takotsubo cardiomyopathy
and essential tremor (one case report each) above vomiting and diarrhoea, which an abstract
names with donepezil in one sentence. A sentence naming both is the unit an extractor reads a
relation in, and the closer reading: on BioRED Dev, the gold partners of a concept read from
the sentences naming it rather than from its abstracts give P@5 .674 against .429
(``python -m kgbuild.evaluate.phrase_partners --gold …/biored/Dev.PubTator``).

So between the fact tiers and the same-abstract tier come the candidates of the asked kind
named in a sentence that also names an anchor: the anchor's documents (newest first, at most
:data:`MAX_DOCS`, one catalog query as :mod:`kgbuild.query.phrase_answer` reads a phrase's),
cut with the extractor's splitter (:func:`kgbuild.extract.sentences.sentence_spans`), ranked
by the distinct PMIDs whose sentence carries the kind's cue word near the pair (side effects:
"adverse", "induced", "caused", … — :attr:`kgbuild.question.kinds.AnswerKind.said`), then by
PMIDs, then by how close the two names sit. Each answer shows its best sentence (a cue
sentence first) with both names marked, and says it is no extracted fact.

Only a kind with a cue has the tier, and only a sentence carrying the cue near the pair
counts (else the candidate stays a shared abstract). On ``bench/answer_kinds.py``: counting
every sentence lost DALK's galantamine and BioRED Dev's clozapine their gold side effect
(pushed out of the top five by bare same-sentence co-mentions); the tier for a kind without
a cue (targets) lowered BioRED Dev's target P@5 .510 → .506 and moved a gold chemical of
``kgbuild eval facts`` on BC5CDR Dev from rank 5 to 6, gaining nothing; with the cue
required within :data:`WINDOW` characters of the pair, no question lost its gold answer and
BC5CDR Dev's side-effect P@5 went .487 → .488.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kgbuild.corpus.documents import doc_sentences, row_mentions
from kgbuild.corpus.marks import disjoint_spans, excerpt
from kgbuild.search.index import SnapshotIndex

#: Documents read at most (newest first): bounded on a hub anchor (DALK's donepezil: 600+).
MAX_DOCS = 300
#: Score of a same-sentence answer per cue PMID and per PMID: only the order within the tier
#: matters (the tiers are never merged), kept below a fact's and above a shared abstract's.
CUE_WEIGHT = 1.0
#: Characters either side of the two names where the kind's cue word must stand: a cue
#: elsewhere in a sentence naming several entities is more often about another pair (for a
#: yes/no predicate, precision .295 → .562 on BioRED Dev: verdict_sentences.WINDOW).
WINDOW = 20
#: Only sentences carrying the cue near the pair make the tier (above).
REQUIRE_CUE = True
PMID_WEIGHT = 0.1


@dataclass(slots=True)
class Seen:
    """One candidate's sentences: its PMIDs, those with a cue sentence, its best sentence."""

    pmids: set[str] = field(default_factory=set)
    cued: set[str] = field(default_factory=set)
    best: tuple[Any, ...] = ()
    shown: str = ""
    pmid: str = ""


def fetch(wh: Any, snapshot_id: str, ids: list[str],
          as_of: int | None) -> list[tuple[Any, ...]]:  # fmt: skip
    """(pmid, year, title, abstract, [{c, a, b}]) of the newest :data:`MAX_DOCS` documents
    naming one of ``ids``, with every normalised mention (one read-only catalog query)."""
    sql = (
        "WITH d AS (SELECT x.pmid, x.year, x.title, x.abstract FROM documents_at($sid) x "
        "WHERE ($asof IS NULL OR x.year <= $asof) AND x.pmid IN (SELECT pmid FROM "
        "mentions_at($sid) WHERE list_contains($ids::VARCHAR[], concept_id)) "
        f"ORDER BY x.year DESC, x.pmid LIMIT {MAX_DOCS}) "
        "SELECT d.pmid, d.year, d.title, d.abstract, list(struct_pack(c := m.concept_id, "
        'a := m.start, b := m."end")) FILTER (WHERE m.concept_id IS NOT NULL) '
        "FROM d LEFT JOIN mentions_at($sid) m USING (pmid) GROUP BY ALL "
        "ORDER BY d.year DESC, d.pmid"
    )
    named = {"sid": snapshot_id, "asof": as_of, "ids": ids}
    return wh.query(sql, named)


def tally(rows: list[tuple[Any, ...]], anchors: set[str], accept: Callable[[str], bool],
          cue: re.Pattern[str] | None) -> dict[str, Seen]:  # fmt: skip
    """The concepts ``accept`` allows named in a sentence of ``rows`` that names an anchor,
    each with its PMIDs, its PMIDs whose sentence carries ``cue``, and its best sentence (a
    cue sentence, then the names closest, then newest)."""
    seen: dict[str, Seen] = {}
    for pmid, year, title, abstract, spans in rows:
        for ds in doc_sentences(pmid, year, title, abstract, row_mentions(spans)):
            at = [(a, b) for c, a, b in ds.mentions if c in anchors]
            if not at:
                continue
            sent = ds.text
            for c, a, b in ds.mentions:
                if c in anchors or not accept(c) or any(a < y and x < b for x, y in at):
                    continue
                near = min(at, key=lambda s: max(0, max(a, s[0]) - min(b, s[1])))
                gap = max(0, max(a, near[0]) - min(b, near[1]))
                lo, hi = min(a, near[0]) - WINDOW, max(b, near[1]) + WINDOW
                cued = cue is not None and cue.search(sent[max(lo, 0) : hi]) is not None
                if cue is not None and REQUIRE_CUE and not cued:
                    continue
                got = seen.setdefault(c, Seen())
                got.pmids.add(str(pmid))
                if cued:
                    got.cued.add(str(pmid))
                key = (not cued, gap, -int(year), str(pmid))
                if not got.best or key < got.best:
                    got.best, got.pmid = key, str(pmid)
                    got.shown = excerpt(sent, disjoint_spans([near, (a, b)]))
    return seen


def same_sentence(wh: Any, index: SnapshotIndex, anchors: list[int], allowed: np.ndarray | None,
                  barred: set[int], limit: int, cue: re.Pattern[str] | None,
                  topic: Callable[[np.ndarray], np.ndarray],
                  as_of: int | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """The answers of the same-sentence tier (module docstring), best first; never a
    ``barred`` node (the anchors, the question's exclusions, the fact tiers' answers) nor one
    ``topic`` calls the corpus's topic. [] for a kind without a ``cue`` or when the catalog
    cannot be read."""
    if limit <= 0 or not anchors or cue is None:  # no cue, no tier (module docstring)
        return []
    ids, names, types = index.nodes["id"], index.nodes["display"], index.nodes["type"]
    want = {str(ids[q]) for q in anchors}
    try:
        rows = fetch(wh, index.snapshot_id, sorted(want), as_of)
    except Exception:  # a busy or moved catalog: the same-abstract tier still answers
        return []

    def accept(c: str) -> bool:
        n = index.node_of.get(c)
        return n is not None and n not in barred and (allowed is None or bool(allowed[n]))

    seen = tally(rows, want, accept, cue)
    if not seen:
        return []
    cand = np.array([index.node_of[c] for c in seen], np.int64)
    keep = ~topic(cand)
    kept = [c for c, k in zip(seen, keep.tolist(), strict=True) if k]
    order = sorted(
        kept, key=lambda c: (-len(seen[c].cued), -len(seen[c].pmids), seen[c].best[1:], c)
    )
    out = []
    for c in order[:limit]:
        s, n = seen[c], index.node_of[c]
        pms = sorted(s.pmids)
        said = f"; {len(s.cued)} of them with a cue word" if cue is not None and s.cued else ""
        out.append({
            "id": ids[n], "name": names[n], "type": types[n] or "Other",
            "score": round(CUE_WEIGHT * len(s.cued) + PMID_WEIGHT * len(pms), 6),
            "basis": "same_sentence", "relation": [], "support": len(pms), "facts": [],
            "sentence": s.shown, "pmid": s.pmid, "edges": [],
            "why": f"no fact joins it; named in the same sentence (PMIDs {', '.join(pms[:5])}"
                   f"{said}); not an extracted fact",
        })  # fmt: skip
    return out
