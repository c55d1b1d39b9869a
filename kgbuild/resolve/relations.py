"""Canonical relation names for the free-text predicates an LLM writes.

Why: DALK's generative extraction lets the LLM invent predicates: of the 51,309 triples of DALK's
``dalk_kg_gen.tsv`` only 35% use one of the 10 Hetionet relations of DALK Table 11, the rest are
spread over 3,493 strings ("associated with", "is_a", "Associated With", …), which can neither be
queried nor merged across years. Each predicate is mapped onto a Hetionet relation where one fits,
else onto one of the few open predicates of :data:`OPEN_PREDICATES`.

How (the mapping is data, ``data/relation_synonyms.tsv``, whose header states the policy): (1) a
Hetionet name as written, any case (method ``hetionet``); (2) :func:`normalize_predicate`'s key in
the ``exact`` rows (``synonym``) — "<key> by" is <key>'s row with the direction flipped, and a
trailing "with/to/on/for" may be dropped; (3) the first ``keyword`` row whose stem begins a word
of the key (``rule``; a negated predicate asserts no edge: ``related_to``); (4) ``related_to``
(``open``).

Policy: signed change → up/downregulates, unsigned (modulate, cleave) → regulates; therapy →
treats, symptom relief → palliates; association of any strength and a bare "has" → associates
("has" says no more than that the two occur together, which this project records as
``associates`` for a co-mention too, ``data/cooccurrence_relations.tsv``); causation ("causes",
"leads to", "results from") → ``causes``, with its direction. Hetionet names ``causes`` only for
Compound → Side Effect (CcSE); between Gene, Compound and Disease it is an open predicate. It used
to be folded into ``associates``, which is undirected, so a claim read backwards ("AD causes
Abeta") looked as right as the true one; a precision audit of the DALK build found such rows, so the
direction is kept. A negated predicate ("does not bind", "lacks") asserts no edge at all:
:func:`negation_cue` finds it and the extractor rejects the claim with that reason.

Kind-aware: given both kinds, a signed relation first takes the pair's own name for its sign,
stated subject → object (``data/pair_relations.tsv``, BioRED's Positive/Negative_Correlation per
kind pair): a chemical that "induces" or "increases" a disease ``causes`` it (BC5CDR's CID,
Hetionet's Compound-causes-Side Effect name), one that "reduces" it ``treats`` it (Hetionet CtD);
"Cocaine upregulates Seizures" is not what the text says. A disease that raises a chemical keeps
``upregulates`` (no rename against the table's direction). Then a Hetionet relation that DALK
Table 11 does not allow for the pair becomes the first allowed of ``_FALLBACK[relation]`` then
``associates`` (Gene "treats" Disease → associates, Gene "binds" Gene → interacts); if none is
allowed it is kept with ``allowed=False``.
A fallback only ever weakens a claim: "interacts" never becomes ``binds`` (Compound "interacts"
Gene stays ``interacts``, not allowed), because binding is a stronger, different claim.
Up/down/regulates are causal and must fit in the stated direction (Gene "upregulates" Disease is
not Hetionet's Disease-upregulates-Gene); other relations are put in metaedge order later
(``kgbuild.triples.orient``, which never swaps a causal claim into its metaedge).
Between Disease and Gene (the pair with ``associates``) the open predicates of ``_PROMOTABLE``
become ``associates``: a gene is neither "located in" a disease node nor its symptom. ``isa``
between two kinds ("AD isa APP" from a garbled "ABETA_TYPE") is only ``related_to``.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from kgbuild.errors import ConfigError
from kgbuild.pair_relations import SIGNED, signed_name
from kgbuild.schema import (
    RelationOption,
    data_dir,
    hetionet_relation_names,
    hetionet_relations,
    relations_for,
)

SYNONYMS_TSV = "relation_synonyms.tsv"

#: Open predicates for what the 10 Hetionet relations cannot say (read as ``head relation tail``).
OPEN_PREDICATES: dict[str, str] = {
    "isa": "head is a kind, subtype, class, member or instance of tail",
    "part_of": "head is a part, component, subunit, residue or ingredient of tail",
    "located_in": "head is found, occurs, accumulates or is deposited in tail (place, cell)",
    "biomarker_of": "head is a (bio)marker, indicator, predictor or diagnostic of tail",
    "model_of": "organism, cell line or system head is an experimental model of tail",
    "measured_by": "quantity head is measured, detected, stained or imaged by method tail",
    "produces": "head produces, secretes, releases, forms, or is the source of tail",
    "encodes": "gene head encodes product tail",
    "variant_of": "mutation, variant, allele, genotype or isoform head is a form of tail",
    "in_taxon": "entity head belongs to or comes from organism tail",
    "related_to": "unspecified: the predicate names an attribute, a study role, or nothing mapped",
    "causes": "head causes, leads to or results in tail (Hetionet's CcSE name; open elsewhere)",
    "co_mentioned": "head and tail are named together in a sentence that the relation verifier "
    "does not read as stating a relation (kgbuild.extract.classifier): no relation claimed",
}

#: Open predicates that are exactly a Hetionet relation outside DALK's 10, renamed to Hetionet's
#: name (and direction) when the table is read: DpS "Disease presents Symptom", AeG "Anatomy
#: expresses Gene". The synonym table keeps the readable names.
HETIONET_NAMES: dict[str, tuple[str, bool]] = {
    "has_symptom": ("presents", False),
    "expressed_in": ("expresses", True),
}

#: Substitutes tried in order when a relation is not allowed for the kind pair (then associates).
_FALLBACK: dict[str, tuple[str, ...]] = {
    "upregulates": ("regulates",),
    "downregulates": ("regulates",),
    "binds": ("interacts",),
}
#: Causal relations: they must fit the kind pair as stated, never by swapping the ends.
_DIRECTIONAL = frozenset({"upregulates", "downregulates", "regulates"})
#: Open predicates that between a Disease and a Gene can only mean an association.
_PROMOTABLE = frozenset(
    {"located_in", "expresses", "presents", "biomarker_of", "model_of", "measured_by",
     "related_to"}
)  # fmt: skip

#: Open predicates whose tail is the disease when one end is a disease and the other is not.
_DISEASE_TAIL = frozenset({"model_of", "biomarker_of"})
_COPULAS = frozenset({"is", "are", "was", "were", "be", "been", "being", "am"})
_FILLERS = _COPULAS | frozenset(
    {"can", "may", "might", "could", "would", "should", "will", "shall", "do", "does", "did",
     "a", "an", "the", "also", "significantly", "directly", "indirectly", "strongly", "highly",
     "specifically", "potentially", "possibly", "likely", "partially", "partly", "selectively",
     "mainly", "primarily", "predominantly", "often", "frequently", "commonly", "reportedly",
     "known", "thought", "shown"}
)  # fmt: skip
_NEGATIONS = frozenset({"not", "no", "non", "never", "without"})
#: Relations an unmapped predicate may take from its nearest table key by embedding: only the
#: uncommitted ones. A signed or mechanistic relation ("lower than" → downregulates, "transport
#: across" → binds) from a cosine is a guess the audit found wrong more often than right.
EMBED_TARGETS = frozenset({"associates", "presents"})
_LEMMA_EXCEPTIONS = {"has": "have", "had": "have", "bound": "bind", "led": "lead"}
_DROPPABLE_TAIL = frozenset({"with", "to", "on", "upon", "for"})
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z][a-z]|[A-Z]$)")
_UP_DOWN = re.compile(r"\b(up|down) +(?=regul)")


@dataclass(frozen=True, slots=True)
class CanonicalRelation:
    """A predicate's canonical relation; ``reverse``: write the triple as (tail, relation, head).

    method: hetionet | synonym | rule | kind (replaced to fit the kind pair) | open.
    allowed: whether DALK Table 11 allows the relation for the given kinds (None: not judged).
    """

    relation: str
    reverse: bool
    method: str
    hetionet: bool
    allowed: bool | None = None


@cache
def _table() -> tuple[dict[str, tuple[str, bool]], tuple[tuple[str, str, bool], ...]]:
    """(exact key → (relation, reverse), keyword rows in file order) from the synonym TSV."""
    path = data_dir() / SYNONYMS_TSV
    with open(path, encoding="utf-8", newline="") as fh:
        lines = (ln for ln in fh if not ln.startswith("#"))
        rows = list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))
    known = hetionet_relations() | OPEN_PREDICATES.keys() | HETIONET_NAMES.keys()
    bad = [r["predicate"] for r in rows if r["relation"] not in known]
    if bad:
        raise ConfigError("relation synonym rows name unknown relations", path=path, rows=bad[:5])
    exact, rules = {}, []
    for r in rows:
        name, flip = HETIONET_NAMES.get(r["relation"], (r["relation"], False))
        entry = (name, (r["reverse"] == "yes") != flip)
        if r["match"] == "exact":
            exact[r["predicate"]] = entry
        else:
            rules.append((r["predicate"], *entry))
    return exact, tuple(rules)


@cache
def _vocabulary() -> frozenset[str]:
    """The words of the exact keys: the lemmas :func:`_lemma` may reduce a word to."""
    return frozenset(w for key in _table()[0] for w in key.split())


def _lemma(word: str) -> str:
    """Strip -s/-es/-ies/-ed/-ied/-ing when that yields a table word (no model, no dictionary)."""
    vocab = _vocabulary()
    if word in _LEMMA_EXCEPTIONS:
        return _LEMMA_EXCEPTIONS[word]
    if word in vocab or len(word) <= 3:
        return word
    candidates: list[str] = []
    if word.endswith(("ies", "ied")):
        candidates.append(word[:-3] + "y")
    if word.endswith("s") and not word.endswith("ss"):
        candidates += [word[:-1], word[:-2]]
    if word.endswith("ed"):
        candidates += [word[:-1], word[:-2], word[:-3]]
    if word.endswith("ing"):
        candidates += [word[:-3] + "e", word[:-3], word[:-4]]
    return next((c for c in candidates if c in vocab), word)


@lru_cache(maxsize=65536)
def normalize_predicate(raw: str) -> str:
    """The lookup key of a predicate: "is associated_with", "Associates with" → "associate with".

    Lower case; ``_ - /`` and camelCase become spaces; punctuation goes; auxiliaries, articles,
    hedging adverbs and "has been" go; words are lemmatized. A bare copula ("is a") is "be".
    """
    text = _CAMEL.sub(" ", raw).lower().replace("_", " ").replace("-", " ").replace("/", " ")
    words = re.sub(r"[^a-z0-9 ]+", " ", _UP_DOWN.sub(r"\1", text)).split()
    out: list[str] = []
    for i, w in enumerate(words):
        perfect = w in ("has", "have", "had") and words[i + 1 : i + 2] == ["been"]
        if w in _FILLERS or perfect or (w == "to" and not out):
            continue
        out.append(_lemma(w))
    if not out and _COPULAS.intersection(words):
        return "be"
    return " ".join(out)


def _lookup(key: str) -> tuple[str, bool, str]:
    """(relation, reverse, method) of a normalized key, kinds not considered."""
    exact, rules = _table()
    if key in exact:
        return (*exact[key], "synonym")
    words = key.split()
    if _NEGATIONS.intersection(words):
        return "related_to", False, "rule"
    if len(words) > 1 and words[-1] == "by":
        relation, reverse, method = _lookup(" ".join(words[:-1]))
        if method != "open":
            return relation, not reverse, method
    if len(words) > 1 and words[-1] in ("from", "via", "through"):  # "isolated from Y", "is
        # produced via Y": Y is the source (DALK audit, seed 1608)
        relation, reverse, method = _lookup(" ".join(words[:-1]))
        if method != "open" and relation == "produces":
            return relation, not reverse, method
    if len(words) > 1 and words[-1] in _DROPPABLE_TAIL:
        found = _lookup(" ".join(words[:-1]))
        if found[2] != "open":
            return found
    for stem, relation, reverse in rules:
        if any(w.startswith(stem) for w in words):
            return relation, reverse, "rule"
    return "related_to", False, "open"


def _fit_kinds(
    relation: str, reverse: bool, options: list[RelationOption], kinds: tuple[str, str]
) -> tuple[str, bool]:
    """(relation, allowed) for a kind pair by DALK Table 11 (see the module docstring)."""
    subject, obj = kinds[::-1] if reverse else kinds
    for candidate in (relation, *_FALLBACK.get(relation, ()), "associates"):
        for o in options:
            if o.relation == candidate and (
                candidate not in _DIRECTIONAL or (o.head_kind, o.tail_kind) == (subject, obj)
            ):
                return candidate, True
    return relation, False


@lru_cache(maxsize=65536)
def canonical_relation(
    raw: str, head_kind: str | None = None, tail_kind: str | None = None
) -> CanonicalRelation:
    """The canonical relation of ``head raw tail``; Hetionet kinds of both ends enable the Table 11
    check and fallback. Cached: it runs once per triple on up to millions of triples."""
    hetionet = hetionet_relations()
    name = raw.strip().lower()
    if name in hetionet:
        relation, reverse, method = name, False, "hetionet"
    else:
        relation, reverse, method = _lookup(normalize_predicate(raw))
    if relation in _DISEASE_TAIL and head_kind != tail_kind:
        # a label ("AD mouse_model X") has no reliable direction; the disease is what is
        # modelled or indicated, so it is the tail (DALK audit, seed 1603)
        subject = tail_kind if reverse else head_kind
        if subject == "Disease":
            reverse = not reverse
    if relation == "isa" and head_kind and tail_kind and head_kind != tail_kind:
        # a disease is no protein: "X is a Y" needs one kind (DALK audit, seed 1606)
        relation, method = "related_to", "kind"
    allowed = None
    options = relations_for(head_kind, tail_kind) if head_kind and tail_kind else []
    subject, obj = (tail_kind, head_kind) if reverse else (head_kind, tail_kind)
    named = signed_name(relation, subject, obj) if relation in SIGNED else relation
    if named != relation:  # the pair's own name for the sign (data/pair_relations.tsv)
        relation, method, allowed = named, "kind", True
    elif options and relation in hetionet:
        fitted, allowed = _fit_kinds(relation, reverse, options, (head_kind, tail_kind))
        if fitted != relation:
            relation, method = fitted, "kind"
    elif relation in _PROMOTABLE and any(o.relation == "associates" for o in options):
        relation, method, allowed = "associates", "kind", True
    return CanonicalRelation(
        relation, reverse, method, relation in hetionet_relation_names(), allowed
    )


#: Minimum cosine between an unmapped predicate and its nearest synonym-table key for the key's
#: relation to be taken (the embedding step; measured on DALK's unmapped predicates, README).
EMBED_MIN = 0.80


def embed_predicates(raws: Iterable[str], embedder: Any) -> dict[str, tuple[str, bool, float]]:
    """Normalized keys of predicates the table and rules leave unmapped → (relation, reverse,
    cosine) of the nearest synonym-table key, when at least :data:`EMBED_MIN` close."""
    from kgbuild.resolve.embed import nearest

    exact, _ = _table()
    todo = sorted({k for k in map(normalize_predicate, raws) if k and _lookup(k)[2] == "open"})
    if not todo:
        return {}
    keys = sorted(exact)
    idx, scores = nearest(embedder.embed(todo), embedder.embed(keys), k=1)
    out = {}
    for i, key in enumerate(todo):
        relation, reverse = exact[keys[idx[i, 0]]]
        if scores[i, 0] >= EMBED_MIN and relation in EMBED_TARGETS:
            out[key] = (relation, reverse, round(float(scores[i, 0]), 4))
    return out


def coverage(
    predicates: Iterable[str | tuple[str, str | None, str | None]],
) -> dict[str, int | float]:
    """How raw predicates (or ``(predicate, head kind, tail kind)``) canonicalize: triples,
    distinct raw and canonical strings, and the shares that are Hetionet, ``related_to``, and
    unmapped (fell through every row and rule)."""
    raw_seen: set[str] = set()
    relations: Counter[str] = Counter()
    methods: Counter[str] = Counter()
    for item in predicates:
        raw, head_kind, tail_kind = (item, None, None) if isinstance(item, str) else item
        c = canonical_relation(raw, head_kind, tail_kind)
        raw_seen.add(raw)
        relations[c.relation] += 1
        methods[c.method] += 1
    n = sum(relations.values())

    def share(k: int) -> float:
        return round(k / n, 4) if n else 0.0

    return {
        "triples": n,
        "distinct_raw": len(raw_seen),
        "distinct_canonical": len(relations),
        "hetionet_share": share(sum(relations[r] for r in hetionet_relation_names())),
        "dalk_relation_share": share(sum(relations[r] for r in hetionet_relations())),
        "related_to_share": share(relations["related_to"]),
        "unmapped_share": share(methods["open"]),
    }
