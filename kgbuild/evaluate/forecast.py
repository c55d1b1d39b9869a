"""Forecast: does an earlier snapshot anticipate later papers? (``kgbuild eval forecast``).

A time-split test of literature-based discovery (Swanson's ABC model, measured the way link
prediction is): from the snapshot of year Y, score every pair of nodes of that snapshot that is
not yet joined, then see where the pairs that later snapshots (Y+1 … the last one) join rank.

**Joined.** Two distinct nodes are *joined* in a snapshot when at least one triple between them,
in either direction and of any relation — ``co_mentioned`` included — has served evidence there,
i.e. the pair carries an edge of ``kg_edges_at(sid)`` (the graph the product serves; the edge's
support is the number of distinct PMIDs of that evidence, ``served_evidence_at``). ``co_mentioned``
counts because "named together in a sentence" is exactly the first co-occurrence that
literature-based discovery forecasts (Swanson 1986; Kastrin et al. 2016 predict MeSH
co-occurrence). Evidence that is not served (hedged, negated, background…) does not join a pair;
it is a *feature* of the pair, as is being named in one abstract (the ``mentions`` table).
The nodes of a snapshot are the endpoints of its served edges.

**Candidates and labels.** Candidates at Y: every unordered pair of distinct nodes of snapshot Y
not joined in Y. A candidate is *positive* when it is joined in any later snapshot; its year is
the first such snapshot. A pair joined later whose node is not yet in Y is no candidate
(counted apart as ``later_pairs_new_node``).

**Method.** Supervised, time-sliced link prediction (Kastrin, Rindflesch & Hristovski 2016,
"Link prediction on a network of co-occurring MeSH terms", Methods Inf Med 55(4); Sybrandt et
al. 2020, AGATHA, KDD): features of a pair from a snapshot Y' (degrees, common neighbours,
Adamic–Adar, resource allocation and its support-weighted variant, Jaccard, node age, degree
growth since Y'−1, the type pair and how often that type pair is joined, each node's share of
documents — genericity — abstract co-mention and unserved evidence; beyond two hops, the
normalised 2- and 3-step walk counts, 2 hops and a spectral embedding of the abstract co-mention
graph, and the cosine of the two names' sentence embeddings: :meth:`Features.of`), labels =
the pairs first joined in Y'+1 … Y, for Y' = Y−1, Y−2, Y−3 (those that exist); a
gradient-boosted tree ensemble (LightGBM: Ke et al. 2017, NeurIPS) is fit on every positive and
a seeded uniform sample of negatives, then applied to the features of Y itself. The baseline is
the degree product (preferential attachment, Barabási & Albert 1999; Liben-Nowell & Kleinberg
2007) in Y.

**No leakage, by construction.** Training and scoring receive a :class:`SnapshotReader` built
from the snapshots of year ≤ Y only: it holds no id of a later snapshot, so nothing after Y can
be read while the model is fit or the candidates are scored. Only then is a second reader, over
the later snapshots, opened to label the candidates (tests/evaluate/test_forecast.py checks both:
the years read, and identical scores from a warehouse whose later years differ).

Hyperparameters (:data:`MODEL_PARAMS`, :data:`TRAIN_LAGS`, :data:`NEGATIVES_PER_SNAPSHOT`) were
fixed a priori and are the same at every Y. Design choices were looked at on Y = 2013 only: the
recent-document share, new links and links-to-the-other-type features were added after a
2-fold cross-validated ceiling at 2013, and LightGBM replaced scikit-learn's histogram GBDT at
2013 for its scoring speed (same AUC there). The beyond-two-hop families were kept by a
validation inside 2013's training windows (fit 2011 → 2012, validate 2012 → 2013): names,
co-mention 2 hops, Katz and the co-mention spectrum raised it; an adjacency SVD, name principal
components, temporal growth and type-pair history did not (docs/evaluation.md, the ablation).
2015 and 2017 were never used to choose anything.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import duckdb
import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import svds

from kgbuild.errors import InputError, StoreError
from kgbuild.store import catalog
from kgbuild.store.snapshots import Warehouse

#: Seed of the negative sample and of the model.
SEED = 42
#: Training snapshots: Y − lag for each lag (those that exist and have an earlier year's labels).
TRAIN_LAGS = (1, 2, 3)
#: Negatives sampled (uniformly among the candidates) per training snapshot; every positive kept.
NEGATIVES_PER_SNAPSHOT = 200_000
#: The cut-offs of hits@K.
HITS_AT = (100, 1000)
#: Later yearly snapshots a forecast needs (one year's breakdown says little about a trend).
MIN_LATER_YEARS = 2
#: LightGBM settings, fixed a priori (its defaults: 31 leaves, learning rate 0.1; 150 trees,
#: larger leaves and an L2 penalty against noise), never tuned on an evaluation year; two
#: threads and ``deterministic`` so that a run is reproducible bit for bit.
MODEL_PARAMS: dict[str, Any] = {
    "objective": "binary",
    "learning_rate": 0.1,
    "num_leaves": 31,
    "min_data_in_leaf": 100,
    "lambda_l2": 1.0,
    "num_threads": 2,
    "deterministic": True,
    "force_row_wise": True,
    "seed": SEED,
    "verbose": -1,
}
#: Boosting rounds (trees).
N_TREES = 150
#: Node kinds, coded 0…2; anything else (an unlinked node) is 3.
TYPES = ("Gene", "Compound", "Disease")
#: Dimensions of the spectral embedding of the abstract co-mention graph (its cosine is a feature).
SPECTRAL_K = 64
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
#: Documents of the last RECENT_YEARS years of a snapshot are its "recent" ones.
RECENT_YEARS = 2
_EVIDENCE_SQL = """
SELECT DISTINCT e.pmid, e.year, t.relation FROM served_evidence_at($sid) e
JOIN triples_at($sid) t USING (triple_id)
WHERE least(t.head_id, t.tail_id) = $a AND greatest(t.head_id, t.tail_id) = $b AND e.year > $y
ORDER BY e.year, e.pmid
"""


class LeakageError(RuntimeError):
    """A reader was asked for a snapshot after its horizon: a bug, never a user's error."""


