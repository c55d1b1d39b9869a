"""Annotator IDs checked against their own surface forms, at ingestion.

Grounding trusts the document's annotations: a claim about "Pick" in "Pick's disease" that
PubTator tagged as the gene PICK1 becomes a claim about PICK1. :func:`unlink_slice` runs every
linked mention through rules 1–9 (:mod:`kgbuild.resolve.mislinkrules`: a reviewed table, an
eponym, a family plural or stem, a class word, a form sharing no word with its ID's reference
names, a normal function; rules 4–5 *relink* a Greek-letter isoform or a defined short form)
and then rule 10, the **vocabulary check** (:mod:`kgbuild.resolve.idcheck`): the form
against its ID's own names in real vocabularies, the verdict left in ``Mention.id_check``.

**Remove on strong evidence only; else mark suspect.** Measured on a build of
BioCreative V CDR train+dev, where experts linked every mention, the vocabulary check removed
13.8% of the curated IDs, 2,604 of 18,841 ("FK506" → Tacrolimus, "nephropathy" → Kidney
Diseases), and with the curated forms held out of the reference rule 8 removed 415 more
("thrombosis" → Thrombosis).
So an ID goes (``concept_id`` None, ``annotator_id`` keeps it, a ``problems`` row of kind
``mislinked_id`` or ``vocabulary_mismatch`` says why) only on a reviewed line, a rule gold
shows to be precise (eponym, family stem, function, only-says-wrong), a malformed ID, or the
vocabulary check's strong evidence (a defined long form naming nothing the ID is called, a
form that names a concept of another kind, a drug reaction with no drug). Weak evidence —
no name matches, rule 8, a bare head noun, "X in Y", a family plural or class word
(:data:`WEAK_RULES`) — keeps the ID as **suspect**: ``id_check`` "<vocabulary>:suspect" and a
``suspect_id`` row that removes nothing; a suspect form does not spread as an alias
(:func:`kgbuild.resolve.idcheck.spreads`). Each rule's figures on gold:
``kgbuild eval judgments`` (:mod:`kgbuild.evaluate.idchecks`).

A reviewed ``keep`` line of the table beats every automatic rule and the vocabulary check: a
person read those forms. Removing an ID lowers the share of endpoints with an ID by
construction; `kgbuild quality` counts these removals so that the fall is not mistaken for a
regression.
"""

from __future__ import annotations

import re
from ast import literal_eval
from collections.abc import Callable
from dataclasses import replace

from kgbuild.extract.ground import abbreviations
from kgbuild.names import norm
from kgbuild.records import Mention, Problem
from kgbuild.resolve.idcheck import WHY, Context, Outcome, check_form
from kgbuild.resolve.longforms import compound_first_parts, long_form_links, partial_long_forms
from kgbuild.resolve.mislinkrules import (
    CLASS_WORDS,
    FAMILY_MIN,
    FUNCTIONS,
    MISLINKED_TSV,
    banned_forms,
    family_stem,
    mislinked_table,
    relink_target,
    why_mislinked,
)
from kgbuild.resolve.orthologs import GeneForms, gene_as_written, human_genes, relink_slice
from kgbuild.resolve.vocab import Reference, reference
from kgbuild.resolve.vocabularies import tree_related, vocabulary_of
from kgbuild.sources.corpus import CURATED
from kgbuild.sources.local import YearSlice

