"""A tiny snapshot whose text is spreadsheet formulas, and a scan of written CSV/TSV files for them.

Test and drill support (``tests/export/test_spreadsheet_safe.py``, ``bench/trust_inputs.py``):
every text field a CSV/TSV writer copies from the snapshot — node names and aliases, relations as
written, sentences, titles, abstracts, mention texts — begins with a formula sign, a tab, a
carriage return or a quote (OWASP "CSV Injection" payloads such as
``=HYPERLINK("http://127.0.0.1:9/x?"&A1,"click")``). The records go through the real
``Warehouse.writer(kg).add(…)`` / ``.commit(…)``. One evidence row has negative offsets, so a
number column holds ``-3`` (numbers are not text, and must stay numbers).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from kgbuild.records import Document, Entity, Evidence, Mention, SnapshotCounts, Triple, stable_id
from kgbuild.store.snapshots import Warehouse

#: First characters a spreadsheet reads as a formula (OWASP "CSV Injection"; the full-width
#: signs too). Written out here, not imported: the check must not trust the code it checks.
FORMULA_SIGNS = "=+-@\t\r\uff1d\uff0b\uff0d\uff20"
#: A plain number literal: a spreadsheet reads ``-3`` or ``-1.5e2`` as a number, not a formula.
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")

#: Values a spreadsheet would run as formulas (or would misread), one per text field.
FORMULAS = (
    '=HYPERLINK("http://127.0.0.1:9/x?"&A1,"click")',
    "-2+3+cmd|' /C calc'!A0 inhibits APOE",
    "+SUM(1,2) amyloid",
    "@SUM(A1:A9) tau",
    "\t=1+1 tabbed",
    "\r=2+2 returned",
    "\uff1d3+3 full-width",
    "'=already quoted",
)
KINDS = ("Gene", "Compound", "Disease")
PREFIX = {"Gene": "NCBIGene:", "Compound": "MESH:D", "Disease": "MESH:D"}
RELATIONS = (("binds", "Compound", "Gene", "CbG"), ("associates", "Disease", "Gene", "DaG"),
             ("treats", "Compound", "Disease", "CtD"))  # fmt: skip
#: The negative number one evidence row carries in its offset columns.
NEGATIVE = -3


def _formula(i: int) -> str:
    return FORMULAS[i % len(FORMULAS)]


def publish_formulas(root: Path, kg: str = "formulas", year: int = 2020) -> tuple[Warehouse, str]:
    """Publish the snapshot; returns (warehouse, snapshot id)."""
    wh = Warehouse(Path(root))
    w = wh.writer(kg)
    ents = [
        Entity(f"{PREFIX[KINDS[i % 3]]}{100 + i}", _formula(i), KINDS[i % 3],
               [_formula(i), _formula(i + 3)], year)
        for i in range(2 * len(FORMULAS))
    ]  # fmt: skip
    free = Entity("free:=cmd", "=cmd|' /C calc'!A0", "", ["=cmd|' /C calc'!A0"], year)
    by_kind = {k: [e for e in ents if e.type == k] for k in KINDS}
    triples = []
    for i in range(len(FORMULAS)):
        rel, hk, tk, metaedge = RELATIONS[i % len(RELATIONS)]
        head, tail = by_kind[hk][i % len(by_kind[hk])], by_kind[tk][(i + 1) % len(by_kind[tk])]
        tid = stable_id(head.id, rel, tail.id)
        triples.append(Triple(tid, head.id, rel, tail.id, _formula(i + 1), "generative", metaedge))
    triples.append(Triple(stable_id(ents[0].id, "associates", free.id), ents[0].id,
                          "associates", free.id, "-associates", "generative"))  # fmt: skip
    docs, evidence, mentions = [], [], []
    for i, t in enumerate(triples):
        pmid = str(31_000_000 + i)
        sentence = f"{_formula(i)} in sentence {i}."
        docs.append(Document(pmid, year, _formula(i + 2), _formula(i + 5), _formula(i + 6), "syn"))
        start = NEGATIVE if i == 0 else 0
        evidence.append(Evidence(
            stable_id(t.triple_id, pmid), t.triple_id, pmid, year, sentence, start, len(sentence),
            start, 1, 2, 3, "generative", "kgbuild.generative/1", "=model", "generative/v1",
            t.relation_raw, _formula(i + 4), _formula(i + 7), 0.7,
        ))  # fmt: skip
        mentions.append(Mention(pmid, 0, 5, _formula(i + 3), "Gene", "Gene", t.head_id,
                                [t.head_id], "pubtator"))  # fmt: skip
    w.add("entities", [*ents, free])
    w.add("triples", triples)
    w.add("evidence", evidence)
    w.add("documents", docs)
    w.add("mentions", mentions)
    nodes = {n for t in triples for n in (t.head_id, t.tail_id)}
    counts = {"records": len(docs), "documents": len(docs), "mentions": len(mentions),
              "entities": len(ents) + 1, "nodes": len(nodes), "relations": len(RELATIONS),
              "triples": len(triples), "evidence": len(evidence)}  # fmt: skip
    info = w.commit(year, "formulas", {"extractor": "generative"}, "formulas", "formulas",
                    SnapshotCounts.from_dict(counts))  # fmt: skip
    return wh, info.snapshot_id


def is_formula(cell: str) -> bool:
    """A spreadsheet would read ``cell`` as a formula: it begins with ``=``, ``+``, ``-``,
    ``@``, tab or CR (or a full-width sign) and is not a plain number."""
    return bool(cell) and cell[0] in FORMULA_SIGNS and not _NUMBER.fullmatch(cell)


def formula_cells(path: Path) -> list[tuple[int, str, str]]:
    """(line, column, cell) of every cell of a CSV (``,``) or TSV (``.tsv``: tab) file that a
    spreadsheet would read as a formula (:func:`is_formula`)."""
    delimiter = "\t" if path.suffix == ".tsv" else ","
    found: list[tuple[int, str, str]] = []
    header: list[str] = []
    with open(path, encoding="utf-8", newline="") as fh:
        for n, row in enumerate(csv.reader(fh, delimiter=delimiter), start=1):
            header = row if n == 1 else header
            found += [(n, header[k] if k < len(header) else str(k), c)
                      for k, c in enumerate(row) if is_formula(c)]  # fmt: skip
    return found
