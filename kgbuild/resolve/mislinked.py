"""Annotator IDs checked against their own surface forms, at ingestion.

Grounding trusts the document's annotations: a claim about "Pick" in "Pick's disease" that
PubTator tagged as the gene PICK1 becomes a claim about PICK1. This module takes an ID away
from a mention — the mention keeps its text, span and kind, loses ``concept_id``, and a
``problems`` row (kind ``mislinked_id``) says what was removed and why — when:

1. **curated** — ``data/mislinked_forms.tsv`` lists (ID, normalized form) with action
   ``unlink``: reviewed lines, seeded from :mod:`kgbuild.resolve.mixed`'s candidates on DALK's
   corpus and from the precision audit (issue 16). Nothing here is decided by a threshold;
2. **eponym** (automatic) — a Gene mention that is a capitalized proper name directly followed
   by "'s disease" / "disease" / "syndrome" ("Pick disease", "Pick's diseases") is the name of
   a disease, not of a gene;
3. **family plural** (automatic) — a Gene mention that is an acronym plural ("MMPs", "AMPARs")
   names a family, not the one gene it was linked to, unless the text or its singular is an
   official human gene symbol (Hetionet; "C1s" is the gene C1S, "APPs" is APP);
4. **Greek-letter isoform** (automatic, *relinks*) — a Gene mention written with a Greek letter
   whose spelled-out form is another human gene's official symbol ("GSK3beta" → GSK3B,
   "IL-1beta" → IL1B, "S100beta" → S100B) while the tagger linked the alpha isoform (GSK3A,
   IL1A, S100A1): the mention takes the symbol's gene. In DALK's corpus this moved 285 mentions
   (GSK3beta alone 108; every one checked was the tagger's alpha/beta confusion); since rule 5
   relinks those whose long form the abstract defines, 142 are left to it;
5. **long form** (automatic, *relinks*) — a short form takes the ID of its long form defined in
   the same abstract ("dementia of the Alzheimer type (DAT)": Alzheimer Disease, not SLC6A3;
   :mod:`kgbuild.resolve.longforms`);
6. **family stem** (automatic) — a Gene mention that is not an official symbol but the stem of
   at least :data:`FAMILY_MIN` official symbols followed by a number ("CYP": CYP1A1, CYP2D6…)
   names the family; linked to a gene outside that family (CYP → PPIG, whose alias is "CYP";
   ALS → SOD1) it loses the ID. A family member (Akt → AKT1) is the usual reading and stays;
7. **class word** (automatic) — a Gene mention made only of protein-class words ("growth
   factor", "caspases", "cytokine") names a class, not the one gene it was linked to;
8. **reference mismatch** (automatic) — a multi-letter Disease mention that shares nothing with
   any name the reference tables give its ID (:func:`kgbuild.lexical.names_something_else`):
   "axonal transport deficits" linked to Menkes Kinky Hair Syndrome, "vascular disease" to
   aneurysm, "a dysexecutive-predominant syndrome" to Hodgkin disease. Synonyms that share no
   word with the curated forms ("senile dementia", "angiitis") lose their ID too: the price is
   a lower ID share, never a false claim. IDs without a reference name are not judged; a short
   word written in lower case is judged as a word, one written like an abbreviation is not. A form
   that only says something is wrong ("dysfunction", "deficits", "disease": Neurologic
   Manifestations, Communicable Diseases) names no disorder and loses the ID unless the
   reference lists it; a bare lower-case head noun of its multi-word names ("fibrillation"
   for Ventricular Fibrillation) loses it; and "X in Y" is judged by X ("cortical
   microinfarcts in neurodegenerative diseases" is no neurodegenerative disease);
9. **function, not its disorder** (automatic) — a Disease mention whose head noun names a
   normal function (:data:`FUNCTIONS`: "glucose metabolism", "cognitive function", "visual
   memory") and which has no word for something wrong (:data:`_WRONG`) names the function:
   PubTator links "glucose metabolism" to Glucose Metabolism Disorders (MESH:D044882) 99 times
   in DALK's corpus, so "IAPP regulates glucose metabolism" became a claim about a disorder.

10. **vocabulary check** (issue 24, automatic) — every mention still linked after rules 1–9 is
    checked against its ID's own names in real vocabularies (MeSH descriptors, HGNC;
    :mod:`kgbuild.resolve.idcheck`), its verdict left in ``Mention.id_check``; a form that
    matches none of them ("toxicity" as Drug-Related Side Effects and Adverse Reactions, "CTF"
    defined as C-terminal fragment as NFIA) loses the ID (``annotator_id`` keeps it; problem
    kind ``vocabulary_mismatch``). Rules 1–9 stay: they catch links the names do not
    ("glucose metabolism" shares "glucose" with Glucose Metabolism Disorders; a family stem
    or an eponym can be a gene alias), and rules 4–5 relink instead of dropping.

A reviewed ``keep`` line of the table beats every automatic rule and the vocabulary check: a
person read those forms.

Removing an ID lowers the share of endpoints with an ID by construction; `kgbuild quality`
counts these removals so that the fall is not mistaken for a regression.
"""