#: Rules 1–9 live in :mod:`kgbuild.resolve.mislinkrules`; their names stay importable from here.
__all__ = [
    "CLASS_WORDS",
    "FAMILY_MIN",
    "FUNCTIONS",
    "MISLINKED_TSV",
    "banned_forms",
    "family_stem",
    "mislinked_table",
    "relink_target",
    "unlink_slice",
    "why_mislinked",
]
PROBLEM_KIND = "mislinked_id"
RELINK_KIND = "relinked_id"
VOCABULARY_KIND = "vocabulary_mismatch"
#: A problem row that removes nothing: the vocabulary check could not confirm the ID.
SUSPECT_KIND = "suspect_id"
#: A mention written like an abbreviation (a short form in parentheses is looked up).
_SHORT = re.compile(r"[A-Za-z0-9-]{1,6}")
#: Rule of a problem row's reason (the first phrase found in its detail), for the gold figures
#: of :mod:`kgbuild.evaluate.idchecks`.
RULES = (
    ("reviewed:", "reviewed"),
    ("names a normal function", "function"),
    ("says only that something is wrong", "only_wrong"),
    ("shares no word with any reference name", "reference_mismatch"),
    ("only the head noun", "bare_head"),
    ("(in …), which shares no word", "x_in_y"),
    ("family stem", "family_stem"),
    ("names a class of proteins", "class_word"),
    ("eponymous disease name", "eponym"),
    ("plural family name", "family_plural"),
    ("its long form here is", "long_form"),
    ("with a Greek letter", "greek_isoform"),
    ("defines it as the short form", "short_form"),
    ("is a reviewed name of", "gene_name"),
)
#: Rules whose evidence is weak: measured on curated gold with the gold's own forms
#: held out of the reference, "shares no word with any reference name" removed 415 of CDR's
#: curated IDs ("thrombosis", "neutropenia", "cirrhosis" → Fibrosis): vocabularies leave out
#: right forms. BioRED's curators link a family's name to one member 33 times ("MMPs" → MMP1,
#: "caspases" → CASP3, "chemokines" → CXCL8): a claim so linked is less specific, not false.
#: They mark the ID suspect — unless a name of the ID confirms the form exactly
#: (:data:`CONFIRMING`) — and the vocabulary check's strong rules may still remove it.
WEAK_RULES = frozenset({"reference_mismatch", "bare_head", "x_in_y", "family_plural", "class_word"})
#: Vocabulary matches that beat a weak rule: the form *is* a name of the ID. A shared word does
#: not ("fibrillation" shares its word with Ventricular Fibrillation: rule 8's very case).
CONFIRMING = frozenset({"exact", "formula", "override"})


def rule_of(detail: str) -> str:
    """The rule (:data:`RULES`) that wrote a ``mislinked_id`` / ``relinked_id`` detail."""
    return next((rule for phrase, rule in RULES if phrase in detail), "other")


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
    """Normalized short form → long form the abstract defines (Schwartz & Hearst; the first
    part of a hyphenated one too: :func:`compound_first_parts`), for the vocabulary check: {}
    when no linked mention is a parenthesized short form."""
    if not text or not _short_forms_defined(ms, text):
        return {}
    return {**compound_first_parts(text), **definitions(text)}


def document_context(
    ms: list[Mention], text: str, definitions: Callable[[str], dict[str, str]] = abbreviations
) -> Context:
    """What the abstract says around its forms (:class:`kgbuild.resolve.idcheck.Context`): the
    short forms it defines, the forms its mentions link to each ID, whether it names a
    chemical, the forms of its gene mentions."""
    other: dict[str, set[str]] = {}
    for m in ms:
        for cid in m.concept_ids or ([m.concept_id] if m.concept_id else []):
            other.setdefault(cid, set()).add(norm(m.text))
    chemical = any(m.hetionet_type == "Compound" or "chemical" in m.source_type.lower()
                   for m in ms)  # fmt: skip
    return Context(
        long_forms=document_long_forms(ms, text, definitions),
        other_forms={k: frozenset(v) for k, v in other.items()},
        has_chemical=chemical,
        gene_forms=frozenset(
            norm(m.text) for m in ms if m.hetionet_type == "Gene" and m.concept_id
        ),
    )


