"""One snapshot's served graph as arrays: the nodes, which pairs are joined, and the abstracts
that name them — what every feature of a pair is computed from.

**Joined.** Two distinct nodes are *joined* in a snapshot when at least one triple between them,
in either direction and of any relation — ``co_mentioned`` included — has served evidence there,
i.e. the pair carries an edge of ``kg_edges_at(sid)`` (the graph the product serves; the edge's
support is the number of distinct PMIDs of that evidence, ``served_evidence_at``). ``co_mentioned``
counts because "named together in a sentence" is exactly the first co-occurrence that
literature-based discovery forecasts (Swanson 1986; Kastrin et al. 2016 predict MeSH
co-occurrence). Evidence that is not served (hedged, negated, background…) does not join a pair;
it is a *feature* of the pair, as is being named in one abstract (the ``mentions`` table).
The nodes of a snapshot are the endpoints of its served edges.

**Candidates.** Every unordered pair of distinct nodes of a snapshot not joined in it
(:func:`candidate_blocks`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import duckdb
import numpy as np
import scipy.sparse as sp

#: Node kinds, coded 0…2; anything else (an unlinked node) is 3.
TYPES = ("Gene", "Compound", "Disease")
#: Documents of the last RECENT_YEARS years of a snapshot are its "recent" ones.
RECENT_YEARS = 2
#: Candidate pairs featurised and scored at once (memory: ~35 float32 per pair).
BLOCK_PAIRS = 1_000_000
JOINED = (
    "a pair is joined in a snapshot when a triple between the two nodes (either direction, any "
    "relation, co_mentioned included) has served evidence there (an edge of kg_edges_at)"
)

#: Each pair's distinct PMIDs of served evidence (``support``) and of any evidence (``n_all``):
#: the same evidence rows ``kg_edges_at`` counts, grouped by unordered node pair.
_PAIRS_SQL = """
WITH t AS (SELECT triple_id, least(head_id, tail_id) AS a, greatest(head_id, tail_id) AS b
           FROM triples_at($sid) WHERE head_id <> tail_id),
s AS (SELECT a, b, count(DISTINCT pmid) AS support FROM served_evidence_at($sid)
      JOIN t USING (triple_id) GROUP BY a, b),
x AS (SELECT a, b, count(DISTINCT pmid) AS n_all FROM evidence_status_at($sid)
      JOIN t USING (triple_id) GROUP BY a, b)
