"""Rules 1–9 of the ingestion ID checks: a reviewed table and automatic rules that read the
form, its ID's reference names and the text around it (:mod:`kgbuild.resolve.mislinked` runs
them, then the vocabulary check of rule 10). Each rule is one the blind audits of the replayed
DALK build found stored as a wrong triple; each is measured on curated gold
(:mod:`kgbuild.evaluate.idchecks`).

1. **curated** — ``data/mislinked_forms.tsv`` lists (ID, normalized form) with action
   ``unlink``: reviewed lines, seeded from :mod:`kgbuild.resolve.mixed`'s candidates on DALK's
   corpus and from the precision audits. Nothing here is decided by a threshold;
2. **eponym** — a Gene mention that is a capitalized proper name directly followed by
   "'s disease" / "disease" / "syndrome" ("Pick disease", "Pick's diseases") is the name of a
   disease, not of a gene;
3. **family plural** — a Gene mention that is an acronym plural ("MMPs", "AMPARs") names a
   family, not the one gene it was linked to, unless the text or its singular is an official
   human gene symbol (Hetionet; "C1s" is the gene C1S, "APPs" is APP);
4. **Greek-letter isoform** (*relinks*) — a Gene mention written with a Greek letter whose
   spelled-out form is another human gene's official symbol of the same family ("GSK3beta" →
   GSK3B, "IL-1beta" → IL1B, "S100beta" → S100B) while the tagger linked another isoform
   (GSK3A, IL1A, S100A1): the mention takes the symbol's gene. In DALK's corpus this moved 285
   mentions (GSK3beta alone 108); since rule 5 relinks those whose long form the abstract
   defines, 142 are left to it. Only within the family (BioRED's "TGF-beta1"
   linked to LTBP1 is no isoform confusion), and not when the abstract defines the form as
   something the target is not called ("thyroid hormone beta receptor (TRbeta)" is no TRB);
5. **long form** (*relinks*) — a short form takes the ID of its long form defined in the same
   abstract ("dementia of the Alzheimer type (DAT)": Alzheimer Disease, not SLC6A3;
   :mod:`kgbuild.resolve.longforms`), unless one MeSH ID lies under the other (a broader ID
   for "giant cell tumor of bone (GCT)" is right);
6. **family stem** — a Gene mention that is not an official symbol but the stem of at least
   :data:`FAMILY_MIN` official symbols followed by a number ("CYP": CYP1A1, CYP2D6…) names the
   family; linked to a gene outside that family (CYP → PPIG, whose alias is "CYP"; ALS → SOD1)
   it loses the ID. A family member (Akt → AKT1) is the usual reading and stays, and so does
   a short form the abstract defines ("iron sulphur protein (IP)"): its definition is judged;
7. **class word** — a Gene mention made only of protein-class words ("growth factor",
   "caspases", "cytokine") names a class, not the one gene it was linked to;
8. **reference mismatch** — a multi-letter Disease mention that shares nothing with any name
   the reference tables or the vocabularies give its ID
   (:func:`kgbuild.lexical.names_something_else`): "axonal transport deficits" linked to
   Menkes Kinky Hair Syndrome. A form that only says something is wrong ("dysfunction",
   "deficits": Neurologic Manifestations) names no disorder unless the reference lists it; a
   bare lower-case head noun of its multi-word names ("fibrillation" for Ventricular
   Fibrillation) is no name of it; "X in Y" is judged by X;
9. **function, not its disorder** — a Disease mention whose head noun names a normal function
   (:data:`FUNCTIONS`: "glucose metabolism", "cognitive function", "visual memory") and
   which has no word for something wrong (:data:`_WRONG`) names the function: PubTator links
   "glucose metabolism" to Glucose Metabolism Disorders 99 times in DALK's corpus.

Which of them remove an ID and which only mark it suspect is
:data:`kgbuild.resolve.mislinked.WEAK_RULES`'s business (measured on gold).
"""

from __future__ import annotations

import csv
import re
from functools import cache

from kgbuild.errors import ConfigError
from kgbuild.lexical import names_something_else, only_says_something_is_wrong
from kgbuild.names import greek_symbol, norm
from kgbuild.records import Mention
from kgbuild.resolve.namematch import name_forms
from kgbuild.resolve.vocab import Reference
from kgbuild.resolve.vocabularies import names_of, synonyms_of
from kgbuild.schema import data_dir

