"""Entity resolution: one node per concept for the node strings grounding left free.

Grounding (``extract/ground.py``) links most LLM endpoints to the document's own PubTator IDs.
What stays free (``free:<normalized name>``) is resolved here against the whole KG so far, most
reliable rule first, because similarity alone is a poor judge of biomedical names (MiniLM scores
"amyloid beta" vs "Abeta" at 0.09, below "amyloid beta" vs "tau"):

1. **alias** — the name or one of its readings (parenthetical parts, head noun dropped,
   singular) is a surface form PubTator linked to an ID anywhere in the corpus;
2. **abbreviation** — the name is a short form whose long form (Schwartz & Hearst pairs found by
   scispaCy's AbbreviationDetector while grounding) is such a surface form;
3. **fuzzy** — rapidfuzz token_sort_ratio against the surface forms sharing its rarest word
   (blocking: never all pairs), with a threshold per candidate kind;
4. **embedding** — cosine to the concepts' surface forms (all-MiniLM-L6-v2 by default, cached),
   again with a threshold per kind;
5. **cluster** — names left over are grouped with each other by embedding (near-duplicates such
   as "cognitive decline"/"cognitive declines") into one free node, named by its first member.

Decisions are sticky (a :class:`~kgbuild.records.Resolution` row each): a later year reuses them
and resolves only the names it has not seen. Thresholds are named constants measured on the
audit list in ``tests/fixtures/resolution_audit.tsv`` (see README "Entity resolution").

Similarity is never enough on its own (a precision audit of the DALK build found "GluN2B-NMDARs"
clustered with "GluN2A-NMDARs", "microglia" embedded into "dysfunctional microglia", "Abeta
synaptotoxicity" into hypertension): steps 3–5 keep a candidate only when
:func:`kgbuild.lexical.incompatible` finds nothing against it, and no step maps a name
onto an ID that the reviewed table ``data/mislinked_forms.tsv`` took away from that very form.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz, process

from kgbuild.lexical import incompatible
from kgbuild.names import most_frequent, norm, variants
from kgbuild.records import Resolution
from kgbuild.resolve.junk import is_junk_alias
from kgbuild.resolve.mislinked import banned_forms

#: Minimum token_sort_ratio by the candidate's kind. Gene symbols differ by a character
#: (APP/APH1, IL6/IL6R): only near-identical strings merge into a gene.
FUZZY_MIN = {"Gene": 96.0, "Compound": 92.0, "Disease": 90.0}
#: Names shorter than this are never fuzzy- or embedding-matched (symbols collide).
MIN_LEN = 5
#: Minimum cosine to a concept's surface form by kind; genes are never merged by embedding.
EMBED_MIN = {"Gene": 1.01, "Compound": 0.90, "Disease": 0.88}
#: Minimum cosine for two leftover names to be one free node.
CLUSTER_MIN = 0.92
#: Mentions a surface form needs (linked to its concept) to be an embedding target.
EMBED_MIN_SUPPORT = 3
#: Nearest surface forms tried per name in the embedding step (the first lexically possible one
#: above the kind's threshold is taken).
EMBED_CANDIDATES = 3
#: A form that is a part of a more frequent name of its concept ("memory" for memory loss,
#: linked 3 times in DALK's corpus) is an alias only when linked at least this often
#: ("Alzheimer" for Alzheimer's disease: 840 times).
MIN_TRUNCATED_SUPPORT = 5
#: Blocking: candidates share one of the query's rarest words, at most this many per query.
BLOCK_LIMIT = 300


@dataclass(slots=True)
class AliasIndex:
    """Normalized surface form → concepts it names (with counts), and word → forms (blocking)."""

    forms: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    kinds: dict[str, str] = field(default_factory=dict)
    words: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # stem → forms
    by_concept: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    def add(self, form: str, concept_id: str, kind: str, n: int = 1) -> None:
        key = norm(form)
        if not key or is_junk_alias(form):  # "Abeta and tau" names no one concept
            return
        if key not in self.forms:
            for w in _stems(key):
                self.words[w].add(key)
        self.forms[key][concept_id] += n
        self.kinds.setdefault(concept_id, kind)
        self.by_concept[concept_id].add(key)

    def lookup(self, key: str) -> str | None:
        """The concept a surface form names most often (ties: smallest ID) — unless the form is
        a *modified* name of it — one containing a more frequent name of the same concept.
        PubTator links "familial AD", "AD pathology" and "Alzheimer's disease neuropathology"
        to MESH:D000544 too, but a free name that merely contains a concept's name is another
        concept ("AD mouse model"), so such forms are not aliases."""
        c = self.forms.get(key)
        if not c:
            return None
        cid = most_frequent(c)
        padded, n = f" {key} ", c[cid]
        for f in self.by_concept[cid]:
            if f == key or self.forms[f][cid] <= n:
                continue
            if f" {f} " in padded:  # a more frequent name inside this one: a modified name
                return None
            if n < MIN_TRUNCATED_SUPPORT and padded in f" {f} ":  # a rare truncation of one
                return None
        return cid

    def block(self, key: str) -> list[str]:
        """Surface forms sharing the query's rarest word stems (the rapidfuzz blocking step)."""
        words = sorted(
            (w for w in _stems(key) if w in self.words), key=lambda w: (len(self.words[w]), w)
        )
        out: list[str] = []
        for w in words[:2]:
            out.extend(sorted(self.words[w])[:BLOCK_LIMIT])
        return list(dict.fromkeys(out))[:BLOCK_LIMIT]


