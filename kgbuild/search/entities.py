"""Find a node by name, symbol or synonym: ``kgbuild entities QUERY`` and ``GET /entities?q=``.

Why: a user who wants TREM2's facts should not need ``ILIKE '%TREM2%'``, nor spell "donepezil"
right. The keys searched are the snapshot's alias table (every surface form the corpus, the
vocabularies and the resolution stage tied to a node, normalized: :mod:`kgbuild.search.aliases`)
plus each node's display name. A query is normalized the same way and matched, best first:

1. ``id`` — the query is a node's CURIE ("NCBIGene:54209");
2. ``exact`` — its key is a key ("TREM-2" and "trem2" are one key, "Alzheimer's" too);
3. ``prefix`` — a key starts with it ("apolipo" → "apolipoprotein e");
4. ``fuzzy`` — rapidfuzz's WRatio over every key, above :data:`FUZZY_CUTOFF`
   ("alzheimer desease", "donepezill"); queries shorter than :data:`FUZZY_MIN_CHARS` are not
   matched fuzzily (two letters are close to everything).

Within a tier: higher score, then more neighbours (degree: the node a reader most likely means),
then the CURIE, so the order never depends on dict or thread order. One node appears once, with
the key that matched it best. The searcher is built once per loaded index (a sorted key list
and a node array): a query costs a bisection plus one ``process.extract`` pass.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from rapidfuzz import fuzz, process

from kgbuild.errors import InputError
from kgbuild.search.aliases import SOURCES, display_parts
from kgbuild.search.text import key

if TYPE_CHECKING:
    from kgbuild.search.index import SnapshotIndex

#: Least WRatio (0–100) for a fuzzy match: "donepezill" → "donepezil" scores 95, "alzheimer
#: desease" → "alzheimer disease" 94; at 85 unrelated words sharing a stem stay out.
FUZZY_CUTOFF = 85.0
#: Shortest query (characters of its key) matched fuzzily.
FUZZY_MIN_CHARS = 4
#: Most prefix keys looked at (a one-letter query starts thousands).
PREFIX_SCAN = 2000
#: Most results one query returns.
MAX_LIMIT = 50
_TIERS = {"id": 0, "exact": 1, "prefix": 2, "fuzzy": 3}
_SOURCE_RANK = {s: i for i, s in enumerate(("id", "name", *(x for x in SOURCES if x != "name")))}
#: A ratio of at least FUZZY_CUTOFF (2·matches / total length) needs the key's length within
#: these factors of the query's.
_LEN_LO, _LEN_HI = FUZZY_CUTOFF / (200 - FUZZY_CUTOFF), (200 - FUZZY_CUTOFF) / FUZZY_CUTOFF


@dataclass(frozen=True, slots=True)
class _Bucket:
    """Forms to score (sorted by length, so a length window is one slice) and their keys."""

    forms: list[str]
    keys: list[str]
    lens: list[int]

    @classmethod
    def of(cls, rows: list[tuple[str, str]]) -> _Bucket:
        rows = sorted(rows, key=lambda r: (len(r[0]), r[0], r[1]))
        return cls([f for f, _ in rows], [k for _, k in rows], [len(f) for f, _ in rows])

    def extract(self, query: str, limit: int) -> list[tuple[str, float]]:
        lo = bisect.bisect_left(self.lens, int(len(query) * _LEN_LO))
        hi = bisect.bisect_right(self.lens, int(len(query) * _LEN_HI) + 1)
        hits = process.extract(query, self.forms[lo:hi], scorer=fuzz.ratio,
                               score_cutoff=FUZZY_CUTOFF, limit=limit)  # fmt: skip
        return [(self.keys[lo + i], float(score)) for _, score, i in hits]


@dataclass(frozen=True, slots=True)
class EntityHit:
    """One node found: how (``id``/``exact``/``prefix``/``fuzzy``), by which key, how well."""

    node: int
    how: str
    alias: str
    score: float
    source: str


class EntitySearch:
    """The search structures of one snapshot index (built once, read by any thread)."""

    def __init__(self, idx: SnapshotIndex) -> None:
        self.idx = idx
        pairs: dict[tuple[str, int], str] = {}
        aliases = idx.aliases
        for k, node, source in zip(aliases["key"], aliases["node"], aliases["source"], strict=True):
            pairs.setdefault((k, int(node)), source)
        same_as = idx.nodes.get("same_as")
        for node, (name, shown) in enumerate(zip(idx.nodes["name"], idx.nodes["display"],
                                                 strict=True)):  # fmt: skip
            if same_as is not None and same_as[node] >= 0:
                continue  # a non-human gene's names are its human ortholog's keys (aliases)
            # the node's raw name is its most frequent surface form: where a vocabulary names
            # the node ("TAS2R62P (…)"), that form ("PS1", mislinked) is a key only when the
            # alias table gives it to the node
            own = name if key(name) == key(shown) or not shown else None
            for form in (own, shown, *display_parts(shown)):
                if not form:
                    continue
                k = key(form)
                if k:
                    pairs[(k, node)] = "name"  # the node's own name outranks a mention of it
        ordered = sorted(pairs)
        self.keys: list[str] = [k for k, _ in ordered]
        self.nodes = np.array([n for _, n in ordered], np.int32)
        self.sources = [pairs[p] for p in ordered]
        # fuzzy candidates: keys of about the query's length (a ratio ≥ FUZZY_CUTOFF bounds the
        # length of a match), first those sharing its first letter (a misspelling rarely starts
        # wrong), then — when none is close — its second letter ("alzheimer" for "elzheimer");
        # each as written and with its words sorted ("beta amyloid" is "amyloid beta"). Never
        # every key: a query that matches nothing would then cost the most.
        self.buckets = self._fuzzy_buckets(sorted(set(self.keys)))
        types = idx.nodes["type"]
        self.types = [str(t or "") for t in types]
        self.degree = idx.graph.degree

    @staticmethod
    def _fuzzy_buckets(unique: list[str]) -> dict[tuple[bool, str], _Bucket]:
        """(words sorted?, first letter — or "2" and the second letter) → the keys to score."""
        buckets: dict[tuple[bool, str], _Bucket] = {}
        for reordered in (False, True):
            forms = [(" ".join(sorted(k.split())) if reordered else k, k) for k in unique]
            groups: dict[str, list[tuple[str, str]]] = {}
            for form, k in forms:
                groups.setdefault(form[:1], []).append((form, k))
                groups.setdefault("2" + form[1:2], []).append((form, k))
            for first, rows in groups.items():
                buckets[(reordered, first)] = _Bucket.of(rows)
        return buckets

    def _fuzzy(self, k: str, limit: int) -> list[tuple[str, float]]:
        """Keys within :data:`FUZZY_CUTOFF` of ``k`` (rapidfuzz's ratio, on the keys as they are
        and with their words sorted), best first."""
        queries = [(False, k)] + ([(True, " ".join(sorted(k.split())))] if " " in k else [])
        found: dict[str, float] = {}
        for first in (True, False):
            for reordered, query in queries:
                bucket = self.buckets.get((reordered, query[:1] if first else "2" + query[1:2]))
                if bucket is not None:
                    for got, score in bucket.extract(query, limit):
                        found[got] = max(found.get(got, 0.0), score)
            if found:
                break
        return sorted(found.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]

    def _rows(self, k: str) -> range:
        lo = bisect.bisect_left(self.keys, k)
        hi = bisect.bisect_right(self.keys, k)
        return range(lo, hi)

    def search(self, q: str, types: Iterable[str] = (), limit: int = 10) -> list[EntityHit]:
        """The nodes ``q`` names, best first (see the module docstring)."""
        wanted = {t.strip().lower() for t in types if t.strip()}
        ok = (lambda n: self.types[n].lower() in wanted) if wanted else (lambda n: True)
        best: dict[int, EntityHit] = {}

        def offer(hit: EntityHit) -> None:
            if not ok(hit.node):
                return
            old = best.get(hit.node)
            if old is None or _order(hit) < _order(old):
                best[hit.node] = hit

        node = self.idx.node_of.get(q.strip())
        if node is not None:
            offer(EntityHit(node, "id", q.strip(), 100.0, "id"))
        k = key(q)
        if k:
            for i in self._rows(k):
                offer(EntityHit(int(self.nodes[i]), "exact", k, 100.0, self.sources[i]))
            i = bisect.bisect_left(self.keys, k)
            end = min(len(self.keys), i + PREFIX_SCAN)
            while i < end and self.keys[i].startswith(k):
                if self.keys[i] != k:
                    score = 100.0 * len(k) / len(self.keys[i])
                    offer(EntityHit(int(self.nodes[i]), "prefix", self.keys[i], score,
                                    self.sources[i]))  # fmt: skip
                i += 1
            if len(k.replace(" ", "")) >= FUZZY_MIN_CHARS:
                for found, score in self._fuzzy(k, max(4 * limit, 50)):
                    how = "exact" if score >= 100 else "fuzzy"  # the same words, reordered
                    for j in self._rows(found):
                        offer(EntityHit(int(self.nodes[j]), how, found, score, self.sources[j]))
        ranked = sorted(
            best.values(),
            key=lambda h: (*_order(h), -int(self.degree[h.node]), self.idx.nodes["id"][h.node]),
        )
        return ranked[:limit]


def _order(h: EntityHit) -> tuple[int, float, int]:
    """Tier, then score (higher first), then how trusted the key's source is (a node's own
    name first: "APP" is the gene APP's symbol before it is a mention linked elsewhere)."""
    return (_TIERS[h.how], -round(h.score, 1), _SOURCE_RANK.get(h.source, len(_SOURCE_RANK)))


