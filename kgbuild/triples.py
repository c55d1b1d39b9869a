"""A claim's identity and orientation, shared by extraction and resolution.

:func:`triple_key` is the identity of a (head, relation, tail) claim whatever method found it;
:func:`orient` puts Hetionet relations the way DALK Table 11 / ``data/type_pair_relations.tsv``
says (symmetric → sorted IDs, oriented → the metaedge's source kind first, directed → as
stated); :func:`negation_cue` finds the word that makes a predicate deny a relation.
"""

from __future__ import annotations

import re

from kgbuild.records import stable_id
from kgbuild.schema import hetionet_relations, relations_for

#: Words that make a predicate assert that there is no relation ("does not bind", "lacks",
#: "independent of", "unaffected by"). "non" alone is not one: "non-competitive inhibitor".
_NEGATION_CUES = frozenset(
    {"not", "no", "never", "without", "cannot", "neither", "nor", "lack", "lacks", "lacking",
     "lacked", "absent", "unaffected", "unchanged", "independent", "unrelated", "fail", "fails",
     "failed", "none", "nothing"}
)  # fmt: skip
_NEGATED_PREFIX = re.compile(r"\bnon[\s_-]?(toxic|associated|related|binding|responsive)\b")


def triple_key(head: str, relation: str, tail: str) -> str:
    """The identity of a claim; the same (head, relation, tail) from any method is one triple."""
    return stable_id(head, relation, tail)


#: Relations whose direction is the claim: "Abeta upregulates glutamate" written the other way
#: round is another claim. Hetionet's CuG/CdG/DuG/DdG are oriented by kind; a claim that runs
#: against its metaedge does not get it (and is not swapped into it).
CAUSAL = frozenset({"upregulates", "downregulates", "regulates"})


def orient(
    head_id: str, head_kind: str | None, relation: str, tail_id: str, tail_kind: str | None
) -> tuple[str | None, bool]:
    """(metaedge, swap?) of a claim by DALK Table 11: symmetric relations put the smaller ID
    first, oriented ones the metaedge's source kind; directed ones stay as stated. A causal
    relation stated against its metaedge's kinds ("APP upregulates AD") is left as stated,
    without a metaedge: swapping it would reverse the claim."""
    if relation not in hetionet_relations() or not head_kind or not tail_kind:
        return None, False
    option = next((o for o in relations_for(head_kind, tail_kind) if o.relation == relation), None)
    if option is None:
        return None, False
    if option.direction == "symmetric":
        return option.metaedge, tail_id < head_id
    if option.direction == "oriented":
        swap = head_kind != option.head_kind
        if swap and relation in CAUSAL:
            return None, False
        return option.metaedge, swap
    return option.metaedge, False


def normalize_relation(raw: str) -> str:
    return " ".join(re.sub(r"[^\w\s\-/']", " ", raw.lower()).split())


def negation_cue(raw: str) -> str | None:
    """The word that makes ``raw`` a negated predicate ("does not bind" → "not"), else None."""
    text = raw.lower().replace("n't", " not").replace("_", " ")
    m = _NEGATED_PREFIX.search(text)
    if m:
        return m.group(0)
    return next((w for w in re.findall(r"[a-z]+", text) if w in _NEGATION_CUES), None)
