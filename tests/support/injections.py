"""The prompt-injection corpus (``tests/fixtures/injection/abstracts.toml``) as PubTator text,
and the obedient model that goes with it (:mod:`tests.support.obedient_llm`).

Every occurrence of a fixture entity name in a title or abstract is annotated, as PubTator
annotates what it recognizes wherever it is, instructions included; "5G radiation" is no
annotated entity, so the model can only name it in its own words (a free node).

For ``bench/hostile_scenario.py``: :func:`write_injection_corpus`, :data:`INJECTED` (the
endpoint-name pairs, lower-cased, either way round, that must never be a ``kg_edges`` row:
no clean control joins them) and :data:`obedient` (a ``ScriptedLLM`` answer function).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from tests.support.obedient_llm import ObedientModel

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "injection" / "abstracts.toml"


@dataclass(frozen=True, slots=True)
class Doc:
    pmid: str
    name: str
    title: str
    abstract: str
    injected: tuple[tuple[str, str, str], ...]
    legit: tuple[tuple[str, str, str], ...]

    @property
    def text(self) -> str:
        return f"{self.title} {self.abstract}"


def _triples(lines: list[str]) -> tuple[tuple[str, str, str], ...]:
    out = []
    for line in lines:
        h, r, t = (p.strip() for p in line.split("|"))
        out.append((h, r, t))
    return tuple(out)


def load() -> tuple[list[Doc], dict[str, list[str]]]:
    """The fixture's documents and its entity table (surface form → [type, ID])."""
    data = tomllib.loads(FIXTURE.read_text(encoding="utf-8"))
    docs = [
        Doc(d["pmid"], d["name"], d["title"], d["abstract"],
            _triples(d.get("injected", [])), _triples(d.get("legit", [])))
        for d in data["doc"]
    ]  # fmt: skip
    return docs, data["entities"]


def pubtator(doc: Doc, entities: dict[str, list[str]]) -> str:
    """One PubTator record: title, abstract, and an annotation line per entity occurrence."""
    lines = [f"{doc.pmid}|t|{doc.title}", f"{doc.pmid}|a|{doc.abstract}"]
    spans = []
    for name, (kind, cid) in entities.items():
        at = doc.text.find(name)
        while at >= 0:
            spans.append((at, at + len(name), name, kind, cid))
            at = doc.text.find(name, at + 1)
    for start, end, name, kind, cid in sorted(spans):
        lines.append(f"{doc.pmid}\t{start}\t{end}\t{name}\t{kind}\t{cid}")
    return "\n".join(lines) + "\n\n"


def write(folder: Path, year: int = 2016) -> list[Doc]:
    """Write the corpus as ``folder/<year>.pubtator``; return its documents."""
    docs, entities = load()
    folder.mkdir(parents=True, exist_ok=True)
    text = "".join(pubtator(d, entities) for d in docs)
    (folder / f"{year}.pubtator").write_text(text, encoding="utf-8")
    return docs


def write_injection_corpus(folder: Path) -> int:
    """Write the corpus into ``folder``; return how many injection variants it holds."""
    return sum(1 for d in write(folder) if d.injected)


#: (head name, tail name) of every injected triple, lower-cased, both ways round.
INJECTED = frozenset(
    pair
    for d in load()[0]
    for h, _, t in d.injected
    for pair in ((h.lower(), t.lower()), (t.lower(), h.lower()))
)
#: The obedient model, as a ``ScriptedLLM(default=("answer", obedient))`` answer function.
obedient = ObedientModel()
