"""The query engine: a snapshot held in memory, retrieval for one question, and reloading.

:class:`QueryEngine` resolves a snapshot reference (``latest``, an id, ``KG@YEAR``), opens its
index (:mod:`kgbuild.search.index`) and answers :meth:`~QueryEngine.retrieve` calls from memory.
It never keeps a DuckDB connection: each catalog read opens and closes one. A reference that can
move (``latest``, ``KG@YEAR``) is re-resolved when the catalog file changed — checked with one
``stat`` at most every :data:`REFRESH_S` seconds — so a long-lived process serves a newly
published snapshot without a restart; requests already running finish on the one they began
with (each takes the engine's state once).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from kgbuild.corpus.acronyms import acronym_spans, cut_spans, defined_as, question_definitions
from kgbuild.corpus.answer_sentences import ABSTRACTS_READ as SENTENCE_ABSTRACTS
from kgbuild.corpus.answer_sentences import read_abstracts
from kgbuild.corpus.choice_reading import facts_decide, read_choices
from kgbuild.corpus.organism_answer import organism_answer
from kgbuild.corpus.organism_kinds import heads_wh
from kgbuild.corpus.passages import (
    ABSTRACTS_READ,
    ABSTRACTS_SHOWN,
    MIN_COVER,
    choice_from_abstracts,
    passages,
)
from kgbuild.corpus.phrase_tags import untagged_phrases
from kgbuild.errors import ConfigError, InputError
from kgbuild.link.linker import EMBED_MODES, Link, Linker, unique_nodes
from kgbuild.query.asked_relation import relation_terms
from kgbuild.query.choices import (
    W_GRAPH,
    asks_for_exception,
    kg_answer,
    score_choices,
    sentence_dict,
)
from kgbuild.query.context import build_context
from kgbuild.query.context_answer import context_answer
from kgbuild.query.entity_sentences import entity_sentences, subject_node
from kgbuild.query.explanation import asks_direction, asks_list, explanation, replaceable
from kgbuild.query.explore import HUB_DEGREE, NEIGHBOUR_CAP, Filters, edge_mask, explore
from kgbuild.query.focus import anchored, focus_note, focused_answers, read_focus
from kgbuild.query.how_pair import how_pair, how_pair_nodes
from kgbuild.query.limits import (
    DEFAULT_K,
    DEFAULT_TOKEN_BUDGET,
)
from kgbuild.query.microrna_partners import without_micrornas
from kgbuild.query.phrase_answer import phrase_answer
from kgbuild.query.rank import rank_paths, rank_triples
from kgbuild.query.retrieval import Retrieval, Timer, filters_dict, path_dict, validate
from kgbuild.query.trial_outcomes import trial_verdict
from kgbuild.query.verdict import pair_verdict
from kgbuild.query.verdict_abstracts import abstract_verdict
from kgbuild.query.verdict_open import open_verdict
from kgbuild.query.verdict_sentences import sentence_verdict
from kgbuild.question.context_words import context_qualifiers
from kgbuild.question.intent import Intent, infer_answer_type, read_intent, understood, yes_no_pair
from kgbuild.question.kinds import absent, for_anchors
from kgbuild.question.predicates import predicate_for
from kgbuild.search.flight import Flights
from kgbuild.search.graph import Graph
from kgbuild.search.index import SnapshotIndex, index_dir_for, open_index
from kgbuild.search.sentences import SENTENCES_PER_CHOICE, SentenceIndex, terms
from kgbuild.settings import warehouse_path
from kgbuild.store.curations import digest as curation_digest
from kgbuild.store.snapshots import Warehouse

log = logging.getLogger("kgbuild.query")
#: Acronym readings kept per engine (each costs one catalog query of ~50 ms on DALK).
MAX_ACRONYMS = 4096
#: Seconds between two checks of the catalog for a newer snapshot.
REFRESH_S = 1.0
#: Linked nodes explored per question and per choice (WTS keeps ≤ 5 LLM-named question
#: entities; a dictionary finds more, so the first 8 mentioned are kept).
MAX_QUESTION_NODES = 8
MAX_CHOICE_NODES = 3


@dataclass(slots=True)
class _State:
    """One opened snapshot; replaced whole on reload, never mutated after (but its caches)."""

    index: SnapshotIndex
    linker: Linker
    graphs: dict[Filters, tuple[Graph, np.ndarray]] = field(default_factory=dict)
    sentence_masks: dict[Filters, np.ndarray] = field(default_factory=dict)
    #: The same snapshot over every evidence row, opened on first request (once,
    #: however many requests ask for it at once).
    everything: Flights[bool, _State] = field(default_factory=Flights)


class QueryEngine:
    """Retrieval over one snapshot reference of one warehouse (thread-safe)."""

    def __init__(
        self,
        warehouse: Path | str | None = None,
        snapshot: str = "latest",
        index_dir: Path | None = None,
        embeddings: bool = True,
        embed_model: str | None = None,
        background_reload: bool = False,
        all_evidence: bool = False,
        embedder: Any = None,
    ) -> None:
        self.wh = Warehouse(warehouse_path(Path(warehouse) if warehouse else None))
        # Pinned once: an engine opened on ``latest`` follows that KG only, never a
        # KG built into the same warehouse later; a blank reference is an error, not "latest".
        self.ref, sid = self.wh.pinned("latest" if snapshot is None else snapshot)
        self.index_dir = index_dir_for(self.wh.root, index_dir)
        self.use_embeddings = embeddings
        #: Serve every evidence row by default, not only asserted ones (``--all-evidence``).
        self.all_evidence = all_evidence
        self.embed_model = embed_model
        self.embedding_error: str | None = None
        self._embedder: Any = embedder  # an as-of engine shares its parent's (one model)
        self._queries: Any = None
        #: As-of engines by snapshot id, each opened once however many requests
        #: ask for it at once, and never under ``_lock``: ``state()`` (``/health``) takes that.
        self._years: Flights[str, QueryEngine] = Flights()
        #: (snapshot id, its lineage's (year, snapshot id) rows): a published snapshot's
        #: lineage never changes, so it is read once per served snapshot, not per request.
        self._lineage: tuple[str, list[tuple[int, str]]] | None = None
        #: (snapshot id, acronym) → the concept its abstracts define it as (or None)
        self._acronym_cache: dict[tuple[str, str], str | None] = {}
        #: Taken by ``state()`` for the one ``stat`` of its reload check, and nothing slower.
        self._lock = threading.Lock()
        self._stat: tuple[int, int, str] | None = None
        self._checked = 0.0
        self.background_reload = background_reload
        self._reloading = False
        self._state = self._open(sid)
        self.reloads = 0

    # ---- opening and reloading --------------------------------------------------------------
    def _catalog_stat(self) -> tuple[int, int, str] | None:
        """The catalog's and the curation log's state: either changing calls for a reload."""
        try:
            st = os.stat(self.wh.catalog_path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, curation_digest(self.wh.root))

    def _open(self, sid: str) -> _State:
        self._stat = self._catalog_stat()
        index = open_index(self.wh, sid, self.index_dir, all_evidence=self.all_evidence)
        return _State(index, Linker(index, self._vectors(index)))

    def _everything(self, st: _State) -> _State:
        """``st``'s snapshot indexed over every evidence row (built once per snapshot)."""
        if self.all_evidence:  # the engine's own index already holds every row
            return st

        def make() -> _State:
            index = open_index(self.wh, st.index.snapshot_id, self.index_dir, all_evidence=True)
            return _State(index, Linker(index, self._vectors(index)))

        return st.everything.get(True, make)

    def _vectors(self, index: SnapshotIndex) -> Any:
        if not self.use_embeddings or self.embedding_error:
            return None
        from kgbuild.resolve.embed import Embedder
        from kgbuild.search.vectors import NodeVectors

        try:
            if self._embedder is None:
                cache = self.index_dir / "embeddings.sqlite"
                try:
                    self._embedder = Embedder(self.embed_model, cache_path=cache)
                except OSError:  # an unwritable index folder: this process's memory only
                    self._embedder = Embedder(self.embed_model, cache_path=None)
            if self._queries is None:
                self._queries = Embedder(self._embedder.model_name, cache_path=None)
            return NodeVectors(index.nodes["display"], index.path, self._embedder, self._queries)
        except ConfigError as exc:
            self.embedding_error = str(exc)
            return None

    def prepare(self, progress: Callable[[str], None] | None = None) -> dict[str, float]:
        """Load (or compute once and cache) the node vectors and load the query encoder now,
        instead of on the first question that needs them (``kgbuild serve`` does this).
        ``progress`` is told each step as it starts and ends (serve prints them: a start that
        computes node vectors for the first time takes a minute, and says so)."""
        say = progress or (lambda _: None)
        st = self.state()
        out: dict[str, float] = {}
        vec = st.linker.vectors
        if vec is None:
            say("embedding fallback off" + (f": {self.embedding_error}"
                                             if self.embedding_error else ""))  # fmt: skip
            return out
        try:
            say(f"loading node vectors ({len(vec.names):,} names; computed once per snapshot "
                "when absent) and the nearest-name search")  # fmt: skip
            t0 = time.perf_counter()
            vec.ann()
            out["vectors_s"] = round(time.perf_counter() - t0, 3)
            how = ("read from the index folder" if "vectors_load_s" in vec.timings
                   else f"computed ({vec.timings.get('vectors_reused', 0):,} reused)")  # fmt: skip
            say(f"node vectors {how} in {out['vectors_s']:.1f}s")
            say("loading the query encoder")
            t0 = time.perf_counter()
            vec.encode(["warm-up"])  # loads the model for query texts
            out["model_load_s"] = round(time.perf_counter() - t0, 3)
            # "loaded", never "ready": scripts wait for the one line that says serve is ready
            say(f"query encoder {vec.timings.get('query_encoder', '?')} loaded in "
                f"{out['model_load_s']:.1f}s")  # fmt: skip
        except ConfigError as exc:
            self.embedding_error = str(exc)
            st.linker.vectors = None
            say(f"embedding fallback off: {exc}")
        return out

    def for_year(self, year: int) -> QueryEngine:
        """The engine of the KG as it stood in ``year`` (``ask --as-of``, ``/retrieve``
        ``as_of``): the snapshot of that year in this snapshot's lineage — its support, belief,
        statuses and contested marks, not today's facts filtered by first year — or this engine
        when that is its own snapshot. A year before the first snapshot or after this one is an
        :class:`InputError` naming the years there are. Engines are kept (an index each), and
        each is opened once however many threads ask for it at once (:class:`Flights`)."""
        st = self.state()
        sid = self._year_snapshot(st, year, self._lineage_of(st))
        if sid == st.index.snapshot_id:
            return self

        def make() -> QueryEngine:
            return QueryEngine(
                self.wh.root, sid, self.index_dir, self.use_embeddings, self.embed_model,
                all_evidence=self.all_evidence, embedder=self._embedder,
            )  # fmt: skip

        return self._years.get(sid, make)

    def opened_year(self, year: int) -> QueryEngine | None:
        """The engine of ``year`` if it is at hand without SQL or an index load (this engine, or
        a year already opened); None otherwise. A year outside the snapshots is an
        :class:`InputError` once the lineage has been read. Cheap enough for the event loop."""
        st = self.state()
        lineage = self._lineage
        if lineage is None or lineage[0] != st.index.snapshot_id:
            return None
        sid = self._year_snapshot(st, year, lineage[1])
        return self if sid == st.index.snapshot_id else self._years.ready(sid)

    def year_counts(self) -> dict[str, int]:
        """As-of engines open and loading, and loads started (``/health``)."""
        return self._years.counts()

    def _lineage_of(self, st: _State) -> list[tuple[int, str]]:
        sid = st.index.snapshot_id
        got = self._lineage
        if got is None or got[0] != sid:
            rows = self.wh.query(
                "SELECT s.as_of_year, s.snapshot_id FROM snapshot_lineage l "
                "JOIN snapshots s ON s.snapshot_id = l.ancestor_id WHERE l.snapshot_id = ? "
                "ORDER BY s.as_of_year DESC, l.distance",
                [sid],
            ) or [(st.index.as_of_year, sid)]
            got = self._lineage = (sid, [(int(y), str(s)) for y, s in rows])
        return got[1]

    @staticmethod
    def _year_snapshot(st: _State, year: int, rows: list[tuple[int, str]]) -> str:
        """The snapshot of ``year`` in ``rows`` (newest first), or an :class:`InputError`."""
        sid = next((s for y, s in rows if y <= year), None)
        if sid is None or year > st.index.as_of_year:
            raise InputError(
                f"no snapshot of {st.index.kg} as of {year}; the years there are: "
                + ", ".join(map(str, sorted({y for y, _ in rows})))
            )
        return sid

    def state(self) -> _State:
        """The current snapshot, reloaded first if the reference now names a newer one (with
        ``background_reload`` — the server — the reload runs in a thread and requests keep
        the current snapshot until the new one is ready, so none waits for an index build)."""
        now = time.monotonic()
        # a pinned snapshot id never moves, but a curation still changes what it serves
        if now - self._checked < REFRESH_S or self._reloading:
            return self._state
        with self._lock:
            if now - self._checked < REFRESH_S or self._reloading:
                return self._state
            self._checked = now
            stat = self._catalog_stat()
            if stat == self._stat:
                return self._state
            if not self.background_reload:
                self._reload(stat)
                return self._state
            self._reloading = True
        threading.Thread(target=self._reload_bg, args=(stat,), daemon=True).start()
        return self._state

    def _reload(self, stat: tuple[int, int, str] | None) -> None:
        sid = self.wh.resolve(self.ref)
        curated = (stat or (0, 0, ""))[2] != (self._stat or (0, 0, ""))[2]
        if sid != self._state.index.snapshot_id or curated:
            new = self._open(sid)
            if self.background_reload and new.linker.vectors is not None:
                new.linker.vectors.ann()  # computed before the swap, not by a request
            self._state = new
            self.reloads += 1
        else:
            self._stat = stat

    def _reload_bg(self, stat: tuple[int, int, str] | None) -> None:
        try:
            self._reload(stat)
        except Exception as exc:  # keep serving the current snapshot; the next check retries
            log.warning("reloading %s failed: %s", self.ref, exc)
            self._stat = None
        finally:
            self._reloading = False

    @staticmethod
    def kg_of(warehouse: Path, ref: str) -> str:
        """The KG name of the snapshot ``ref`` names."""
        wh = Warehouse(warehouse)
        return str(wh.manifest(wh.resolve(ref))["kg"])

    @property
    def snapshot_id(self) -> str:
        return self.state().index.snapshot_id

    def _graph(self, st: _State, f: Filters) -> tuple[Graph, np.ndarray | None]:
        if not f.active:
            return st.index.graph, None
        got = st.graphs.get(f)
        if got is None:
            idx = st.index
            mask = edge_mask(idx, f)
            keep = np.flatnonzero(mask)
            g = Graph.from_edges(
                idx.n_nodes,
                idx.edges["head"][keep],
                idx.edges["tail"][keep],
                idx.edges["support"][keep],
                idx.edges["confidence"][keep],
            )
            # the filtered graph's edge ids index ``keep``: map them back to snapshot edges
            g.inc_edge = keep[g.inc_edge]
            g.pair_edges = g.pair_edges.remap(keep)
            if len(st.graphs) >= 16:
                st.graphs.clear()
            got = st.graphs[f] = (g, mask)
        return got

    def _sentence_mask(self, st: _State, f: Filters, mask: np.ndarray | None
                       ) -> np.ndarray | None:  # fmt: skip
        """The sentences the filters allow: from years ≤ ``as_of_year`` and, under an edge
        filter, supporting at least one edge that passes it (cached per filter set)."""
        if not f.active:
            return None
        got = st.sentence_masks.get(f)
        if got is None:
            idx = st.index
            se = idx.sentence_edges
            got = np.zeros(len(idx.sentences["pmid"]), bool)
            rows = se["sentence"] if mask is None else se["sentence"][mask[se["edge"]]]
            got[rows] = True
            if f.as_of_year is not None:
                got &= idx.sentences["year"] <= f.as_of_year
            if len(st.sentence_masks) >= 16:
                st.sentence_masks.clear()
            st.sentence_masks[f] = got
        return got

    def _link(self, st: _State, lexical: SentenceIndex, question: str,
              question_terms: tuple[list[int], np.ndarray], choices: list[str],
              embed: str) -> tuple[list[Link], int, Intent]:  # fmt: skip
        """Dictionary links of the question and choices, then at most one batched embedding
        call for what is left (encoding cost 48.7 ms of a 50 ms median, one call
        per choice). The budget: with ``embed="mentions"`` a choice is embedded only when
        neither the dictionary nor the sentence index finds anything for it; ``all`` also
        embeds the question's unlinked phrases; ``off`` embeds nothing.

        The question's words that say what it asks (:mod:`kgbuild.question.intent`: "treat",
        "which drugs", "Does") are read, not linked: never embedded, never reported unlinked;
        a link of just the answer noun ("drugs") gives way to it."""
        linker = st.linker
        links, q_spans = linker.dictionary(question, "question")
        found = self._acronyms(st.index, question, q_spans)  # "MCI": as the corpus defines it
        if found:
            links += found
            q_spans = cut_spans(question, q_spans, [(x.start, x.end) for x in found])
        # "arterial spin labelling (ASL)": the question says what its acronym stands for
        links, undone = defined_otherwise(question, links)
        if undone:  # the definition's phrases stand unlinked whole, cut out of the rest
            q_spans = sorted(cut_spans(question, q_spans, undone) + undone)
        try:  # "oxidative stress": a word linked alone where its phrase means something else
            links, undone, _ = untagged_phrases(self.wh, st.index.snapshot_id, question, links)
        except Exception as exc:  # a busy or moved catalog: the dictionary's links stand
            log.warning("phrase links unread, catalog unreadable: %s", exc)
            undone = []
        if undone:
            q_spans = sorted(cut_spans(question, q_spans, undone) + undone)
        intent = read_intent(question, [(x.start, x.end) for x in links])
        # a link of just the answer noun or the kind asked for ("microRNAs") gives way to it
        for cue in [c for c in intent.cues if c.kind in ("answer", "kind")]:
            links = [x for x in links
                     if not (cue.start <= x.start and x.end <= cue.end)]  # fmt: skip
        todo: list[tuple[str, str, tuple[int, int]]] = []  # (text, where, span) to embed
        rest: list[Link] = []  # what stays unlinked
        for a, b in q_spans:
            if understood(question, a, b, intent):
                continue
            if embed == "all":
                todo.append((question[a:b], "question", (a, b)))
            else:
                rest.append(linker.unlinked(question[a:b], "question", a, b))
        qids, sq = question_terms
        for i, c in enumerate(choices):
            where = f"choice:{i}"
            found, c_spans = linker.dictionary(c, where)
            links += found
            if found:
                rest += [linker.unlinked(c[a:b], where, a, b) for a, b in c_spans]
            elif embed == "off":
                rest.append(linker.unlinked(c, where, 0, len(c)))
            elif embed == "mentions" and lexical.search(
                qids, lexical.term_ids(c), 1, question_scores=sq
            ):
                rest.append(linker.unlinked(c, where, 0, len(c), "lexical"))
            else:
                todo.append((c, where, (0, len(c))))
        links += linker.embed_link([t for t, _, _ in todo], [w for _, w, _ in todo],
                                   [s for _, _, s in todo])  # fmt: skip
        links += rest
        order = {"question": -1, **{f"choice:{i}": i for i in range(len(choices))}}
        return sorted(links, key=lambda x: (order[x.where], x.start, x.end)), len(todo), intent

    def _acronyms(self, idx: SnapshotIndex, question: str,
                  spans: list[tuple[int, int]]) -> list[Link]:  # fmt: skip
        """Links of the unlinked acronyms of ``spans`` the corpus defines
        (:mod:`kgbuild.corpus.acronyms`), each looked up once per snapshot."""
        out = []
        for a, b, short in acronym_spans(question, spans):
            key = (idx.snapshot_id, short)
            if key not in self._acronym_cache:
                if len(self._acronym_cache) >= MAX_ACRONYMS:  # a client asking for many: bounded
                    self._acronym_cache.clear()
                try:
                    self._acronym_cache[key] = defined_as(self.wh, idx.snapshot_id, short)
                except Exception as exc:  # a busy or moved catalog: the acronym stays unlinked
                    log.warning("acronym %r unread, catalog unreadable: %s", short, exc)
                    continue
            concept = self._acronym_cache[key]
            node = idx.node_of.get(concept) if concept else None
            if node is not None:
                out.append(Link(question[a:b], "question", node, concept,
                                str(idx.nodes["display"][node]), "corpus:abbreviation", 0.9,
                                a, b))  # fmt: skip
        return out

    # ---- retrieval ----------------------------------------------------------------------------
    def retrieve(
        self,
        question: str,
        choices: list[str] | None = None,
        *,
        k: int = DEFAULT_K,
        hops: int = 3,
        token_budget: int = DEFAULT_TOKEN_BUDGET,
        filters: Filters | None = None,
        entities: list[Link] | None = None,
        link_question: bool = True,
        embed: str = "mentions",
        hub_degree: int = HUB_DEGREE,
        neighbour_cap: int = NEIGHBOUR_CAP,
        intent_reader: Callable[[Intent], Intent] | None = None,
    ) -> Retrieval:
        """Link → explore → score the choices → rank → context for one question (no LLM).
        ``entities``: links an LLM named (see :mod:`kgbuild.query.llm`) or recorded ones,
        used beside the dictionary's — or instead of the question's own links when
        ``link_question`` is False (``eval adqa --replay-entities``). ``intent_reader``: given the
        rule reader's intent (:mod:`kgbuild.question.intent`), the one to use (an LLM's reading
        merged in); the rule reader's cues still decide which words are not linked."""
        choices = validate(question, choices, k, hops, token_budget)
        if embed not in EMBED_MODES:
            raise InputError(f"embed must be one of {', '.join(EMBED_MODES)}")
        f = filters or Filters()
        st = self.state()
        if f.as_of_year is not None and f.as_of_year != st.index.as_of_year:
            eng = self.for_year(f.as_of_year)  # the belief of that year: its own snapshot
            if eng is not self:
                # a year with no snapshot of its own (none published that year) reads the one
                # before: asked for the requested year, that engine would look for a later one
                f = replace(f, as_of_year=eng.state().index.as_of_year)
                return eng.retrieve(
                    question, choices, k=k, hops=hops, token_budget=token_budget, filters=f,
                    entities=entities, link_question=link_question, embed=embed,
                    hub_degree=hub_degree, neighbour_cap=neighbour_cap,
                    intent_reader=intent_reader,
                )  # fmt: skip
        with self._catalog_reads():
            return self._retrieve(st, f, question, choices, k, hops, token_budget, entities,
                                  link_question, embed, hub_degree, neighbour_cap,
                                  intent_reader)  # fmt: skip

    @contextmanager
    def _catalog_reads(self) -> Iterator[None]:
        """One read-only catalog connection for a question's reads (the abstracts it shows,
        and the sentences a verdict or an option is read from): opening one costs ~45 ms,
        and a question makes one to five reads. Held for the question only (a publish waits
        for a reader). A catalog that cannot be opened (busy, moved) does not stop the
        question: each read then fails alone, and its step says so, as before."""
        with ExitStack() as stack:
            try:
                stack.enter_context(self.wh.reader())
            except Exception as exc:
                log.warning("catalog unreadable for this question: %s", exc)
            yield

    def _retrieve(self, st: Any, f: Filters, question: str, choices: list[str], k: int,
                  hops: int, token_budget: int, entities: list[Link] | None,
                  link_question: bool, embed: str, hub_degree: int, neighbour_cap: int,
                  intent_reader: Callable[[Intent], Intent] | None) -> Retrieval:  # fmt: skip
        """:meth:`retrieve` for one snapshot's state ``st`` and its filters ``f``."""
        if f.all_evidence:
            st = self._everything(st)
        t = Timer()
        idx = st.index
        lexical = idx.ensure_lexical()
        qids = lexical.term_ids(question)
        question_terms = (qids, lexical.scores(qids))
        links, n_embedded, rules = self._link(st, lexical, question, question_terms, choices,
                                               embed)  # fmt: skip
        intent = intent_reader(rules) if intent_reader is not None else rules
        if not link_question:
            links = [x for x in links if x.where != "question"]
        if entities:
            links += entities
        t.lap("link_ms")
        qn = unique_nodes([x for x in links if x.where == "question"])[:MAX_QUESTION_NODES]
        cn = [
            unique_nodes([x for x in links if x.where == f"choice:{i}"])[:MAX_CHOICE_NODES]
            for i in range(len(choices))
        ]
        graph, mask = self._graph(st, f)
        smask = self._sentence_mask(st, f, mask)
        cand = explore(idx, graph, mask, qn, cn, question, hops, hub_degree, neighbour_cap)
        t.lap("explore_ms")
        ids = sorted(cand.edges)
        ranking = rank_paths(cand, qn, cn, idx.edges["head"][ids], idx.edges["tail"][ids])
        paths = [(p.nodes, p.edges, p.kind) for p in ranking.paths]
        pair = yes_no_pair(intent, [(x.start, x.end, x.node) for x in links
                                    if x.where == "question" and x.node is not None])  # fmt: skip
        asked = relation_terms(idx, graph, mask, intent, qn, cn, pair)
        scores = score_choices(idx, lexical, question_terms, choices, qn, cn, ids, paths, smask,
                               asked)  # fmt: skip
        reading = None
        facts = [cs.graph * W_GRAPH + cs.relation for cs in scores]
        # facts that do not separate the options: the corpus's sentences (not for "all
        # EXCEPT": a sentence says what is so, the option asked for is the one that is not)
        if choices and not facts_decide(facts) and not asks_for_exception(question):
            try:
                reading = read_choices(self.wh, idx, lexical, question, choices, qn,
                                       f.as_of_year)  # fmt: skip
            except Exception as exc:  # a busy or moved catalog: the scores' answer stands
                log.warning("choices from scores only, sentences unreadable: %s", exc)
        answer_type = infer_answer_type(intent, [idx.nodes["type"][n] for n in qn])
        asked_kind = intent.kind  # of an unlinked subject, whatever the linked entities are
        if intent.kind is not None:  # "Which drugs target APP?": the drugs, not APP's targets
            cue = next((c.text for c in intent.cues if c.kind == "kind"), "")
            intent.kind = for_anchors(intent.kind, [idx.nodes["type"][n] for n in qn],
                                      answer_type, cue)  # fmt: skip
        if intent.kind is not None and intent.kind.mentions and not heads_wh(intent.cues):
            intent.kind = None  # "Which drugs treat infections?": drugs asked, not organisms
        answers: list[dict[str, Any]] = []
        asks = answer_type or intent.asked or intent.kind
        focus = read_focus(question, [(x.start, x.end, x.node) for x in links
                                      if x.where == "question" and x.node in qn])  # fmt: skip
        if intent.kind is not None:  # a drug's targets "for alzheimer's": the drug's
            focus = anchored(focus, intent.kind.anchors,
                             [idx.nodes["type"][n] for n in focus.subject])  # fmt: skip
        kind_note = None
        words: tuple[Any, ...] = ()
        if intent.wh and not intent.yes_no and not choices and qn and asks:
            # "How does Abeta damage mitochondria?": the words left unlinked qualify the answers
            words = context_qualifiers(question, links, intent, lexical)
            ranked_by = replace(intent, qualifiers=intent.qualifiers + words) if words else intent
            served = st
            answers = focused_answers(idx, graph, mask, focus, ranked_by, answer_type, f.as_of_year,
                                      warehouse=self.wh,
                                      weaker=lambda: self._everything(served).index)  # fmt: skip
            kind_note = focus_note(idx, focus, answers)
        if intent.kind is not None and not choices and qn and not _stated(answers):
            kind_note = absent(idx, intent.kind, [idx.nodes["display"][n] for n in focus.subject],
                               bool(answers))  # fmt: skip
        verdict = None
        # the sentence readers below show the sentences closest to the question first
        vectors = st.linker.vectors if embed != "off" else None
        encode = vectors.encode if vectors is not None else None
        if pair is not None:
            verdict = pair_verdict(idx, graph, mask, *pair, intent, f.as_of_year)
        elif intent.yes_no and not choices:  # a missing entity, or one entity asked about
            verdict = open_verdict(idx, graph, mask, question, links, qn, intent, f.as_of_year)
        if intent.yes_no and not choices:  # facts that do not decide: the corpus's sentences
            try:
                verdict = sentence_verdict(self.wh, idx, lexical, question, verdict, pair, qn,
                                           intent, f.as_of_year, links)  # fmt: skip
            except Exception as exc:  # a busy or moved catalog: the facts' verdict stands
                log.warning("verdict from facts only, sentences unreadable: %s", exc)
            try:  # "did solanezumab slow decline in phase 3": what trials in people report
                verdict = trial_verdict(self.wh, idx, question, verdict, qn, intent.asked,
                                        f.as_of_year)  # fmt: skip
            except Exception as exc:  # a busy or moved catalog: the verdict above stands
                log.warning("trial reports unread, catalog unreadable: %s", exc)
        unwritten = None  # a name no abstract writes, beside nothing but the corpus's topic
        if not intent.yes_no and not choices:  # an unlinked phrase as subject: its sentences
            try:
                # "side effects of tideglusib in AD": the kind is asked of the phrase
                of_phrase = intent if intent.kind is not None else replace(intent, kind=asked_kind)
                said = phrase_answer(self.wh, idx, question, links, of_phrase, answer_type,
                                     f.as_of_year, encode)  # fmt: skip
            except Exception as exc:  # a busy or moved catalog: the facts' answers stand
                log.warning("answers from facts only, sentences unreadable: %s", exc)
                said = None
            if said is not None:  # the facts' answers, ranked without the phrase's kind, go
                verdict, keep = said.verdict, said.keep_facts and of_phrase is intent
                kind_note = said.note or (kind_note if keep else None)
                answers = said.answers or (answers if keep else [])
                if verdict["answer"] == "not found" and not said.keep_facts:
                    unwritten = verdict
        if intent.kind is not None and intent.kind.mentions == "Species" and not choices:
            try:  # organisms are PubTator mentions, no KG node: read from sentences
                got = organism_answer(self.wh, idx, question, qn, f.as_of_year)
                verdict, answers, kind_note = None, got.answers, got.note
            except Exception as exc:  # a busy or moved catalog: the answers above stand
                log.warning("organisms unread, catalog unreadable: %s", exc)
        how = how_pair_nodes(intent, qn) if verdict is None and not choices else None
        if how is not None:  # "how does X affect Y": what joins X and Y comes first
            verdict = how_pair(self.wh, idx, lexical, graph, mask, question, how, intent,
                               f.as_of_year, links)  # fmt: skip
            kind_note = None if verdict is not None and not answers else kind_note
        in_context = False  # read in one respect: the explanation below would repeat it
        if verdict is None and words and intent.kind is not None and intent.kind.pair:
            try:  # "how does tau pathology spread": the sentences naming tau and "spread"
                verdict = context_answer(self.wh, idx, question, list(focus.subject or qn),
                                         words[0], intent, f.as_of_year, encode)  # fmt: skip
                in_context = verdict is not None
            except Exception as exc:  # a busy or moved catalog: the facts' answers stand
                log.warning("context sentences unread, catalog unreadable: %s", exc)
        direction = asks_direction(question)  # "is miR-132 up or down": no yes/no verdict
        if (not (in_context or choices) and (direction or not intent.yes_no)
                and (direction or replaceable(idx, verdict, how))):  # fmt: skip
            try:  # "why use the CSF Abeta42/40 ratio": the sentences writing its words
                claim = explanation(self.wh, idx, lexical, question, links, qn, f.as_of_year)
            except Exception as exc:  # a busy or moved catalog: the readings above stand
                log.warning("explanation unread, catalog unreadable: %s", exc)
                claim = None
            if claim is not None:  # a claim is asked: no list of mere co-mentions beside it
                verdict = claim
                if not asks_list(question, intent.cues):
                    answers = [a for a in answers if a.get("basis") == "fact"]
                    kind_note = kind_note if answers else None
        if verdict is None and not answers and not asks and not intent.yes_no and not choices:
            try:  # "what does miR-26b do": the sentences naming it, not the topic's hubs
                got = entity_sentences(self.wh, idx, graph, mask, question, links, qn,
                                       f.as_of_year, encode)  # fmt: skip
            except Exception as exc:  # a busy or moved catalog: the facts stand
                log.warning("entity sentences unread, catalog unreadable: %s", exc)
                got = None
            if got is not None:  # its own facts are the triples, never the topic's hubs
                verdict, answers, own = got.verdict, got.answers, subject_node(idx, qn)
                heads, tails = idx.edges["head"], idx.edges["tail"]
                cand.edges = {e: why for e, why in cand.edges.items()
                              if own in (int(heads[e]), int(tails[e]))}  # fmt: skip
        if unwritten is not None and verdict is unwritten:
            cand.edges = {}  # the topic's hubs (AD associates APP, …) answer nothing of it
        answers = without_micrornas(idx, answers, qn, verdict.get("phrase") if verdict else None,
                                    intent.kind)  # fmt: skip
        # the facts behind the answers (or the pair) join the candidates, ranked by answer
        featured: dict[int, float] = {}
        for pos, a in enumerate(answers[:k]):
            for x in a["edges"]:
                featured.setdefault(x, 1.0 - pos / max(k, 1))
        for x in verdict["edges"] if verdict else []:
            featured.setdefault(x, 1.0)
        for x in featured:
            cand.add(x, "answer" if answers else "pair")
        # the triples a choice's sentences support join the candidates (sentences → facts)
        for i, cs in enumerate(scores):
            for row, _ in cs.sentences:
                for x in idx.sentence_edge_ids(row).tolist():
                    if mask is None or mask[x]:
                        cand.add(x, f"sentence:choice:{i}")
        t.lap("choices_ms")
        ranked_triples = rank_triples(idx, cand, ranking, qn, cn, scores, intent, featured)
        t.lap("rank_ms")
        ranked = [(s.edge, s.score, s.reasons) for s in ranked_triples]
        sentences = [(f"choice:{cs.choice}", r, sc) for cs in scores for r, sc in cs.sentences]
        if not choices:  # an open question: its own best sentences
            sq = question_terms[1]
            sentences = [("question", r, round(float(sq[r]), 4))
                         for r in lexical.top(sq, SENTENCES_PER_CHOICE, smask)]  # fmt: skip
        triples, text, budget = build_context(idx, ranked, k, token_budget, f.as_of_year,
                                              sentences, choices)  # fmt: skip
        t.lap("context_ms")
        answering: list[dict[str, Any]] = []
        try:  # what the abstracts write, beside whatever the facts answer
            abstracts = idx.ensure_abstracts(self.wh)
            texts: dict[str, Any] = {}
            # an open question's abstracts are shown by their sentence closest to it; not
            # options: their answer is the option, read per choice (and half a second saved)
            closest = st.linker.vectors is not None and embed != "off" and not choices
            read = SENTENCE_ABSTRACTS if closest else ABSTRACTS_READ
            matching = passages(self.wh, idx.snapshot_id, abstracts, question, read, texts,
                                read=read, min_cover=0.0 if closest else MIN_COVER)  # fmt: skip
            first_read = [x for x in matching
                          if x["rank"] < ABSTRACTS_READ and x["cover"] >= MIN_COVER]  # fmt: skip
            shown_abstracts = first_read[:ABSTRACTS_SHOWN]
            if closest and first_read:
                # the question is written (an abstract writes enough of it): every read
                # abstract's sentences compete, whatever share of the question it writes
                closest_read, answering = _closest_sentences(abstracts, question, matching,
                                                             texts, st.linker.vectors)  # fmt: skip
                shown_abstracts = closest_read or shown_abstracts
            if intent.yes_no and not choices:  # undecided by the facts: what the abstracts say
                said = abstract_verdict(abstracts, question, [x["pmid"] for x in first_read], texts,
                                        predicate_for(intent.asked), verdict)  # fmt: skip
                verdict = said or verdict
        except Exception as exc:  # a busy or moved catalog: the facts' answers stand
            log.warning("abstracts unread, catalog unreadable: %s", exc)
            abstracts, shown_abstracts, answering = None, [], []
        if shown_abstracts and verdict is not None and verdict.get("answer") == "not found":
            verdict["line"] += "; the abstracts shown below write most of the question"
        chosen = reading.choice if reading and reading.choice is not None else kg_answer(scores)
        from_abstracts = None
        if choices and chosen is None and abstracts is not None \
                and not asks_for_exception(question):  # fmt: skip
            # options the facts and their sentences leave open: what the abstracts write
            from_abstracts = choice_from_abstracts(abstracts, question, choices)
            chosen = from_abstracts["choice"] if from_abstracts else None
        t.lap("abstracts_ms")
        paths_out = [path_dict(idx, p) for p in ranking.paths[: 5 * max(1, len(qn))]]
        diag = {
            "question_entities": len(qn),
            "choice_entities": [len(c) for c in cn],
            "candidate_triples": len(cand.edges),
            "paths_found": len(cand.paths),
            "asks_for_exception": asks_for_exception(question),
            "paths_kept": len(ranking.paths),
            "hubs_capped": [idx.nodes["id"][h] for h in cand.hubs_capped],
            "second_hop": len(cand.second_hop),
            "budget": {"tokens": token_budget, **budget},
            "filters": filters_dict(f),
            "embedding": "off" if st.linker.vectors is None else embed,
            "embedded_texts": n_embedded if st.linker.vectors is not None else 0,
            "intent": intent.to_dict(),
            "abstracts_indexed": abstracts.n_docs if abstracts is not None else 0,
        }
        if self.embedding_error and embed != "off":
            diag["embedding_error"] = self.embedding_error
        r = Retrieval(
            idx.snapshot_id,
            idx.kg,
            idx.as_of_year,
            question,
            choices,
            links,
            paths_out,
            triples,
            text,
            [cs.score or 0.0 for cs in scores],
            chosen,
            diag,
            choice_scores=[cs.to_dict(idx) for cs in scores],
            sentences=[{"for": w, **sentence_dict(idx, r_, sc)} for w, r_, sc in sentences],
            sentence_rows=sentences,
            intent={
                "relations": intent.relations,
                "asked": intent.asked,
                "answer_type": answer_type,
                "answer_kind": intent.kind.label if intent.kind else None,
                "answer_note": kind_note,
                "yes_no": intent.yes_no,
            },
            answers=answers,
            verdict=verdict,
            choice_reading=reading.to_dict() if reading else None,
            passages=shown_abstracts,
            abstract_choice=from_abstracts,
            answering=answering,
        )
        t.lap("total_ms", total=True)
        r.timings = t.laps
        return r