# ---- one snapshot as arrays -------------------------------------------------------------------
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


class SnapshotReader:
    """The yearly snapshots of one KG up to ``horizon`` (its ids of later years are dropped on
    construction: a reader cannot reach past its horizon). ``read`` lists the years loaded."""

    def __init__(self, con: duckdb.DuckDBPyConnection, sids: dict[int, str], horizon: int) -> None:
        self._con = con
        self._sids = {y: s for y, s in sids.items() if y <= horizon}
        self.horizon = horizon
        self.read: list[int] = []
        self._cache: dict[int, Graph] = {}

    @property
    def years(self) -> list[int]:
        return sorted(self._sids)

    def snapshot_id(self, year: int) -> str:
        self._check(year)
        return self._sids[year]

    def _check(self, year: int) -> None:
        if year > self.horizon:
            raise LeakageError(f"snapshot of {year} asked for by a reader up to {self.horizon}")
        if year not in self._sids:
            raise KeyError(year)

    def graph(self, year: int) -> Graph:
        self._check(year)
        if year not in self._cache:
            self.read.append(year)
            self._cache[year] = load_graph(self._con, year, self._sids[year])
        return self._cache[year]

    def query(self, sql: str, params: dict[str, Any], year: int) -> list[tuple[Any, ...]]:
        """``sql`` run with ``$sid`` bound to the snapshot of ``year`` (checked as ``graph``)."""
        self._check(year)
        return self._con.execute(sql, {**params, "sid": self._sids[year]}).fetchall()


# ---- features --------------------------------------------------------------------------------
#: Texts → unit-length float32 rows (one per text): how node names are embedded.
NameEmbedder = Callable[[Sequence[str]], np.ndarray]


@functools.lru_cache(maxsize=1)
def _minilm() -> Any:
    from kgbuild.resolve.embed import DEFAULT_MODEL, Embedder

    # Pinned to MiniLM (not the settings' resolution model) so that a forecast's features do not
    # depend on local configuration; in-memory cache: ~5k names encode in seconds on 2 cores.
    return Embedder(DEFAULT_MODEL)


def embed_names(names: Sequence[str]) -> np.ndarray:
    """The default :data:`NameEmbedder`: all-MiniLM-L6-v2 (Reimers & Gurevych 2019), bundled
    offline with the project (``kgbuild.resolve.embed``); the model loads once per process."""
    return _minilm().embed(list(names))


def _sym_normalised(m: sp.spmatrix) -> sp.csr_matrix:
    """D^-1/2 M D^-1/2 (D: row sums): hub-discounted, as in spectral clustering and the
    normalised Katz / random-walk indices (Lü & Zhou 2011, "Link prediction in complex networks:
    a survey", Physica A 390)."""
    d = np.asarray(m.sum(axis=1), dtype=np.float64).ravel()
    inv = np.divide(1, np.sqrt(d), out=np.zeros_like(d), where=d > 0)
    return (sp.diags(inv) @ m @ sp.diags(inv)).tocsr()


