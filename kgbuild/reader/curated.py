"""Curations as judged rows: what curators said in the explorer, in the shape of
``data/judged/`` (:mod:`kgbuild.reader.judged`), so the reader can be retrained on them.

A curation is a judgment of one sentence under the guideline ``explorer-curation/1``
(:data:`kgbuild.store.curations.GUIDELINE`), which asks the judging guideline's questions
(``docs/judging.md``) with three answers:

- ``states``: the sentence states the fact it was served for, as a finding — ``stated`` yes,
  the triple's relation (:data:`RELATION`, ``other`` for a KG relation the guideline has no
  word for) in the triple's direction, ``asserted``, both mentions right;
- ``does_not_state``: ``stated`` no (relation, direction and status ``none``), mentions right;
- ``wrong_concept``: a marked mention is not the concept its ID names; the curator does not
  say which, so both read ``no`` and the rest as not stated — :func:`~kgbuild.reader.judged.fact`
  is false either way, which is what the curation says.

The row is the evidence row as served (A = the mention that comes first in the sentence); its
``source`` names the provenance (``curation``) and its judge the curator. A sentence curated by
several curators is judged once per curator: the first curator's latest reading is round 1
(the label), the second's round 2 (agreement).
"""

from __future__ import annotations

import csv
from pathlib import Path

from kgbuild.reader.judged import JUDGMENT_COLUMNS
from kgbuild.reader.rows import ROW_FIELDS, Row, split_of
from kgbuild.records import stable_id
from kgbuild.store.curations import Curation

SOURCE = "curation"
SHEET = "explorer"
#: KG relations as the guideline's relations.
RELATION = {
    "upregulates": "upregulates",
    "downregulates": "downregulates",
    "treats": "treats",
    "binds": "binds",
    "interacts": "interacts",
    "associates": "associates",
}
UNDIRECTED = frozenset({"associates", "interacts", "other"})


def row_of(c: Curation) -> Row:
    """The judged row of curation ``c``'s sentence (offsets into the sentence, A first)."""
    s0 = c.sent_start
    head = (c.head_start - s0, c.head_end - s0, c.head_id)
    tail = (c.tail_start - s0, c.tail_end - s0, c.tail_id)
    a, b = (head, tail) if head[:2] <= tail[:2] else (tail, head)
    relation = RELATION.get(c.relation, "other")
    direction = "undirected" if relation in UNDIRECTED else ("A>B" if a is head else "B>A")
    return Row(
        row_id=stable_id(SOURCE, c.pmid, c.triple_id, c.sentence_md5),
        source=SOURCE,
        pmid=c.pmid,
        split=split_of(c.pmid),
        sentence=c.sentence,
        a_start=a[0],
        a_end=a[1],
        a_text=c.sentence[a[0] : a[1]],
        a_id=a[2],
        a_name=a[2],
        a_type="",
        b_start=b[0],
        b_end=b[1],
        b_text=c.sentence[b[0] : b[1]],
        b_id=b[2],
        b_name=b[2],
        b_type="",
        cand_relation=relation,
        cand_direction=direction,
        cand_status="asserted",
        flags="",
        stratum=f"{SOURCE}|{c.kg}|{c.snapshot_id}",
    )


def label_of(c: Curation, row: Row) -> dict[str, str]:
    """The judged labels a curation amounts to (the module docstring's table)."""
    if c.label == "states":
        return {"stated": "yes", "relation": row.cand_relation, "direction": row.cand_direction,
                "status": "asserted", "a_ok": "yes", "b_ok": "yes"}  # fmt: skip
    ok = "no" if c.label == "wrong_concept" else "yes"
    return {"stated": "no", "relation": "none", "direction": "none", "status": "none",
            "a_ok": ok, "b_ok": ok}  # fmt: skip


def judged_rows(curations: list[Curation]) -> tuple[list[Row], list[dict[str, str]]]:
    """(rows, judgments) of a curation log: each curator's latest reading of each sentence,
    round 1 for the first curator of a sentence, 2 for the second (later ones are left out:
    the judged format holds two rounds)."""
    latest: dict[tuple[str, str], Curation] = {}
    first_seen: dict[tuple[str, str], int] = {}
    for i, c in enumerate(curations):
        key = (stable_id(SOURCE, c.pmid, c.triple_id, c.sentence_md5), c.curator)
        latest[key] = c
        first_seen.setdefault(key, i)
    rows: dict[str, Row] = {}
    judgments: list[dict[str, str]] = []
    rounds: dict[str, int] = {}
    for key in sorted(latest, key=first_seen.__getitem__):
        c = latest[key]
        row = rows.setdefault(key[0], row_of(c))
        rounds[key[0]] = rounds.get(key[0], 0) + 1
        if rounds[key[0]] > 2:
            continue
        judgments.append({"row_id": row.row_id, "sheet": SHEET, "item": str(len(judgments) + 1),
                          "round": str(rounds[key[0]]), "judge": c.curator,
                          "guideline": c.guideline, "seed": "0", **label_of(c, row),
                          "note": c.note})  # fmt: skip
    return list(rows.values()), judgments


def write(folder: Path, curations: list[Curation]) -> dict[str, int]:
    """``rows.tsv`` and ``judgments.tsv`` of the curations into ``folder`` (created)."""
    rows, judgments = judged_rows(curations)
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "rows.tsv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(ROW_FIELDS)
        for r in rows:
            w.writerow([_cell(getattr(r, f)) for f in ROW_FIELDS])
    with (folder / "judgments.tsv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(JUDGMENT_COLUMNS)
        for j in judgments:
            w.writerow([_cell(j[c]) for c in JUDGMENT_COLUMNS])
    return {"rows": len(rows), "judgments": len(judgments)}


def _cell(value: object) -> str:
    """One TSV cell: tabs and line breaks (an abstract's) read as spaces, one for one, so the
    mentions' offsets still point at their words."""
    return str(value).translate(_BLANKS)


_BLANKS = str.maketrans({c: " " for c in "\t\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"})
