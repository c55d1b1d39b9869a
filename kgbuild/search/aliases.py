"""The alias dictionary of a snapshot: normalized surface form → the node it most often names.

Sources, most trusted first (each contributes a weight to a (key, node) pair; a key names the
node with the largest total, ties broken by node id so the choice never depends on row order):

1. **mentions** — every surface form PubTator linked to a CURIE in the corpus, weighted by how
   often (the strongest evidence there is that a string names a concept);
2. **names** — each node's name, and its display name (both halves of "APP (amyloid beta
   precursor protein)");
3. **resolutions** — free-text LLM endpoints the resolution stage merged into a node;
4. **aliases** — the node's other recorded surface forms;
5. **abbreviations** — short forms defined in the abstracts (Schwartz & Hearst, via scispaCy),
   when their long form itself resolves to a node; weighted by how many abstracts define them.

Short keys (one token of ≤ 4 characters: "AD", "APP", "ALL", "MET") and acronyms spelled like
English words are where a dictionary goes wrong on questions ("All of the above" is not acute
lymphoblastic leukemia), so they keep the surface forms they were seen as, and the linker
requires the question's own spelling to match one of them case-sensitively (or, for
abbreviations, to contain a capital letter).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Container, Sequence
from typing import Any

import numpy as np

from kgbuild.names import by_frequency, clean_alias
from kgbuild.resolve.junk import is_junk_alias
from kgbuild.resolve.naming import readable_name
from kgbuild.resolve.vocabularies import product_names
from kgbuild.search.alias_trust import (
    MIN_MENTIONS,
    acronym_ok,
    entry_terms,
    foreign_symbol,
    head_final_forms,
    is_acronym,
    trusted,
    vocabulary_names,
)
from kgbuild.search.text import STOPWORDS, tokens

#: Source ranks (lower = more trusted) and names, stored per key.
SOURCES = ("mention", "name", "resolution", "alias", "abbreviation")
#: A key of one token this short must match the question's spelling (see module docstring).
SHORT_KEY = 4
#: Longest key kept, in tokens (a name longer than this is a sentence, not a name).
MAX_KEY_TOKENS = 8
#: A short display name ("AD") is shown with its most frequent long form when that form was
#: seen at least this often ("Alzheimer's disease (AD)").
DISPLAY_MIN_COUNT = 2
#: A one-token key naming a free-text node (an LLM's words, no identifier) links only when that
#: node has at least this many distinct neighbours: the LLM left single-word nodes such as
#: "mild", "observed", "severity" behind, each on one or two edges.
FREE_MIN_DEGREE = 3
#: A token inside this many multi-token keys is a generic head noun ("disease" 532, "protein"
#: 421, "brain" 299, "cell" 232 on the DALK snapshot): alone it links only when PubTator itself
#: linked it somewhere in the corpus.
GENERIC_HEAD_KEYS = 200
#: Weight of a node's display name and its parts (a vocabulary's symbol and name: HGNC's "APP",
#: MeSH's "Alzheimer Disease"), in mentions: DALK's abstracts never annotate "APP" itself, and four
#: "APPs" mislinked to cathepsin B would otherwise take the key "app" from the gene APP.
VOCABULARY_WEIGHT = 5.0
_SPLIT_ALNUM = re.compile(r"[a-z]+|[0-9]+")
SEP = "\x1f"


_SYMBOL_AND_NAME = re.compile(r"^(.+?) \((.+)\)$")


def display_parts(display: str) -> tuple[str, ...]:
    """The names inside a display name: "APP (amyloid beta precursor protein)" → the symbol and
    the gene's approved name; any other display name → itself."""
    if not display:
        return ()
    m = _SYMBOL_AND_NAME.match(display)
    return (m.group(1), m.group(2)) if m else (display,)


