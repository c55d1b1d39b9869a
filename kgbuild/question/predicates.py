"""What states the relation a yes/no question asks: KG relations and sentence cues, per asked
relation (``data/yes_no_predicates.tsv``).

"Is neurofilament light a biomarker of AD?" is answered yes by a served row whose relation is
``biomarker_of``, and also by an ``associates`` row whose sentence says "plasma NfL … associated
with AD diagnosis": BioRED annotates biomarkers as Association (Luo et al. 2022), so the relation
alone is too weak and the sentence's words decide. "Is NF-kB activated by Abeta?" is answered
by ``upregulates``, or by ``regulates`` with "increases"/"activates" in the sentence; a
``downregulates`` row states the opposite (BioRED's Positive vs Negative_Correlation). The
vocabulary grows by rows of the table, not by code.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import cache

from kgbuild.schema import data_dir

PREDICATES_TSV = "yes_no_predicates.tsv"


@dataclass(frozen=True, slots=True)
class Predicate:
    """One asked relation: the KG relations and sentence cues that state it or its opposite."""

    asked: str
    states: frozenset[str]
    cued: frozenset[str]
    cues: re.Pattern[str]
    opposite: frozenset[str]
    #: Words that make a cued row state the opposite ("reduced" against "increases"), if any.
    against: re.Pattern[str] | None
    says: str

    def reading(self, relation: str, sentence: str) -> str | None:
        """ "yes" when a served row of ``relation`` with ``sentence`` states the predicate, "no"
        when it states the opposite, None when it states neither (a co-mention, another
        relation, an association whose sentence carries no cue)."""
        if relation in self.states:
            return "yes"
        if relation in self.opposite:
            return "no"
        if relation not in self.cued:
            return None
        return self.cue_side(sentence)

    def cue_side(self, text: str) -> str | None:
        """ "yes" when ``text`` carries a cue of the predicate, "no" when it carries one of its
        opposite, None for both or neither. A cue inside a longer cue of the other side is
        that phrase's word, not a cue of its own: in "statins reduced the risk of AD", "risk"
        (the risk factor's cue) belongs to "reduced the risk", which says the opposite."""
        pro = [m.span() for m in self.cues.finditer(text)]
        con = [m.span() for m in self.against.finditer(text)] if self.against else []
        pro_own = [p for p in pro if not any(_inside(p, c) for c in con)]
        con_own = [c for c in con if not any(_inside(c, p) for p in pro)]
        return None if bool(pro_own) == bool(con_own) else "yes" if pro_own else "no"


def _inside(span: tuple[int, int], other: tuple[int, int]) -> bool:
    """Is ``span`` within ``other`` and shorter (a word of a longer phrase)?"""
    return other[0] <= span[0] and span[1] <= other[1] and span != other


#: A cue after a hyphen counts ("Abeta-induced"); one running on into a word does not.
_CUE = r"(?<!\w)(?:{})(?![\w-])"


def _split(cell: str) -> frozenset[str]:
    return frozenset(x.strip() for x in cell.split(",") if x.strip() and x.strip() != "-")


@cache
def predicates() -> dict[str, Predicate]:
    """The table, compiled once per process: asked relation → :class:`Predicate`."""
    with open(data_dir() / PREDICATES_TSV, encoding="utf-8", newline="") as fh:
        lines = [x for x in fh if x.strip() and not x.startswith("#")]
    out: dict[str, Predicate] = {}
    for r in csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE):
        cues = re.compile(_CUE.format(r["cues"]), re.IGNORECASE)
        con = r["opposite_cues"].strip()
        against = re.compile(_CUE.format(con), re.IGNORECASE) if con not in ("", "-") else None
        out[r["asked"]] = Predicate(r["asked"], _split(r["states"]), _split(r["cued"]), cues,
                                    _split(r["opposite"]), against, r["says"])  # fmt: skip
    return out


def predicate_for(asked: list[str]) -> Predicate:
    """The predicate a question asks: its asked relations joined ("reduce the risk of" reads
    as ``downregulates`` and ``risk_factor``: a row of its own), else the first asked relation
    with a row, else "is associated with" (a yes/no question naming no relation asks whether
    the two are related at all)."""
    table = predicates()
    joined = "+".join(sorted(set(asked)))
    if joined in table:
        return table[joined]
    return next((table[a] for a in asked if a in table), table["associates"])
