"""What an answer's evidence sentences say beyond its relation: a *direct* molecular relation
("an acetylcholinesterase inhibitor", "binds the sigma-1 receptor") and the question's
*qualifiers* ("late-onset", "CSF", "plasma").

A compound's target is what it binds or inhibits; a co-occurrence KG also joins it to every
downstream effect ("donepezil attenuated the release of IL-1beta" reads as ``downregulates``),
and those effects, named in more abstracts, outrank the target. DrugBank calls a target a
protein the drug binds and whose function it modulates (Wishart et al. 2018); sentences that
state this use a small vocabulary (inhibitor, inhibits, binds, antagonist, agonist, blocker,
ligand), the trigger words BioRED annotates as Bind (Luo et al. 2022). Likewise a question
about *late-onset* Alzheimer's disease or *CSF* biomarkers is answered by facts whose sentences
say so: APOE–AD sentences say "late-onset" far more often than APP–AD ones.

Both are a share of a candidate's evidence rows whose sentence matches a pattern, read from the
snapshot index's evidence rows (one best sentence per fact and PMID), at most :data:`ROW_CAP`
rows per fact and only for the :data:`TOP_CANDIDATES` best candidates of an anchor, so a hub
anchor costs a bounded number of regex matches. The patterns are data
(``data/answer_kinds.toml``'s ``direct``; ``data/question_qualifiers.toml``).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache

import numpy as np

from kgbuild.schema import data_dir
from kgbuild.search.index import SnapshotIndex
from kgbuild.search.text import key

QUALIFIERS_TOML = "question_qualifiers.toml"
#: Evidence rows read per fact (its first rows: the index keeps one best sentence per PMID).
ROW_CAP = 200
#: Candidates per anchor whose sentences are read; the rest count as matching none.
TOP_CANDIDATES = 60
#: The share of matching rows that counts in full: an abstract sentence about a drug and its
#: target often reports an effect instead ("donepezil increased CSF AChE activity"), so half
#: the rows stating the relation is as direct as a fact gets.
SATURATE = 0.5


@dataclass(frozen=True, slots=True)
class Qualifier:
    """One row of ``question_qualifiers.toml``: a word of the question (``cue``) and what an
    evidence sentence says to share it (``evidence``)."""

    key: str
    cue: re.Pattern[str]
    evidence: re.Pattern[str]


@cache
def qualifiers() -> tuple[Qualifier, ...]:
    """The qualifiers of ``data/question_qualifiers.toml``, compiled once per process."""
    with open(data_dir() / QUALIFIERS_TOML, "rb") as fh:
        rows = tomllib.load(fh)
    return tuple(
        Qualifier(key, re.compile(rf"(?<![\w-])(?:{r['cue']})(?![\w-])", re.IGNORECASE),
                  re.compile(r["evidence"], re.IGNORECASE))
        for key, r in rows.items()
    )  # fmt: skip


def read_qualifiers(question: str) -> tuple[Qualifier, ...]:
    """The qualifiers the question names ("late-onset", "CSF"), whatever entity holds them:
    "late-onset Alzheimer's disease" links to Alzheimer's disease and keeps its qualifier."""
    return tuple(q for q in qualifiers() if q.cue.search(question))


#: How many tokens may stand between a direct-relation word and the answer's name
#: ("acetylcholinesterase ( AChE ) inhibitor": the name, its abbreviation, then the word).
NEAR = 4
_ALIAS_KEYS: dict[int, tuple[SnapshotIndex, dict[int, tuple[str, ...]]]] = {}
#: Alias keys tried per node (longest first) and the shortest key looked for.
MAX_KEYS = 12
MIN_KEY = 3