def variants(toks: tuple[str, ...]) -> list[tuple[str, ...]]:
    """A key and its digit-joined/split twin: "IL-6" ("il", "6") ↔ "IL6" ("il6")."""
    out = [toks]
    if len(toks) >= 2 and any(ch.isdigit() for t in toks for ch in t):
        joined = "".join(toks)
        if len(joined) <= 12:
            out.append((joined,))
    elif len(toks) == 1 and re.fullmatch(r"[a-z]+[0-9]+[a-z0-9]*", toks[0]):
        out.append(tuple(_SPLIT_ALNUM.findall(toks[0])))
    return out


def usable(toks: tuple[str, ...], surface: str) -> bool:
    """Keys that can name a node: not empty, not too long, not only stopwords or numbers — but
    an acronym spelled like a stopword ("ALL", "MET") is kept (it must then match exactly)."""
    if not toks or len(toks) > MAX_KEY_TOKENS:
        return False
    if all(t in STOPWORDS or t.isdigit() for t in toks):
        acronym = len(toks) == 1 and not toks[0].isdigit() and surface.strip().isupper()
        if not acronym:
            return False
    return not (len(toks) == 1 and len(toks[0]) < 2)


def _key_variants(surface: str) -> list[tuple[str, ...]]:
    """The token variants a cleaned surface form is a key under; none for a form that cannot be
    one (too short, a number, junk: "Abeta and C5a")."""
    toks = tokens(surface)
    if not usable(toks, surface) or is_junk_alias(surface):
        return []
    return variants(toks)


class _Candidates:
    def __init__(self) -> None:
        self.weight: dict[str, dict[int, float]] = defaultdict(lambda: defaultdict(float))
        self.rank: dict[str, dict[int, int]] = defaultdict(dict)
        #: (key, node) → the surface forms it was seen as (short one-word keys only)
        self.surfaces: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
        #: (key, node) → trusted mentions (rule 2 of :mod:`kgbuild.search.alias_trust`)
        self.seen: dict[str, dict[int, float]] = defaultdict(lambda: defaultdict(float))
        #: (key, node) pairs a vocabulary name (a display name's parts) makes
        self.vocab: dict[str, set[int]] = defaultdict(set)
        #: (key, node) → one-word surface forms short enough to be acronyms (rule 3)
        self.short: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
        #: (key, node) → mentions whose link the vocabulary check dropped (rule 5)
        self.refuted: dict[str, dict[int, float]] = defaultdict(lambda: defaultdict(float))

    def refute(self, surface: str, node: int, n: float) -> None:
        """Count mentions of ``surface`` the build took away from ``node`` (rule 5), under the
        keys :meth:`add` would give it."""
        for v in _key_variants(clean_alias(surface)):
            self.refuted[" ".join(v)][node] += n

    def add(self, surface: str, node: int, weight: float, source: str,
            vocabulary: bool = False) -> None:  # fmt: skip
        surface = clean_alias(surface)  # '"amyloid-beta', "49 Alzheimer's…", "A&beta"
        rank = SOURCES.index(source)
        for v in _key_variants(surface):
            k = " ".join(v)
            self.weight[k][node] += weight
            self.rank[k][node] = min(self.rank[k].get(node, rank), rank)
            if source == "mention":
                self.seen[k][node] += weight
            if vocabulary:
                self.vocab[k].add(node)
            if len(v) == 1 and (len(k) <= SHORT_KEY or k in STOPWORDS):
                self.surfaces[k][node].add("*" if source == "abbreviation" else surface.strip())
            if len(v) == 1 and source in ("mention", "name"):
                self.short[k][node].add(surface.strip())

    def best(self, k: str, ok: Callable[[str, int], bool] = lambda k, n: True) -> int | None:
        cands = [n for n in self.weight.get(k, ()) if ok(k, n)]
        if not cands:
            return None
        w = self.weight[k]
        return min(cands, key=lambda n: (-w[n], self.rank[k][n], n))