from __future__ import annotations

import csv
import re
from ast import literal_eval
from collections.abc import Callable
from dataclasses import replace
from functools import cache

from kgbuild.errors import ConfigError
from kgbuild.extract.ground import abbreviations
from kgbuild.lexical import names_something_else, only_says_something_is_wrong
from kgbuild.names import greek_symbol, norm
from kgbuild.records import Mention, Problem
from kgbuild.resolve.idcheck import Outcome, check_form
from kgbuild.resolve.longforms import long_form_links
from kgbuild.resolve.orthologs import GeneForms, relink_slice
from kgbuild.resolve.vocab import Reference, reference
from kgbuild.resolve.vocabularies import vocabulary_of
from kgbuild.schema import data_dir
from kgbuild.sources.corpus import CURATED
from kgbuild.sources.local import YearSlice

MISLINKED_TSV = "mislinked_forms.tsv"
PROBLEM_KIND = "mislinked_id"
RELINK_KIND = "relinked_id"
VOCABULARY_KIND = "vocabulary_mismatch"
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
    r"sickness|apoptosis|retention|depress|detriment|tumou?r|cancer|neoplas"
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
    symbol = greek_symbol(m.text)
    if not symbol or symbol == ref.name(m.concept_id).upper():
        return None
    target = ref.gene_of_symbol(symbol)
    return target if target and target != m.concept_id else None


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


def why_mislinked(m: Mention, text: str, ref: Reference) -> str | None:
    """Why mention ``m`` of document text ``text`` should lose its ID, or None."""
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
        known = ref.known_forms(m.concept_id)
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
    if symbol and family_stem(m.text, ref):
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


def _detail(m: Mention, outcome: str) -> str:
    """A problem row's detail: "<start>-<end> '<text>': <ID> <outcome>" (read back by
    :func:`unlinked_form`)."""
    return f"{m.start}-{m.end} {m.text!r}: {m.concept_id} {outcome}"


_UNLINKED = re.compile(r"^\d+-\d+ ('.*'|\".*\"): (\S+) removed \(")


def unlinked_form(detail: str) -> tuple[str, str] | None:
    """(normalized form, ID) of a ``mislinked_id`` problem's detail, or None."""
    m = _UNLINKED.match(detail)
    return (norm(literal_eval(m.group(1))), m.group(2)) if m else None


def _short_forms_defined(ms: list[Mention], text: str) -> bool:
    """Whether some linked mention of a document is written in parentheses as a short form
    ("(CTF)"): only then are the abstract's definitions looked up (scispaCy's detector)."""
    return any(m.concept_id and _SHORT.fullmatch(m.text) and f"({m.text}" in text for m in ms)


def document_long_forms(
    ms: list[Mention],
    text: str,
    definitions: Callable[[str], dict[str, str]] = abbreviations,
) -> dict[str, str]:
    """Normalized short form → long form the abstract defines (Schwartz & Hearst), for the
    vocabulary check: {} when no linked mention is a parenthesized short form."""
    return definitions(text) if text and _short_forms_defined(ms, text) else {}


