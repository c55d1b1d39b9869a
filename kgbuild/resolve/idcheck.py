"""Does a surface form name its annotator ID's concept? Checked against the ID's own names.

Why: a blind judge found IDs a tagger gave to forms they do not name — "toxicity"
as Drug-Related Side Effects and Adverse Reactions, "alphaB crystallin" as Crystal
Arthropathies, "neuroinflammation" as Neurogenic Inflammation, "CTF" (C-terminal fragment) as
the gene NFIA. Every such ID became a false claim. The check compares the form with the names
the ID's vocabulary gives it (:func:`kgbuild.resolve.vocabularies.names_of`); a form matches
(:mod:`kgbuild.resolve.namematch`) when, normalized (:func:`kgbuild.names.norm`: case, Greek
letters, possessives — "Alzheimer's disease" is "alzheimer disease"), it

1. **equals** a name: also with words in any order and plurals undone ("amyloid plaques" is
   MeSH's inverted "Plaque, Amyloid"), spaces dropped ("IL-6" is IL6), Greek letters as symbol
   letters ("GSK3beta" is GSK3B);
2. **shares content words** with a preferred name, by a light suffix stemmer (:func:`stem`:
   "cognitive" / "cognition", "neurodegeneration" / "Neurodegenerative", "plaques" / "Plaque")
   — not by containment: "crystallin" is no "Crystal", "neuroinflammation" no "Inflammation".
   Words that say only *that* something is wrong or *what kind* of molecule ("disease",
   "dysfunction", "protein", "receptor", "beta": :data:`GENERIC`) do not count. A name of one
   or two content words needs one shared, a longer MeSH name at least half of them
   (:func:`shares_enough`): a modifier alone is no concept — "coli-infected" is no
   "Adenomatous Polyposis Coli", "neurofibrillary degeneration" no "Diffuse Neurofibrillary
   Tangles with Calcification";
3. is an **abbreviation** of one, or one is of it: Schwartz & Hearst (2003) character matching,
   right to left, the first character at the start of the name ("AD" in "Alzheimer Disease",
   "Abeta" in "amyloid beta precursor protein", "amyloid precursor protein" for "APP").

MeSH entry terms, Mondo's and the Disease Ontology's synonyms and reviewed gene product names
(:func:`kgbuild.resolve.vocabularies.synonyms_of`: "L-Deprenyl" for Selegiline, "5-HT" for
Serotonin, "nephropathy" for Kidney Diseases, "Abeta" for APP) count for rules 1 and 3 only:
they are many and loose ("Senile Dementia" under Alzheimer Disease), so one shared word with
them proves nothing. A chemical symbol or formula is read as words first ("K" potassium,
"CO2" carbon dioxide: :mod:`kgbuild.resolve.chemforms`) and must then equal a name.

When the abstract defines the form as a short form ("C-terminal fragment (CTF)"), its long form
is judged instead: the writer said what it means.

**No match is weak evidence; only strong evidence removes an ID.** Measured on
BioCreative V CDR train+dev, where experts linked every mention, "no name matches" removed
13.8% of the curated IDs, 2,604 of 18,841 (FK506 → Tacrolimus, nephropathy → Kidney Diseases,
parkinsonian → Parkinson Disease): vocabularies leave out much of what writers say. So an ID
no name confirms is **suspect** — it stays on the mention, queryable (``Mention.id_check``
"<vocabulary>:suspect"), but its form does not spread as an alias (:func:`spreads`) — and is
**dropped** only when (:data:`WHY`, :func:`_strong`):

- the ID is malformed;
- the abstract defines the form as a long form that names nothing the ID is called, and no
  other mention of the abstract links the ID under another form ("CTF" defined as C-terminal
  fragment, linked to NFIA; "GOF", goodness of fit, to Seizures) — on curated gold every
  such definition had its long form (or another form) linked to the same ID as well;
- the form is word for word the name of a concept of an incompatible kind
  (:mod:`kgbuild.resolve.otherkind`: "alphaB-crystallin" linked to Crystal Arthropathies);
- the ID is a drug reaction (MeSH C25.100 and below: "toxicity" as Drug-Related Side Effects
  and Adverse Reactions) and the abstract names no chemical at all: Abeta's toxicity is no
  drug's. CDR's curators link "toxicity" so 155 times, each time in an abstract that names a
  chemical;
- the ID is a drug reaction and the form itself names a gene product as the toxic agent
  ("Abeta toxicity", "cytotoxicity of Abeta", "tau toxicity" — by a reviewed product or HGNC
  full name, or a form the abstract's gene mentions have): the toxicity is a protein's, however
  many drugs the abstract names (51 such mentions on DALK's corpus). No curated BC5CDR or
  BioRED drug-reaction form names a gene (``kgbuild eval judgments``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from kgbuild.names import norm
from kgbuild.resolve import chemforms
from kgbuild.resolve.namematch import _keys, _singular, abbreviates, match, name_forms
from kgbuild.resolve.namematch import stem as stem  # re-exported: the matching rules' stemmer
from kgbuild.resolve.orthologs import gene_by_name, human_genes
from kgbuild.resolve.otherkind import names_other_kind
from kgbuild.resolve.vocab import Reference
from kgbuild.resolve.vocabularies import (
    chemical_supplementary,
    installed,
    malformed,
    mesh_trees,
    names_of,
    synonyms_of,
    vocabulary_of,
)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The check of one (form, ID): ``verdict`` kept | suspect | dropped | uncheckable;
    ``how`` the matching rule (exact, word, abbreviation, formula, override) or, for a suspect
    or dropped ID, the key of :data:`WHY`; ``name`` the ID's first name; ``judged`` the form
    actually compared (the long form when the abstract defines it)."""

    vocabulary: str
    verdict: str
    how: str = ""
    name: str = ""
    judged: str = ""

    @property
    def label(self) -> str:
        """``Mention.id_check``: "<vocabulary>:<verdict>"."""
        return f"{self.vocabulary}:{self.verdict}"