def vocabulary_check(
    m: Mention, context: Context | dict[str, str], ref: Reference | None = None
) -> Outcome | None:
    """The vocabulary check of a linked mention (:func:`kgbuild.resolve.idcheck.check_form`) in
    its abstract's ``context`` (a plain dict: only the abstract's long forms known); a reviewed
    ``keep`` line of :data:`MISLINKED_TSV` beats it (an override)."""
    if not m.concept_id or m.annotator == CURATED:  # a curator's link is not second-guessed
        return None
    row = mislinked_table().get((m.concept_id, norm(m.text)))
    if row and row[0] == "keep":
        return Outcome(vocabulary_of(m.concept_id), "kept", "override", judged=norm(m.text))
    if not isinstance(context, Context):
        context = Context(long_forms=context)
    return check_form(m.text, m.concept_id, context=context, ref=ref)


def unlink_slice(
    ys: YearSlice, ref: Reference | None = None, gene_forms: GeneForms | None = None
) -> YearSlice:
    """The slice with mislinked mentions' IDs removed or relinked, every linked mention's
    vocabulary check in ``id_check``, and one problem row per changed or suspect mention.
    ``gene_forms``: the build state's tally of non-human gene IDs' forms, for the ortholog
    vote; ``ref``: the reference tables (default the shipped ones)."""
    ys = relink_slice(ys, gene_forms)  # non-human gene IDs → human ortholog (resolve.orthologs)
    ref = ref or reference()
    texts = {d.pmid: d.text for d in ys.documents}
    files = {s.pmid: s.source_file for s in ys.statuses}
    by_doc: dict[str, list[Mention]] = {}
    for m in ys.mentions:
        by_doc.setdefault(m.pmid, []).append(m)
    found: dict[str, dict[str, str]] = {}  # the detector runs once per abstract (rules 5, 10)

    def definitions(text: str) -> dict[str, str]:
        if text not in found:
            found[text] = abbreviations(text)
        return found[text]

    longs = {p: long_form_links(ms, texts.get(p, ""), ref, definitions)
             for p, ms in by_doc.items()}  # fmt: skip
    longs = {p: {k: v for k, v in links.items() if _may_relink(k[1], v)}
             for p, links in longs.items()}  # fmt: skip
    contexts = {p: document_context(ms, texts.get(p, ""), definitions) for p, ms in by_doc.items()}
    shorts: dict[str, dict[tuple[str, str], Mention]] = {}
    for p, links in longs.items():
        longs[p], shorts[p] = _by_confirmed_side(links, by_doc[p], ref)
        for short, long in partial_long_forms(by_doc[p], texts.get(p, ""), definitions):
            if _short_side_confirmed(short, long, ref):
                shorts[p].setdefault((norm(long.text), long.concept_id or ""), short)
        if shorts[p]:
            contexts[p] = _defined_by_short(contexts[p], shorts[p])
    mentions, problems = [], []
    for m in ys.mentions:
        source = files.get(m.pmid, "")
        out, rows = _check_mention(m, texts.get(m.pmid, ""), ref, longs[m.pmid], contexts[m.pmid],
                                   shorts[m.pmid])  # fmt: skip
        mentions.append(out)
        problems += [Problem(m.pmid, source, 0, kind, detail) for kind, detail in rows]
    if not problems and mentions == ys.mentions:
        return ys
    return replace(ys, mentions=mentions, problems=[*ys.problems, *problems])


def _may_relink(short_id: str, long: Mention) -> bool:
    """Rule 5 relinks a short form to its long form's ID unless one MeSH ID lies under the
    other: "Giant Cell Tumors" for "giant cell tumor of bone (GCT)" is a right, broader ID
    (curated BioRED and CDR links), not a mislink."""
    cid = long.concept_id or ""
    return not (short_id.startswith("MESH:") and cid.startswith("MESH:")
                and tree_related(short_id, cid))  # fmt: skip


def _names_itself(form: str, cid: str, ref: Reference) -> str:
    """The verdict of the vocabulary check of ``form`` against ``cid`` on its own (no
    definition in view): kept | suspect | dropped | uncheckable."""
    return check_form(form, cid, context=Context(), ref=ref).verdict


