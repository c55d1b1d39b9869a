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
from collections.abc import Sequence
from typing import Any

import numpy as np

from kgbuild.names import clean_alias
from kgbuild.query.text import STOPWORDS, tokens
from kgbuild.resolve.junk import is_junk_alias

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


class _Candidates:
    def __init__(self) -> None:
        self.weight: dict[str, dict[int, float]] = defaultdict(lambda: defaultdict(float))
        self.rank: dict[str, dict[int, int]] = defaultdict(dict)
        self.surfaces: dict[str, set[str]] = defaultdict(set)

    def add(self, surface: str, node: int, weight: float, source: str) -> None:
        surface = clean_alias(surface)  # '"amyloid-beta', "49 Alzheimer's…", "A&beta" (issue 41)
        toks = tokens(surface)
        if not usable(toks, surface) or is_junk_alias(surface):  # issue 24: "Abeta and C5a"
            return
        rank = SOURCES.index(source)
        for v in variants(toks):
            k = " ".join(v)
            self.weight[k][node] += weight
            self.rank[k][node] = min(self.rank[k].get(node, rank), rank)
            if len(v) == 1 and (len(k) <= SHORT_KEY or k in STOPWORDS):
                self.surfaces[k].add("*" if source == "abbreviation" else surface.strip())

    def best(self, k: str) -> int | None:
        cands = self.weight.get(k)
        if not cands:
            return None
        return min(cands, key=lambda n: (-cands[n], self.rank[k][n], n))


def build_aliases(
    ents: Sequence[tuple[Any, ...]],
    node_of: dict[str, int],
    mentions: Sequence[tuple[str, str, int]],
    merged: Sequence[tuple[str, str, str]],
    abbrevs: Sequence[tuple[str, str, int]],
    degree: np.ndarray,
) -> tuple[dict[str, Any], list[str]]:
    """The alias table (columns key, node, weight, source, n_nodes, surfaces) and each node's
    display name. ``ents``: (id, name, type, aliases, first_year[, display_name]) rows; the
    stored display name (issue 41) is used as it is, so ask and serve show what SQL shows.
    Surface forms are cleaned (:func:`kgbuild.names.clean_alias`) before they become keys.
    Rows are sorted by key: the same snapshot always gives the same table."""
    c = _Candidates()
    long_forms: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for cid, text, n in mentions:
        node = node_of.get(cid)
        if node is not None and text:
            c.add(text, node, float(n), "mention")
            if len(tokens(text)) >= 2:
                long_forms[node][text] += int(n)
    for i, (_, name, _, aliases, _, *stored) in enumerate(ents):
        if name:
            c.add(name, i, 1.0, "name")
        shown = stored[0] if stored and stored[0] else ""
        # a vocabulary's names ("APP (amyloid beta precursor protein)": both halves) weigh more
        # than a display name that is only the node's name cleaned (free text, other IDs)
        weight = VOCABULARY_WEIGHT if shown and shown != clean_alias(name or "") else 1.0
        for part in display_parts(shown):
            c.add(part, i, weight, "name")
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
    heads: dict[str, int] = defaultdict(int)
    for k in c.weight:
        if " " in k:
            for t in set(k.split()):
                heads[t] += 1
    keys, best = [], []
    for k in sorted(c.weight):
        node = c.best(k)
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
        "n_nodes": np.array([len(c.weight[k]) for k in keys], np.int16),
        "surfaces": [SEP.join(sorted(c.surfaces[k])) if k in c.surfaces else "" for k in keys],
    }
    display = []
    for i, (_, name, _, _, _, *stored) in enumerate(ents):
        if stored and stored[0]:  # computed at build time (issue 41): every place shows it
            display.append(stored[0])
            continue
        shown = name or ""  # a snapshot written before display names: the older heuristic
        forms = long_forms.get(i)
        if forms and len(shown.strip()) <= 5 and sum(ch.isupper() for ch in shown) >= 2:
            long, n = min(forms.items(), key=lambda kv: (-kv[1], kv[0]))
            if n >= DISPLAY_MIN_COUNT and tokens(long) != tokens(shown):
                shown = f"{long} ({shown})"
        display.append(shown)
    return table, display