#: Words a long form does not start with (a clause the detector took for a definition:
#: "and lumbar puncture CSF beta-amyloid1-42 (Abeta)").
_NOT_FIRST = frozenset({"and", "or", "of", "the", "in", "on", "with", "by", "to", "for", "from",
                        "at", "as", "a", "an", "that", "which", "than", "but"})  # fmt: skip


def _credible(short: str, long: str) -> bool:
    """A definition worth judging instead of the form: the short form abbreviates it, it has
    at most |short| + 2 words and starts with no function word. The detector sometimes returns
    a clause ("according to the results of their florbetapir F 18 (Abeta+)"): then the form
    itself is judged."""
    flat = short.replace(" ", "")
    if flat in long.replace(" ", ""):  # "abeta1 42 and prepared without hfip": not a definition
        return False
    if long.split()[0] in _NOT_FIRST:
        return False
    return len(long.split()) <= len(flat) + 2 and abbreviates(flat, long)


@dataclass(frozen=True, slots=True)
class Context:
    """What the abstract says around a form, for the strong rules of :func:`check_form`:
    ``long_forms`` (normalized short form → long form it defines), ``other_forms`` (ID → the
    normalized forms the abstract's mentions link to it) and ``has_chemical`` (whether any
    mention is a chemical) and ``gene_forms`` (the normalized forms of its gene mentions)."""

    long_forms: Mapping[str, str] = field(default_factory=dict)
    other_forms: Mapping[str, frozenset[str]] = field(default_factory=dict)
    has_chemical: bool = True
    gene_forms: frozenset[str] = frozenset()


#: Why an unconfirmed ID is removed (strong evidence) or only marked suspect (weak), by
#: :attr:`Outcome.how`.
WHY = {
    "malformed": "the ID breaks its prefix's pattern",
    "long_form": "the abstract defines the form as a long form that names nothing the ID is "
                 "called, and links the ID to no other form",
    "other_kind": "the form is the name of a concept of another kind",
    "no_drug": "a drug reaction in an abstract that names no chemical",
    "gene_agent": "a drug reaction whose form names a gene product as the toxic agent",
    "no_match": "no name of the ID matches the form",
}  # fmt: skip
#: MeSH's Drug-Related Side Effects and Adverse Reactions (C25.100) and all under it: a drug's
#: effect needs a drug.
DRUG_REACTION_TREE = "C25.100"


def _strong(form: str, cid: str, key: str, judged: str, context: Context) -> str | None:
    """The strong evidence against an ID no name confirms (rules of :data:`WHY`), or None."""
    if judged != key and not (context.other_forms.get(cid, frozenset()) - {key}):
        return "long_form"
    if names_other_kind(form, cid) or (judged != key and names_other_kind(form, cid, judged)):
        return "other_kind"
    if any(t == DRUG_REACTION_TREE or t.startswith(DRUG_REACTION_TREE + ".")
           for t in mesh_trees(cid)):  # fmt: skip
        if not context.has_chemical:
            return "no_drug"
        if names_gene_agent(form, context.gene_forms):
            return "gene_agent"
    return None


#: Words of a drug-reaction form that say what happened, not to what ("toxicity", "induced").
_REACTION_WORD = re.compile(r"(?i)toxic|induc|^(of|by|the|and|in|increases?|decreased?)$")
#: The longest agent phrase looked up (words).
_AGENT_WORDS = 4


