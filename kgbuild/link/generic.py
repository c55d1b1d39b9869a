"""Common English words that a vocabulary also uses as a concept's name, kept apart on questions.

Why: MeSH files "toxicity" under Drug-Related Side Effects and Adverse Reactions and "risk"
under Risk, so "which cell lines are used to study amyloid beta toxicity" linked a drug-safety
concept and retrieval followed its edges. In a question these words qualify another entity
("Abeta toxicity", "the role of", "APOE risk"); they name a concept on their own only when the
corpus's annotator itself tagged the word as that concept often (a trusted mention key with
:data:`GENERIC_MIN_MENTIONS` or more). The list is data: each group says why its words are
generic. A multi-word key ("oxidative stress", "cell death") is never affected.
"""

from __future__ import annotations

#: Least mention weight of a generic word for it to keep its dictionary link.
GENERIC_MIN_MENTIONS = 50.0

_GROUPS = {
    # what happens to something: the thing it happens to is the entity
    "outcome": "toxicity effect response damage injury loss change impairment decline death "
    "progression improvement reduction increase decrease accumulation deposition aggregation "
    "dysfunction deficit deficiency failure severity onset",
    # how a study speaks of a relation, not a concept
    "relation": "role level risk function activity expression regulation mechanism pathway "
    "factor marker biomarker target model study effect association interaction signaling "
    "signalling process",
    # kinds of intervention named without what is given
    "intervention": "therapy intervention agent compound medication exposure administration "
    "supplementation",
    # tools of a study named by their kind, not by which one ("PET tracers", "fluorescent
    # probes"): the tagger's rare "tracer" is a trade name (Tracer: spinosad, MeSH C415329)
    "tool": "tracer radiotracer probe ligand reagent dye stain label",
    # when and in what order, not what ("in what order do AD biomarkers become abnormal")
    "time": "order sequence timing time course stage",
    # how often or how much, not what ("the most frequent side effects of tideglusib")
    "degree": "frequent common main major typical usual prominent principal",
}
#: Normalized one-word keys (singular, lower case: :func:`kgbuild.search.text.key`).
GENERIC_WORDS = frozenset(w for words in _GROUPS.values() for w in words.split())


def generic_blocked(key: str, source: str, weight: float) -> bool:
    """Whether a one-word dictionary key is a generic word the annotator did not itself tag
    often enough to name its node."""
    return key in GENERIC_WORDS and not (source == "mention" and weight >= GENERIC_MIN_MENTIONS)
