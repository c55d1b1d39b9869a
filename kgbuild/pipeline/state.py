"""The cumulative KG state carried from one year slice to the next (DALK's time slices).

It turns a :class:`~kgbuild.sources.local.YearSlice` into the rows that change: new documents,
mentions, statuses, problems, triples and evidence, and the entities whose names, kinds or
aliases moved. It can be restored from a published snapshot, so a build resumes or refreshes
from where the warehouse is instead of starting over.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from kgbuild.extract.base import SliceExtractor
from kgbuild.names import most_frequent
from kgbuild.records import Entity, Mention, Resolution, SnapshotCounts, Triple
from kgbuild.resolve.entities import Resolver
from kgbuild.resolve.merge import resolve_slice
from kgbuild.resolve.mislinked import unlink_slice
from kgbuild.resolve.naming import form_owners, node_name
from kgbuild.resolve.vocab import reference
from kgbuild.sources.local import YearSlice, text_digest
from kgbuild.store import catalog
from kgbuild.store.snapshots import Warehouse

#: Extraction figures summed over the lineage and recorded in every manifest's counts.
_EXTRACTION_COUNTS = (
    "extraction_done",
    "extraction_partial",
    "extraction_failed",
    "rejections",
    "llm_calls",
    "llm_prompt_tokens",
    "llm_completion_tokens",
)


@dataclass(slots=True)
class KGState:
    seen: dict[str, tuple[str, int, str]] = field(default_factory=dict)
    forms: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    kinds: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    first_year: dict[str, int] = field(default_factory=dict)
    triple_ids: set[str] = field(default_factory=set)
    nodes: set[str] = field(default_factory=set)
    relations: set[str] = field(default_factory=set)
    #: Free-text nodes left after resolution (cluster representatives): id → every surface form
    #: merged into it; named by the first in sorted order, so a state restored from a snapshot
    #: names them as an unbroken build did.
    free: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    resolver: Resolver = field(default_factory=Resolver)
    n: Counter[str] = field(default_factory=Counter)
    cost_usd: float = 0.0
    #: Frequent surface form → the concept owning it, refreshed every slice (node naming).
    _owners: dict[str, tuple[str, str]] = field(default_factory=dict)

    def apply(self, ys: YearSlice, extractor: SliceExtractor) -> dict[str, list[Any]]:
        """Fold one year slice into the state; return the new or changed rows per table."""
        ys = unlink_slice(ys)  # annotator IDs checked against their surface forms (issue 16)
        by_doc: dict[str, list[Mention]] = defaultdict(list)
        touched: set[str] = set()
        for m in ys.mentions:
            by_doc[m.pmid].append(m)
            if m.hetionet_type and m.concept_id:
                self._observe(m, ys.year)
                touched.add(m.concept_id)
        result = extractor.extract(ys.documents, by_doc)
        self.resolver.observe_abbreviations((a.short, a.long) for a in result.abbreviations)
        resolved = resolve_slice(result, self.resolver, self.kind_of, ys.year)
        triples: list[Triple] = []
        for t in resolved.triples:
            if t.triple_id not in self.triple_ids:
                self.triple_ids.add(t.triple_id)
                self.nodes.update((t.head_id, t.tail_id))
                self.relations.add(t.relation)
                triples.append(t)
        free_changed = self._observe_free(resolved.resolutions)
        rejections = result.rejections + resolved.rejections
        self._owners = form_owners(self.forms, {c: self.kind_of(c) or "" for c in self.forms})
        for s in ys.statuses:
            self.n[s.status] += 1
        for x in result.statuses:
            self.n[f"extraction_{x.status}"] += 1
        self.n.update(
            records=len(ys.statuses),
            mentions=len(ys.mentions),
            evidence=len(resolved.evidence),
            problems=len(ys.problems),
            rejections=len(rejections),
            llm_calls=len(result.calls),
            llm_prompt_tokens=sum(c.prompt_tokens for c in result.calls),
            llm_completion_tokens=sum(c.completion_tokens for c in result.calls),
        )
        self.cost_usd += sum(c.cost_usd for c in result.calls)
        return {
            "documents": ys.documents,
            "mentions": ys.mentions,
            "doc_status": ys.statuses,
            "problems": ys.problems,
            "source_relations": ys.relations,
            "triples": triples,
            "evidence": resolved.evidence,
            "extraction_status": result.statuses,
            "rejections": rejections,
            "llm_calls": result.calls,
            "resolutions": resolved.resolutions,
            "abbreviations": result.abbreviations,
            "entities": [self.entity(e) for e in sorted(touched)]
            + [self.free_entity(e) for e in sorted(free_changed)],
        }

    def _observe(self, m: Mention, year: int) -> None:
        cid = m.concept_id or ""
        self.forms[cid][m.text] += 1
        self.kinds[cid][m.hetionet_type or ""] += 1
        self.first_year.setdefault(cid, year)
        self.resolver.observe_form(m.text, cid, m.hetionet_type or "")

    def _observe_free(self, decisions: list[Resolution]) -> list[str]:
        """Record new resolution decisions; return the free nodes whose rows changed."""
        changed = []
        for r in decisions:
            if r.merged_into.startswith("free:"):
                self.first_year.setdefault(r.merged_into, r.year)
                if r.name not in self.free[r.merged_into]:
                    self.free[r.merged_into].add(r.name)
                    changed.append(r.merged_into)
        return sorted(set(changed))

    def kind_of(self, node_id: str) -> str | None:
        """A concept's most frequent Hetionet kind; None for free-text nodes."""
        kinds = self.kinds.get(node_id)
        return most_frequent(kinds) if kinds else None

    # ---- node naming (issue 16: preferred name, never another concept's form) -------------
    def entity(self, cid: str) -> Entity:
        """Name by :func:`kgbuild.resolve.naming.node_name`; kind = most frequent kind."""
        forms, kinds = self.forms[cid], self.kinds[cid]
        kind = most_frequent(kinds)
        name = node_name(cid, forms, kind, self._owners, reference())
        return Entity(cid, name, kind, sorted(forms), self.first_year[cid])

    def free_entity(self, node_id: str) -> Entity:
        forms = sorted(self.free[node_id])
        return Entity(node_id, forms[0], "", forms, self.first_year[node_id])

    def counts(self) -> SnapshotCounts:
        """DALK Table 1 figures plus document accounting, for the snapshot registry."""
        return SnapshotCounts(
            records=self.n["records"],
            documents=self.n["built"],
            duplicates=self.n["duplicate"],
            rejected=self.n["rejected"],
            mentions=self.n["mentions"],
            entities=len(self.forms) + len(self.free),
            nodes=len(self.nodes),
            relations=len(self.relations),
            triples=len(self.triple_ids),
            evidence=self.n["evidence"],
            problems=self.n["problems"],
            **{k: self.n[k] for k in _EXTRACTION_COUNTS},
            llm_cost_usd=round(self.cost_usd, 6),
        )

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
                st.resolver.observe_form(text, cid, kind)
                st.first_year[cid] = min(year, st.first_year.get(cid, year))
            for tid, head, rel, tail in con.execute(
                "SELECT triple_id, head_id, relation, tail_id FROM triples_at(?)", [snapshot_id]
            ).fetchall():
                st.triple_ids.add(tid)
                st.nodes.update((head, tail))
                st.relations.add(rel)
            for nid, aliases, year in con.execute(
                "SELECT id, aliases, first_year FROM entities_at(?) WHERE id LIKE 'free:%'",
                [snapshot_id],
            ).fetchall():
                st.free[nid].update(aliases)
                st.first_year[nid] = year
            for row in con.execute(
                "SELECT node_id, name, merged_into, method, score, year FROM resolutions_at(?)",
                [snapshot_id],
            ).fetchall():
                st.resolver.remember(Resolution(*row))
            st.resolver.observe_abbreviations(
                con.execute(
                    "SELECT short, long FROM abbreviations_at(?)", [snapshot_id]
                ).fetchall(),
            )
        counts = SnapshotCounts.from_dict(wh.manifest(snapshot_id)["counts"])
        renamed = {"documents": "built", "duplicates": "duplicate", "rejected": "rejected"}
        for key in ("records", "mentions", "evidence", "problems", *_EXTRACTION_COUNTS, *renamed):
            st.n[renamed.get(key, key)] = getattr(counts, key)
        st.cost_usd = counts.llm_cost_usd
        return st
