"""Draw the rows to judge: stratified by source, candidate relation and status, hard cases up.

A uniform sample of a DALK build is mostly ``associates`` co-mentions; the rare types
(``downregulates``, ``treats``), statuses (``negated``, ``hypothesis``) and the failure classes
of the blind audit (hedges, negations, methods sentences, a mention inside a longer term) would
get a handful of rows each. So each row is drawn with weight ``1/sqrt(stratum size)`` (square-root
allocation: rare strata gain, large ones still dominate) doubled when it shows a hard-case flag
(:func:`kgbuild.reader.rows.hard_flags`), by weighted sampling without replacement
(Efraimidis & Spirakis 2006, "Weighted random sampling with a reservoir", IPL 97(5): the ``n``
largest keys ``u ** (1 / w)``), seeded. Every row keeps its weight and stratum, so a figure over
a sample can be re-weighted to its population.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable

from kgbuild.reader.rows import Row

#: Extra weight of a row that shows a hard-case flag.
HARD_WEIGHT = 2.0
#: The flags that mark a hard case (direction words are in half the rows: not a case).
HARD_FLAGS = frozenset({"hedge", "negation", "methods", "embedded", "short"})


def stratum(row: Row) -> str:
    return f"{row.source}|{row.cand_relation or 'none'}|{row.cand_status or '-'}"


def draw(rows: Iterable[Row], n: int, seed: int) -> list[Row]:
    """``n`` rows, stratified and seeded (the same rows and seed give the same sample), each
    with its stratum, weight and seed set; one row per (PMID, sentence, mention pair)."""
    unique: dict[str, Row] = {}
    for row in rows:
        unique.setdefault(row.row_id, row)
    pool = sorted(unique.values(), key=lambda r: r.row_id)
    sizes = Counter(stratum(r) for r in pool)
    rng = random.Random(seed)
    keyed = []
    for row in pool:
        hard = any(f in HARD_FLAGS for f in row.flags.split(";"))
        w = (HARD_WEIGHT if hard else 1.0) / math.sqrt(sizes[stratum(row)])
        keyed.append((rng.random() ** (1.0 / w), row, w))
    keyed.sort(key=lambda t: -t[0])
    out = []
    for _, row, w in keyed[:n]:
        row.stratum, row.weight, row.seed = stratum(row), round(w, 6), seed
        out.append(row)
    return out