MISLINKED_TSV = "mislinked_forms.tsv"
_EPONYM_NAME = re.compile(r"^[A-Z][a-z]{2,}$")
_EPONYM_NEXT = re.compile(r"^(?:['’]s)?\s+(?:disease|diseases|syndrome|syndromes)\b")
_FAMILY_PLURAL = re.compile(r"^(?=(?:[^A-Z]*[A-Z]){2})[A-Z][A-Za-z0-9-]*[A-Z0-9]s$")
#: Official symbols a stem must start (followed by a number) to name a family.
FAMILY_MIN = 3
#: Words that name a class of proteins, not one protein.
CLASS_WORDS = frozenset({
    "growth", "factor", "factors", "cytokine", "cytokines", "chemokine", "chemokines", "kinase",
    "kinases", "caspase", "caspases", "protease", "proteases", "enzyme", "enzymes", "receptor",
    "receptors", "protein", "proteins", "tyrosine", "neurotrophin", "neurotrophins",
    "phosphatase", "phosphatases", "secretase", "secretases",
})  # fmt: skip
_DISEASE_KINDS = frozenset({"Disease", "Symptom"})
#: A mention written like an abbreviation (unless all lower case: "fits" is a word).
_SHORT = re.compile(r"[A-Za-z0-9-]{1,6}")
#: Head nouns that name a normal function or process, not a disorder of it. Not "behavior",
#: "growth" or "proliferation": curated CDR forms use them for disorders ("aggressive behavior",
#: "mesangial proliferation", "tumor growth").
FUNCTIONS = frozenset({
    "metabolism", "homeostasis", "function", "functions", "functioning", "plasticity",
    "signaling", "signalling", "transmission", "transport", "secretion", "clearance",
    "cognition", "memory", "learning", "neurogenesis", "synaptogenesis", "angiogenesis",
    "differentiation", "survival", "development", "uptake", "perfusion", "circulation",
    "performance", "motility", "recall", "recognition", "attention", "ability", "abilities",
    "fitness",
})  # fmt: skip
#: Word parts that say something is wrong ("impaired", "dysfunction", "hypometabolism").
_WRONG = re.compile(
    r"dis|dys|impair|deficit|defect|loss|abnormal|anomal|declin|failure|damage|injur|deficien|"
    r"hypo|hyper|alter|reduc|decreas|increas|lower|poor|deterior|disturb|deregul|insufficien|"
    r"depriv|problem|complain|toxic|syndrome|death|lesion|atroph|patholog|epilep|seizure|"
    r"sickness|apoptosis|retention|depress|detriment|tumou?r|cancer|neoplas|inappropriat|"
    r"suppress|excess|exaggerat|aberrant|dysregul"
)


@cache
def mislinked_table() -> dict[tuple[str, str], tuple[str, str]]:
    """(concept ID, normalized form) → (action, reason) of the reviewed table."""
    path = data_dir() / MISLINKED_TSV
    if not path.exists():
        return {}
    with open(path, encoding="utf-8", newline="") as fh:
        lines = (ln for ln in fh if not ln.startswith("#"))
        rows = list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))
    bad = [r.get("form") for r in rows if r.get("action") not in ("unlink", "keep")]
    if bad:
        raise ConfigError("mislinked form rows need action unlink or keep", path=path,
                          rows=bad[:5])  # fmt: skip
    return {(r["concept_id"], r["form"]): (r["action"], r["reason"]) for r in rows}


def banned_forms() -> dict[str, frozenset[str]]:
    """Normalized form → IDs it was taken away from (resolution must not give them back)."""
    out: dict[str, set[str]] = {}
    for (cid, form), (action, _) in mislinked_table().items():
        if action == "unlink":
            out.setdefault(form, set()).add(cid)
    return {k: frozenset(v) for k, v in out.items()}


def _symbol_key(text: str) -> str:
    return greek_symbol(text) or re.sub(r"[^A-Za-z0-9]", "", text).upper()


def family_stem(text: str, ref: Reference) -> bool:
    """Whether ``text`` is not a human gene symbol but the stem (before a number) of at least
    :data:`FAMILY_MIN` of them."""
    key = _symbol_key(text)
    if not key or key[-1].isdigit() or ref.is_gene_symbol(key):
        return False
    return ref.family_size(key) >= FAMILY_MIN


