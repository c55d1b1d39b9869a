"""Labelled pair examples from gold documents, and the sparse design matrix of a vocabulary.

One :class:`Example` per candidate pair of a gold document (:mod:`kgbuild.verifier.corpus`):
its features (:func:`kgbuild.verifier.features.pair_features`) and its gold types (empty: the
curators relate the pair in no way). The matrix is binary, each row scaled to unit length, so
a document's long pair (many words) and short pair weigh the same in the fit; the model
applies the same scaling when it scores (:mod:`kgbuild.verifier.model`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from kgbuild.verifier.corpus import PAIR_KINDS, GoldDoc, candidate_pairs
from kgbuild.verifier.features import doc_context, pair_features
from kgbuild.verifier.text import doc_view


@dataclass(frozen=True, slots=True)
class Example:
    pmid: str
    a: str
    b: str
    #: The pair's kinds, sorted and joined ("Compound|Disease").
    kinds: str
    features: tuple[str, ...]
    types: frozenset[str]


def examples(
    docs: list[GoldDoc], kinds: frozenset[tuple[str, str]] = PAIR_KINDS, extra: str = ""
) -> list[Example]:
    """Every candidate pair of ``docs`` as an example; ``extra``: one more feature on each
    (a corpus marker, so a head fitted on two corpora can tell their base rates apart)."""
    out = []
    for gd in docs:
        view = doc_view(gd.doc, gd.mentions)
        ctx = doc_context(view)
        for a, b in candidate_pairs(gd.mentions, kinds):
            feats = pair_features(ctx, a, b)
            if extra:
                feats.append(extra)
            ka, kb = sorted((view.entities[a].kind, view.entities[b].kind))
            types = frozenset(gd.relations.get((a, b), ()))
            out.append(Example(gd.doc.pmid, a, b, f"{ka}|{kb}", tuple(feats), types))
    return out


def vocabulary(rows: list[Example], min_count: int) -> list[str]:
    """Features seen in at least ``min_count`` examples, sorted (the model's columns)."""
    counts = Counter(f for e in rows for f in set(e.features))
    return sorted(f for f, n in counts.items() if n >= min_count)


def design(rows: list[Example], index: dict[str, int]) -> sp.csr_matrix:
    """Binary rows over ``index``'s columns, each scaled to unit L2 norm."""
    indptr = [0]
    cols: list[int] = []
    vals: list[float] = []
    for e in rows:
        idx = sorted({index[f] for f in e.features if f in index})
        cols.extend(idx)
        vals.extend([1.0 / np.sqrt(len(idx))] * len(idx) if idx else [])
        indptr.append(len(cols))
    return sp.csr_matrix(
        (np.array(vals, dtype=np.float64), np.array(cols, dtype=np.int64), np.array(indptr)),
        shape=(len(rows), len(index)),
    )