def _by_confirmed_side(
    links: dict[tuple[str, str], Mention], ms: list[Mention], ref: Reference
) -> tuple[dict[tuple[str, str], Mention], dict[tuple[str, str], Mention]]:
    """Rule 5's links split by which side of the definition a vocabulary confirms: (short form
    → its long form, as before; long form → its short form). A definition says both forms are
    one concept, not which ID is right. When a name of the short form's ID is the short form
    itself and no name of the long form's ID matches the long form, the short form's ID wins:
    "Alzheimer's beta (Abeta)" with the long form tagged as ACSM3 and "Abeta" as APP — "Abeta"
    is a reviewed product name of APP, "Alzheimer's beta" no name of ACSM3 — makes the long
    form APP, not every "Abeta" of the abstract ACSM3. Keys: (normalized form, its ID) of the
    mentions that change."""
    forward, backward = {}, {}
    for (key, short_id), long in links.items():
        long_id = long.concept_id or ""
        short = next((m for m in ms if m.concept_id == short_id and norm(m.text) == key), None)
        if short is not None and _short_side_confirmed(short, long, ref):
            backward.setdefault((norm(long.text), long_id), short)
        else:
            forward[(key, short_id)] = long
    return forward, backward


def _short_side_confirmed(short: Mention, long: Mention, ref: Reference) -> bool:
    """Whether a name of the short form's ID is the short form itself while no name of the long
    form's ID matches the long form (a curator's long form is never second-guessed)."""
    if long.annotator == CURATED:
        return False
    short_verdict = _names_itself(short.text, short.concept_id or "", ref)
    return short_verdict == "kept" and _names_itself(long.text, long.concept_id or "", ref) in (
        "suspect",
        "dropped",
    )


def _defined_by_short(context: Context, shorts: dict[tuple[str, str], Mention]) -> Context:
    """The abstract's context once its long forms take their short forms' IDs: those short
    forms are judged as written (their long form names nothing their ID is called, which is why
    it changes) and the long form counts among their ID's forms."""
    other = {k: set(v) for k, v in context.other_forms.items()}
    for (long_key, _), short in shorts.items():
        other.setdefault(short.concept_id or "", set()).add(long_key)
    defined = {norm(s.text) for s in shorts.values()}
    return replace(
        context,
        long_forms={k: v for k, v in context.long_forms.items() if k not in defined},
        other_forms={k: frozenset(v) for k, v in other.items()},
    )


def _named_gene(m: Mention) -> str | None:
    """The human gene a gene mention's text names as written
    (:func:`kgbuild.resolve.orthologs.gene_as_written`), when that is not its ID."""
    if m.hetionet_type != "Gene" or not (m.concept_id or "").startswith("NCBIGene:"):
        return None
    target = gene_as_written(m.text, human_genes())
    return target if target and target != m.concept_id else None


def _defined_as(m: Mention, target: str, context: Context, ref: Reference) -> bool:
    """Whether the abstract's definition of the form names ``target`` ("interleukin-1beta
    (IL-1beta)" names IL1B) — by a name or a shared word, not only by fitting its letters."""
    how = check_form(m.text, target, context=context, ref=ref).how
    return how in CONFIRMING or how == "word"