def vocabulary_check(m: Mention, long_forms: dict[str, str]) -> Outcome | None:
    """The vocabulary check of a linked mention (:func:`kgbuild.resolve.idcheck.check_form`);
    a reviewed ``keep`` line of :data:`MISLINKED_TSV` beats it (an override)."""
    if not m.concept_id or m.annotator == CURATED:  # a curator's link is not second-guessed
        return None
    row = mislinked_table().get((m.concept_id, norm(m.text)))
    if row and row[0] == "keep":
        return Outcome(vocabulary_of(m.concept_id), "kept", "override", judged=norm(m.text))
    return check_form(m.text, m.concept_id, long_forms)


def unlink_slice(
    ys: YearSlice, ref: Reference | None = None, gene_forms: GeneForms | None = None
) -> YearSlice:
    """The slice with mislinked mentions' IDs removed or relinked, every linked mention's
    vocabulary check in ``id_check``, and one problem row per changed mention. ``gene_forms``:
    the build state's tally of non-human gene IDs' forms, for the ortholog vote."""
    ys = relink_slice(ys, gene_forms)  # non-human gene IDs → human ortholog (resolve.orthologs)
    ref = ref or reference()
    texts = {d.pmid: d.text for d in ys.documents}
    files = {s.pmid: s.source_file for s in ys.statuses}
    by_doc: dict[str, list[Mention]] = {}
    for m in ys.mentions:
        by_doc.setdefault(m.pmid, []).append(m)
    longs = {p: long_form_links(ms, texts.get(p, ""), ref) for p, ms in by_doc.items()}
    defined = {p: document_long_forms(ms, texts.get(p, "")) for p, ms in by_doc.items()}
    mentions, problems = [], []
    for m in ys.mentions:
        problem = None
        long = longs[m.pmid].get((norm(m.text), m.concept_id or ""))
        target = None if long is not None else relink_target(m, ref)
        why = None if long is not None or target else why_mislinked(m, texts.get(m.pmid, ""), ref)
        out = m
        if long is not None:
            cid = long.concept_id
            kinds = {"source_type": long.source_type, "hetionet_type": long.hetionet_type}
            out = replace(
                m,
                concept_id=cid,
                concept_ids=[cid],
                annotator_id=m.annotator_id or m.concept_id,
                **kinds,
            )
            problem = RELINK_KIND, f"relinked to {cid} (its long form here is {long.text!r})"
        elif target:
            out = replace(
                m,
                concept_id=target,
                concept_ids=[target],
                annotator_id=m.annotator_id or m.concept_id,
            )
            greek = f"the text is {ref.name(target)}'s symbol with a Greek letter"
            problem = RELINK_KIND, f"relinked to {target} ({greek})"
        elif why:
            out = replace(
                m, concept_id=None, concept_ids=[], annotator_id=m.annotator_id or m.concept_id
            )
            problem = PROBLEM_KIND, f"removed ({why})"
        check = vocabulary_check(out, defined[m.pmid])
        if check is not None:
            out = replace(out, id_check=check.label)
            if check.verdict == "dropped":
                problems.append(_vocabulary_problem(out, check, files.get(m.pmid, "")))
                out = replace(out, concept_id=None, concept_ids=[],
                              annotator_id=out.annotator_id or out.concept_id)  # fmt: skip
        mentions.append(out)
        if problem:
            kind, outcome = problem
            problems.append(Problem(m.pmid, files.get(m.pmid, ""), 0, kind, _detail(m, outcome)))
    if not problems and mentions == ys.mentions:
        return ys
    return replace(ys, mentions=mentions, problems=[*ys.problems, *problems])


def _vocabulary_problem(m: Mention, check: Outcome, source_file: str) -> Problem:
    judged = f", judged as its long form {check.judged!r}" if check.judged != norm(m.text) else ""
    why = f"{VOCABULARY_KIND}: {check.vocabulary} names it {check.name!r}{judged}"
    return Problem(m.pmid, source_file, 0, VOCABULARY_KIND, _detail(m, f"removed ({why})"))
