"""Candidate rows for sentence-level judging: one sentence, two marked mentions, a candidate.

A row is what a curator reads to say whether *this sentence* states a relation between *these
two mentions*: the sentence, both mentions (span, text, ID, display name, kind) and the candidate
relation some extractor proposed (an evidence row of a build, or a gold document-level relation
of BioRED/BC5CDR Train). Mention A is the one that comes first in the sentence, so the order
never tells a judge which one an extractor took as the subject.

Sources:

- ``dalk_default`` / ``dalk_llm``: evidence rows of a DALK snapshot (the offline classifier
  build, or the build through recorded LLM outputs) whose two mentions lie in their sentence;
- ``biored_train`` / ``bc5cdr_train``: every pair of annotated concepts sharing a sentence of a
  Train document, with the document's gold relation as the candidate (none when unrelated).

The split is by PMID (a hash, so it does not depend on which rows were drawn): a document's
sentences never sit on both sides, and a PMID in both DALK builds falls on one side for both.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from kgbuild.records import stable_id

#: Fraction of PMIDs (by hash, in tenths) per split.
SPLIT_TENTHS = (("train", 6), ("dev", 2), ("test", 2))
#: Relations whose direction a judge can check (the rest read "undirected").
DIRECTED = frozenset({"upregulates", "downregulates", "treats", "palliates", "binds", "regulates"})
#: The kinds a sentence row pairs (the KG's node kinds the gold corpora annotate).
KINDS = frozenset({"Compound", "Disease", "Gene"})


@dataclass(slots=True)
class Row:
    """One candidate: a sentence and two mentions (A first in the sentence) with a candidate."""

    row_id: str
    source: str
    pmid: str
    split: str
    sentence: str
    a_start: int
    a_end: int
    a_text: str
    a_id: str
    a_name: str
    a_type: str
    b_start: int
    b_end: int
    b_text: str
    b_id: str
    b_name: str
    b_type: str
    #: The extractor's (or gold's) relation for the pair; "" when none was proposed.
    cand_relation: str
    #: ``A>B``, ``B>A`` or ``undirected``.
    cand_direction: str
    #: The build's epistemic status of the evidence row ("" for gold rows).
    cand_status: str
    #: Hard-case flags of the sentence and mentions (:func:`hard_flags`), ";"-joined.
    flags: str
    #: The relation verifier's P(the abstract relates the pair) (document level,
    #: :mod:`kgbuild.verifier`): what the reader knows beyond the sentence; -1 when unscored.
    doc_score: float = -1.0
    stratum: str = ""
    #: The sampling weight the row was drawn with (stratified, hard cases up-weighted).
    weight: float = 0.0
    seed: int = 0


ROW_FIELDS = tuple(f.name for f in fields(Row))


def split_of(pmid: str) -> str:
    """The split of a PMID: a hash in tenths (``SPLIT_TENTHS``), stable across samples."""
    tenth = int(hashlib.sha256(pmid.encode()).hexdigest(), 16) % 10
    for name, n in SPLIT_TENTHS:
        if tenth < n:
            return name
        tenth -= n
    raise AssertionError("tenths do not sum to 10")


_HEDGE = re.compile(
    r"\b(may|might|could|possibl\w*|potential\w*|suggest\w*|hypothes\w*|whether|putative|"
    r"likely|propose\w*|appear\w* to|seem\w* to|candidate)\b",
    re.I,
)
_NEGATION = re.compile(
    r"\b(no|not|neither|nor|without|fail\w*|lack\w*|absen\w*|unaffected|unchanged|"
    r"independent of|did not|does not|cannot)\b",
    re.I,
)
_METHODS = re.compile(
    r"\b(were (measured|assessed|analy[sz]ed|determined|extracted|quantified|treated|incubated)|"
    r"using|buffer\w*|assay\w*|stain\w*|incubat\w*|extraction\w*|protocol|we (measured|used|"
    r"examined|investigated|assessed)|aim\w* of|to (investigate|examine|determine|evaluate))\b",
    re.I,
)
_DIRECTION = re.compile(
    r"(increas|decreas|upregulat|up-regulat|downregulat|down-regulat|induc|inhibit|reduc|elevat|"
    r"suppress|activat|attenuat|enhanc|promot|block|lower|rais)",
    re.I,
)
#: A word after a mention that makes the mention part of a longer name (GABA receptor, water
#: maze, superoxide dismutase): the mention then names something else.
_HEAD_NOUNS = re.compile(
    r"^[\s-]*(receptors?|maze|dismutase|channels?|transporters?|synthases?|kinases?|"
    r"oxidases?|reductases?|ligases?|hydrolases?|esterases?|inhibitors?|antagonists?|"
    r"agonists?|analogs?|analogues?|derivatives?|binding|buffer\w*|saline|levels?|"
    r"metabolism|pathway|signal\w*|test|scale|score|domain|gene|protein)\b",
    re.I,
)


def hard_flags(sentence: str, spans: Iterable[tuple[int, int]]) -> list[str]:
    """The hard cases a sentence and its mentions show: hedge and negation cues, a methods
    sentence, direction words, a mention inside a longer term, a mention of ≤ 2 characters."""
    out = []
    for name, rx in (
        ("hedge", _HEDGE),
        ("negation", _NEGATION),
        ("methods", _METHODS),
        ("direction", _DIRECTION),
    ):
        if rx.search(sentence):
            out.append(name)
    spans = list(spans)
    if any(_HEAD_NOUNS.match(sentence[e:]) for _, e in spans):
        out.append("embedded")
    if any(e - s <= 2 for s, e in spans):
        out.append("short")
    return out


def _direction(relation: str, a_is_head: bool) -> str:
    if relation not in DIRECTED:
        return "undirected"
    return "A>B" if a_is_head else "B>A"


def _row(
    source: str,
    pmid: str,
    sentence: str,
    head: dict,
    tail: dict,
    relation: str,
    status: str,
    direction: str | None = None,
    doc_score: float | None = None,
) -> Row:
    a, b = (
        (head, tail)
        if (head["start"], head["end"]) <= (tail["start"], tail["end"])
        else (tail, head)
    )
    a_is_head = a is head
    flags = hard_flags(sentence, [(a["start"], a["end"]), (b["start"], b["end"])])
    return Row(
        row_id=stable_id(pmid, sentence, a["start"], a["end"], b["start"], b["end"]),
        source=source,
        pmid=pmid,
        split=split_of(pmid),
        sentence=sentence,
        a_start=a["start"],
        a_end=a["end"],
        a_text=sentence[a["start"] : a["end"]],
        a_id=a["id"],
        a_name=a["name"],
        a_type=a["type"],
        b_start=b["start"],
        b_end=b["end"],
        b_text=sentence[b["start"] : b["end"]],
        b_id=b["id"],
        b_name=b["name"],
        b_type=b["type"],
        cand_relation=relation,
        cand_direction=direction if direction is not None else _direction(relation, a_is_head),
        cand_status=status,
        flags=";".join(flags),
        doc_score=-1.0 if doc_score is None else round(float(doc_score), 4),
    )


_BUILD_ROWS = """
SELECT e.pmid, e.sentence, e.sent_start, e.head_start, e.head_end, e.tail_start, e.tail_end,
       t.head_id, t.tail_id, t.relation, e.epistemic, e.verifier_score,
       coalesce(nullif(h.display_name, ''), h.name) AS head_name, h.type AS head_type,
       coalesce(nullif(x.display_name, ''), x.name) AS tail_name, x.type AS tail_type