def alias_keys(index: SnapshotIndex) -> dict[int, tuple[str, ...]]:
    """Node → its name's and aliases' keys (:func:`kgbuild.search.text.key` form), longest
    first (one pass over the names and the alias table per opened index)."""
    got = _ALIAS_KEYS.get(id(index))
    if got is None or got[0] is not index:
        acc: dict[int, list[str]] = {}
        for n, name in enumerate(index.nodes["name"]):
            k = key(name or "")
            if len(k) >= MIN_KEY:
                acc[n] = [k]
        for k, n in zip(index.aliases["key"], index.aliases["node"].tolist(), strict=True):
            if k and len(k) >= MIN_KEY:
                acc.setdefault(int(n), []).append(k)
        table = {n: tuple(sorted(set(ks), key=lambda k: (-len(k), k))[:MAX_KEYS])
                 for n, ks in acc.items()}  # fmt: skip
        if len(_ALIAS_KEYS) >= 4:
            _ALIAS_KEYS.clear()
        got = _ALIAS_KEYS[id(index)] = (index, table)
    return got[1]


def near_name(sentence: str, names: tuple[str, ...], pattern: re.Pattern[str]) -> bool:
    """Does a word of ``pattern`` stand within :data:`NEAR` tokens of one of ``names`` in the
    sentence (both in key form)? "Donepezil, an acetylcholinesterase inhibitor, lowered IL-1beta"
    says it of acetylcholinesterase, not of IL-1beta."""
    text = f" {key(sentence)} "
    cues = [text.count(" ", 0, m.start()) for m in pattern.finditer(text)]
    if not cues:
        return False
    for name in names:
        start = text.find(f" {name} ")
        while start >= 0:
            first = text.count(" ", 0, start + 1)
            last = first + name.count(" ")
            if any(first - NEAR <= c <= last + NEAR for c in cues):
                return True
            start = text.find(f" {name} ", start + 1)
    return False


def row_share(index: SnapshotIndex, edges: np.ndarray, pattern: re.Pattern[str],
              names: list[tuple[str, ...]] | None = None) -> np.ndarray:  # fmt: skip
    """Per edge: rows whose sentence matches ``pattern`` (near the edge's ``names`` when
    given) and rows read (≤ :data:`ROW_CAP` each), as two columns."""
    sentences = index.evidence["sentence"]
    out = np.zeros((len(edges), 2))
    for i, x in enumerate(edges.tolist()):
        lo = int(index.ev_ptr[x])
        hi = min(int(index.ev_ptr[x + 1]), lo + ROW_CAP)
        if names is None:
            hit = sum(bool(pattern.search(sentences[r] or "")) for r in range(lo, hi))
        else:
            hit = sum(near_name(sentences[r] or "", names[i], pattern) for r in range(lo, hi))
        out[i] = hit, hi - lo
    return out


def cue_factor(index: SnapshotIndex, cand: np.ndarray, inv: np.ndarray, edges: np.ndarray,
               score: np.ndarray, pattern: re.Pattern[str], base: float,
               near: bool = False, saturate: float = 1.0) -> np.ndarray:  # fmt: skip
    """Per candidate: ``base`` + the rest × the share of its evidence rows (over the facts
    ``edges``, ``inv`` mapping each to its candidate ``cand``) whose sentence matches
    ``pattern`` (``near``: next to the candidate's name, :func:`near_name`), discounted for few
    rows (m / (n + 1): one matching row of one is not a pattern) and full at
    ``saturate`` (:data:`SATURATE` for a direct relation). Only the
    :data:`TOP_CANDIDATES` best by ``score`` are read; the others get ``base``."""
    factor = np.full(len(cand), base)
    if not len(cand):
        return factor
    top = np.argsort(-score, kind="stable")[:TOP_CANDIDATES]
    chosen = np.isin(inv, top)
    if not chosen.any():
        return factor
    names = None
    if near:
        keys = alias_keys(index)
        names = [keys.get(int(c), ()) for c in cand[inv[chosen]].tolist()]
    counts = row_share(index, edges[chosen], pattern, names)
    hit = np.zeros(len(cand))
    seen = np.zeros(len(cand))
    np.add.at(hit, inv[chosen], counts[:, 0])
    np.add.at(seen, inv[chosen], counts[:, 1])
    share = np.minimum(hit / (seen + 1.0) / saturate, 1.0)
    factor[top] = base + (1.0 - base) * share[top]
    return factor
