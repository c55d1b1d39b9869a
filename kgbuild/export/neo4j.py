"""Neo4j ``neo4j-admin database import full`` CSVs: DALK served its KG from Neo4j.

``nodes.csv`` (inline header): ``id:ID`` (the CURIE), ``:LABEL`` (the Hetionet kind without
spaces — ``Gene``, ``Compound``, ``Disease`` — or ``Unlinked`` for a ``free:<name>`` node), name,
kind, Biolink category, ``aliases:string[]``, ``first_year:int``, ``degree:int``.
``relationships.csv``: ``:START_ID`` (head), ``:END_ID`` (tail), ``:TYPE`` (the canonical relation
in upper case: ``TREATS``, ``ASSOCIATES``, ``IS_A``…), triple id, relation, relation as written,
Hetionet metaedge, Biolink predicate, ``support:int``, ``evidence:int``, ``confidence:float``,
``first_year:int``, ``last_year:int``, ``pmids:string[]``, ``methods:string[]``,
``models:string[]``; rows grouped by relation and kind pair (one bulk load per relationship
table and label pair in a graph database), then by triple id. Arrays use ``|``
(``--array-delimiter="|"``), a ``|`` inside a value is written ``¦``; cells are one line
(``--multiline-fields`` not needed); quotes are RFC 4180.

``import.sh`` holds the exact command. Nothing needs Neo4j to be tested: the tests load these
CSVs into LadybugDB (an embedded Cypher database) with :mod:`kgbuild.export.ladybug`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import duckdb

from kgbuild.export import biolink
from kgbuild.export.source import BY_TYPE, edge_rows, node_rows
from kgbuild.store.files import LIST_DELIMITER, atomic_text, fmt_number, join_list, one_line
from kgbuild.store.files import writer as csv_writer

NODE_HEADER = [
    "id:ID", ":LABEL", "name", "kind", "category", "aliases:string[]", "first_year:int",
    "degree:int",
]  # fmt: skip
REL_HEADER = [
    ":START_ID", ":END_ID", ":TYPE", "triple_id", "relation", "relation_raw", "metaedge",
    "biolink_predicate", "support:int", "evidence:int", "confidence:float", "first_year:int",
    "last_year:int", "pmids:string[]", "methods:string[]", "models:string[]",
]  # fmt: skip
#: Label of a node without a kind (an unlinked ``free:<name>`` endpoint).
UNLINKED_LABEL = "Unlinked"
IMPORT_COMMAND = (
    'neo4j-admin database import full --nodes="$DIR/nodes.csv" '
    '--relationships="$DIR/relationships.csv" --array-delimiter="{delim}" '
    "--overwrite-destination=true {database}"
)
_NOT_WORD = re.compile(r"[^0-9A-Za-z]+")


def label(kind: str | None) -> str:
    """A Neo4j label from a Hetionet kind: ``Side Effect`` → ``SideEffect``."""
    parts = [p for p in _NOT_WORD.split(kind or "") if p]
    name = "".join(p[:1].upper() + p[1:] for p in parts)
    return name if name and not name[0].isdigit() else UNLINKED_LABEL


def rel_type(relation: str) -> str:
    """A relationship type from a relation: ``part_of`` → ``PART_OF``, ``isa`` → ``ISA``."""
    name = _NOT_WORD.sub("_", relation).strip("_").upper()
    return name if name and not name[0].isdigit() else "RELATED_TO"


def node_line(row: dict[str, Any]) -> list[str]:
    return [
        one_line(row["id"]),
        label(row["kind"]),
        one_line(row["name"]),
        one_line(row["kind"]),
        biolink.category(row["kind"]),
        join_list(row["aliases"]),
        fmt_number(row["first_year"]),
        fmt_number(row["degree"]),
    ]


def rel_line(row: dict[str, Any]) -> list[str]:
    return [
        one_line(row["head_id"]),
        one_line(row["tail_id"]),
        rel_type(row["relation"]),
        one_line(row["triple_id"]),
        one_line(row["relation"]),
        one_line(row["relation_raw"]),
        one_line(row["metaedge"]),
        biolink.predicate(row["relation"], row["head_kind"], row["tail_kind"]).predicate,
        fmt_number(row["support"]),
        fmt_number(row["n_evidence"]),
        fmt_number(row["confidence"]),
        fmt_number(row["first_year"]),
        fmt_number(row["last_year"]),
        join_list(row["pmids"]),
        join_list(row["methods"]),
        join_list(row["models"]),
    ]


def import_script(database: str = "neo4j") -> str:
    return (
        "#!/bin/sh\n"
        "# Load this folder into Neo4j 5 with neo4j-admin (stop the database first; the\n"
        "# import replaces it). Then start Neo4j and query, e.g.\n"
        "#   MATCH (c:Compound)-[r:TREATS]->(d:Disease) RETURN c.name, d.name, r.support\n"
        "#   ORDER BY r.support DESC LIMIT 10;\n"
        'DIR=$(cd "$(dirname "$0")" && pwd)\n'
        + IMPORT_COMMAND.format(delim=LIST_DELIMITER, database=database)
        + "\n"
    )


def export_neo4j(con: duckdb.DuckDBPyConnection, sid: str, out_dir: Path) -> dict:
    """Write ``nodes.csv``, ``relationships.csv`` and ``import.sh``; ``{file: (path, rows)}``."""
    n_nodes = n_rels = 0
    with atomic_text(out_dir / "nodes.csv") as fh:
        w = csv_writer(fh, ",")
        w.writerow(NODE_HEADER)
        for row in node_rows(con, sid):
            w.writerow(node_line(row))
            n_nodes += 1
    with atomic_text(out_dir / "relationships.csv") as fh:
        w = csv_writer(fh, ",")
        w.writerow(REL_HEADER)
        for row in edge_rows(con, sid, BY_TYPE):
            w.writerow(rel_line(row))
            n_rels += 1
    with atomic_text(out_dir / "import.sh") as fh:
        fh.write(import_script())
    (out_dir / "import.sh").chmod(0o755)
    return {
        "nodes.csv": (out_dir / "nodes.csv", n_nodes),
        "relationships.csv": (out_dir / "relationships.csv", n_rels),
        "import.sh": (out_dir / "import.sh", None),
    }
