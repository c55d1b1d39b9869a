"""What the phrase rule (:mod:`kgbuild.corpus.phrase_tags`) does to dictionary links, against
curated mentions.

The gold file's abstracts are built with their relation lines hidden (``kgbuild eval facts``
does the same), so the snapshot's mentions are the curators' own. Each sentence is then linked
as a question is, by the dictionary linker ``ask`` uses. A link is right when a gold mention
overlapping it carries a concept that resolves to the same node, and wrong otherwise (a word
the curators did not annotate, or annotated as something else). The rule is applied to the
sentence's links with the snapshot's counts. Figures, before → after: links, right, wrong,
precision; how many phrases were common enough to be judged; and the right links the rule
removed (a check that removes correct curated annotations is a defect, however many wrong
ones it catches), with examples of each kind.

With ``--counts-from WH`` the counts come from another warehouse's abstracts (the DALK build:
9,764 abstracts, where the rule has phrases common enough to judge), the links from the gold
file's own: would the rule, with a large corpus's counts, remove links the curators made?

    python -m kgbuild.evaluate.phrase_links FILE [--work DIR] [--show N] [--counts-from WH]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from kgbuild.corpus.documents import doc_sentences
from kgbuild.corpus.phrase_tags import MIN_PHRASE, MIN_TAGS, untagged_phrases
from kgbuild.evaluate.facts import _read, build_hidden, hide_relations


def score_file(gold_path: Path, work: Path, show: int = 10,
               counts_from: Path | None = None) -> dict[str, Any]:  # fmt: skip
    """The module docstring's figures for one gold file; ``counts_from``: a warehouse whose
    latest snapshot's abstracts give the counts instead (a larger corpus)."""
    from kgbuild.query.engine import QueryEngine
    from kgbuild.store.snapshots import Warehouse

    gold = _read(gold_path)
    wh_path = work / "warehouse"
    if not (wh_path / "kg.duckdb").exists():
        build_hidden(hide_relations(gold_path, gold.fmt, work / "build-input"), wh_path)
    engine = QueryEngine(wh_path, embeddings=False)
    st = engine.state()
    index, linker = st.index, st.linker
    counts_wh, counts_sid = engine.wh, index.snapshot_id
    if counts_from is not None:
        counts_wh = Warehouse(counts_from)
        counts_sid = counts_wh.resolve("latest")
    before = {"links": 0, "right": 0, "wrong": 0}
    after = dict(before)
    judged = 0  # phrases common enough to be judged
    lost: list[dict[str, Any]] = []
    caught: list[dict[str, Any]] = []
    for d in gold.documents:
        ms = [(m.concept_id, m.start, m.end) for m in gold.mentions.get(d.pmid, [])
              if m.concept_id]  # fmt: skip
        for s in doc_sentences(d.pmid, 0, d.title, d.abstract, ms):
            links, _ = linker.dictionary(s.text, "question")
            links = [x for x in links if x.node is not None]
            if not links:
                continue

            def right(x: Any, s: Any = s) -> bool:
                return any(a < x.end and x.start < b and index.node_of.get(c) == x.node
                           for c, a, b in s.mentions)  # fmt: skip

            kept, _, seen = untagged_phrases(counts_wh, counts_sid, s.text, links)
            judged += sum(1 for j in seen if j["in"][1] >= MIN_PHRASE
                          and j["all"][0] - j["in"][0] >= MIN_TAGS)  # fmt: skip
            for tally, ls in ((before, links), (after, kept)):
                for x in ls:
                    ok = right(x)
                    tally["links"] += 1
                    tally["right" if ok else "wrong"] += 1
            for x in links:
                if x in kept:
                    continue
                row = {"pmid": d.pmid, "word": s.text[x.start : x.end], "concept": x.curie,
                       "sentence": s.text[:200]}  # fmt: skip
                (lost if right(x) else caught).append(row)
    for t in (before, after):
        t["precision"] = round(t["right"] / t["links"], 4) if t["links"] else None
    return {"gold": str(gold_path), "counts_from": str(counts_from or wh_path),
            "documents": len(gold.documents), "judged": judged,
            "before": before,
            "after": after, "right_removed": len(lost), "wrong_removed": len(caught),
            "right_removed_examples": lost[:show],
            "wrong_removed_examples": caught[:show]}  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("gold", type=Path)
    p.add_argument("--work", type=Path, help="keep the hidden build here (default: beside /tmp)")
    p.add_argument("--show", type=int, default=10)
    p.add_argument(
        "--counts-from",
        type=Path,
        help="a warehouse whose abstracts give the counts (default: the gold's own)",
    )
    a = p.parse_args(argv)
    work = a.work or Path("/tmp") / f"phrase-links-{a.gold.stem}"
    report = score_file(a.gold, work, a.show, a.counts_from)
    print(json.dumps(report, indent=1))
    keys = ("gold", "counts_from", "judged", "before", "after", "right_removed", "wrong_removed")
    print(json.dumps({k: report[k] for k in keys}))


if __name__ == "__main__":
    main()