class _Eligible:
    """Whether a node may own a key: the rules of :mod:`kgbuild.search.alias_trust` (memoized
    per node where they read the vocabularies)."""

    def __init__(
        self, c: _Candidates, cids: list[str], long_forms: dict[int, dict[str, int]]
    ) -> None:
        self.c, self.cids, self.long_forms = c, cids, long_forms
        self._heads: dict[int, list[str]] = {}

    def __call__(self, k: str, node: int) -> bool:
        c, cid = self.c, self.cids[node]
        if node in c.vocab.get(k, ()):
            return True  # the vocabulary's own name of the node
        if " " not in k and foreign_symbol(k, cid):
            return False  # rule 4
        if c.refuted.get(k, {}).get(node, 0.0) > c.seen[k].get(node, 0.0):
            return False  # rule 5
        if SOURCES[c.rank[k][node]] not in ("name", "resolution", "abbreviation") and (
            c.seen[k].get(node, 0.0) < MIN_MENTIONS
        ):
            return False  # rule 2
        forms = c.short.get(k, {}).get(node)
        if forms and cid.startswith("MESH:") and all(is_acronym(f) for f in forms):
            names = vocabulary_names(cid)
            if names and not any(acronym_ok(f, names, self._long(node, names)) for f in forms):
                return False  # rule 3
        return True

    def _long(self, node: int, names: tuple[str, ...]) -> list[str]:
        got = self._heads.get(node)
        if got is None:
            seen = self.long_forms.get(node, {})
            forms = [f for f, n in seen.items() if n >= MIN_MENTIONS]
            got = self._heads[node] = head_final_forms(names, forms)
        return got


def ortholog_nodes(
    node_of: dict[str, int],
    relinked: Sequence[tuple[str, str, int]],
    human: Container[str] = frozenset(),
) -> np.ndarray:
    """node → the node it was relinked to most often as a human ortholog (-1: none), from the
    snapshot's (annotator_id, concept_id, mentions) rows. A non-human gene ID the build mapped
    only from some year on (:mod:`kgbuild.resolve.orthologs` decides from the corpus so far,
    and published rows are not rewritten) keeps a node of its own from the earlier years; search
    and linking send its names to the human gene. A ``human`` gene ID (HGNC's) is never mapped:
    a mention relinked from one human gene to another (the tagger's ACHE for "cholinesterase",
    BCHE's product name) says nothing about the two genes."""
    best: dict[int, tuple[int, int]] = {}
    for src, dst, n in relinked:
        if src in human:
            continue
        a, b = node_of.get(src), node_of.get(dst)
        if a is not None and b is not None and a != b:
            old = best.get(a)
            if old is None or (n, -b) > (old[1], -old[0]):
                best[a] = (b, n)
    out = np.full(len(node_of), -1, np.int32)
    for a, (b, _) in best.items():
        out[a] = b if best.get(b) is None else -1  # one step only: never a chain
    return out