def _spectral_unit(m: sp.csr_matrix, k: int) -> np.ndarray:
    """Unit rows of the top-``k`` left singular vectors of the symmetric ``m`` (deterministic:
    fixed ``v0``; zero rows where ``m`` is too small to embed)."""
    n = m.shape[0]
    k = min(k, n - 2)
    if k < 1 or m.nnz == 0:
        return np.zeros((n, 1), np.float32)
    if n <= 4 * k:
        # Small graph: LAPACK's dense eigendecomposition (m is symmetric: its singular vectors
        # are the eigenvectors by |eigenvalue|). ARPACK with k close to n gave different
        # vectors for the same matrix from one call to the next (tests/evaluate).
        w, v = np.linalg.eigh(m.toarray())
        u = v[:, np.argsort(-np.abs(w), kind="stable")[:k]]
    else:
        u, _, _ = svds(m.astype(np.float64), k=k, v0=np.full(n, 1 / np.sqrt(n)))
    norm = np.linalg.norm(u, axis=1, keepdims=True)
    return np.divide(u, norm, out=np.zeros_like(u), where=norm > 0).astype(np.float32)


NODE_FEATURES = (
    "log_degree", "log_strength", "doc_share", "recent_doc_share", "links_per_doc", "age",
    "growth", "log_new_links", "log_links_to_other_type",
)  # fmt: skip
PAIR_FEATURES = (
    "type_pair", "type_pair_rate", "log_degree_product", "log_common_neighbours", "jaccard",
    "adamic_adar", "resource_allocation", "support_resource_allocation", "log_comention",
    "comention_cosine", "log_unserved", "katz_2", "katz_3", "log_paths_3", "comention_2hop",
    "comention_spectral_cosine", "name_cosine",
)  # fmt: skip
#: The node features that depend on the other end of the pair (its type), filled per pair.
_PER_PAIR_NODE = NODE_FEATURES.index("log_links_to_other_type")
#: Every feature, in column order: the node features of the lower-degree end, then the higher.
FEATURES = (
    *(f"{f}_lo" for f in NODE_FEATURES),
    *(f"{f}_hi" for f in NODE_FEATURES),
    *PAIR_FEATURES,
)
CATEGORICAL = (FEATURES.index("type_pair"),)