_searchers: dict[int, tuple[SnapshotIndex, EntitySearch]] = {}
_lock = threading.Lock()


def searcher(idx: SnapshotIndex) -> EntitySearch:
    """The search structures of ``idx``, built on first use and kept while it is loaded (the
    two newest indexes: a reload swaps the index, and the old one is let go)."""
    with _lock:
        got = _searchers.get(id(idx))
        if got is not None and got[0] is idx:
            return got[1]
        s = EntitySearch(idx)
        _searchers[id(idx)] = (idx, s)
        while len(_searchers) > 2:
            _searchers.pop(next(iter(_searchers)))
        return s


def find_entities(
    idx: SnapshotIndex, q: str, types: Sequence[str] = (), limit: int = 10
) -> dict[str, Any]:
    """The JSON body of ``GET /entities`` and ``kgbuild entities --json``: ``snapshot``,
    ``query``, ``entities`` (each ``id``, ``name`` — the display name —, ``type``, ``degree``,
    ``match`` — how —, ``alias`` — the key that matched —, ``score``, ``source``). No match is
    an empty list, not an error; an empty query is."""
    if not q.strip():
        raise InputError("q is empty")
    limit = max(1, min(int(limit), MAX_LIMIT))
    s = searcher(idx)
    out = [
        {
            "id": idx.nodes["id"][h.node],
            "name": idx.nodes["display"][h.node],
            "type": idx.nodes["type"][h.node],
            "degree": int(s.degree[h.node]),
            "match": h.how,
            "alias": h.alias,
            "score": round(h.score, 1),
            "source": h.source,
        }
        for h in s.search(q, types, limit)
    ]
    return {"snapshot": idx.snapshot_id, "query": q, "entities": out}
