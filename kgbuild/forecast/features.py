"""The features of a pair of nodes in one snapshot: the feature families, built per snapshot
into lookup tables (:meth:`Features.of`), read per pair (:meth:`Features.pairs`).

The families (Kastrin, Rindflesch & Hristovski 2016, "Link prediction on a network of
co-occurring MeSH terms", Methods Inf Med 55(4); Sybrandt et al. 2020, AGATHA, KDD): degrees,
common neighbours, Adamic–Adar, resource allocation and its support-weighted variant, Jaccard,
node age, degree growth since Y'−1, the type pair and how often that type pair is joined, each
node's share of documents — genericity — abstract co-mention and unserved evidence; beyond two
hops, the normalised 2- and 3-step walk counts, 2 hops and a spectral embedding of the abstract
co-mention graph; and, only when asked for, the cosine of the two names' sentence embeddings
(:mod:`kgbuild.forecast.names`: learnt outside the time split).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import svds

from kgbuild.forecast.graph import Graph
from kgbuild.forecast.names import NAME_FEATURE, NameEmbedder

#: Dimensions of the spectral embedding of the abstract co-mention graph (its cosine is a feature).
SPECTRAL_K = 64


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
    "comention_spectral_cosine", NAME_FEATURE,
)  # fmt: skip
#: The node features that depend on the other end of the pair (its type), filled per pair.
_PER_PAIR_NODE = NODE_FEATURES.index("log_links_to_other_type")
#: Every feature, in column order: the node features of the lower-degree end, then the higher,
#: then the pair's; the name feature, when used, is the last column.
FEATURES = (
    *(f"{f}_lo" for f in NODE_FEATURES),
    *(f"{f}_hi" for f in NODE_FEATURES),
    *PAIR_FEATURES,
)
CATEGORICAL = (FEATURES.index("type_pair"),)


def feature_names(names: bool) -> tuple[str, ...]:
    """The columns of the feature matrix, with or without the name feature."""
    return FEATURES if names else tuple(f for f in FEATURES if f != NAME_FEATURE)


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
    def of(cls, g: Graph, prev: Graph | None, embed: NameEmbedder | None = None) -> Features:
        """The feature tables of ``g``; ``prev`` (the snapshot a year before, if any) gives each
        node's degree growth (a node absent then grew from 0); ``embed``, when given, embeds
        ``g``'s node names for the name feature (static; only the nodes of ``g`` are asked for;
        ``None``: no name feature).

        Beyond two hops (a fifth of later pairs share no neighbour and no abstract in Y): the
        normalised 2- and 3-step walk counts (a Katz index truncated at 3 hops; Katz 1953,
        Lü & Zhou 2011) and the raw 3-path count; 2 hops through the abstract co-mention graph;
        the cosine of the two nodes in a spectral embedding of that graph (low-rank similarity,
        Menon & Elkan 2011); and, with ``embed``, the cosine of the two names' sentence
        embeddings (:mod:`kgbuild.forecast.names`)."""
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
        vectors = {"comention_spectral_cosine": _spectral_unit(spectrum, SPECTRAL_K)}
        if embed is not None:
            vectors[NAME_FEATURE] = np.asarray(embed(g.names), dtype=np.float32).reshape(g.n, -1)
        return cls(g, node, rank, type_degree.astype(np.float32), type_rate, dense, vectors)

    @property
    def columns(self) -> tuple[str, ...]:
        """The names of the columns :meth:`pairs` returns."""
        return feature_names(NAME_FEATURE in self.vectors)

    def pairs(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """The feature matrix (len(i) × len(self.columns), float32) of pairs (i[k], j[k])."""
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
