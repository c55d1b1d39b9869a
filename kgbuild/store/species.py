"""The catalog's organisms: the Species mentions PubTator tags (NCBI Taxonomy ids), which a
DALK build keeps no node of (DALK Table 10), read for questions about organisms
(:mod:`kgbuild.corpus.organism_answer`).

:func:`corpus_taxa` reads the snapshot's taxa once per snapshot and year (abstracts naming
each, surface forms, what each is: :mod:`kgbuild.taxa`); :func:`fetch` the abstracts naming a
question's entities and a candidate taxon, with just those mentions, as the sentence readers
of :mod:`kgbuild.query` read theirs (one read-only catalog query each).
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any

from kgbuild.taxa import Taxon, taxon

TAXON_PREFIX = "NCBITaxon:"
#: Abstracts read at most (newest first): DALK's abstracts naming AD and a mouse are ~1,500.
MAX_DOCS = 2500


def classify(forms: dict[str, Counter[str]]) -> dict[str, Taxon]:
    """What each taxon is, from the table or its surface forms (most frequent first)."""
    return {c: taxon(c, [f for f, _ in n.most_common(5)]) for c, n in forms.items()}


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