class Resolver:
    """Resolves node strings against what the KG so far has taught it, behind a small
    interface: it is told surface forms (:meth:`observe_form`), abbreviations
    (:meth:`observe_abbreviations`) and earlier decisions (:meth:`remember`), may be given an
    embedder (:meth:`use_embedder`), and answers :meth:`resolve`, :meth:`target` and
    :meth:`predicate`. Nothing outside it reads or changes its tables."""

    __slots__ = (
        "_abbreviations",
        "_aliases",
        "_banned",
        "_decisions",
        "_embedder",
        "_predicates",
        "_stats",
    )  # fmt: skip

    def __init__(
        self,
        aliases: AliasIndex | None = None,
        banned: dict[str, frozenset[str]] | None = None,
    ) -> None:
        self._aliases = aliases if aliases is not None else AliasIndex()
        self._abbreviations: dict[str, Counter[str]] = defaultdict(Counter)
        self._decisions: dict[str, Resolution] = {}
        self._embedder: Any = None  # kgbuild.resolve.embed.Embedder, or None: no steps 4–5
        self._stats: Counter[str] = Counter()
        #: Predicates mapped by embedding (normalized key → relation, reverse, cosine); sticky.
        self._predicates: dict[str, tuple[str, bool, float]] = {}
        #: Normalized surface form → IDs it must never resolve to (reviewed mislinks).
        self._banned = banned if banned is not None else banned_forms()

    # ---- what the KG so far teaches it -------------------------------------------------------
    def observe_form(self, form: str, concept_id: str, kind: str, n: int = 1) -> None:
        """A surface form an annotator linked to ``concept_id`` (an alias candidate)."""
        self._aliases.add(form, concept_id, kind, n)

    def observe_abbreviations(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Normalized (short, long) forms defined in the abstracts."""
        for short, long_form in pairs:
            if short and long_form and short != long_form:
                self._abbreviations[short][long_form] += 1

    def remember(self, decision: Resolution) -> None:
        """An earlier (published) decision: sticky, reused instead of resolving again."""
        self._decisions[decision.node_id] = decision

    def use_embedder(self, embedder: Any) -> None:
        """Turn on the embedding steps (4–5) with this cached embedder."""
        self._embedder = embedder

    def summary(self) -> dict[str, int]:
        """Decisions made by method, and names embedded (embedding cache misses)."""
        out = dict(self._stats)
        if self._embedder is not None:
            out["names_embedded"] = self._embedder.encoded
        return out

    def close(self) -> None:
        if self._embedder is not None:
            self._embedder.close()

    def predicate(self, raw: str) -> tuple[str, bool, float] | None:
        """The relation an unmapped predicate took by embedding, if any (see
        :meth:`map_predicates`)."""
        from kgbuild.resolve.relations import normalize_predicate

        return self._predicates.get(normalize_predicate(raw))

    # ---- decisions ----------------------------------------------------------------------------
    def _allowed(self, key: str, cid: str | None) -> bool:
        return bool(cid) and cid not in self._banned.get(key, ())

    def map_predicates(self, raws: Iterable[str]) -> None:
        """Embed the predicates that table and rules leave unmapped (once per predicate)."""
        if self._embedder is None:
            return
        from kgbuild.resolve.relations import embed_predicates, normalize_predicate

        todo = [r for r in raws if normalize_predicate(r) not in self._predicates]
        found = embed_predicates(todo, self._embedder)
        for r in todo:
            key = normalize_predicate(r)
            self._predicates[key] = found.get(key, ("related_to", False, 0.0))

    def target(self, node_id: str) -> str:
        """The node a node string ends in (following merges: "MCI" → "mild cognitive …")."""
        seen = {node_id}
        while (d := self._decisions.get(node_id)) is not None and d.merged_into not in seen:
            node_id = d.merged_into
            seen.add(node_id)
        return node_id

    def resolve(self, names: dict[str, str], year: int) -> list[Resolution]:
        """Decide every free node id in ``names`` (id → surface form) not decided before;
        return the new decisions."""
        todo = {nid: name for nid, name in sorted(names.items()) if nid not in self._decisions}
        new: list[Resolution] = []
        left: dict[str, str] = {}
        for nid, name in todo.items():
            hit = self._by_rules(nid.removeprefix("free:"), name)
            if hit:
                new.append(Resolution(nid, name, hit[0], hit[1], hit[2], year))
            else:
                left[nid] = name
        if left and self._embedder is not None:
            left = self._by_embedding(left, year, new)
        for nid, name in left.items():
            new.append(Resolution(nid, name, nid, "unresolved", 0.0, year))
        for r in new:
            self._decisions[r.node_id] = r
            self._stats[r.method] += 1
        # A short form pointing at a long form not decided yet: decide the long form too.
        missing = {
            r.merged_into: r.merged_into.removeprefix("free:")
            for r in new
            if r.merged_into.startswith("free:") and r.merged_into not in self._decisions
        }
        return new + (self.resolve(missing, year) if missing else [])

    def _by_rules(self, key: str, name: str) -> tuple[str, str, float] | None:
        for v in (key, *variants(name)):
            cid = self._aliases.lookup(v)
            if self._allowed(key, cid):
                return cid, "alias", 1.0
        for v in (key, *variants(name)):
            longs = self._abbreviations.get(v)
            if longs:
                long_form = most_frequent(longs)
                cid = self._aliases.lookup(long_form)
                if not self._allowed(key, cid):
                    cid = None
                # A long form no annotator linked is still the short form's node: "MCI" is
                # whatever "mild cognitive impairment" resolves to (its own free node at least).
                return cid or f"free:{long_form}", "abbreviation", 1.0
        if len(key) < MIN_LEN:
            return None
        block = self._aliases.block(key)
        if not block:
            return None
        digits = _numbers(key)
        for form, score, _ in process.extract(key, block, scorer=fuzz.token_sort_ratio, limit=3):
            if _numbers(form) != digits:  # type 1/type 2 diabetes, IL-6/IL-6R, PSEN1/PSEN2
                continue
            if incompatible(key, form):  # mitochondrial function / dysfunction, apoA-I KO
                continue
            cid = self._aliases.lookup(form)
            if not self._allowed(key, cid):
                continue
            if score >= FUZZY_MIN.get(self._aliases.kinds.get(cid or "", ""), 101.0):
                return cid, "fuzzy", round(score / 100, 4)
        return None

    def _embed_target(self, form: str) -> bool:
        """A surface form the embedding step may merge into: of a kind that merges by embedding,
        and linked to its concept at least :data:`EMBED_MIN_SUPPORT` times — a form the tagger
        linked once or twice is as likely its mistake ("synapse loss" → Vision Disorders) as
        the concept's name, and a near vector to it would spread the mistake."""
        cid = self._aliases.lookup(form)
        if not cid or EMBED_MIN.get(self._aliases.kinds.get(cid, ""), 2) > 1:
            return False
        return self._aliases.forms[form][cid] >= EMBED_MIN_SUPPORT

    def _by_embedding(
        self, left: dict[str, str], year: int, new: list[Resolution]
    ) -> dict[str, str]:
        """Steps 4–5; returns the names still unresolved (cluster representatives only)."""
        from kgbuild.resolve.embed import cluster, nearest

        ids = [nid for nid in left if len(nid) - 5 >= MIN_LEN]
        short = {nid: left[nid] for nid in left if nid not in ids}
        if not ids:
            return short
        queries = self._embedder.embed([nid.removeprefix("free:") for nid in ids])
        # Candidates: surface forms of kinds that may merge by embedding (never genes).
        forms = sorted(f for f in self._aliases.forms if self._embed_target(f))
        if not forms:
            forms = [""]
        idx, scores = nearest(queries, self._embedder.embed(forms), k=EMBED_CANDIDATES)
        rest = []
        for i, nid in enumerate(ids):
            key = nid.removeprefix("free:")
            hit = None
            for j in range(EMBED_CANDIDATES):  # the nearest form that is lexically possible
                if idx[i, j] < 0:
                    break
                cid = self._aliases.lookup(forms[idx[i, j]])
                kind = self._aliases.kinds.get(cid or "", "")
                if scores[i, j] < EMBED_MIN.get(kind, 1.01) or not self._allowed(key, cid):
                    continue
                if not incompatible(key, forms[idx[i, j]], semantic=True):
                    hit = (cid, float(scores[i, j]))
                    break
            if hit:
                new.append(Resolution(nid, left[nid], hit[0], "embedding", hit[1], year))
            else:
                rest.append(i)
        # Leftovers: cluster with each other and with earlier unresolved free nodes.
        earlier = sorted(k for k, d in self._decisions.items() if d.merged_into == k)
        pool = earlier + [ids[i] for i in rest]
        names = [p.removeprefix("free:") for p in pool]
        vectors = self._embedder.embed(names)
        labels = cluster(
            vectors,
            CLUSTER_MIN,
            keep_edge=lambda a, b: (
                not incompatible(names[a], names[b], semantic=True)
                and not incompatible(names[b], names[a], semantic=True)
            ),
        )
        out = dict(short)
        for j, nid in enumerate(pool[len(earlier) :], start=len(earlier)):
            rep = pool[labels[j]]
            if rep == nid:
                out[nid] = left[nid]
            else:
                new.append(Resolution(nid, left[nid], self.target(rep) if rep in self._decisions
                                      else rep, "cluster", 1.0, year))  # fmt: skip
        return out


def _numbers(key: str) -> list[str]:
    return re.findall(r"\d+", key)


def _stems(key: str) -> set[str]:
    """Blocking keys of a normalized name: the first 4 characters of each word (so a typo or a
    plural late in a word still meets its candidates)."""
    return {w[:4] for w in key.split()}