FROM evidence e JOIN triples t USING (triple_id)
JOIN entities h ON h.id = t.head_id JOIN entities x ON x.id = t.tail_id
WHERE e.head_start >= e.sent_start AND e.head_end <= e.sent_end
  AND e.tail_start >= e.sent_start AND e.tail_end <= e.sent_end
  AND (e.head_end <= e.tail_start OR e.tail_end <= e.head_start)
ORDER BY e.evidence_id
"""


def build_rows(warehouse: Path, source: str) -> Iterator[Row]:
    """Evidence rows of the newest snapshot in ``warehouse`` whose mentions lie in their
    sentence, as candidates (the stored triple's relation, direction and status). A relation
    stored under its pair's own name (Compound ``causes`` Disease, ``data/pair_relations.tsv``)
    is the candidate under the signed name the reader learns and is shown (``upregulates``)."""
    from kgbuild.pair_relations import signed_reading
    from kgbuild.store.catalog import connect

    with connect(warehouse / "kg.duckdb", read_only=True) as con:
        found = con.sql(_BUILD_ROWS).fetchall()
    for pmid, sentence, s0, hs, he, ts, te, hid, tid, rel, status, vs, hn, ht, tn, tt in found:
        head = {"start": hs - s0, "end": he - s0, "id": hid, "name": hn, "type": ht}
        tail = {"start": ts - s0, "end": te - s0, "id": tid, "name": tn, "type": tt}
        rel = signed_reading(rel, ht, tt)
        yield _row(source, pmid, sentence, head, tail, rel, status, doc_score=vs)


#: Gold relation types as candidate relations (``data/gold_relation_map.tsv``'s reading of
#: BioRED's types; BC5CDR's CID is a chemical inducing a disease).
GOLD_RELATION = {
    "Positive_Correlation": "upregulates",
    "Negative_Correlation": "downregulates",
    "Association": "associates",
    "Bind": "binds",
    "Drug_Interaction": "interacts",
    "Cotreatment": "associates",
    "Comparison": "associates",
    "Conversion": "associates",
    "CID": "upregulates",
}
_GOLD_ORDER = (
    "CID",
    "Bind",
    "Positive_Correlation",
    "Negative_Correlation",
    "Drug_Interaction",
    "Association",
    "Cotreatment",
    "Comparison",
    "Conversion",
)


def gold_rows(path: Path, source: str) -> Iterator[Row]:
    """Every pair of concepts sharing a sentence of a gold file's documents (the first mention
    of each concept in the sentence), with the document's gold relation as the candidate."""
    from kgbuild.extract.sentences import sentence_spans
    from kgbuild.resolve.naming import display_name
    from kgbuild.verifier.corpus import pair_key, read_gold
    from kgbuild.verifier.text import mention_ids, mention_kind

    for gd in read_gold(path):
        text = f"{gd.doc.title} {gd.doc.abstract}".strip() if gd.doc.abstract else gd.doc.title
        ms = sorted(
            (m for m in gd.mentions if m.concept_id and mention_kind(m) in KINDS),
            key=lambda m: (m.start, m.end),
        )
        spans = sentence_spans(text, [(m.start, m.end) for m in ms], [len(gd.doc.title)])
        for s0, s1 in spans:
            inside: dict[str, object] = {}
            for m in ms:
                if m.start >= s0 and m.end <= s1 and text[m.start : m.end] == m.text:
                    inside.setdefault(mention_ids(m)[0], m)
            items = sorted(inside.items(), key=lambda kv: (kv[1].start, kv[1].end))
            sentence = text[s0:s1]
            for i, (ca, ma) in enumerate(items):
                for cb, mb in items[i + 1 :]:
                    if ma.end > mb.start:  # overlapping mentions: not two things named
                        continue
                    types = gd.relations.get(pair_key(ca, cb), set())
                    gold = next((t for t in _GOLD_ORDER if t in types), "")
                    ends = []
                    for cid, m in ((ca, ma), (cb, mb)):
                        ends.append(
                            {
                                "start": m.start - s0,
                                "end": m.end - s0,
                                "id": cid,
                                "name": display_name(cid, m.text),
                                "type": mention_kind(m),
                            }
                        )
                    head, tail = ends
                    direction = None
                    if gold == "CID":  # the chemical induces the disease
                        direction = "A>B" if head["type"] == "Compound" else "B>A"
                    elif gold:
                        direction = "undirected"
                    # no document score: the verifier was fitted on these very documents
                    yield _row(
                        source,
                        gd.doc.pmid,
                        sentence,
                        head,
                        tail,
                        GOLD_RELATION.get(gold, ""),
                        "",
                        direction,
                    )


def as_dict(row: Row) -> dict:
    return asdict(row)
