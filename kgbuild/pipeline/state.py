"""The cumulative KG state carried from one year slice to the next (DALK's time slices).

It turns a :class:`~kgbuild.sources.local.YearSlice` into the rows that change: new documents,
mentions, statuses, problems, triples and evidence, and the entities whose names, kinds or
aliases moved. It can be restored from a published snapshot, so a build resumes or refreshes
from where the warehouse is instead of starting over.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from kgbuild.names import clean_alias, most_frequent
from kgbuild.records import Entity, Mention, Resolution, SnapshotCounts
from kgbuild.resolve.entities import Resolver
from kgbuild.resolve.idcheck import spreads
from kgbuild.resolve.junk import is_junk_alias
from kgbuild.resolve.naming import display_name, node_name
from kgbuild.resolve.orthologs import TALLY_SQL, tally_forms, tally_rows
from kgbuild.resolve.vocab import reference
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
    #: Non-human gene ID → form → stored mentions so far: the ortholog vote reads it, so an ID's
    #: human gene is decided on the corpus up to the batch at hand, the same in a build run in
    #: one go and in one resumed from a snapshot (:mod:`kgbuild.resolve.orthologs`).
    gene_forms: dict[str, Counter[str]] = field(default_factory=dict)
    #: Frequent surface form → the concept owning it, refreshed every slice (node naming).
    _owners: dict[str, tuple[str, str]] = field(default_factory=dict)

    def _observe(self, m: Mention, year: int) -> None:
        cid = m.concept_id or ""
        self.forms[cid][m.text] += 1
        self.kinds[cid][m.hetionet_type or ""] += 1
        self.first_year.setdefault(cid, year)
        if spreads(m.id_check):  # only forms that passed the vocabulary check
            self.resolver.observe_form(m.text, cid, m.hetionet_type or "")

    def observe_gene_forms(self, mentions: list[Mention]) -> None:
        """Add a batch's stored mentions to the ortholog vote's tally (:attr:`gene_forms`)."""
        tally_forms(mentions, self.gene_forms)

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

    # ---- node naming (preferred name, never another concept's form) -----------------------
    def entity(self, cid: str) -> Entity:
        """Name by :func:`kgbuild.resolve.naming.node_name`; kind = most frequent kind."""
        forms, kinds = self.forms[cid], self.kinds[cid]
        kind = most_frequent(kinds)
        name = node_name(cid, forms, kind, self._owners, reference())
        # no "X and Y" (names no one concept); shown cleaned ('"amyloid-beta' → "amyloid-beta")
        aliases = sorted({clean_alias(f) for f in forms if not is_junk_alias(f)} - {""})
        return Entity(cid, name, kind, aliases, self.first_year[cid], display_name(cid, name))

    def free_entity(self, node_id: str) -> Entity:
        forms = sorted(self.free[node_id])
        # aliases as written: a resumed build reads them back as the node's forms (restore)
        shown = sorted(c for c in map(clean_alias, forms) if c)  # never '"amyloid-beta'
        return Entity(node_id, forms[0], "", forms, self.first_year[node_id],
                      shown[0] if shown else forms[0])  # fmt: skip

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
            # One row per (concept, form, kind), in order of first mention: the state is the KG's
            # size, not the corpus's (bounded memory), and observes forms in the order a build did.
            for cid, text, kind, n, year, n_alias in con.execute(
                "SELECT concept_id, text, hetionet_type, count(*), min(year),"
                "  count(*) FILTER (WHERE spreads) FROM ("
                "  SELECT m.concept_id, m.text, m.hetionet_type, d.year, m.seq,"
                "    coalesce(m.id_check, '') = '' OR m.id_check LIKE '%:kept'"
                "    OR m.id_check LIKE 'none:%' AS spreads FROM ("
                "    SELECT *, row_number() OVER () AS seq FROM mentions_at(?)"
                "    WHERE concept_id IS NOT NULL AND hetionet_type IS NOT NULL) m"
                "  JOIN documents_at(?) d USING (pmid)"
                ") GROUP BY concept_id, text, hetionet_type ORDER BY min(seq)",
                [snapshot_id, snapshot_id],
            ).fetchall():
                st.forms[cid][text] += n
                st.kinds[cid][kind] += n
                if n_alias:  # idcheck.spreads, in SQL
                    st.resolver.observe_form(text, cid, kind, n_alias)
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
            st.gene_forms = tally_rows(con.execute(TALLY_SQL, [snapshot_id]).fetchall())
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
