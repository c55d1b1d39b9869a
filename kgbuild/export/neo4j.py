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

People open these CSVs in a spreadsheet too, so text cells are spreadsheet-safe
(:mod:`kgbuild.store.spreadsheet`, OWASP "CSV Injection"): a cell that begins with ``=``, ``+``,
``-``, ``@``, tab, CR or ``'`` has a ``'`` in front; number columns (``:int``, ``:float``) are
written as they are. ``neo4j-admin`` has no escape of its own for this and loads the mark as
text, so the mark is reversible (every marked cell begins with ``'``, every cell beginning with
``'`` is marked) and ``unmark.cypher`` (run once after the import, ``import.sh`` says how) drops
it from every text property: names round-trip exactly. kgbuild's LadybugDB loader drops it
while loading. No CURIE, label, type or number begins with one of these characters.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import duckdb

from kgbuild.export import biolink
from kgbuild.export.source import BY_TYPE, edge_rows, node_rows
from kgbuild.store.files import LIST_DELIMITER, atomic_text, fmt_number, join_list, text
from kgbuild.store.files import writer as csv_writer
from kgbuild.store.spreadsheet import MARK

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
        text(row["id"]),
        label(row["kind"]),
        text(row["name"]),
        text(row["kind"]),
        biolink.category(row["kind"]),
        join_list(row["aliases"]),
        fmt_number(row["first_year"]),
        fmt_number(row["degree"]),
    ]


def rel_line(row: dict[str, Any]) -> list[str]:
    return [
        text(row["head_id"]),
        text(row["tail_id"]),
        rel_type(row["relation"]),
        text(row["triple_id"]),
        text(row["relation"]),
        text(row["relation_raw"]),
        text(row["metaedge"]),
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


def _text_properties(header: list[str]) -> list[tuple[str, bool]]:
    """(property, is a list) of each text column of an import header: the ``:ID`` column and
    ``name``/``name:string``/``name:string[]`` fields (labels and types are never marked)."""
    out = []
    for col in header:
        name, _, spec = col.partition(":")
        if name and spec in ("", "ID", "string", "string[]"):
            out.append((name, spec == "string[]"))
    return out


def unmark_cypher() -> str:
    """Cypher that drops the spreadsheet mark (:mod:`kgbuild.store.spreadsheet`) from every
    text property ``neo4j-admin`` loaded from these CSVs: one leading ``'`` (of a list, of its
    first element: the mark belongs to the cell)."""
    q = '"' + MARK + '"'
    lines = ["// Drop kgbuild's spreadsheet mark (one leading ') from text properties."]
    for pattern, var, header in (("(x)", "x", NODE_HEADER), ("()-[x]->()", "x", REL_HEADER)):
        for prop, is_list in _text_properties(header):
            p = f"{var}.`{prop}`"
            if is_list:
                lines.append(f"MATCH {pattern} WHERE {p}[0] STARTS WITH {q} "
                             f"SET {p} = [substring({p}[0], 1)] + {p}[1..];")  # fmt: skip
            else:
                lines.append(f"MATCH {pattern} WHERE {p} STARTS WITH {q} "
                             f"SET {p} = substring({p}, 1);")  # fmt: skip
    return "\n".join(lines) + "\n"


def import_script(database: str = "neo4j") -> str:
    return (
        "#!/bin/sh\n"
        "# Load this folder into Neo4j 5 with neo4j-admin (stop the database first; the\n"
        "# import replaces it). Then start Neo4j, drop the spreadsheet mark that text\n"
        "# cells beginning with = + - @ tab CR or ' carry in these CSVs:\n"
        "#   cypher-shell -f /path/to/this/folder/unmark.cypher\n"
        "# and query, e.g.\n"
        "#   MATCH (c:Compound)-[r:TREATS]->(d:Disease) RETURN c.name, d.name, r.support\n"
        "#   ORDER BY r.support DESC LIMIT 10;\n"
        'DIR=$(cd "$(dirname "$0")" && pwd)\n'
        + IMPORT_COMMAND.format(delim=LIST_DELIMITER, database=database)
        + "\n"
    )


def export_neo4j(con: duckdb.DuckDBPyConnection, sid: str, out_dir: Path) -> dict:
    """Write ``nodes.csv``, ``relationships.csv``, ``import.sh`` and ``unmark.cypher``;
    ``{file: (path, rows)}``."""
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
    with atomic_text(out_dir / "unmark.cypher") as fh:
        fh.write(unmark_cypher())
    return {
        "nodes.csv": (out_dir / "nodes.csv", n_nodes),
        "relationships.csv": (out_dir / "relationships.csv", n_rels),
        "import.sh": (out_dir / "import.sh", None),
        "unmark.cypher": (out_dir / "unmark.cypher", None),
    }