def names_gene_agent(form: str, gene_forms: frozenset[str] = frozenset()) -> bool:
    """Whether a drug-reaction form names a gene product as its agent: some run of its words
    outside the reaction words ("Abeta" in "Abeta toxicity", "amyloid beta" in "amyloid beta
    neurotoxicity") is a reviewed product name or an HGNC full name of one human gene, or a
    form the abstract's gene mentions have (``gene_forms``, normalized: "AbetaO")."""
    words = form.replace("(", " ").replace(")", " ").split()
    runs: list[list[str]] = [[]]
    for w in words:  # the phrases between reaction words
        if _REACTION_WORD.search(w):
            runs.append([])
        else:
            runs[-1].append(w)
    hg = human_genes()
    for run in runs:
        for i in range(len(run)):
            for j in range(i + 1, min(len(run), i + _AGENT_WORDS) + 1):
                phrase = " ".join(run[i:j])
                if norm(phrase) in gene_forms or gene_by_name(phrase, hg):
                    return True
    return False


def _without(names: tuple[str, ...], short: str) -> tuple[str, ...]:
    """The names other than the short form itself (normalized, spaces aside). The ID's first
    name (an approved symbol: "MEN1", "LIF"; a MeSH heading) stays: a long form the symbol
    abbreviates ("leukemia inhibitory factor (LIF)") is the gene's older name."""
    flat = short.replace(" ", "")
    return tuple(n for n in names if norm(n).replace(" ", "") != flat)


def _reading(form: str, names: tuple[str, ...], synonyms: tuple[str, ...]) -> bool:
    """Whether a chemical symbol or formula, read as words (:func:`chemforms.readings`),
    equals one of the names (exactly: a reading is no evidence of a word in common)."""
    readings = chemforms.readings(form)
    if not readings:
        return False
    named = {k for n in (*names, *synonyms) for f in name_forms(n) for k in _keys(f)}
    return any(_keys(r) & named for r in readings)


def check_form(
    form: str,
    cid: str,
    long_forms: Mapping[str, str] | None = None,
    context: Context | None = None,
    ref: Reference | None = None,
) -> Outcome:
    """Whether surface ``form`` (as written) names ``cid``: kept (a name matches), dropped (no
    name matches and strong evidence says the ID is wrong: :func:`_strong`), suspect (no name
    matches, nothing more), or uncheckable. ``long_forms`` maps the abstract's normalized short
    forms to their long forms (:func:`kgbuild.extract.ground.abbreviations`); ``context``: the
    rest of what the abstract says (default: nothing known against the ID); ``ref``: the
    reference tables (default the shipped ones)."""
    vocabulary = vocabulary_of(cid)
    if malformed(cid):
        return Outcome(vocabulary, "dropped", "malformed")
    if not installed().get(vocabulary, True):  # not checked, not the ID's fault
        return Outcome("none", "uncheckable", f"{vocabulary} not installed")
    found = names_of(cid, ref)
    if found is None:
        return Outcome(vocabulary, "uncheckable")
    names = found[1]
    context = context or Context(long_forms=long_forms or {})
    long_forms = long_forms if long_forms is not None else context.long_forms
    key = norm(form)
    # defined in the plural ("amyloid-related imaging abnormalities (ARIAs)") or the singular
    long = long_forms.get(key) or long_forms.get(_singular(key)) or long_forms.get(f"{key}s")
    judged = long if long and long != key and _credible(key, long) else key
    strict = vocabulary == "mesh"
    synonyms = synonyms_of(cid)
    if judged != key:  # the short form is an alias ("DAT" of SLC6A3): the long form must name it
        names, synonyms = names[:1] + _without(names[1:], key), _without(synonyms, key)
    how = match(judged, names, synonyms, strict) if judged else None
    if not how and judged == key and _reading(form, names, synonyms):
        how = "formula"
    if how:
        return Outcome(vocabulary, "kept", how, names[0], judged)
    if chemical_supplementary(cid):  # its code names ("PiB") are missing from the table
        return Outcome(vocabulary, "uncheckable", "chemical code name?", names[0], judged)
    strong = _strong(form, cid, key, judged, context)
    if strong:
        return Outcome(vocabulary, "dropped", strong, names[0], judged)
    return Outcome(vocabulary, "suspect", "no_match", names[0], judged)


def spreads(id_check: str) -> bool:
    """Whether a form linked to an ID may become an alias of it (resolution maps other
    documents' and the LLM's names through aliases): only forms whose check passed. An
    uncheckable form ("synaptic dysfunction" → MESH:C536122, a supplementary concept no
    installed vocabulary names) and a suspect one ("toxicity" → Drug-Related Side Effects and
    Adverse Reactions: no name matches, nothing strong against it) stay on their own mention
    — a curator may well have linked it so — but do not spread: an alias maps every other
    document's and the LLM's use of the form to the ID, without the context that made the link
    right here, so only a confirmed form may carry it. A mention that was never checked (no
    vocabulary installed, or a snapshot built before the check: "") does spread."""
    return not id_check or id_check.endswith(":kept") or id_check.startswith("none:")
