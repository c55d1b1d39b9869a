"""KGX TSV (Biolink model): the format of the Biolink/Translator ecosystem (``kgx`` reads it).

Nodes (``nodes.tsv``): CURIE ``id``, Biolink ``category`` (by Hetionet kind,
:mod:`kgbuild.export.biolink`), ``name``, ``synonym`` (every surface form), ``provided_by``;
kgbuild's ``hetionet_kind`` and ``first_year``. Edges (``edges.tsv``): ``subject``/``predicate``/
``object`` by the predicate table (with its direction and Biolink 4 qualifiers), ``negated``
(empty: every exported edge is asserted, :data:`biolink.NOT_NEGATED`),
``knowledge_level``/``agent_type`` (stated by a model reading the text vs. co-occurrence:
:mod:`kgbuild.export.biolink`), ``primary_knowledge_source``, ``publications`` (``PMID:…``),
``supporting_text`` (the first sentences), ``evidence_count``, ``has_confidence_score`` (the
calibrated edge confidence of ``kg_edges``); and kgbuild's own columns as extra properties:
``kgbuild_relation``, ``relation_raw``, ``hetionet_metaedge``, ``support`` (distinct PMIDs),
``confidence`` (the same value as ``has_confidence_score``, under kgbuild's name),
``first_year``, ``last_year``, ``extraction_methods``, ``llm_models``.

The edges are the snapshot's served graph (``kg_edges``, :mod:`kgbuild.export.source`):
evidence that is hedged, negated, refuted by verification or from a retracted paper is neither
counted nor cited, and a triple with nothing else is not exported.

Unlinked nodes (``free:<name>``: LLM endpoints no identifier resolved) have no CURIE in any
Biolink-registered namespace, so a Biolink validator rejects them; they and every edge touching
them go to ``unlinked_nodes.tsv`` / ``unlinked_edges.tsv`` (same columns), counted in
``kgx_metadata.json``. ``nodes.tsv`` + ``edges.tsv`` are a closed, valid KGX graph; all four
files together are the whole snapshot graph.

Text cells are safe to open in a spreadsheet (:mod:`kgbuild.store.spreadsheet`): one that
begins with ``=``, ``+``, ``-``, ``@``, tab, CR or ``'`` has a ``'`` in front (drop one leading
``'`` for the value as stored; Parquet keeps it as is). No CURIE, Biolink name or number begins
with one, so ``kgx validate`` reads the graph as before; a hostile name or sentence carries the
mark.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import duckdb

from kgbuild.export import biolink
from kgbuild.export.source import edge_rows, node_rows
from kgbuild.schema import data_dir
from kgbuild.store.files import (
    DELIMITER_STANDIN,
    LIST_DELIMITER,
    atomic_text,
    fmt_number,
    join_list,
    one_line,
    writer,
)
from kgbuild.store.spreadsheet import text_cell

#: Biolink infores CURIE of kgbuild as the edges' primary knowledge source.
PRIMARY_SOURCE = "infores:kgbuild"
#: kgbuild's marker of an unlinked node id.
UNLINKED_PREFIX = "free:"

NODE_COLUMNS = ["id", "category", "name", "synonym", "provided_by", "hetionet_kind", "first_year"]
EDGE_COLUMNS = [
    "id", "subject", "predicate", "object", "qualified_predicate", "object_aspect_qualifier",
    "object_direction_qualifier", "negated", "knowledge_level", "agent_type",
    "primary_knowledge_source", "publications", "supporting_text", "evidence_count",
    "has_confidence_score", "kgbuild_relation", "relation_raw",
    "hetionet_metaedge", "support", "confidence", "first_year", "last_year",
    "extraction_methods", "llm_models",
]  # fmt: skip
FILES = ("nodes.tsv", "edges.tsv", "unlinked_nodes.tsv", "unlinked_edges.tsv")


def cell(value: object) -> str:
    """A single-valued KGX text cell: one line, no ``|`` (kgx splits every cell on it), safe to
    open in a spreadsheet (:mod:`kgbuild.store.spreadsheet`)."""
    return text_cell(one_line(value).replace(LIST_DELIMITER, DELIMITER_STANDIN))


def is_unlinked(node_id: str) -> bool:
    return node_id.startswith(UNLINKED_PREFIX)


def node_line(row: dict[str, Any]) -> list[str]:
    return [
        cell(row["id"]),
        biolink.category(row["kind"]),
        cell(row["name"]),
        join_list(row["aliases"]),
        PRIMARY_SOURCE,
        cell(row["kind"]),
        fmt_number(row["first_year"]),
    ]


def edge_line(row: dict[str, Any]) -> list[str]:
    m = biolink.predicate(row["relation"], row["head_kind"], row["tail_kind"])
    subject, obj = (row["tail_id"], row["head_id"]) if m.swap else (row["head_id"], row["tail_id"])
    level, agent = biolink.provenance(row["methods"])
    return [
        cell(row["triple_id"]),
        cell(subject),
        m.predicate,
        cell(obj),
        m.qualified_predicate,
        m.object_aspect_qualifier,
        m.object_direction_qualifier,
        biolink.NOT_NEGATED,  # served edges only: each has asserted evidence
        level,
        agent,
        PRIMARY_SOURCE,
        join_list(f"PMID:{p}" for p in row["pmids"]),
        join_list(row["sentences"]),
        fmt_number(row["n_evidence"]),
        fmt_number(row["confidence"]),
        cell(row["relation"]),
        cell(row["relation_raw"]),
        cell(row["metaedge"]),
        fmt_number(row["support"]),
        fmt_number(row["confidence"]),
        fmt_number(row["first_year"]),
        fmt_number(row["last_year"]),
        join_list(row["methods"]),
        join_list(row["models"]),
    ]


def _digest(name: str) -> str:
    return hashlib.sha256((data_dir() / name).read_bytes()).hexdigest()[:16]


def export_kgx(
    con: duckdb.DuckDBPyConnection, sid: str, out_dir: Path, about: dict[str, Any]
) -> dict[str, tuple[Path, int]]:
    """Write the four KGX files and ``kgx_metadata.json``; returns ``{file: (path, rows)}``."""
    counts = dict.fromkeys(FILES, 0)
    with (
        atomic_text(out_dir / "nodes.tsv") as nodes,
        atomic_text(out_dir / "unlinked_nodes.tsv") as free_nodes,
    ):
        outs = {False: writer(nodes, "\t"), True: writer(free_nodes, "\t")}
        for w in outs.values():
            w.writerow(NODE_COLUMNS)
        for row in node_rows(con, sid):
            unlinked = is_unlinked(row["id"])
            outs[unlinked].writerow(node_line(row))
            counts["unlinked_nodes.tsv" if unlinked else "nodes.tsv"] += 1
    with (
        atomic_text(out_dir / "edges.tsv") as edges,
        atomic_text(out_dir / "unlinked_edges.tsv") as free_edges,
    ):
        outs = {False: writer(edges, "\t"), True: writer(free_edges, "\t")}
        for w in outs.values():
            w.writerow(EDGE_COLUMNS)
        for row in edge_rows(con, sid):
            unlinked = is_unlinked(row["head_id"]) or is_unlinked(row["tail_id"])
            outs[unlinked].writerow(edge_line(row))
            counts["unlinked_edges.tsv" if unlinked else "edges.tsv"] += 1
    meta = {
        **about,
        "format": "KGX TSV",
        "biolink_version": biolink.BIOLINK_VERSION,
        "primary_knowledge_source": PRIMARY_SOURCE,
        "mapping_tables": {
            name: _digest(name) for name in (biolink.CATEGORIES_TSV, biolink.PREDICATES_TSV)
        },
        "files": counts,
        "unlinked": "nodes without a Biolink-namespace CURIE (free:<name>) and the edges "
        "touching them are in unlinked_*.tsv",
    }
    with atomic_text(out_dir / "kgx_metadata.json") as fh:
        fh.write(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    written = {name: (out_dir / name, n) for name, n in counts.items()}
    written["kgx_metadata.json"] = (out_dir / "kgx_metadata.json", None)
    return written