def defined_otherwise(question: str,
                      links: list[Link]) -> tuple[list[Link], list[tuple[int, int]]]:  # fmt: skip
    """(kept links, spans left unlinked): where the question defines an acronym itself
    (:func:`kgbuild.corpus.acronyms.question_definitions`), a link of the acronym or of words
    of its long form is dropped when the linked concept's name shares no word with the long
    form: "arterial spin labelling (ASL)" means neither argininosuccinate lyase (the gene ASL)
    nor spindlin 1 ("spin"); "cerebral amyloid angiopathy (CAA)" keeps Cerebral Amyloid
    Angiopathy for both. A definition that loses a link is left unlinked whole: its long form
    one span (a phrase to read, not three words) and its acronym another."""
    kept, spans = list(links), []
    for a, b, ls, le in question_definitions(question):
        words = set(terms(question[ls:le]))
        other = [x for x in kept
                 if ((x.start, x.end) == (a, b) or (ls <= x.start and x.end <= le))
                 and not words & set(terms(f"{x.name or ''} {x.curie or ''}"))]  # fmt: skip
        if other:
            kept = [x for x in kept if x not in other]
            spans += [(ls, le), (a, b)]
    return kept, spans


def _closest_sentences(abstracts: Any, question: str, matching: list[dict[str, Any]],
                       texts: dict[str, Any], vectors: Any,
                       ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:  # fmt: skip
    """Each matching abstract by its sentence closest to the question in words and meaning,
    and the sentences that best answer it (:func:`kgbuild.corpus.answer_sentences.
    read_abstracts`); none when the encoder fails (the caller keeps the sentences that write
    most of the question)."""
    try:
        return read_abstracts(abstracts, question, matching, texts, vectors.encode)
    except Exception as exc:  # a model folder that went missing: words alone still rank
        log.warning("abstract sentences ranked by words only, encoder failed: %s", exc)
        return [], []


def _stated(answers: list[dict[str, Any]]) -> bool:
    """Does an answer rest on an asserted fact (not only weaker evidence or a shared abstract)?"""
    return any(a.get("basis") == "fact" for a in answers)


_ENGINES: dict[tuple[str, str, str], QueryEngine] = {}
_ENGINES_LOCK = threading.Lock()


def engine_for(
    warehouse: Path | str | None = None, snapshot: str = "latest", index_dir: Path | None = None
) -> QueryEngine:
    """A process-wide engine per (warehouse, reference, index folder): the Python API's
    functions share it, so only the first call pays for opening."""
    wh = str(warehouse_path(Path(warehouse) if warehouse else None).resolve())
    key = (wh, snapshot, str(index_dir or ""))
    with _ENGINES_LOCK:
        eng = _ENGINES.get(key)
        if eng is None:
            eng = _ENGINES[key] = QueryEngine(wh, snapshot, index_dir)
        return eng


def retrieve(
    question: str,
    choices: list[str] | None = None,
    *,
    snapshot: str = "latest",
    warehouse: Path | str | None = None,
    **options: Any,
) -> Retrieval:
    """Retrieval without an LLM: ``retrieve("Which gene …?", ["APOE", "APP"])``."""
    return engine_for(warehouse, snapshot).retrieve(question, choices, **options)