@dataclass(eq=False)
class Features:
    """What the features of any pair of one snapshot are looked up in: per-node arrays and dense
    n × n pair statistics (n ≈ 4,000 nodes: 64 MB each as float32)."""

    graph: Graph
    node: np.ndarray  # (n, len(NODE_FEATURES))
    rank: np.ndarray  # degree order: the lower-degree end of a pair comes first
    type_degree: np.ndarray  # (n, 4): neighbours of each kind
    type_rate: np.ndarray  # (4, 4) log share of the type pair's possible pairs joined
    dense: dict[str, np.ndarray]
    #: Unit node vectors whose pairwise dot products are features (name, co-mention spectrum).
    vectors: dict[str, np.ndarray]

    @classmethod
    def of(cls, g: Graph, prev: Graph | None, embed: NameEmbedder = embed_names) -> Features:
        """The feature tables of ``g``; ``prev`` (the snapshot a year before, if any) gives each
        node's degree growth (a node absent then grew from 0); ``embed`` embeds ``g``'s node
        names (static; only the nodes of ``g`` are asked for).

        Beyond two hops (a fifth of later pairs share no neighbour and no abstract in Y): the
        normalised 2- and 3-step walk counts (a Katz index truncated at 3 hops; Katz 1953,
        Lü & Zhou 2011) and the raw 3-path count; 2 hops through the abstract co-mention graph;
        the cosine of the two nodes in a spectral embedding of that graph (low-rank similarity,
        Menon & Elkan 2011); and the cosine of the two names' sentence embeddings — a shared
        context that the graph of Y may not show yet (Swanson's ABC; AGATHA, Sybrandt et al.
        2020, scores pairs by learned embeddings)."""
        deg, strength = g.degree, g.strength
        prev_deg = np.zeros(g.n)
        if prev is not None:
            pos = prev.positions(g.ids)
            prev_deg = np.where(pos >= 0, prev.degree[np.maximum(pos, 0)], 0)
        node = np.column_stack(
            [
                np.log1p(deg),
                np.log1p(strength),
                np.log((g.doc_freq + 1) / (g.n_docs + 1)),
                np.log((g.recent_freq + 1) / (g.n_recent + 1)),
                np.log1p(deg) - np.log1p(g.doc_freq),
                g.year - g.first_year,
                np.log1p(deg) - np.log1p(prev_deg),
                np.log1p(np.maximum(deg - prev_deg, 0)),
                np.zeros(g.n),  # log_links_to_other_type: per pair
            ]
        ).astype(np.float32)
        rank = np.lexsort((np.arange(g.n), deg)).argsort()
        type_rate = np.zeros((4, 4))
        counts = np.bincount(g.types, minlength=4).astype(np.float64)
        coo = g.joined.tocoo()
        type_degree = np.zeros((g.n, 4))
        np.add.at(type_degree, (coo.row, g.types[coo.col]), 1)
        upper = sp.triu(g.joined, k=1).tocoo()
        t1, t2 = g.types[upper.row], g.types[upper.col]
        np.add.at(type_rate, (np.minimum(t1, t2), np.maximum(t1, t2)), 1)
        possible = np.outer(counts, counts) - np.diag(counts * (counts + 1) / 2)
        type_rate = np.log((type_rate + 1) / (np.maximum(possible, 0) + 2))
        a = g.joined
        inv_log = np.divide(1, np.log(deg), out=np.zeros(g.n), where=deg > 1)
        inv_deg = np.divide(1, deg, out=np.zeros(g.n), where=deg > 0)
        inv_str = np.divide(1, strength, out=np.zeros(g.n), where=strength > 0)
        w = g.weight

        def square(m: sp.csr_matrix, scale: np.ndarray) -> np.ndarray:
            return (m @ sp.diags(scale.astype(np.float32)) @ m).toarray().astype(np.float32)

        dense = {
            "cn": (a @ a).toarray().astype(np.float32),
            "aa": square(a, inv_log),
            "ra": square(a, inv_deg),
            "raw": square(w, inv_str),
            "com": g.comention.toarray().astype(np.float32),
            "uns": g.unserved.toarray().astype(np.float32),
        }
        p = _sym_normalised(a)
        p2 = (p @ p).toarray().astype(np.float32)
        dense["katz_2"] = p2
        dense["katz_3"] = np.asarray(p @ p2, dtype=np.float32)  # p symmetric: (P²P)ᵀ = P·P²
        dense["log_paths_3"] = np.log1p(np.asarray(a @ dense["cn"], dtype=np.float32))
        binary = g.comention.copy()
        binary.data[:] = 1
        c = _sym_normalised(binary)
        dense["comention_2hop"] = (c @ c).toarray().astype(np.float32)
        # Abstract co-mention with each node's own document count on the diagonal, normalised.
        spectrum = _sym_normalised(g.comention.astype(np.float64) + sp.diags(g.doc_freq))
        vectors = {
            "comention_spectral_cosine": _spectral_unit(spectrum, SPECTRAL_K),
            "name_cosine": np.asarray(embed(g.names), dtype=np.float32).reshape(g.n, -1),
        }
        return cls(g, node, rank, type_degree.astype(np.float32), type_rate, dense, vectors)

    def pairs(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """The feature matrix (len(i) × len(FEATURES), float32) of pairs (i[k], j[k])."""
        g, d = self.graph, self.dense
        swap = self.rank[i] > self.rank[j]
        lo, hi = np.where(swap, j, i), np.where(swap, i, j)
        deg = g.degree
        t1, t2 = g.types[i], g.types[j]
        tmin, tmax = np.minimum(t1, t2), np.maximum(t1, t2)
        cn = d["cn"][i, j]
        com = d["com"][i, j]
        df_i, df_j = g.doc_freq[i], g.doc_freq[j]
        union = deg[i] + deg[j] - cn
        pair = np.column_stack(
            [
                tmin * 4 + tmax,
                self.type_rate[tmin, tmax],
                np.log1p(deg[i]) + np.log1p(deg[j]),
                np.log1p(cn),
                np.divide(cn, union, out=np.zeros(len(i)), where=union > 0),
                d["aa"][i, j],
                d["ra"][i, j],
                d["raw"][i, j],
                np.log1p(com),
                com / np.sqrt((df_i + 1) * (df_j + 1)),
                np.log1p(d["uns"][i, j]),
                d["katz_2"][i, j],
                d["katz_3"][i, j],
                d["log_paths_3"][i, j],
                d["comention_2hop"][i, j],
                *(np.einsum("ij,ij->i", v[i], v[j]) for v in self.vectors.values()),
            ]
        )
        node_lo, node_hi = self.node[lo], self.node[hi]
        node_lo[:, _PER_PAIR_NODE] = np.log1p(self.type_degree[lo, g.types[hi]])
        node_hi[:, _PER_PAIR_NODE] = np.log1p(self.type_degree[hi, g.types[lo]])
        return np.hstack([node_lo, node_hi, pair]).astype(np.float32)


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


# ---- training ---------------------------------------------------------------------------------
@dataclass(slots=True)
class TrainingSlice:
    """One training snapshot: features of ``year``, labels = first joined by ``label_year``."""

    year: int
    label_year: int
    positives: int
    negatives: int
    candidates: int


def training_slice(
    past: SnapshotReader, year: int, rng: np.random.Generator, embed: NameEmbedder = embed_names
) -> tuple[np.ndarray, np.ndarray, TrainingSlice]:
    """Features and labels of the candidates of ``year`` (every positive, a uniform sample of
    negatives), the labels being the pairs joined in any snapshot year+1 … ``past.horizon``."""
    g = past.graph(year)
    prev = past.graph(year - 1) if year - 1 in past.years else None
    later: list[np.ndarray] = [g.joined_keys(past.graph(y)) for y in past.years if y > year]
    pos_keys = np.unique(np.concatenate(later)) if later else np.array([], np.int64)
    joined_keys = g.joined_keys(g)
    pos_keys = np.setdiff1d(pos_keys, joined_keys, assume_unique=True)
    n = g.n
    n_cand = n * (n - 1) // 2 - len(joined_keys)
    want = min(NEGATIVES_PER_SNAPSHOT, max(n_cand - len(pos_keys), 0))
    neg_keys = np.array([], np.int64)
    while len(neg_keys) < want:
        i = rng.integers(0, n, size=2 * want)
        j = rng.integers(0, n, size=2 * want)
        keys = np.minimum(i, j) * n + np.maximum(i, j)
        keys = keys[i != j]
        keys = keys[~np.isin(keys, joined_keys) & ~np.isin(keys, pos_keys)]
        neg_keys = np.unique(np.concatenate([neg_keys, keys]))
    if len(neg_keys) > want:
        neg_keys = rng.choice(neg_keys, size=want, replace=False)
    keys = np.concatenate([pos_keys, neg_keys])
    feats = Features.of(g, prev, embed)
    x = feats.pairs(keys // n, keys % n)
    y = np.concatenate([np.ones(len(pos_keys)), np.zeros(len(neg_keys))]).astype(np.int8)
    return x, y, TrainingSlice(year, past.horizon, len(pos_keys), len(neg_keys), n_cand)


def fit(past: SnapshotReader, embed: NameEmbedder = embed_names) -> tuple[Any, list[TrainingSlice]]:
    """The model forecasting from ``past.horizon``, fit on the earlier snapshots it holds."""
    import lightgbm

    rng = np.random.default_rng(SEED)
    xs, ys, slices = [], [], []
    for lag in TRAIN_LAGS:
        year = past.horizon - lag
        if year not in past.years:
            continue
        x, y, s = training_slice(past, year, rng, embed)
        xs.append(x)
        ys.append(y)
        slices.append(s)
    y_all = np.concatenate(ys) if ys else np.array([], np.int8)
    if not len(y_all) or y_all.min() == y_all.max():
        raise StoreError(
            f"forecast from {past.horizon} has nothing to learn from: the earlier snapshots "
            f"({', '.join(str(s.year) for s in slices) or 'none'}) join no new pair by "
            f"{past.horizon}, or leave no pair unjoined"
        )
    data = lightgbm.Dataset(
        np.concatenate(xs), y_all, feature_name=list(FEATURES),
        categorical_feature=list(CATEGORICAL), free_raw_data=True,
    )  # fmt: skip
    return lightgbm.train(MODEL_PARAMS, data, num_boost_round=N_TREES), slices


def score(
    past: SnapshotReader, model: Any, embed: NameEmbedder = embed_names
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(candidate keys, model scores, degree-product scores) of every candidate at the horizon."""
    year = past.horizon
    g = past.graph(year)
    prev = past.graph(year - 1) if year - 1 in past.years else None
    feats = Features.of(g, prev, embed)
    deg = g.degree
    keys, model_scores, base = [], [], []
    for i, j in candidate_blocks(g):
        keys.append(i * g.n + j)
        model_scores.append(model.predict(feats.pairs(i, j), raw_score=True))
        base.append(deg[i] * deg[j])
    cat = np.concatenate
    return cat(keys), cat(model_scores).astype(np.float64), cat(base).astype(np.float64)


# ---- metrics ----------------------------------------------------------------------------------
def auc(scores: np.ndarray, positive: np.ndarray, negative: np.ndarray | None = None) -> float:
    """ROC AUC of ``scores`` for ``positive`` (boolean) against ``negative`` (default: the rest):
    the Mann–Whitney U over ranks, ties counting one half — for each positive, the negatives
    ranked below it, found in the sorted negative scores. Exact; O(n log n)."""
    if negative is None:
        negative = ~positive
    pos, neg = scores[positive], np.sort(scores[negative])
    if not len(pos) or not len(neg):
        return float("nan")
    below = np.searchsorted(neg, pos, side="left")
    at_or_below = np.searchsorted(neg, pos, side="right")
    return float((below + (at_or_below - below) / 2).sum() / (len(pos) * len(neg)))


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` best scores, best first; ties broken by index (the candidates' key
    order, i.e. node ids), so the list never depends on the sort algorithm."""
    k = min(k, len(scores))
    if k <= 0:
        return np.array([], np.int64)
    kth = np.partition(scores, len(scores) - k)[len(scores) - k]
    above = np.flatnonzero(scores > kth)
    tied = np.flatnonzero(scores == kth)[: k - len(above)]
    idx = np.concatenate([above, tied])
    return idx[np.lexsort((idx, -scores[idx]))]


# ---- the report -------------------------------------------------------------------------------
@dataclass(slots=True)
class Ranking:
    """How the later-joined pairs rank under one scorer (the model or the baseline)."""

    auc: float
    hits: dict[int, int]


@dataclass(slots=True)
class LaterYear:
    """The candidates first joined in one later year, ranked by each scorer among the never
    joined (``hits``: how many of the global top K first joined that year)."""

    year: int
    positives: int
    model: Ranking
    baseline: Ranking


@dataclass(slots=True)
class Prediction:
    """One of the top predictions, and whether (and where) a later snapshot joined the pair."""

    rank: int
    head_id: str
    head: str
    head_type: str
    tail_id: str
    tail: str
    tail_type: str
    score: float
    baseline_rank: int
    first_joined: int | None
    pmids: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class ForecastReport:
    """A forecast from ``kg@year``: the model's and the baseline's rankings of the later pairs."""

    kg: str
    snapshot_id: str
    year: int
    later_years: list[int]
    joined: str
    nodes: int
    candidates: int
    positives: int
    later_pairs_new_node: int
    model: Ranking
    baseline: Ranking
    per_year: list[LaterYear]
    top: list[Prediction]
    training: list[TrainingSlice]
    #: The snapshot years read to fit and score (all ≤ ``year``: the leakage check).
    years_read: list[int]
    features: list[str]
    model_params: dict[str, Any]
    seconds: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object (hits keyed by K as strings, as JSON keys are)."""
        d = asdict(self)
        for r in (d["model"], d["baseline"], *(x for y in d["per_year"] for x in
                                               (y["model"], y["baseline"]))):  # fmt: skip
            r["hits"] = {str(k): v for k, v in r["hits"].items()}
            r["auc"] = None if np.isnan(r["auc"]) else r["auc"]  # no positive (or negative)
        return d

    @property
    def hits_ratio(self) -> float:
        """hits@100 of the model over the baseline's (inf when the baseline has none)."""
        b = self.baseline.hits[HITS_AT[0]]
        return self.model.hits[HITS_AT[0]] / b if b else float("inf")


def _ranking(
    scores: np.ndarray, first: np.ndarray, top: np.ndarray, mask: np.ndarray | None = None
) -> Ranking:
    positive = first > 0 if mask is None else mask
    hit = positive[top]
    return Ranking(auc(scores, positive, first == 0), {k: int(hit[:k].sum()) for k in HITS_AT})


def yearly_snapshots(wh: Warehouse, ref: str) -> tuple[str, str, int, dict[int, str]]:
    """(kg, snapshot id, year, {year: snapshot id}) for reference ``ref``: the snapshot itself
    and its ancestors for its year and earlier, the KG's current lineage for later years.

    ``KG@YEAR`` must name a year the KG has a snapshot of (``resolve`` alone would take the
    newest snapshot at or before it, and a forecast "from 2025" would silently be from 2020)."""
    ref = ref.strip()
    kg_part, _, year_part = ref.partition("@")
    if year_part.isascii() and year_part.isdigit() and len(year_part) <= 4:
        have = sorted({int(r["as_of_year"]) for r in wh.snapshots(kg_part)})
        if have and int(year_part) not in have:
            raise StoreError(
                f"{kg_part} has no snapshot of {year_part}: its yearly snapshots are "
                f"{', '.join(map(str, have))}"
            )
    sid = wh.resolve(ref)
    with catalog.connect(wh.catalog_path, read_only=True) as con:
        kg, year = con.execute(
            "SELECT kg, as_of_year FROM snapshots WHERE snapshot_id = ?", [sid]
        ).fetchone()
        rows = con.execute(
            """
            SELECT s.as_of_year, s.snapshot_id FROM snapshot_lineage l
            JOIN snapshots s ON s.snapshot_id = l.ancestor_id
            WHERE l.snapshot_id = ? AND s.as_of_year <= ?
            QUALIFY row_number() OVER (PARTITION BY s.as_of_year ORDER BY l.distance) = 1
            """,
            [sid, year],
        ).fetchall()
        later = con.execute(
            """
            SELECT y, snapshot_asof(y, kg_name := ?) FROM (
                SELECT DISTINCT as_of_year AS y FROM snapshots WHERE kg = ? AND as_of_year > ?)
            """,
            [kg, kg, year],
        ).fetchall()
    sids = {int(y): s for y, s in rows if s is not None}
    sids |= {int(y): s for y, s in later if s is not None}
    sids[int(year)] = sid
    return str(kg), sid, int(year), dict(sorted(sids.items()))


def forecast(
    wh: Warehouse, ref: str, top: int = 20, embed: NameEmbedder = embed_names
) -> ForecastReport:
    """Score the candidates of snapshot ``ref`` (``KG@YEAR``, an id…) from it and earlier
    snapshots only, then rank the pairs later snapshots join (module docstring). ``embed``
    embeds node names (default: MiniLM, :func:`embed_names`)."""
    if top < 0:
        raise InputError("--top must be 0 or more", top=top)
    kg, sid, year, sids = yearly_snapshots(wh, ref)
    later_years = [y for y in sids if y > year]
    if len(later_years) < MIN_LATER_YEARS:
        there = f"there is {len(later_years)}" if len(later_years) == 1 else (
            f"there are {len(later_years)}")  # fmt: skip
        shown = f" ({', '.join(map(str, later_years))})" if later_years else ""
        raise StoreError(
            f"forecast from {kg}@{year} needs at least {MIN_LATER_YEARS} later yearly "
            f"snapshots; {there}{shown}"
        )
    if not any(year - lag in sids for lag in TRAIN_LAGS):
        raise StoreError(
            f"forecast from {kg}@{year} trains on the yearly snapshots before it; there is none "
            f"(the first is {min(sids)})"
        )
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    with catalog.connect(wh.catalog_path, read_only=True) as con:
        # Fit and score with a reader that holds no later snapshot: nothing after Y is readable.
        past = SnapshotReader(con, sids, horizon=year)
        model, slices = fit(past, embed)
        seconds["fit"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        keys, model_scores, base_scores = score(past, model, embed)
        seconds["score"] = time.perf_counter() - t1
        g = past.graph(year)
        # Only now the later snapshots, to label what was scored.
        t2 = time.perf_counter()
        future = SnapshotReader(con, sids, horizon=max(sids))
        first = np.zeros(len(keys), dtype=np.int32)
        new_node: set[tuple[str, str]] = set()
        for later in later_years:
            h = future.graph(later)
            joined = g.joined_keys(h)  # pairs of Y's nodes joined in that year
            pos = np.searchsorted(keys, joined)
            ok = pos < len(keys)
            ok[ok] = keys[pos[ok]] == joined[ok]  # a candidate (not joined in Y)
            hit = pos[ok][first[pos[ok]] == 0]
            first[hit] = later
            upper = sp.triu(h.joined, k=1).tocoo()
            gone = (g.positions(h.ids[upper.row]) < 0) | (g.positions(h.ids[upper.col]) < 0)
            new_node |= set(zip(h.ids[upper.row][gone], h.ids[upper.col][gone], strict=True))
        seconds["label"] = time.perf_counter() - t2
        t3 = time.perf_counter()
        top_model = top_k(model_scores, max(max(HITS_AT), top))
        top_base = top_k(base_scores, max(HITS_AT))
        report = ForecastReport(
            kg=kg, snapshot_id=sid, year=year, later_years=later_years, joined=JOINED,
            nodes=g.n, candidates=len(keys), positives=int((first > 0).sum()),
            later_pairs_new_node=len(new_node),
            model=_ranking(model_scores, first, top_model),
            baseline=_ranking(base_scores, first, top_base),
            per_year=[
                LaterYear(
                    y, int((first == y).sum()),
                    _ranking(model_scores, first, top_model, first == y),
                    _ranking(base_scores, first, top_base, first == y),
                )
                for y in later_years
            ],
            top=_predictions(future, g, keys, model_scores, base_scores, first,
                             top_model[:top], max(sids)),
            training=slices, years_read=list(past.read), features=list(FEATURES),
            model_params={**MODEL_PARAMS, "num_boost_round": N_TREES}, seconds=seconds,
        )  # fmt: skip
        seconds["metrics"] = time.perf_counter() - t3
        seconds["total"] = time.perf_counter() - t0
    return report


def _predictions(
    future: SnapshotReader,
    g: Graph,
    keys: np.ndarray,
    scores: np.ndarray,
    base: np.ndarray,
    first: np.ndarray,
    idx: np.ndarray,
    last_year: int,
) -> list[Prediction]:
    """The top predictions with names and, for those a later snapshot joined, the PMIDs of the
    last snapshot's served evidence after Y that join them."""
    kind = {k: t for k, t in enumerate(TYPES)}
    out = []
    for rank, k in enumerate(idx, start=1):
        i, j = int(keys[k] // g.n), int(keys[k] % g.n)
        base_rank = int((base > base[k]).sum()) + 1
        when = int(first[k]) or None
        pmids: list[dict[str, Any]] = []
        if when is not None:
            rows = future.query(
                _EVIDENCE_SQL, {"a": str(g.ids[i]), "b": str(g.ids[j]), "y": g.year}, last_year
            )
            by_pmid: dict[str, dict[str, Any]] = {}
            for pmid, yr, rel in rows:
                e = by_pmid.setdefault(pmid, {"pmid": pmid, "year": yr, "relations": []})
                e["relations"].append(rel)
            pmids = list(by_pmid.values())
        out.append(
            Prediction(
                rank, str(g.ids[i]), g.names[i], kind.get(int(g.types[i]), ""),
                str(g.ids[j]), g.names[j], kind.get(int(g.types[j]), ""),
                round(float(scores[k]), 4), base_rank, when, pmids,
            )
        )  # fmt: skip
    return out


# ---- text -------------------------------------------------------------------------------------
def render(report: ForecastReport) -> str:
    """The report as markdown tables (what ``kgbuild eval forecast`` prints)."""
    from kgbuild.evaluate.markdown import _table

    r = report
    lines = [
        f"forecast from {r.kg}@{r.year} ({r.snapshot_id[:10]}): {r.nodes:,} nodes, "
        f"{r.candidates:,} candidate pairs, {r.positives:,} joined in "
        f"{r.later_years[0]}–{r.later_years[-1]} ({r.later_pairs_new_node:,} more later pairs "
        "have a node not yet in the snapshot)",
        f"joined: {r.joined}",
        "",
    ]
    head = ["scorer", "AUC", *(f"hits@{k}" for k in HITS_AT)]
    lines += _table(
        head,
        [
            [f"model (LightGBM, trained ≤ {r.year})", f"{r.model.auc:.4f}",
             *(r.model.hits[k] for k in HITS_AT)],
            ["degree product", f"{r.baseline.auc:.4f}", *(r.baseline.hits[k] for k in HITS_AT)],
        ],
    )  # fmt: skip
    lines += ["", "by the year a pair was first joined:"]
    lines += _table(
        ["year", "pairs", "AUC", "AUC baseline",
         *(f"{w}@{k}" for k in HITS_AT for w in ("hits", "baseline"))],
        [
            [y.year, y.positives, f"{y.model.auc:.4f}", f"{y.baseline.auc:.4f}",
             *(x for k in HITS_AT for x in (y.model.hits[k], y.baseline.hits[k]))]
            for y in r.per_year
        ],
    )  # fmt: skip
    if r.top:
        lines += ["", f"top {len(r.top)} predictions:"]
        lines += _table(
            ["#", "pair", "types", "baseline rank", "joined", "PMIDs"],
            [
                [p.rank, f"{p.head} — {p.tail}", f"{p.head_type}–{p.tail_type}",
                 f"{p.baseline_rank:,}", p.first_joined or "–",
                 ", ".join(f"{e['pmid']} ({e['year']})" for e in p.pmids[:5])
                 + (f" +{len(p.pmids) - 5}" if len(p.pmids) > 5 else "")]
                for p in r.top
            ],
        )  # fmt: skip
    lines += [
        "",
        "trained on: "
        + "; ".join(
            f"{s.year} → {s.label_year}: {s.positives:,} positives, {s.negatives:,} negatives"
            for s in r.training
        ),
        "seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in r.seconds.items()),
    ]
    return "\n".join(lines)
