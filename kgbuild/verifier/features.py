"""Features of one entity pair in one document: what a document-level relation extractor
without a neural encoder can see.

Relations in BioRED (Luo et al. 2022) and BC5CDR (Wei et al. 2016) are annotated per document,
and about a quarter of them cross sentences, so a pair is described at several ranges:

- **the closest mentions** (same sentence preferred): the words between them (unigrams,
  bigrams, and the whole span when short), two words either side, their order, token and
  sentence distance — the classic relation-extraction features (Zhou et al. 2005; the CID
  systems of BioCreative V: Wei et al. 2016);
- **the sentences holding both**: their count and their words (trigger words such as
  "induced", "inhibits", "binds" need not sit between the mentions);
- **the document**: each entity's salience — mentions, rank by mentions among its kind,
  whether it is the most mentioned of its kind, share of its kind's mentions, first sentence,
  title, last sentence, how many entities of the other's kind share a sentence with it, and
  whether another entity of its kind has a longer name ending in its own (CDR links the most
  specific disease). BioRED's curators relate the paper's main entities to many others,
  which salience captures;
- **the endpoints themselves**: the words either side of every mention ("-induced",
  "treatment") and the words of their names ("receptor", "toxicity").

Negation words ("not", "no") are kept: they change what a sentence states. Lexical
features are also crossed with the kind pair ("increased" means something else
between a chemical and a disease than between two genes). Every feature is a string; the
trainer keeps a vocabulary of those seen at least twice. The definitions are versioned by
:data:`FEATURE_SET`: a model fitted on other definitions is refused at load.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from kgbuild.verifier.text import DocView, EntityView

FEATURE_SET = "kgbuild-verifier-features/1"
#: Longest between-mention stretch (units) whose words are features.
MAX_BETWEEN = 40
#: Between-spans up to this long are also one feature as a whole ("<Chem> induced <Dis>").
SHORT_SPAN = 6
#: Sentences holding both entities whose words are features (the first ones).
MAX_CO_SENTENCES = 4
#: Words either side of every mention of an endpoint that are features of it ("-induced").
CONTEXT = 2
#: Words either side of a mention in a sentence holding both endpoints.
NEAR = 4
_NAME_WORD = re.compile(r"[a-z]+")
_NAME = re.compile(r"[^a-z0-9]+")
STOPWORDS = frozenset(
    {"a", "an", "the", "of", "in", "on", "to", "by", "with", "and", "or", "for", "as", "at",
     "from", "is", "are", "was", "were", "be", "been", "being", "its", "it", "their", "that",
     "this", "these", "those", "which", "who", "we", "our", "than", "then", "also"}
)  # fmt: skip


@dataclass(slots=True)
class Salience:
    """How prominent one entity is in its document."""

    count: int
    rank: int
    top: bool
    share: float
    first_sentence: int
    in_title: bool
    in_last: bool
    sentences: frozenset[int]
    #: Another entity of the same kind has a longer name ending in this one's ("pulmonary
    #: hypertension" for "hypertension"): CDR links the most specific disease (Wei et al. 2016).
    general: bool = False


def salience(view: DocView) -> dict[str, Salience]:
    """Salience of every entity of the document."""
    by_kind: dict[str, list[EntityView]] = {}
    for e in view.entities.values():
        by_kind.setdefault(e.kind, []).append(e)
    out: dict[str, Salience] = {}
    last = view.n_sentences - 1
    for ents in by_kind.values():
        names = {e.id: {_NAME.sub(" ", m.text.lower()).strip() for m in e.mentions} for e in ents}
        ents.sort(key=lambda e: (-len(e.units), e.units[0], e.id))
        total = sum(len(e.units) for e in ents)
        for rank, e in enumerate(ents, start=1):
            sents = frozenset(view.sentence[u] for u in e.units)
            out[e.id] = Salience(
                len(e.units), rank, rank == 1, len(e.units) / total, min(sents),
                0 in sents, last in sents and last > 0, sents,
                _more_specific(e.id, names),
            )  # fmt: skip
    return out


def _more_specific(eid: str, names: dict[str, set[str]]) -> bool:
    mine = [n for n in names[eid] if n]
    for other, theirs in names.items():
        if other != eid and any(t.endswith(" " + n) for t in theirs for n in mine):
            return True
    return False


def _bucket(n: int, edges: tuple[int, ...]) -> int:
    for i, edge in enumerate(edges):
        if n <= edge:
            return i
    return len(edges)


def _closest(view: DocView, a: EntityView, b: EntityView) -> tuple[int, int, bool]:
    """(unit of one mention, unit of the other, same sentence) of the closest mention pair,
    preferring a pair in one sentence; units in text order."""
    sent = view.sentence
    best: tuple[int, int, int, int] | None = None  # (cross-sentence, distance, i, j)
    for i in a.units:
        for j in b.units:
            key = (sent[i] != sent[j], abs(i - j), min(i, j), max(i, j))
            if best is None or key < best:
                best = key
    assert best is not None
    return best[2], best[3], not best[0]


def order(a: EntityView, b: EntityView, sal: dict[str, Salience]) -> tuple[EntityView, EntityView]:
    """Role order of a pair: by kind, then the more salient first, then ID (so a Gene–Gene pair
    has a stable first and second endpoint)."""
    ka = (a.kind, -sal[a.id].count, a.units[0], a.id)
    kb = (b.kind, -sal[b.id].count, b.units[0], b.id)
    return (a, b) if ka <= kb else (b, a)


def _entity(role: str, s: Salience) -> list[str]:
    out = [
        f"{role}n{_bucket(s.count, (1, 2, 3, 5, 8))}",
        f"{role}rk{min(s.rank, 4)}",
        f"{role}sh{_bucket(round(s.share * 10), (1, 2, 3, 5, 7))}",
        f"{role}fs{_bucket(s.first_sentence, (0, 1, 2, 4))}",
    ]
    if s.top:
        out.append(f"{role}top")
    if s.in_title:
        out.append(f"{role}ti")
    if s.in_last:
        out.append(f"{role}last")
    if s.general:
        out.append(f"{role}gen")
    return out


@dataclass(slots=True)
class DocContext:
    """What every pair of one document shares: the view, salience, each sentence's words."""

    view: DocView
    sal: dict[str, Salience]
    sentence_words: list[list[str]]


