"""Mixed-concept IDs: one annotator ID whose surface forms name two different things.

Why: taggers link the head noun. PubTator links "Abeta aggregation" to MESH:D001791 (Blood
Platelet Disorders, whose curated form is "platelet aggregation"), "glucose deprivation" to Sleep
Deprivation, "blood glucose" and "Abeta reduction" to Hypotension ("BP reduction" in its training
data). Grounding takes the document's ID on trust, so every claim about Abeta aggregation became a
claim about a platelet disorder, named after its most frequent form.

What is detected (automatically): a form of an ID that is *another concept's frequent name plus
generic words only* — "<abeta> aggregation", "<glucose> deprivation", "blood <glucose>",
"impaired <insulin>" — where the other concept owns that name (at least
:data:`MIN_OWNER_MENTIONS` mentions, :data:`OWNER_SHARE` of them its own; or, for gene names linked
to several species' genes, :data:`KIND_SHARE` of them one other kind). Grouping all forms
lexically does not work: synonyms and abbreviations share no words (copper/Cu, TTR/transthyretin),
so a purely lexical split flags hundreds of sound IDs. An ID is *mixed* when it has both such
foreign-headed forms and forms of its own (:data:`MIN_GROUP_MENTIONS` each).

Which group owns the ID needs a name for it: where ``data/reference_*.tsv`` gives one (Hetionet
names, curated CDR/BioRED forms), the group matching it owns the ID; otherwise the minority group
is the likely mislink and a majority foreign group is left for review ("Abeta aggregation" is
158 of D001791's ~190 mentions: only the curated "platelet aggregation" says which is right).
What is *done* about it is curated: reviewed lines of ``data/mislinked_forms.tsv`` take the ID away
from those forms at ingestion (:mod:`kgbuild.resolve.mislinked`); this module only finds and
reports (``kgbuild quality``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kgbuild.names import most_frequent, norm
from kgbuild.resolve.vocab import Reference

MIN_OWNER_MENTIONS = 20
OWNER_SHARE = 0.8
KIND_SHARE = 0.9
MIN_GROUP_MENTIONS = 3
#: Words a tagger's head-noun link leaves around another concept's name.
GENERIC = frozenset({
    "aggregation", "aggregations", "aggregate", "aggregates", "deprivation", "reduction",
    "reductions", "loss", "impairment", "impairments", "impaired", "dysfunction", "dysfunctions",
    "deficit", "deficits", "deficiency", "accumulation", "deposition", "deposits", "toxicity",
    "induced", "mediated", "related", "dependent", "level", "levels", "blood", "plasma", "serum",
    "decreased", "increased", "high", "low", "elevated", "reduced", "abnormal", "abnormality",
    "abnormalities", "damage", "overload", "excess", "defect", "defects", "misfolding",
    "pathology", "burden", "injury", "resistance", "intolerance", "of", "the", "in", "and",
})  # fmt: skip


@dataclass(slots=True)
class MixedConcept:
    """One mixed ID: its own forms, the foreign-headed forms by the concept that owns their name,
    and what the reference (if any) says."""

    concept_id: str
    kind: str
    home: list[tuple[str, int]]
    foreign: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    verdict: str = ""

    @property
    def mentions(self) -> tuple[int, int]:
        """(own mentions, foreign-headed mentions)."""
        return sum(n for _, n in self.home), sum(n for g in self.foreign.values() for _, n in g)

    def as_dict(self) -> dict[str, object]:
        own, other = self.mentions
        return {
            "concept_id": self.concept_id, "kind": self.kind, "own_mentions": own,
            "foreign_mentions": other, "verdict": self.verdict,
            "own_forms": [f for f, _ in self.home[:5]],
            "foreign_forms": {k: [f for f, _ in v[:5]] for k, v in self.foreign.items()},
        }  # fmt: skip


def owners_of(forms: dict[str, Counter[str]], kinds: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Frequent form → (owner concept or "kind:<Kind>", owner kind)."""
    by_form: dict[str, Counter[str]] = defaultdict(Counter)
    for cid, c in forms.items():
        for f, n in c.items():
            by_form[f][cid] += n
    out = {}
    for f, c in by_form.items():
        total = sum(c.values())
        if total < MIN_OWNER_MENTIONS:
            continue
        cid, n = min(c.items(), key=lambda kv: (-kv[1], kv[0]))
        if n >= OWNER_SHARE * total:
            out[f] = (cid, kinds.get(cid, ""))
            continue
        by_kind: Counter[str] = Counter()
        for k, v in c.items():
            by_kind[kinds.get(k, "")] += v
        kind, m = min(by_kind.items(), key=lambda kv: (-kv[1], kv[0]))
        if kind and m >= KIND_SHARE * total:
            out[f] = (f"kind:{kind}", kind)
    return out


