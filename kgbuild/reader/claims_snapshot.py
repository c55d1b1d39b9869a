"""The LLM claim reader (:mod:`kgbuild.belief.claims_llm`) run over a whole stored snapshot:
its candidates fetched from the catalog, then read, or only priced.

Apart from the reader itself because it opens the warehouse: what a sentence states is a
judgment (the belief room, below the store); which sentences a snapshot holds is read here.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from kgbuild.belief.claims_llm import (
    ANSWER_TOKENS,
    Question,
    ReadEstimate,
    SnapshotReading,
    read_claims,
    request,
)
from kgbuild.belief.snapshot_claims import ConflictFilters, candidates_sql
from kgbuild.llm.client import LLMClient
from kgbuild.llm.tokens import estimate_tokens
from kgbuild.store import catalog


def _questions(catalog_path: Path, sid: str, filters: ConflictFilters) -> tuple[pa.Table, list]:
    """The candidates of snapshot ``sid`` (fetched on a short read-only connection, closed on
    return) and the distinct (sentence, a0, a1, b0, b1) questions they raise, sorted."""
    with catalog.connect(catalog_path, read_only=True) as con:
        candidates = con.sql(candidates_sql("$sid", filters), params={"sid": sid}).to_arrow_table()
    cols = [candidates.column(c).to_pylist() for c in ("sentence", "a0", "a1", "b0", "b1")]
    return candidates, sorted(set(zip(*cols, strict=True)))


def estimate_snapshot(
    catalog_path: Path, sid: str, filters: ConflictFilters, client: LLMClient
) -> ReadEstimate:
    """What :func:`read_snapshot` would send for ``sid``: nothing is sent (the cache is only
    looked up)."""
    _, units = _questions(catalog_path, sid, filters)
    est = ReadEstimate(client.settings.model, questions=len(units))
    for s, a0, a1, b0, b1 in units:
        req = request(Question(s, (a0, a1), (b0, b1)))
        if req is None:
            est.skipped += 1
        elif client.cached(req) is not None:
            est.cached += 1
        else:
            est.calls += 1
            est.prompt_tokens += sum(estimate_tokens(m["content"]) for m in req.messages)
            est.completion_tokens += ANSWER_TOKENS
    if client.settings.price() != (0.0, 0.0):
        est.cost_usd = round(client.cost(est.prompt_tokens, est.completion_tokens), 4)
    return est


def read_snapshot(
    catalog_path: Path, sid: str, filters: ConflictFilters, client: LLMClient
) -> SnapshotReading:
    """Read every candidate of snapshot ``sid`` (:func:`candidates_sql`) with the LLM.

    The candidates are fetched on a short read-only connection that is closed before the
    first call: a first reading of a corpus is tens of thousands of calls (24,562 questions
    on the DALK build), and a catalog held open that long would keep a scheduled build from
    publishing. Questions go out in a fixed order (sorted), one per distinct sentence and
    mention pair."""
    candidates, units = _questions(catalog_path, sid, filters)
    claims, stats = read_claims(client, [Question(s, (a0, a1), (b0, b1)) for s, a0, a1, b0, b1
                                         in units])  # fmt: skip
    read = [(*u, c.polarity, 1 if c.subject == "a" else 2, c.symmetric)
            for u, c in zip(units, claims, strict=True) if c is not None]  # fmt: skip
    names = ("sentence", "a0", "a1", "b0", "b1", "polarity", "subject_pos", "is_symmetric")
    types = (pa.string(), pa.int64(), pa.int64(), pa.int64(), pa.int64(), pa.string(),
             pa.int32(), pa.bool_())  # fmt: skip
    columns = list(zip(*read, strict=True)) if read else [()] * len(names)
    readings = pa.table(
        [pa.array(list(v), type=t) for v, t in zip(columns, types, strict=True)], names=names
    )
    return SnapshotReading(candidates, readings, stats)