def doc_context(view: DocView) -> DocContext:
    words: list[list[str]] = [[] for _ in range(view.n_sentences)]
    for w, k in zip(view.words, view.sentence, strict=True):
        if len(w) > 2 and w[0].isalpha() and w not in STOPWORDS:
            words[k].append(w)
    return DocContext(view, salience(view), words)


def pair_features(ctx: DocContext, a_id: str, b_id: str) -> list[str]:
    """The feature strings of the pair (any order: roles are set by :func:`order`): the joint
    (distance, salience) and lexical features, each also crossed with the kind pair."""
    view, sal = ctx.view, ctx.sal
    a, b = order(view.entities[a_id], view.entities[b_id], sal)
    i, j, same = _closest(view, a, b)
    co = sorted(sal[a.id].sentences & sal[b.id].sentences)
    joint = _joint(ctx, a, b, i, j, co)
    lex = [
        *_closest_words(view.words, i, j, same),
        *_context(view.words, a, b),
        *_names(a, b),
        *_near(view, a, b, set(co[:MAX_CO_SENTENCES])),
        *_all_between(view, a, b, (i, j)),
        *_co_words(ctx, co[:MAX_CO_SENTENCES]),
    ]
    kp = f"{a.kind}|{b.kind}"
    return joint + [f"{kp}|{f}" for f in joint] + lex + [f"{kp}|{f}" for f in lex]


