"""An organism question answered from the snapshot's catalog: the Species mentions of the
abstracts naming the question's entities (:mod:`kgbuild.query.organisms` reads and ranks them).

Two read-only queries per question, as :mod:`kgbuild.query.same_sentence` reads its
sentences: the abstracts naming an entity and a candidate taxon, with just those mentions;
and the number of abstracts naming the entities. The corpus's taxa (abstracts naming each,
surface forms) are read once per snapshot and year.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any

from kgbuild.query.organism_kinds import Ask, Taxon, read_ask
from kgbuild.query.organisms import (
    MAX_ANSWERS,
    MAX_DOCS,
    TAXON_PREFIX,
    answer_dicts,
    classify,
    ranked,
    readable,
    tally,
)
from kgbuild.search.index import SnapshotIndex


@dataclass(frozen=True, slots=True)
class Taxa:
    """The corpus's taxa: abstracts naming each, surface forms, what each is; and the
    number of abstracts."""

    df: dict[str, int]
    forms: dict[str, Counter[str]]
    kinds: dict[str, Taxon]
    n_docs: int


_TAXA: dict[tuple[str, str, int | None], Taxa] = {}
_LOCK = threading.Lock()


def corpus_taxa(wh: Any, snapshot_id: str, as_of: int | None) -> Taxa:
    """The snapshot's taxa (one catalog query, then kept per snapshot and year)."""
    key = (str(getattr(wh, "catalog_path", wh)), snapshot_id, as_of)
    with _LOCK:
        got = _TAXA.get(key)
    if got is not None:
        return got
    sql = (
        "WITH d AS (SELECT pmid FROM documents_at($sid) WHERE $asof IS NULL OR year <= $asof) "
        "SELECT m.concept_id, count(DISTINCT m.pmid), list(m.text) FROM mentions_at($sid) m "
        "WHERE m.pmid IN (SELECT pmid FROM d) AND starts_with(m.concept_id, $pre) GROUP BY 1"
    )
    rows = wh.query(sql, {"sid": snapshot_id, "asof": as_of, "pre": TAXON_PREFIX})
    n = wh.query("SELECT count(*) FROM documents_at($sid) WHERE $asof IS NULL OR year <= $asof",
                 {"sid": snapshot_id, "asof": as_of})[0][0]  # fmt: skip
    forms = {str(c): Counter(t for t in texts if t) for c, _, texts in rows}
    got = Taxa({str(c): int(k) for c, k, _ in rows}, forms, classify(forms), int(n))
    with _LOCK:
        if len(_TAXA) >= 8:
            _TAXA.clear()
        _TAXA[key] = got
    return got


def fetch(wh: Any, snapshot_id: str, anchors: list[str], taxa: list[str],
          as_of: int | None) -> tuple[list[tuple[Any, ...]], int]:  # fmt: skip
    """(pmid, year, title, abstract, [{c, a, b}]) of the newest :data:`MAX_DOCS` abstracts
    naming an anchor (any, with none) and one of ``taxa``, with those mentions only; and the
    number of abstracts naming an anchor."""
    named = {"sid": snapshot_id, "asof": as_of, "ids": anchors, "taxa": taxa,
             "keep": anchors + taxa, "any": not anchors}  # fmt: skip
    sql = (
        "WITH a AS (SELECT DISTINCT pmid FROM mentions_at($sid) "
        "WHERE list_contains($ids::VARCHAR[], concept_id)), "
        "t AS (SELECT DISTINCT pmid FROM mentions_at($sid) "
        "WHERE list_contains($taxa::VARCHAR[], concept_id)), "
        "d AS (SELECT x.pmid, x.year, x.title, x.abstract FROM documents_at($sid) x "
        "WHERE ($asof IS NULL OR x.year <= $asof) AND x.pmid IN (SELECT pmid FROM t) "
        "AND ($any OR x.pmid IN (SELECT pmid FROM a)) "
        f"ORDER BY x.year DESC, x.pmid LIMIT {MAX_DOCS}) "
        "SELECT d.pmid, d.year, d.title, d.abstract, list(struct_pack(c := m.concept_id, "
        'a := m.start, b := m."end")) FILTER (WHERE list_contains($keep::VARCHAR[], '
        "m.concept_id)) FROM d LEFT JOIN mentions_at($sid) m USING (pmid) GROUP BY ALL "
        "ORDER BY d.year DESC, d.pmid"
    )
    rows = wh.query(sql, named)
    if not anchors:
        return rows, 0
    df = wh.query(
        "SELECT count(DISTINCT m.pmid) FROM mentions_at($sid) m JOIN documents_at($sid) x "
        "USING (pmid) WHERE list_contains($ids::VARCHAR[], m.concept_id) "
        "AND ($asof IS NULL OR x.year <= $asof)",
        {"sid": snapshot_id, "asof": as_of, "ids": anchors},
    )[0][0]
    return rows, int(df)


@dataclass(slots=True)
class OrganismAnswer:
    """The organisms answering a question, and how they were read."""

    answers: list[dict[str, Any]]
    note: str


def organism_answer(
    wh: Any, index: SnapshotIndex, question: str, anchors: list[int],
    as_of: int | None = None, limit: int = MAX_ANSWERS,
) -> OrganismAnswer:  # fmt: skip
    """The organisms answering ``question`` about the ``anchors`` nodes (module docstring),
    with a note saying how they were read."""
    ask = read_ask(question)
    taxa = corpus_taxa(wh, index.snapshot_id, as_of)
    ids = [str(index.nodes["id"][n]) for n in anchors]
    shown = ", ".join(str(index.nodes["display"][n]) for n in anchors) or "the corpus"
    allowed = sorted(c for c, t in taxa.kinds.items() if ask.takes(t))
    rows, df_anchor = fetch(wh, index.snapshot_id, ids, allowed, as_of) if allowed else ([], 0)
    ok = set(allowed)
    seen = tally(rows, set(ids), ok.__contains__, ask)
    order = ranked(seen, taxa.df, df_anchor if ids else taxa.n_docs, taxa.n_docs)
    names = {c: readable(c, taxa.kinds[c], taxa.forms.get(c, Counter())) for c in seen}
    answers = answer_dicts(seen, order, names, limit)
    return OrganismAnswer(answers, note(ask, shown, bool(answers)))


def note(ask: Ask, about: str, found: bool) -> str:
    """How the answers were read, in plain words."""
    where = f"sentences naming {about}" if about != "the corpus" else "the corpus's sentences"
    if ask.infection:
        where += " with an infection word near the organism (vectors and expression hosts left out)"
    elif ask.groups:
        where += " (vectors and expression hosts left out)"
    elif ask.model:
        where += " with a model word near the organism"
    out = (f"organisms are no KG entities: {ask.words()} read from PubTator's Species mentions "
           f"in {where}, ranked by specificity (NPMI with {about}) and abstracts; read from "
           "sentences, not KG facts")  # fmt: skip
    if ask.groups or ask.non_mammal:
        out += ("; which organisms are pathogens, animals or mammals comes from "
                "data/organisms.tsv (NCBI Taxonomy lineage is not available offline): an "
                "organism it does not list, whose name does not say so, is left out")  # fmt: skip
    if not found:
        out += f"; none found for {about}"
    return out
