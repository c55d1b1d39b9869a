"""Answers that are organisms, read from the Species mentions of the sentences naming the
question's entity.

"Which infectious agents have been linked to Alzheimer's disease?" was answered with metals
and reactive oxygen species: a DALK build keeps no organism nodes (DALK Table 10), though
PubTator tags the organisms of every abstract (its Species type, NCBI Taxonomy ids). So an
organism question (the ``organism`` row of ``data/answer_kinds.toml``) is answered from those
mentions, as :mod:`kgbuild.corpus.same_sentence` reads a kind from sentences:

- the abstracts naming the question's entities (all, with none linked) and a candidate taxon
  (:class:`kgbuild.corpus.organism_kinds.Ask` says which slice the question asks for), at
  most :data:`MAX_DOCS`, newest first, cut with the extractor's splitter;
- a taxon counts in a sentence that carries the question's qualifying words near its name
  (an infection word for "infectious agents", "viruses": HSV-1 *infection*; never a vector or
  an expression host: adeno-associated virus, *E. coli*; a model word for "model organisms"),
  in a sentence naming the entity (full weight) or elsewhere in an abstract naming it
  (:data:`ABSTRACT_WEIGHT`);
- ranked by specificity times evidence: the NPMI of taxon and entity over abstracts
  (Bouma 2009) times log2(1 + weighted PMIDs); for the corpus's topic (AD in an AD corpus:
  every NPMI near 0) the taxon's inverse document frequency instead. Human, mouse and rat
  are named in 45%, 28% and 7% of DALK's abstracts, so raw counts would put them first
  whatever is asked; specificity puts a taxon named mostly with the entity first.

Each answer names the taxon (``organisms.tsv``'s readable name, else its most frequent
surface form), its PMIDs and best sentence, and says it was read from sentences, not a KG fact.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kgbuild.corpus.documents import doc_sentences, row_mentions
from kgbuild.corpus.marks import disjoint_spans, excerpt
from kgbuild.corpus.organism_kinds import Ask
from kgbuild.store.species import TAXON_PREFIX
from kgbuild.taxa import Taxon

MAX_ANSWERS = 10
#: A taxon in a cue sentence of an abstract naming the entity, but not in its sentence.
ABSTRACT_WEIGHT = 0.5
#: Characters either side of the taxon's name where the qualifying word must stand.
WINDOW = 80
#: Words saying an organism infects (Itzhaki et al. 2016 write infection, seropositivity,
#: reactivation, antibodies, periodontitis, dysbiosis of the pathogens linked to AD).
INFECTION = re.compile(
    r"infect\w*|pathogen(?:s|ic|icity)?\b|sero(?:positiv|prevalen|logic|status|convers)\w*|antibod\w*|"
    r"\big[gm]\b|reactivat\w*|laten(?:t|cy)|periodont\w*|dysbios\w*|microbio\w*|microb(?:e|es|ial)"
    r"|coloni[sz]\w*|antivir\w*|antibiotic\w*|vaccin\w*|spirochet\w*|virus\w*|viral|bacteri\w*"
    r"|fung\w*|parasit\w*|sepsis|septic", re.I)  # fmt: skip
#: Words saying the organism is a laboratory tool (a vector, an expression host), not a pathogen.
TOOL = re.compile(
    r"vectors?\b|transduc\w*|transfect\w*|recombinant|plasmids?|\bconstructs?\b|expressed in"
    r"|(?:mediated|based) (?:gene )?(?:expression|delivery|transfer|knockdown|overexpression)"
    r"|gene (?:therapy|transfer|delivery)|\baav\d*\b|lentivir\w*|purified from|display"
    r"|\bto (?:express|deliver|overexpress|knock)|inclusion bod|expression (?:system|level|host)"
    r"|clon(?:ed|ing)\b|produced (?:in|by)|purified|fus(?:ed|ion)\b|harbou?r\w*|periplasm\w*"
    r"|librar(?:y|ies)|expressed (?:in|at|by)",
    re.I,
)
#: Words after an organism's name that make it name a protein or a property ("prion protein",
#: "prion-like spreading"), not the organism.
NOT_ORGANISM = re.compile(r"[\s-]*(?:proteins?|like|genes?|PrP)\b", re.I)
#: Words saying the organism serves as a model.
MODEL = re.compile(
    r"models?\b|transgenic|knock-?(?:in|out)|overexpress\w*|express\w*|mutants?\b|strains?\b"
    r"|genetic\w*|flies\b|worms?\b|larva\w*|\blines?\b|screen\w*|paradigm", re.I)  # fmt: skip

#: Specificity kept at NPMI ≤ 0, and the share of abstracts that makes an entity the corpus's
#: topic: the values answers of facts use (kgbuild.query.answer_entities.BASE, TOPIC_SHARE;
#: a test keeps them equal — this floor cannot import the query stage).
BASE = 0.25
TOPIC_SHARE = 0.25


@dataclass(slots=True)
class Seen:
    """One taxon's evidence: the PMIDs naming it in a cue sentence with the entity
    (``sent``) or in an abstract naming the entity (``doc``), the abstracts naming both at
    all (``both``), and its best sentence."""

    sent: set[str] = field(default_factory=set)
    doc: set[str] = field(default_factory=set)
    both: set[str] = field(default_factory=set)
    best: tuple[Any, ...] = ()
    shown: str = ""
    pmid: str = ""

    def weight(self) -> float:
        return len(self.sent) + ABSTRACT_WEIGHT * len(self.doc - self.sent)

    def pmids(self) -> list[str]:
        return sorted(self.sent | self.doc)


def said(sentence: str, at: tuple[int, int], ask: Ask,
         names: list[tuple[int, int]] = ()) -> bool:  # fmt: skip
    """Does the sentence carry the question's qualifying words near the taxon's name (the
    organisms' ``names`` blanked: "virus" in "adeno-associated virus" says nothing)? A
    pathogen asked for by its group ("which viruses") needs no infection word, but never in a
    sentence using it as a tool."""
    if not ask.groups and not ask.model:
        return True
    for x, y in names:
        sentence = sentence[:x] + " " * (y - x) + sentence[y:]
    a, b = at
    near = sentence[max(0, a - WINDOW) : b + WINDOW]
    if ask.groups:
        tool = TOOL.search(sentence) is not None
        return not tool and (not ask.infection or INFECTION.search(near) is not None)
    return MODEL.search(near) is not None


def tally(rows: list[tuple[Any, ...]], anchors: set[str], takes: Callable[[str], bool],
          ask: Ask) -> dict[str, Seen]:  # fmt: skip
    """Per taxon ``takes`` allows: its :class:`Seen` over ``rows`` (pmid, year, title,
    abstract, [{c, a, b}]); with no ``anchors`` every abstract and sentence is about the
    question (a question whose entity is the corpus's own topic, or none linked)."""
    seen: dict[str, Seen] = {}
    for pmid, year, title, abstract, spans in rows:
        ments = row_mentions(spans)
        named = not anchors or any(c in anchors for c, _, _ in ments)
        if not named:
            continue
        for c in {c for c, _, _ in ments if c.startswith(TAXON_PREFIX) and takes(c)}:
            seen.setdefault(c, Seen()).both.add(str(pmid))
        for ds in doc_sentences(pmid, year, title, abstract, ments):
            at = [(a, b) for c, a, b in ds.mentions if c in anchors]
            sent = ds.text
            names = [(a, b) for c, a, b in ds.mentions if c.startswith(TAXON_PREFIX)]
            for c, a, b in ds.mentions:
                if not c.startswith(TAXON_PREFIX) or not takes(c) or NOT_ORGANISM.match(sent, b):
                    continue
                if not said(sent, (a, b), ask, names):
                    continue
                got = seen.setdefault(c, Seen())
                with_entity = bool(at) or not anchors
                (got.sent if with_entity else got.doc).add(str(pmid))
                key = (not with_entity, -int(year or 0), len(sent), str(pmid))
                if not got.best or key < got.best:
                    got.best, got.pmid = key, str(pmid)
                    got.shown = excerpt(sent, disjoint_spans([*at, (a, b)]))
    return {c: s for c, s in seen.items() if s.sent or s.doc}


def npmi(both: int, df_taxon: int, df_anchor: int, n_docs: int) -> float:
    """Normalised PMI of taxon and entity over abstracts (Bouma 2009), in [-1, 1]; 0 when
    undefined (no abstract names both, or the entity is named in every abstract)."""
    if both <= 0 or df_taxon <= 0 or df_anchor <= 0 or n_docs <= 0 or both >= n_docs:
        return 0.0
    p = both / n_docs
    return math.log(p / ((df_taxon / n_docs) * (df_anchor / n_docs))) / -math.log(p)


def specificity(s: Seen, df_taxon: int, df_anchor: int, n_docs: int) -> float:
    """How much a taxon belongs with the entity: :data:`BASE` + its NPMI (clipped at 0), as
    the same-abstract tier weighs a co-mention; with the corpus's own topic or no entity
    (named in :data:`TOPIC_SHARE` of the abstracts: DALK's AD in 80%, where every NPMI is
    near 0), the taxon's normalised inverse document frequency instead."""
    if df_anchor >= TOPIC_SHARE * n_docs and n_docs > 1:
        return math.log(n_docs / max(df_taxon, 1)) / math.log(n_docs)
    return BASE + max(npmi(len(s.both), max(df_taxon, len(s.both)), df_anchor, n_docs), 0.0)


def ranked(seen: dict[str, Seen], df: dict[str, int], df_anchor: int,
           n_docs: int) -> list[tuple[str, float]]:  # fmt: skip
    """(taxon, score) best first: specificity × log2(1 + weighted PMIDs), then PMIDs."""
    scored = []
    for c, s in seen.items():
        score = specificity(s, df.get(c, len(s.both)), df_anchor, n_docs) * math.log2(
            1 + s.weight()
        )
        scored.append((c, round(score, 6), s.weight()))
    scored.sort(key=lambda x: (-x[1], -x[2], x[0]))
    return [(c, sc) for c, sc, _ in scored]


def answer_dicts(
    seen: dict[str, Seen], order: list[tuple[str, float]], names: dict[str, str],
    limit: int = MAX_ANSWERS,
) -> list[dict[str, Any]]:  # fmt: skip
    """The answers as ``ask`` shows them (same keys as the other sentence tiers)."""
    out = []
    for c, score in order[:limit]:
        s = seen[c]
        pms = s.pmids()
        out.append({
            "id": c, "name": names.get(c) or c, "type": "Organism", "score": score,
            "basis": "same_sentence" if s.sent else "same_abstract", "relation": [],
            "support": len(pms), "facts": [], "sentence": s.shown, "pmid": s.pmid,
            "pmids": pms, "edges": [],
            "why": f"a PubTator Species mention, no KG entity; named in {len(s.sent)} sentence(s)"
                   f" with the question's entity ({len(pms)} PMIDs: {', '.join(pms[:5])}); "
                   "read from sentences, not an extracted fact",
        })  # fmt: skip
    return out


def readable(c: str, t: Taxon, forms: Counter[str]) -> str:
    """The table's readable name, else the most frequent surface form, else the CURIE."""
    return t.name or (forms.most_common(1)[0][0] if forms else c)