def _joint(
    ctx: DocContext, a: EntityView, b: EntityView, i: int, j: int, co: list[int]
) -> list[str]:
    """Distances, co-sentences, each endpoint's salience and how many partners of the other's
    kind it shares a sentence with (a list of ten genes relates none of them)."""
    view, sal = ctx.view, ctx.sal
    sa, sb = sal[a.id], sal[b.id]
    sent = view.sentence
    out = [
        "bias",
        f"cs{_bucket(len(co), (0, 1, 2, 3))}",
        f"sd{_bucket(sent[j] - sent[i], (0, 1, 2, 4))}",
        f"td{_bucket(j - i, (2, 4, 8, 16, 32))}",
        "ord:a" if i in a.units else "ord:b",
        *_entity("a", sa),
        *_entity("b", sb),
    ]
    if sa.top and sb.top:
        out.append("bothtop")
    if sa.in_title and sb.in_title:
        out.append("bothti")
    if co and co[-1] == view.n_sentences - 1 and co[-1] > 0:
        out.append("colast")
    for role, ent, other in (("pa", a, b), ("pb", b, a)):
        mine = sal[ent.id].sentences
        partners = sum(
            1 for e in view.entities.values() if e.kind == other.kind and sal[e.id].sentences & mine
        )
        out.append(f"{role}{_bucket(partners - 1, (0, 1, 2, 4))}")
    return out


def _closest_words(words: list[str], i: int, j: int, same: bool) -> list[str]:
    """Two words before the first and after the second closest mention; in one sentence, the
    words and bigrams between them (and the whole stretch when short)."""
    out = [f"l:{w}" for w in words[max(0, i - 2) : i] if w not in STOPWORDS]
    out += [f"r:{w}" for w in words[j + 1 : j + 3] if w not in STOPWORDS]
    if same and j - i - 1 <= MAX_BETWEEN:
        between = words[i + 1 : j]
        out.append(f"bn{_bucket(len(between), (0, 1, 2, 4, 8, 16))}")
        if len(between) <= SHORT_SPAN:
            out.append("bs:" + "_".join(between))
        out += [f"bw:{w}" for w in dict.fromkeys(between) if w not in STOPWORDS]
        out += [f"bb:{x}_{y}" for x, y in dict.fromkeys(pairwise(between))]
    return out


def _context(words: list[str], a: EntityView, b: EntityView) -> list[str]:
    """Words either side of every mention of each endpoint ("<Chemical> - induced")."""
    out = []
    for role, ent in (("ca", a), ("cb", b)):
        found: set[str] = set()
        for u in ent.units:
            found.update(words[max(0, u - CONTEXT) : u])
            found.update(words[u + 1 : u + 1 + CONTEXT])
        out += [f"{role}:{w}" for w in sorted(found - STOPWORDS)]
    return out


def _names(a: EntityView, b: EntityView) -> list[str]:
    """The words of each endpoint's names ("receptor", "toxicity", "inhibitor")."""
    names: set[str] = set()
    for role, ent in (("ma", a), ("mb", b)):
        for m in ent.mentions:
            names.update(f"{role}:{w}" for w in _NAME_WORD.findall(m.text.lower()) if len(w) > 2)
    return sorted(names)


def _near(view: DocView, a: EntityView, b: EntityView, co: set[int]) -> list[str]:
    """Words just before and after each endpoint's mentions in the sentences holding both."""
    words, sent = view.words, view.sentence
    near: set[str] = set()
    for role, ent in (("a", a), ("b", b)):
        for u in ent.units:
            if sent[u] in co:
                near.update(f"{role}<{w}" for w in words[max(0, u - NEAR) : u])
                near.update(f"{role}>{w}" for w in words[u + 1 : u + 1 + NEAR])
    return sorted(near)


def _all_between(
    view: DocView, a: EntityView, b: EntityView, closest: tuple[int, int]
) -> list[str]:
    """The words between every other pair of their mentions that share a sentence."""
    words, sent = view.words, view.sentence
    found: set[str] = set()
    for u in a.units:
        for w in b.units:
            lo, hi = min(u, w), max(u, w)
            if sent[lo] == sent[hi] and (lo, hi) != closest and hi - lo - 1 <= MAX_BETWEEN:
                found.update(x for x in words[lo + 1 : hi] if x not in STOPWORDS)
    return [f"aw:{w}" for w in sorted(found)]


def _co_words(ctx: DocContext, co: list[int]) -> list[str]:
    """The content words of the sentences holding both (trigger words need not sit between)."""
    seen: set[str] = set()
    for s in co:
        seen.update(ctx.sentence_words[s])
    return [f"sw:{w}" for w in sorted(seen)]
