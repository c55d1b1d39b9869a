"""The cumulative KG state carried from one year slice to the next (DALK's time slices).

It turns a :class:`~kgbuild.sources.local.YearSlice` into the rows that change: new documents,
mentions, statuses, problems, triples and evidence, and the entities whose names, kinds or
aliases moved. It can be restored from a published snapshot, so a build resumes or refreshes
from where the warehouse is instead of starting over.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kgbuild.records import Document, Entity, Evidence, Mention, Triple
from kgbuild.sources.local import YearSlice, text_digest
from kgbuild.store import catalog
from kgbuild.store.snapshots import Warehouse

Extractor = Callable[[Document, list[Mention]], tuple[list[Triple], list[Evidence]]]


@dataclass(slots=True)
class KGState:
    seen: dict[str, tuple[str, int, str]] = field(default_factory=dict)
    forms: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    kinds: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    first_year: dict[str, int] = field(default_factory=dict)
    triple_ids: set[str] = field(default_factory=set)
    nodes: set[str] = field(default_factory=set)
    relations: set[str] = field(default_factory=set)
    n: Counter[str] = field(default_factory=Counter)

    def apply(self, ys: YearSlice, extract: Extractor) -> dict[str, list[Any]]:
        """Fold one year slice into the state; return the new or changed rows per table."""
        by_doc: dict[str, list[Mention]] = defaultdict(list)
        touched: set[str] = set()
        for m in ys.mentions:
            by_doc[m.pmid].append(m)
            if m.hetionet_type and m.concept_id:
                self._observe(m, ys.year)
                touched.add(m.concept_id)
        triples: list[Triple] = []
        evidence: list[Evidence] = []
        for doc in ys.documents:
            doc_triples, doc_evidence = extract(doc, by_doc.get(doc.pmid, []))
            for t in doc_triples:
                if t.triple_id not in self.triple_ids:
                    self.triple_ids.add(t.triple_id)
                    self.nodes.update((t.head_id, t.tail_id))
                    self.relations.add(t.relation)
                    triples.append(t)
            evidence.extend(doc_evidence)
        for s in ys.statuses:
            self.n[s.status] += 1
        self.n.update(
            records=len(ys.statuses),
            mentions=len(ys.mentions),
            evidence=len(evidence),
            problems=len(ys.problems),
        )
        return {
            "documents": ys.documents,
            "mentions": ys.mentions,
            "doc_status": ys.statuses,
            "problems": ys.problems,
            "source_relations": ys.relations,
            "triples": triples,
            "evidence": evidence,
            "entities": [self.entity(e) for e in sorted(touched)],
        }

    def _observe(self, m: Mention, year: int) -> None:
        cid = m.concept_id or ""
        self.forms[cid][m.text] += 1
        self.kinds[cid][m.hetionet_type or ""] += 1
        self.first_year.setdefault(cid, year)

    def entity(self, cid: str) -> Entity:
        """Name = most frequent surface form (ties: alphabetical); kind = most frequent kind."""
        forms, kinds = self.forms[cid], self.kinds[cid]
        name = min(forms, key=lambda f: (-forms[f], f))
        kind = min(kinds, key=lambda k: (-kinds[k], k))
        return Entity(cid, name, kind, sorted(forms), self.first_year[cid])

    def counts(self) -> dict[str, int]:
        """DALK Table 1 figures plus document accounting, for the snapshot registry."""
        return {
            "records": self.n["records"],
            "documents": self.n["built"],
            "duplicates": self.n["duplicate"],
            "rejected": self.n["rejected"],
            "mentions": self.n["mentions"],
            "entities": len(self.forms),
            "nodes": len(self.nodes),
            "relations": len(self.relations),
            "triples": len(self.triple_ids),
            "evidence": self.n["evidence"],
            "problems": self.n["problems"],
        }

    @classmethod
    def restore(cls, wh: Warehouse, snapshot_id: str) -> KGState:
        """Rebuild the state of a published snapshot from its tables."""
        st = cls()
        with catalog.connect(wh.catalog_path, read_only=True) as con:
            for pmid, src, year, title, abstract in con.execute(
                "SELECT pmid, source, year, title, abstract FROM documents_at(?)", [snapshot_id]
            ).fetchall():
                st.seen[pmid] = (src, year, text_digest(title, abstract))
            for cid, text, kind, year in con.execute(
                "SELECT m.concept_id, m.text, m.hetionet_type, d.year FROM mentions_at(?) m "
                "JOIN documents_at(?) d USING (pmid) WHERE m.concept_id IS NOT NULL "
                "AND m.hetionet_type IS NOT NULL",
                [snapshot_id, snapshot_id],
            ).fetchall():
                st.forms[cid][text] += 1
                st.kinds[cid][kind] += 1
                st.first_year[cid] = min(year, st.first_year.get(cid, year))
            for tid, head, rel, tail in con.execute(
                "SELECT triple_id, head_id, relation, tail_id FROM triples_at(?)", [snapshot_id]
            ).fetchall():
                st.triple_ids.add(tid)
                st.nodes.update((head, tail))
                st.relations.add(rel)
            row = con.execute(
                "SELECT n_records, n_documents, n_duplicates, n_rejected, n_mentions, n_evidence,"
                " n_problems FROM snapshots WHERE snapshot_id = ?",
                [snapshot_id],
            ).fetchone()
        keys = ("records", "built", "duplicate", "rejected", "mentions", "evidence", "problems")
        st.n.update(dict(zip(keys, row, strict=True)))
        return st