def relink_target(m: Mention, ref: Reference) -> str | None:
    """The human gene whose official symbol the mention spells with a Greek letter, when the
    tagger linked another human gene (rule 4), else None."""
    if m.hetionet_type != "Gene" or not m.concept_id or not ref.name(m.concept_id):
        return None
    symbol, linked = greek_symbol(m.text), ref.name(m.concept_id).upper()
    if not symbol or symbol == linked:
        return None
    stem = re.sub(r"[A-Z]\d*$", "", symbol)  # GSK3B → GSK3: the isoform's family
    if not stem or not re.fullmatch(re.escape(stem) + r"[A-Z]\d*", linked):
        return None  # TGF-beta1 linked to LTBP1 is no alpha/beta confusion
    target = ref.gene_of_symbol(symbol)
    return target if target and target != m.concept_id else None


def vocabulary_forms(cid: str, ref: Reference) -> frozenset[str]:
    """The ID's names and synonyms in the installed vocabularies, normalized: rule 8 judges a
    form against them as well as against the reference tables."""
    found = names_of(cid, ref)
    names = (*(found[1] if found else ()), *synonyms_of(cid))
    return frozenset(f for n in names for f in name_forms(n))


def _bare_head(text: str, form: str, known: frozenset[str]) -> bool:
    """A single lower-case word that is no name of the ID but the last word of its multi-word
    names ("fibrillation" of Abeta tagged Ventricular Fibrillation 180 times in DALK's corpus,
    "arrest" of the cell cycle tagged Cardiac Arrest): the modifier that made it that disease
    is missing."""
    if " " in form or not text.islower() or len(form) < 4:
        return False
    singular = form[:-1] if form.endswith("s") else form
    if form in known or singular in known:
        return False
    heads = {k.rsplit(" ", 1)[-1] for k in known if " " in k}
    return form in heads or singular in heads


def why_mislinked(m: Mention, text: str, ref: Reference, defined: bool = False) -> str | None:
    """Why mention ``m`` of document text ``text`` should lose its ID, or None. ``defined``:
    the abstract defines the form as a short form (its long form is judged instead: rule 6
    leaves it to the vocabulary check)."""
    if not m.concept_id:
        return None
    form = norm(m.text)
    row = mislinked_table().get((m.concept_id, form))
    if row:
        return f"reviewed: {row[1]} (data/{MISLINKED_TSV})" if row[0] == "unlink" else None
    if m.hetionet_type in _DISEASE_KINDS:
        words = form.split()
        if words and words[-1] in FUNCTIONS and not _WRONG.search(form):
            return "names a normal function, not a disorder of it"
        known = ref.known_forms(m.concept_id) | vocabulary_forms(m.concept_id, ref)
        if form not in known and only_says_something_is_wrong(form):
            return "says only that something is wrong, not what"
        written_short = bool(_SHORT.fullmatch(m.text)) and not m.text.islower()
        if known and names_something_else(form, known, abbreviation=written_short):
            return "shares no word with any reference name of the ID"
        if known and _bare_head(m.text, form, known):
            return "only the head noun of the ID's names (e.g. 'fibrillation' of 'ventricular …')"
        head, located, _ = form.partition(" in ")
        if located and known and names_something_else(head, known, abbreviation=False):
            return f"names {head!r} (in …), which shares no word with the ID's reference names"
        return None
    if m.hetionet_type != "Gene":
        return None
    symbol = ref.name(m.concept_id)
    if symbol and not defined and family_stem(m.text, ref):
        key = _symbol_key(m.text)
        if not (symbol.upper().startswith(key) and symbol[len(key) : len(key) + 1].isdigit()):
            return f"family stem ({key}…) linked to {symbol}, not a member"
    words = form.split()
    if words and all(w in CLASS_WORDS for w in words):
        return "names a class of proteins, not one gene"
    if _EPONYM_NAME.match(m.text) and _EPONYM_NEXT.match(text[m.end : m.end + 16]):
        return "part of an eponymous disease name (e.g. Pick's disease), not a gene"
    if _FAMILY_PLURAL.match(m.text) and not (
        ref.is_gene_symbol(m.text) or ref.is_gene_symbol(m.text[:-1])
    ):
        return "plural family name (e.g. MMPs) linked to one gene"
    return None