SELECT x.a, x.b, coalesce(s.support, 0) AS support, x.n_all FROM x LEFT JOIN s USING (a, b)
ORDER BY x.a, x.b
"""
_NODES_SQL = "SELECT id, display_name, type, first_year FROM entity_names_at($sid) ORDER BY id"
_MENTIONS_SQL = """
SELECT DISTINCT m.pmid, m.concept_id, d.year FROM mentions_at($sid) m
LEFT JOIN (SELECT pmid, max(year) AS year FROM documents_at($sid) GROUP BY pmid) d USING (pmid)
WHERE m.concept_id IS NOT NULL
"""
_DOCS_SQL = """
SELECT count(DISTINCT pmid), count(DISTINCT pmid) FILTER (WHERE year >= $recent)
FROM documents_at($sid)
"""


@dataclass(eq=False)
class Graph:
    """One snapshot's served graph as arrays, read from that snapshot's own tables only.

    ``ids`` are sorted, so a pair (i, j), i < j, has the key ``i * n + j`` and keys sort as pairs
    do. ``joined`` and ``weight`` (distinct PMIDs) are symmetric; ``unserved`` holds, for pairs
    not joined, the PMIDs of evidence that is not served; ``comention`` the number of abstracts
    naming both nodes; ``doc_freq`` the documents naming each node, of ``n_docs``;
    ``recent_freq`` the same over the snapshot's last :data:`RECENT_YEARS` years' documents."""

    year: int
    snapshot_id: str
    ids: np.ndarray
    names: list[str]
    types: np.ndarray
    first_year: np.ndarray
    joined: sp.csr_matrix
    weight: sp.csr_matrix
    unserved: sp.csr_matrix
    comention: sp.csr_matrix
    doc_freq: np.ndarray
    n_docs: int
    recent_freq: np.ndarray
    n_recent: int

    @property
    def n(self) -> int:
        return len(self.ids)

    @property
    def degree(self) -> np.ndarray:
        return np.asarray(self.joined.sum(axis=1)).ravel()

    @property
    def strength(self) -> np.ndarray:
        return np.asarray(self.weight.sum(axis=1)).ravel()

    def positions(self, ids: np.ndarray) -> np.ndarray:
        """Index of each of ``ids`` in this graph, −1 where it is not a node here."""
        if len(ids) == 0 or self.n == 0:
            return np.full(len(ids), -1, dtype=np.int64)
        pos = np.searchsorted(self.ids, ids)
        ok = pos < self.n
        ok[ok] = self.ids[pos[ok]] == ids[ok]
        return np.where(ok, pos, -1)

    def joined_keys(self, other: Graph) -> np.ndarray:
        """Sorted keys (in this graph's index) of the pairs joined in ``other`` whose two nodes
        are both nodes here."""
        upper = sp.triu(other.joined, k=1).tocoo()
        a = self.positions(other.ids[upper.row])
        b = self.positions(other.ids[upper.col])
        ok = (a >= 0) & (b >= 0)
        lo, hi = np.minimum(a[ok], b[ok]), np.maximum(a[ok], b[ok])
        return np.unique(lo * self.n + hi)


def _symmetric(i: np.ndarray, j: np.ndarray, v: np.ndarray, n: int) -> sp.csr_matrix:
    m = sp.coo_matrix((v, (i, j)), shape=(n, n)).tocsr()
    return (m + m.T).tocsr()


def load_graph(con: duckdb.DuckDBPyConnection, year: int, sid: str) -> Graph:
    """Read snapshot ``sid`` (of year ``year``): its served pairs, nodes and abstract mentions."""
    pairs = con.execute(_PAIRS_SQL, {"sid": sid}).fetchnumpy()
    a, b = np.asarray(pairs["a"], dtype=str), np.asarray(pairs["b"], dtype=str)
    support = np.asarray(pairs["support"], dtype=np.float64)
    n_all = np.asarray(pairs["n_all"], dtype=np.float64)
    served = support > 0
    ids = np.unique(np.concatenate([a[served], b[served]])) if served.any() else np.array([], str)
    n = len(ids)
    nodes = con.execute(_NODES_SQL, {"sid": sid}).fetchall()
    info = {r[0]: r[1:] for r in nodes}
    names = [str(info.get(i, (i,))[0] or i) for i in ids]
    type_code = {t: k for k, t in enumerate(TYPES)}
    types = np.array([type_code.get(info.get(i, (None, ""))[1], 3) for i in ids], dtype=np.int8)
    first = np.array([info.get(i, (None, None, year))[2] or year for i in ids], dtype=np.int32)
    graph = Graph(year, sid, ids, names, types, first, *(sp.csr_matrix((n, n)),) * 4,
                  np.zeros(n), 0, np.zeros(n), 0)  # fmt: skip
    ia, ib = graph.positions(a), graph.positions(b)
    both = (ia >= 0) & (ib >= 0)
    on = both & served
    graph.joined = _symmetric(ia[on], ib[on], np.ones(on.sum(), dtype=np.float32), n)
    graph.weight = _symmetric(ia[on], ib[on], support[on].astype(np.float32), n)
    off = both & ~served
    graph.unserved = _symmetric(ia[off], ib[off], n_all[off].astype(np.float32), n)
    mentions = con.execute(_MENTIONS_SQL, {"sid": sid}).fetchnumpy()
    node = graph.positions(np.asarray(mentions["concept_id"], dtype=str))
    keep = node >= 0
    doc_year = np.asarray(mentions["year"], dtype=np.float64)[keep]
    recent = np.nan_to_num(doc_year, nan=0) >= year - RECENT_YEARS + 1
    graph.recent_freq = np.bincount(node[keep][recent], minlength=n).astype(np.float64)
    _, doc = np.unique(np.asarray(mentions["pmid"], dtype=str)[keep], return_inverse=True)
    d = sp.csr_matrix(
        (np.ones(keep.sum(), dtype=np.float32), (doc, node[keep])),
        shape=(int(doc.max()) + 1 if len(doc) else 0, n),
    )
    co = (d.T @ d).tocsr()
    graph.doc_freq = co.diagonal().astype(np.float64)
    co.setdiag(0)
    co.eliminate_zeros()
    graph.comention = co
    n_docs, n_recent = con.execute(
        _DOCS_SQL, {"sid": sid, "recent": year - RECENT_YEARS + 1}
    ).fetchone()
    graph.n_docs, graph.n_recent = int(n_docs), int(n_recent)
    return graph


def candidate_blocks(g: Graph, block: int = BLOCK_PAIRS) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Every candidate pair (i < j, not joined in ``g``) in key order, as blocks of rows."""
    n = g.n
    joined = g.joined
    rows_per = max(1, block // max(n, 1))
    for r0 in range(0, n, rows_per):
        r1 = min(n, r0 + rows_per)
        rows = np.arange(r0, r1)[:, None]
        mask = np.arange(n)[None, :] > rows
        mask &= joined[r0:r1].toarray() == 0
        i, j = np.nonzero(mask)
        yield (i + r0).astype(np.int64), j.astype(np.int64)
