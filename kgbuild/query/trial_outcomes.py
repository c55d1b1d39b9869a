"""A yes/no verdict on whether an intervention helped people, from what the abstracts naming it
report of studies in people (:mod:`kgbuild.corpus.trial_outcomes`), when the facts cannot say:
a failed trial states no relation between two entities, so no fact is made of it.
"""

from __future__ import annotations

from typing import Any

from kgbuild.corpus.trial_outcomes import ASKS_PEOPLE, asks_trial, read_outcomes
from kgbuild.query.verdict import decide
from kgbuild.query.verdict_sentences import UNDECIDED, Side, fetch

#: Sentences shown as the verdict's evidence.
MAX_SHOWN = 5
#: Abstracts reporting an outcome needed to replace a verdict the facts decided.
OVERRIDE_PMIDS = 2


def trial_verdict(wh: Any, index: Any, question: str, base: dict[str, Any] | None,
                  nodes: list[int], asked: list[str],
                  as_of: int | None = None) -> dict[str, Any] | None:  # fmt: skip
    """``base`` (the verdict so far), or what the abstracts report of the question's
    intervention in people when it asks whether the intervention helps: in place of an
    undecided verdict, and of a decided one when the question asks about people and
    :data:`OVERRIDE_PMIDS` abstracts or more report an outcome."""
    kinds = index.nodes["type"]
    drugs = [n for n in nodes if str(kinds[n]) == "Compound"]
    if not drugs or not asks_trial(question, asked):
        return base
    undecided = base is None or base.get("answer") in UNDECIDED
    people = ASKS_PEOPLE.search(question) is not None
    if not (undecided or people):
        return base
    drug = drugs[0]
    name, cid = str(index.nodes["display"][drug]), str(index.nodes["id"][drug])
    rows = fetch(wh, index.snapshot_id, [Side(name, ids=(cid,), kind="Compound")], [], as_of)
    by_pmid, shown = read_outcomes(rows)  # newest first, at most the sentence verdict's MAX_DOCS
    if not by_pmid or (not undecided and len(by_pmid) < OVERRIDE_PMIDS):
        return base
    yes = {p for p, r in by_pmid.items() if r == "benefit"}
    no = {p for p, r in by_pmid.items() if r == "no benefit"}
    answer = decide(len(yes), len(no), len(rows))
    line = (f"{answer} (from trial and patient studies: of {len(rows)} abstracts naming "
            f"{name}, {len(no)} report no benefit in people, {len(yes)} a benefit; "
            "read from sentences, not extracted as facts)")  # fmt: skip
    if base is not None and not undecided:
        line += f"; the extracted facts alone said {base.get('answer')}"
    # each reading's newest sentences first, the majority's first
    first = "no" if len(no) >= len(yes) else "yes"
    shown.sort(key=lambda x: x["reading"] != first)
    out = dict(base or {})
    out.update(basis="sentences", answer=answer, line=line, sentences=shown[:MAX_SHOWN],
               sentence_counts={"sentences": len(shown), "abstracts": len(rows),
                                "yes": len(yes), "no": len(no), "hedged": 0,
                                "yes_animal_only": 0},
               pmids=(sorted(no) + sorted(yes))[:10], names=[name])  # fmt: skip
    out.setdefault("predicate", "helps in people")
    return out
