"""The abstracts' BM25 index (kgbuild/search/abstracts.py): a build's term cache changes
nothing but the time it takes, and stays bounded."""

import numpy as np

from kgbuild.search import abstracts
from kgbuild.search.abstracts import AbstractIndex

ROWS = [
    ("3", 2015, "Amyloid imaging.", "The Centiloid scale puts every tracer on one scale."),
    ("1", 2012, "Sleep and memory.", "Poor sleep predicted memory decline."),
    ("2", 2014, None, "Exercise does not change amyloid plaques."),
]


def _arrays(ix):
    b = ix.bm25
    return [b.data.tolist(), b.indices.tolist(), b.indptr.tolist(), b.vocab, ix.pmids,
            ix.years.tolist()]  # fmt: skip


def test_the_term_cache_changes_nothing_and_stays_under_its_cap(monkeypatch):
    plain = AbstractIndex.build(ROWS)
    cache: dict = {}
    assert _arrays(AbstractIndex.build(ROWS, cache)) == _arrays(plain) and len(cache) == 3
    assert _arrays(AbstractIndex.build(ROWS, cache)) == _arrays(plain)  # read from the cache
    monkeypatch.setattr(abstracts, "TERM_CACHE_DOCS", 1)
    small: dict = {}
    assert _arrays(AbstractIndex.build(ROWS, small)) == _arrays(plain) and len(small) == 1
    assert "doe" not in plain.bm25.vocab  # "does" is a stopword, as tokens write it


def test_ranking_and_idf():
    ix = AbstractIndex.build(ROWS)
    assert [ix.pmids[r] for r in ix.ranked(["centiloid", "scale"], 5)] == ["3"]
    assert ix.idf("nowhere") > ix.idf("amyloid") > 0
    assert ix.n_docs == 3 and np.array_equal(ix.years, [2015, 2012, 2014])
