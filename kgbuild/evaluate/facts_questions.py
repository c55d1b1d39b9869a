"""The questions of ``kgbuild eval facts``: the ways a researcher asks for a gold relation.

A gold relation (BC5CDR ``CID``, BioRED ``Association``, ``Bind``, ``Positive_Correlation``…
between two typed entities) becomes a question about one endpoint whose answers are the other
endpoints: "Which chemicals induce {disease}?". The forms are a table (:data:`FORMS`), not
if-chains; the entity is named as people write it, by its most frequent gold mention text.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from kgbuild.evaluate.gold import GoldCorpus


@dataclass(frozen=True, slots=True)
class QuestionForm:
    """One way a researcher asks for one gold relation type: the entity asked about is of kind
    ``asked``, the answers of kind ``answer``; ``template`` names the asked entity."""

    name: str
    rel_type: str
    asked: str
    answer: str
    template: str


#: The question forms, per gold relation type and kind pair (data, not if-chains). Gold kinds
#: are Hetionet kinds (Compound = a chemical). BC5CDR has only CID; the rest are BioRED types.
FORMS: tuple[QuestionForm, ...] = (
    QuestionForm("cid_chemicals_induce", "CID", "Disease", "Compound",
                 "Which chemicals induce {}?"),
    QuestionForm("assoc_genes_of_disease", "Association", "Disease", "Gene",
                 "Which genes are associated with {}?"),
    QuestionForm("assoc_chemicals_of_disease", "Association", "Disease", "Compound",
                 "Which chemicals are associated with {}?"),
    QuestionForm("bind_what_chemical_binds", "Bind", "Compound", "Gene", "What does {} bind?"),
    QuestionForm("neg_chemicals_lower_gene", "Negative_Correlation", "Gene", "Compound",
                 "Which chemicals lower {}?"),
    QuestionForm("pos_chemicals_raise_gene", "Positive_Correlation", "Gene", "Compound",
                 "Which chemicals increase {}?"),
    QuestionForm("pos_chemicals_risk_disease", "Positive_Correlation", "Disease", "Compound",
                 "Which chemicals increase the risk of {}?"),
    QuestionForm("neg_chemicals_treat_disease", "Negative_Correlation", "Disease", "Compound",
                 "Which chemicals treat {}?"),
    QuestionForm("pos_genes_risk_disease", "Positive_Correlation", "Disease", "Gene",
                 "Which genes increase the risk of {}?"),
    QuestionForm("assoc_genes_interact_gene", "Association", "Gene", "Gene",
                 "Which genes interact with {}?"),
)  # fmt: skip


@dataclass(slots=True)
class Question:
    """One question: its form, the entity asked about (gold CURIE), its text, and the gold
    answers (CURIEs) with the PMIDs whose relation lines state each."""

    form: str
    entity: str
    text: str
    answers: dict[str, set[str]] = field(default_factory=dict)


def mention_names(gold: GoldCorpus) -> dict[str, str]:
    """CURIE → its most frequent gold mention text in the file (first seen wins a tie)."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for ms in gold.mentions.values():
        for m in ms:
            text = " ".join(m.text.split())
            for cid in m.concept_ids:
                counts[cid][text] += 1
    return {cid: c.most_common(1)[0][0] for cid, c in counts.items() if c}


def mention_texts(gold: GoldCorpus) -> dict[tuple[str, str], set[str]]:
    """(PMID, CURIE) → the gold mention texts of that concept in that document (lower case)."""
    out: dict[tuple[str, str], set[str]] = defaultdict(set)
    for pmid, ms in gold.mentions.items():
        for m in ms:
            for cid in m.concept_ids:
                out[(pmid, cid)].add(" ".join(m.text.split()).lower())
    return out


def make_questions(gold: GoldCorpus, forms: tuple[QuestionForm, ...] = FORMS) -> list[Question]:
    """One question per (form, asked entity) of the gold relations, in a stable order (form
    order, then entity ID). A relation between two entities of the form's kinds asks about
    each endpoint of the asked kind (both, for a same-kind pair)."""
    names = mention_names(gold)
    by_type: dict[str, list[QuestionForm]] = defaultdict(list)
    for f in forms:
        by_type[f.rel_type].append(f)
    found: dict[tuple[str, str], Question] = {}
    for r in gold.relations:
        ends = ((r.a, r.kind_a, r.b, r.kind_b), (r.b, r.kind_b, r.a, r.kind_a))
        for f in by_type.get(r.rel_type, ()):
            for asked, kind, answer, answer_kind in ends:
                if kind != f.asked or answer_kind != f.answer or asked == answer:
                    continue
                q = found.get((f.name, asked))
                if q is None:
                    text = f.template.format(names.get(asked, asked))
                    q = found[(f.name, asked)] = Question(f.name, asked, text)
                q.answers.setdefault(answer, set()).add(r.pmid)
    order = {f.name: i for i, f in enumerate(forms)}
    return sorted(found.values(), key=lambda q: (order[q.form], q.entity))


def interleave(questions: list[Question]) -> list[Question]:
    """Questions round-robin over their forms (each form's own order kept), so that the first
    N of a ``--limit`` run sample every form."""
    by_form: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        by_form[q.form].append(q)
    out: list[Question] = []
    queues = list(by_form.values())
    for i in range(max((len(x) for x in queues), default=0)):
        out += [x[i] for x in queues if i < len(x)]
    return out


def co_mention_ranking(gold: GoldCorpus, questions: list[Question],
                       forms: tuple[QuestionForm, ...] = FORMS) -> list[list[str]]:  # fmt: skip
    """The baseline a question is measured against: per question, every entity of the answer
    kind that a gold mention names in an abstract beside the asked entity, most shared
    abstracts first (ties by ID). Every gold pair shares its abstract by construction, so this
    alone finds many gold answers: the engine earns only what it ranks better than this."""
    answer_kind = {f.name: f.answer for f in forms}
    docs_of: dict[str, set[str]] = defaultdict(set)
    kind: dict[str, str] = {}
    for pmid, ms in gold.mentions.items():
        for m in ms:
            if m.hetionet_type and m.concept_id:
                docs_of[m.concept_id].add(pmid)
                kind[m.concept_id] = m.hetionet_type
    in_doc: dict[str, set[str]] = defaultdict(set)
    for cid, pmids in docs_of.items():
        for pmid in pmids:
            in_doc[pmid].add(cid)
    out = []
    for q in questions:
        shared: Counter[str] = Counter()
        for pmid in docs_of.get(q.entity, ()):
            shared.update(c for c in in_doc[pmid]
                          if c != q.entity and kind[c] == answer_kind[q.form])  # fmt: skip
        out.append([c for c, _ in sorted(shared.items(), key=lambda x: (-x[1], x[0]))])
    return out