def build_aliases(
    ents: Sequence[tuple[Any, ...]],
    node_of: dict[str, int],
    mentions: Sequence[tuple[str, str, int]],
    merged: Sequence[tuple[str, str, str]],
    abbrevs: Sequence[tuple[str, str, int]],
    degree: np.ndarray,
    same_as: np.ndarray | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The alias table (columns key, node, weight, source, n_nodes, surfaces) and each node's
    display name. ``ents``: (id, name, type, aliases, first_year[, display_name]) rows; the
    stored display name is used as it is (ask and serve show what SQL shows) unless it is a
    systematic chemical name (:func:`kgbuild.resolve.naming.readable_name`). ``mentions``:
    (concept_id, text, count[, id_check]) rows; suspect and dropped links give no alias, and a
    dropped one (its row carries the annotator's ID) counts against its form (rule 5).
    ``same_as``: node → the node it is the ortholog of (-1: itself; :func:`ortholog_nodes`): a
    non-human gene's forms name its human gene ("acetylcholinesterase" of rat Ache is ACHE's).
    Surface forms are cleaned (:func:`kgbuild.names.clean_alias`) before they become keys.
    Rows are sorted by key: the same snapshot always gives the same table."""
    c = _Candidates()
    home = (lambda i: i) if same_as is None else (lambda i: int(same_as[i]) if same_as[i] >= 0
                                                   else i)  # fmt: skip
    long_forms: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for cid, text, n, *check in mentions:
        node = node_of.get(cid)
        node = None if node is None else home(node)
        if node is not None and text and (check[0] if check else "").endswith(":dropped"):
            c.refute(text, node, float(n))  # the annotator's ID, which the build took away
        elif node is not None and text and trusted(check[0] if check else ""):
            c.add(text, node, float(n), "mention")
            if len(tokens(text)) >= 2:
                long_forms[node][text] += int(n)
    for i0, (_, name, _, aliases, _, *stored) in enumerate(ents):
        i = home(i0)
        if i != i0:  # a non-human gene: its name and forms are its human gene's mentions
            for a in {name, *(aliases or ())} - {None, ""}:
                c.add(a, i, 1.0, "mention")
            continue
        if name:
            c.add(name, i, 1.0, "name")
        shown = stored[0] if stored and stored[0] else ""
        # a vocabulary's names ("APP (amyloid beta precursor protein)": both halves) weigh more
        # than a display name that is only the node's name cleaned (free text, other IDs)
        vocabulary = bool(shown) and shown != clean_alias(name or "")
        weight = VOCABULARY_WEIGHT if vocabulary else 1.0
        for part in display_parts(shown):
            c.add(part, i, weight, "name", vocabulary)
        for synonym in entry_terms(str(ents[i][0])):  # "Senile Dementia, Alzheimer Type"
            c.add(synonym, i, 1.0, "name", True)
        for product in product_names().get(str(ents[i][0]), ()):  # UniProt's reviewed names
            c.add(product, i, 1.0, "name", True)  # "acetylcholinesterase" → ACHE, "Abeta" → APP
        for a in aliases or ():
            c.add(a, i, 0.5, "alias")
    for name, target, _method in merged:
        node = node_of.get(target)
        if node is not None and name:
            c.add(name, node, 1.0, "resolution")
    for short, long, n in abbrevs:
        node = c.best(" ".join(tokens(long)))
        if node is not None and short:
            c.add(short, node, float(n), "abbreviation")
    ok = _Eligible(c, [str(e[0]) for e in ents], long_forms)
    heads: dict[str, int] = defaultdict(int)
    for k in c.weight:
        if " " in k:
            for t in set(k.split()):
                heads[t] += 1
    keys, best = [], []
    for k in sorted(c.weight):
        node = c.best(k, ok)
        if node is None:
            continue
        if " " not in k:
            free = ents[node][0].startswith("free:")
            if free and degree[node] < FREE_MIN_DEGREE:
                continue
            if heads[k] >= GENERIC_HEAD_KEYS and c.rank[k][node] != 0:
                continue
        keys.append(k)
        best.append(node)
    table = {
        "key": keys,
        "node": np.array(best, np.int32),
        "weight": np.array([c.weight[k][b] for k, b in zip(keys, best, strict=True)], np.float32),
        "source": [SOURCES[c.rank[k][b]] for k, b in zip(keys, best, strict=True)],
        "n_nodes": np.array([sum(ok(k, n) for n in c.weight[k]) for k in keys], np.int16),
        # the forms this node was seen as ("sAD" for Alzheimer Disease, not another node's "SAD")
        "surfaces": [SEP.join(sorted(c.surfaces[k].get(b, ()))) for k, b in zip(keys, best,
                                                                                 strict=True)],
    }  # fmt: skip
    display = []
    for i, (_, name, _, _, _, *stored) in enumerate(ents):
        if stored and stored[0]:  # computed at build time: every place shows it
            forms = long_forms.get(i, {})
            display.append(readable_name(stored[0], (name or "", *by_frequency(forms))))
            continue
        shown = name or ""  # a snapshot written before display names: the older heuristic
        forms = long_forms.get(i)
        if forms and len(shown.strip()) <= 5 and sum(ch.isupper() for ch in shown) >= 2:
            long, n = min(forms.items(), key=lambda kv: (-kv[1], kv[0]))
            if n >= DISPLAY_MIN_COUNT and tokens(long) != tokens(shown):
                shown = f"{long} ({shown})"
        display.append(shown)
    return table, display
