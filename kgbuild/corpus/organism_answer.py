"""An organism question answered from the snapshot's catalog: the Species mentions of the
abstracts naming the question's entities (:mod:`kgbuild.store.species` reads them,
:mod:`kgbuild.corpus.organisms` ranks them), with a note saying how they were read.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from kgbuild.corpus.organism_kinds import Ask, read_ask
from kgbuild.corpus.organisms import MAX_ANSWERS, answer_dicts, ranked, readable, tally
from kgbuild.search.index import SnapshotIndex
from kgbuild.store.species import corpus_taxa, fetch


@dataclass(slots=True)
class OrganismAnswer:
    """The organisms answering a question, and how they were read."""

    answers: list[dict[str, Any]]
    note: str


def organism_answer(
    wh: Any, index: SnapshotIndex, question: str, anchors: list[int],
    as_of: int | None = None, limit: int = MAX_ANSWERS,
) -> OrganismAnswer:  # fmt: skip
    """The organisms answering ``question`` about the ``anchors`` nodes (module docstring),
    with a note saying how they were read."""
    ask = read_ask(question)
    taxa = corpus_taxa(wh, index.snapshot_id, as_of)
    ids = [str(index.nodes["id"][n]) for n in anchors]
    shown = ", ".join(str(index.nodes["display"][n]) for n in anchors) or "the corpus"
    allowed = sorted(c for c, t in taxa.kinds.items() if ask.takes(t))
    rows, df_anchor = fetch(wh, index.snapshot_id, ids, allowed, as_of) if allowed else ([], 0)
    ok = set(allowed)
    seen = tally(rows, set(ids), ok.__contains__, ask)
    order = ranked(seen, taxa.df, df_anchor if ids else taxa.n_docs, taxa.n_docs)
    names = {c: readable(c, taxa.kinds[c], taxa.forms.get(c, Counter())) for c in seen}
    answers = answer_dicts(seen, order, names, limit)
    return OrganismAnswer(answers, note(ask, shown, bool(answers)))


def note(ask: Ask, about: str, found: bool) -> str:
    """How the answers were read, in plain words."""
    where = f"sentences naming {about}" if about != "the corpus" else "the corpus's sentences"
    if ask.infection:
        where += " with an infection word near the organism (vectors and expression hosts left out)"
    elif ask.groups:
        where += " (vectors and expression hosts left out)"
    elif ask.model:
        where += " with a model word near the organism"
    out = (f"organisms are no KG entities: {ask.words()} read from PubTator's Species mentions "
           f"in {where}, ranked by specificity (NPMI with {about}; for the corpus's topic, "
           "how rarely the corpus names them) and abstracts; read from "
           "sentences, not KG facts")  # fmt: skip
    if ask.groups or ask.non_mammal:
        out += ("; which organisms are pathogens, animals or mammals comes from "
                "data/organisms.tsv (NCBI Taxonomy lineage is not available offline): an "
                "organism it does not list, whose name does not say so, is left out")  # fmt: skip
    if not found:
        out += f"; none found for {about}"
    return out