def foreign_owner(
    form: str, cid: str, kind: str, owners: Mapping[str, tuple[str, str]]
) -> str | None:
    """The concept whose frequent name ``form`` is, apart from generic words, or None. The form
    itself may be the name of a concept of another kind ("tau" linked to a compound, PN401)."""
    own = owners.get(form)
    if own and own[0] != cid and own[1] and own[1] != kind:  # across kinds only: same-kind
        return own[0]  # IDs share forms for broader and narrower concepts
    words = form.split()
    for size in range(len(words) - 1, 0, -1):  # longest sub-phrase first
        for i in range(len(words) - size + 1):
            sub = " ".join(words[i : i + size])
            owner = owners.get(sub)
            if owner is None or owner[0] == cid:
                continue
            if owner[0].startswith("kind:") and owner[1] == kind:
                continue
            rest = words[:i] + words[i + size :]
            if all(w in GENERIC for w in rest) and any(w not in GENERIC for w in sub.split()):
                return owner[0]
    return None


def _verdict(mc: MixedConcept, ref: Reference | None) -> str:
    known = ref.known_forms(mc.concept_id) if ref else frozenset()
    own_n, other_n = mc.mentions
    if known:
        home = any(f in known for f, _ in mc.home)
        other = any(f in known for g in mc.foreign.values() for f, _ in g)
        if home and other:
            return "reference names forms of both groups: review"
        if home:
            return "reference name matches the own forms: foreign-headed forms are mislinked"
        if other:
            return "reference name matches a foreign-headed group: review the own forms"
    if other_n < own_n:
        return "no reference match; foreign-headed forms are the minority: likely mislinked"
    return "no reference match; foreign-headed forms are the majority: review"


def detect(
    rows: Iterable[tuple[str, str, str, int]], ref: Reference | None = None
) -> list[MixedConcept]:
    """Mixed IDs among mention rows ``(concept_id, kind, text, count)``, most foreign first."""
    forms: dict[str, Counter[str]] = defaultdict(Counter)
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    for cid, kind, text, n in rows:
        f = norm(text)
        if cid and kind and f:
            forms[cid][f] += n
            kinds[cid][kind] += n
    kind_of = {c: most_frequent(k) for c, k in kinds.items()}
    owners = owners_of(forms, kind_of)
    out = []
    for cid in sorted(forms):
        home: list[tuple[str, int]] = []
        foreign: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for f, n in sorted(forms[cid].items(), key=lambda kv: (-kv[1], kv[0])):
            owner = foreign_owner(f, cid, kind_of[cid], owners)
            (foreign[owner] if owner else home).append((f, n))
        mc = MixedConcept(cid, kind_of[cid], home, dict(foreign))
        own, other = mc.mentions
        if own >= MIN_GROUP_MENTIONS and other >= MIN_GROUP_MENTIONS:
            mc.verdict = _verdict(mc, ref)
            out.append(mc)
    return sorted(out, key=lambda m: (-m.mentions[1], m.concept_id))
