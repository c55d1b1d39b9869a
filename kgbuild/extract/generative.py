"""Generative extraction (DALK §3.1, Table 8): one LLM call per abstract lists every triple.

The prompt gives the abstract, the annotated entities with their aliases and the Hetionet
relation list, and allows a new predicate. Each answered triple is grounded to the document's
mentions and passes the hallucination guard (:mod:`kgbuild.extract.claims`) or is rejected with
a reason.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from kgbuild.extract import prompts
from kgbuild.extract.base import Ask, LLMExtractor
from kgbuild.extract.claims import DocClaims
from kgbuild.extract.parse import parse_triples
from kgbuild.llm.client import LLMClient
from kgbuild.names import by_frequency
from kgbuild.records import Document, Mention


def entity_lines(mentions: list[Mention]) -> str:
    """One line per annotated KG concept: its most frequent name, kind, and other names."""
    forms: dict[str, Counter[str]] = defaultdict(Counter)
    kinds: dict[str, str] = {}
    for m in mentions:
        if m.concept_id and m.hetionet_type:
            forms[m.concept_id][m.text] += 1
            kinds.setdefault(m.concept_id, m.hetionet_type)
    lines = []
    for cid in sorted(forms, key=lambda c: (-sum(forms[c].values()), c)):
        names = by_frequency(forms[cid])
        also = f"; also: {', '.join(names[1:])}" if len(names) > 1 else ""
        lines.append(f"- {names[0]} [{kinds[cid]}]{also}")
    return "\n".join(lines) or "(none annotated)"


class GenerativeExtractor(LLMExtractor):
    method = "generative"
    extractor = "kgbuild.generative/1"
    expected_completion_tokens = 250

    def __init__(self, client: LLMClient) -> None:
        super().__init__(client, prompts.load("generative"))

    def plan(self, doc: Document, mentions: list[Mention]) -> list[Ask]:
        messages = self.prompt.messages(
            title=doc.title, abstract=doc.abstract, entities=entity_lines(mentions)
        )
        return [Ask(self.request(messages, doc.pmid))]

    def read(self, ask: Ask, content: str, claims: DocClaims) -> str:
        parsed = parse_triples(content)
        for t in parsed.triples:
            claims.add_named(t.head, t.relation, t.tail)
        if parsed.problem and not parsed.triples:
            claims.reject("", "", "", f"unparseable answer: {content[:200]!r}")
        return parsed.problem
