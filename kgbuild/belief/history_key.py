"""What ``belief_history(key)`` is asked about: a triple, or a node named the way people name it.

A reader who wants "how did belief in APOE's facts move" writes ``belief_history('APOE')``, not
the triple's hash or ``NCBIGene:348``; a key the macro did not recognise used to give 0 rows,
which reads as "no history" when it meant "no such key". So the key is resolved first, in the
order a person means it, and a key that matches nothing, or names several nodes, is an error
naming the key — never an empty answer:

1. a ``triple_id`` of any snapshot of the lineage (``kg_edges.triple_id``): that fact;
2. a node ID (``NCBIGene:348``), case-insensitive: every fact the node is an end of;
3. a node's display name or name (``APOE``, ``Alzheimer Disease``), case-insensitive;
4. one of a node's aliases, the surface forms the abstracts used (``apolipoprotein E``).

The first rule that matches decides; within it, more than one node is ambiguous (an alias such
as "AD" is a disease in one abstract and "autosomal dominant" in another), and the error lists
the nodes so the caller picks one ID. Exact matches only: the fuzzy search is ``kgbuild
entities``, whose ranking a SQL macro should not second-guess.
"""

from __future__ import annotations

import duckdb

#: At most this many candidate nodes are named in an ambiguity error.
LISTED_CANDIDATES = 5


def history_nodes_sql() -> str:
    """The body of the table macro ``history_nodes(key, kg_name)``: the nodes (``id``,
    ``display_name``) of the first rule of the module docstring (2–4) that ``key`` matches."""
    k = "lower(key::VARCHAR)"
    # aliases unnested, not list_filter(…, lambda …): a key given as a subquery
    # (belief_history((SELECT triple_id …))) cannot sit inside a lambda
    return f"""
    WITH n AS (SELECT id, display_name, name, aliases
               FROM entity_names_at(head_snapshot(kg_name := kg_name))),
    m AS (
      SELECT id, display_name,
             CASE WHEN lower(id) = {k} THEN 1
                  WHEN lower(display_name) = {k} OR lower(name) = {k} THEN 2 END AS rule
      FROM n
      UNION ALL
      SELECT id, display_name, 3 AS rule
      FROM (SELECT id, display_name, unnest(aliases) AS alias FROM n) WHERE lower(alias) = {k})
    SELECT DISTINCT id, display_name FROM m WHERE rule = (SELECT min(rule) FROM m)"""


def history_key_sql() -> str:
    """The body of the scalar macro ``history_key(key, kg_name)``: the list of keys (one triple
    ID, or one node ID) a belief row must carry as its triple, head or tail; an ``error(…)``
    naming the key when it is not text, matches nothing, or names several nodes.

    Every ``error(…)`` sits in the outer CASE: DuckDB computes uncorrelated subqueries before
    the CASE picks a branch, so an error inside one would fire whatever the key."""
    nodes = "history_nodes(key, kg_name)"
    kg = "coalesce(kg_name, (SELECT kg FROM snapshots WHERE snapshot_id = head_snapshot()))"
    quoted = "'''' || key::VARCHAR || ''''"
    n = f"(SELECT count(*) FROM {nodes})"
    listed = (
        f"(SELECT array_to_string(list(id || ' (' || display_name || ')' ORDER BY id)"
        f"[1:{LISTED_CANDIDATES}], ', ') FROM {nodes})"
    )
    return f"""
    CASE
      WHEN key IS NULL OR typeof(key) <> 'VARCHAR'
      THEN error('belief_history: give one triple_id (kg_edges.triple_id) or one node''s ID, '
                 || 'name or alias (e.g. belief_history(''APOE'')), not '
                 || CASE WHEN key IS NULL THEN 'NULL' ELSE typeof(key) || ' ' || key::VARCHAR END)
      WHEN EXISTS (SELECT 1 FROM lineage_years(kg_name := kg_name) y,
                        LATERAL (SELECT triple_id FROM triples_at(y.snapshot_id)) t
                   WHERE t.triple_id = key::VARCHAR)
      THEN [key::VARCHAR]
      WHEN {n} = 1 THEN (SELECT list(id) FROM {nodes})
      WHEN {n} = 0
      THEN error('belief_history: no triple or node of ' || {kg} || ' matches ' || {quoted}
                 || '; give a triple_id (kg_edges.triple_id) or a node''s ID, name or alias '
                 || 'exactly (kgbuild entities finds near matches)')
      ELSE error('belief_history: ' || {quoted} || ' names ' || {n}::VARCHAR || ' nodes of '
                 || {kg} || ': ' || {listed}
                 || CASE WHEN {n} > {LISTED_CANDIDATES} THEN ', …' ELSE '' END
                 || '; give one of their IDs')
    END"""


def define_history_key(con: duckdb.DuckDBPyConnection, create: str) -> None:
    """Create ``history_nodes`` and ``history_key(key, kg_name)`` (see the module docstring);
    ``lineage_years``, ``triples_at`` and ``entity_names_at`` must exist."""
    con.execute(f"{create} MACRO history_nodes(key, kg_name) AS TABLE {history_nodes_sql()}")
    con.execute(f"{create} MACRO history_key(key, kg_name) AS ({history_key_sql()})")