def _check_mention(
    m: Mention,
    text: str,
    ref: Reference,
    links: dict,
    context: Context,
    shorts: dict[tuple[str, str], Mention] | None = None,
) -> tuple[Mention, list[tuple[str, str]]]:
    """One mention through rules 1–11: (the mention as stored, its problem rows)."""
    short = (shorts or {}).get((norm(m.text), m.concept_id or ""))
    if short is not None:  # rule 5 the other way round: the long form takes its short form's ID
        cid = short.concept_id
        detail = _detail(m, f"relinked to {cid} (the abstract defines it as the short form "
                            f"{short.text!r})")  # fmt: skip
        moved = replace(m, concept_id=cid, concept_ids=[cid], source_type=short.source_type,
                        hetionet_type=short.hetionet_type,
                        annotator_id=m.annotator_id or m.concept_id)  # fmt: skip
        out, rows = _check_mention(moved, text, ref, links, context)
        return out, [(RELINK_KIND, detail), *rows]
    long = links.get((norm(m.text), m.concept_id or ""))
    defined = norm(m.text) in context.long_forms  # the abstract says what the form is
    target = None if long is not None else relink_target(m, ref)
    if target and defined and not _defined_as(m, target, context, ref):
        target = None  # "thyroid hormone beta receptor (TRbeta)" is no TRB (T cell receptor)
    why = None if long is not None or target else why_mislinked(m, text, ref, defined)
    weak = why is not None and rule_of(why) in WEAK_RULES
    out, rows = m, []
    previous = {"annotator_id": m.annotator_id or m.concept_id}
    if long is not None:
        cid = long.concept_id
        kinds = {"source_type": long.source_type, "hetionet_type": long.hetionet_type}
        out = replace(m, concept_id=cid, concept_ids=[cid], **previous, **kinds)
        rows.append((RELINK_KIND, _detail(m, f"relinked to {cid} (its long form here is "
                                             f"{long.text!r})")))  # fmt: skip
    elif target:
        out = replace(m, concept_id=target, concept_ids=[target], **previous)
        greek = f"the text is {ref.name(target)}'s symbol with a Greek letter"
        rows.append((RELINK_KIND, _detail(m, f"relinked to {target} ({greek})")))
    elif why and not weak:
        out = replace(m, concept_id=None, concept_ids=[], **previous)
        rows.append((PROBLEM_KIND, _detail(m, f"removed ({why})")))
    check = vocabulary_check(out, context, ref)
    if check is None:
        return out, rows
    if weak and check.verdict != "dropped" and check.how not in CONFIRMING:
        check = replace(check, verdict="suspect", how=rule_of(why or ""))
    named = _named_gene(out) if check.verdict == "suspect" and not rows else None
    if named and (not defined or _defined_as(m, named, context, ref)):
        # rule 11: "Abeta" tagged as SUCLA2 (alias A-BETA) is APP, whose reviewed product it names
        out = replace(out, concept_id=named, concept_ids=[named], **previous)
        symbol = human_genes().symbol_of.get(named, named)
        reason = f"its text is a reviewed name of {symbol}; no name of its ID matches it"
        rows.append((RELINK_KIND, _detail(m, f"relinked to {named} ({reason})")))
        check = vocabulary_check(out, context, ref) or check
        weak = False
    out = replace(out, id_check=check.label)
    if check.verdict in ("dropped", "suspect"):
        rows.insert(0, _vocabulary_problem(out, check, why if weak else None))
    if check.verdict == "dropped":
        out = replace(out, concept_id=None, concept_ids=[],
                      annotator_id=out.annotator_id or out.concept_id)  # fmt: skip
    return out, rows


def _vocabulary_problem(m: Mention, check: Outcome, reason: str | None) -> tuple[str, str]:
    """(kind, detail) of a ``vocabulary_mismatch`` row (the ID removed) or a ``suspect_id`` row
    (kept, marked): "<span> '<text>': <ID> removed|suspect (<kind>: <rule>: <why>; <vocabulary>
    names it …)"; ``reason``: a weak rule's own words."""
    judged = f", judged as its long form {check.judged!r}" if check.judged != norm(m.text) else ""
    kind, verb = (VOCABULARY_KIND, "removed") if check.verdict == "dropped" else (
        SUSPECT_KIND, "suspect")  # fmt: skip
    why = f"{kind}: {check.how}: {reason or WHY.get(check.how, check.how)}"
    named = f"; {check.vocabulary} names it {check.name!r}{judged}" if check.name else ""
    return kind, _detail(m, f"{verb} ({why}{named})")
