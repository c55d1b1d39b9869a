"""A small KG for the link forecast, published year by year (2011–2016) through the real snapshot
writer: documents, mentions, triples and evidence, each abstract naming a few nodes of one of
four topics, so a pair that shares neighbours and abstracts is more likely to be joined later.
One pair is planted: its two nodes share many neighbours by 2013 but are first named in one
sentence in 2015."""

import itertools
import random

from kgbuild.forecast import SnapshotReader, fit, score, yearly_snapshots
from kgbuild.records import Document, Entity, Evidence, Mention, SnapshotCounts, Triple
from kgbuild.store import catalog
from kgbuild.store.snapshots import Warehouse

YEARS = range(2011, 2017)
KINDS = ("Gene", "Compound", "Disease")
N_NODES = 48


def _node(k: int) -> tuple[str, str]:
    kind = KINDS[k % 3]
    return (f"NCBIGene:{k}" if kind == "Gene" else f"MESH:D{k:06d}"), kind


#: Nodes 1 and 4 (both in topic 0: see _topic): never named together before 2015.
PLANTED = (_node(1)[0], _node(4)[0])


def _topic(k: int) -> int:
    return 0 if k in (1, 4) else k % 4


def _year_docs(rng: random.Random, year: int, variant: int) -> list[list[int]]:
    """The node lists of one year's abstracts (``variant`` changes only years after 2013)."""
    docs = []
    for _ in range(14):
        topic = rng.randrange(4)
        members = [k for k in range(N_NODES) if _topic(k) == topic and k not in (1, 4)]
        docs.append(sorted(rng.sample(members, 3)))
    if year <= 2013:  # the planted pair: many shared neighbours, never in one abstract
        for friend in (0, 8, 12, 16, 20):
            docs.append([1, friend])
            docs.append([4, friend])
    if year == 2015:
        docs.append([1, 4])
    if year > 2013 and variant:
        docs = [sorted(rng.sample(range(N_NODES), 3)) for _ in range(20)]
    return docs


def build_kg(root, variant: int = 0, years=YEARS) -> Warehouse:
    """Publish one snapshot per year; ``variant`` ≠ 0 rewrites the years after 2013 only."""
    wh = Warehouse(root)
    w = wh.writer("toy")
    rng = random.Random(7)
    seen: set[int] = set()
    seen_triples: set[str] = set()
    for year in years:
        docs, mentions, triples, evidence, entities = [], [], [], [], []
        for d, nodes in enumerate(_year_docs(rng, year, variant)):
            pmid = f"{year}{d:03d}"
            docs.append(Document(pmid, year, f"title {pmid}", "abstract"))
            for k in nodes:
                nid, kind = _node(k)
                mentions.append(Mention(pmid, k, k + 1, f"n{k}", kind, kind, nid, [nid]))
                if k not in seen:
                    seen.add(k)
                    entities.append(Entity(nid, f"node {k}", kind, [f"node {k}"], year))
            for a, b in itertools.combinations(nodes, 2):
                h, t = _node(a)[0], _node(b)[0]
                tid = f"t:{h}|co_mentioned|{t}"
                if tid not in seen_triples:
                    seen_triples.add(tid)
                    triples.append(Triple(tid, h, "co_mentioned", t, "co_mentioned", "classifier"))
                evidence.append(
                    Evidence(f"e:{tid}:{pmid}", tid, pmid, year, "s", 0, 1, 0, 1, 0, 1,
                             "classifier", "classifier", None, None, "co_mentioned")
                )  # fmt: skip
        if entities:
            w.add("entities", entities)
        w.add("documents", docs)
        w.add("mentions", mentions)
        w.add("triples", triples)
        w.add("evidence", evidence)
        counts = SnapshotCounts(documents=len(docs), triples=len(triples), evidence=len(evidence))
        w.commit(year, f"b{year}", {}, f"in-{year}-{variant}", "test", counts)
    return wh


def fit_and_score(wh, year):
    """Fit at ``year`` and score its candidates (without the name feature): the graph of
    ``year``, the candidate keys, model and degree-product scores, and the years read."""
    _, _, _, sids = yearly_snapshots(wh, f"toy@{year}")
    with catalog.connect(wh.catalog_path, read_only=True) as con:
        past = SnapshotReader(con, sids, horizon=year)
        model, _ = fit(past)
        keys, scores, base = score(past, model)
        g = past.graph(year)
        return g, keys, scores, base, past.read
