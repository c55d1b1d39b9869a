"""The vocabulary check's figures per vocabulary, for `kgbuild quality`.

Why here: the check runs at ingestion (:mod:`kgbuild.resolve.idcheck`) and leaves its verdict
on every mention (``Mention.id_check``); reading a snapshot's mentions back is the report
layer's business (``resolve`` may not import ``store``).
"""

from __future__ import annotations

from kgbuild.store import catalog


def vocabulary_table(con_or_warehouse: object, snapshot_id: str) -> list[dict[str, object]]:
    """Per vocabulary: distinct IDs and mentions checked, kept, dropped, uncheckable in a
    snapshot (``Mention.id_check``; a dropped mention's ID is its ``annotator_id``).

    ``ids_kept``/``ids_dropped`` count IDs with at least one mention kept/dropped (one ID can
    have both: a right form and a wrong one); ``ids_all_dropped`` those never kept."""
    sql = """
        WITH m AS (
          SELECT split_part(id_check, ':', 1) AS vocabulary, split_part(id_check, ':', 2) AS v,
                 CASE WHEN split_part(id_check, ':', 2) = 'dropped'
                      THEN coalesce(annotator_id, concept_id) ELSE concept_id END AS cid
          FROM mentions_at(?) WHERE coalesce(id_check, '') <> ''),
        per_id AS (
          SELECT vocabulary, cid, bool_or(v = 'kept') AS k, bool_or(v = 'dropped') AS d,
                 bool_or(v = 'uncheckable') AS u FROM m GROUP BY ALL)
        SELECT p.vocabulary,
               count(*) FILTER (WHERE k OR d) AS ids_checked,
               count(*) FILTER (WHERE k) AS ids_kept,
               count(*) FILTER (WHERE d) AS ids_dropped,
               count(*) FILTER (WHERE d AND NOT k) AS ids_all_dropped,
               count(*) FILTER (WHERE u) AS ids_uncheckable,
               any_value(n.checked) AS mentions_checked, any_value(n.kept) AS mentions_kept,
               any_value(n.dropped) AS mentions_dropped,
               any_value(n.uncheckable) AS mentions_uncheckable
        FROM per_id p JOIN (
          SELECT vocabulary, count(*) FILTER (WHERE v <> 'uncheckable') AS checked,
                 count(*) FILTER (WHERE v = 'kept') AS kept,
                 count(*) FILTER (WHERE v = 'dropped') AS dropped,
                 count(*) FILTER (WHERE v = 'uncheckable') AS uncheckable
          FROM m GROUP BY ALL) n USING (vocabulary)
        GROUP BY p.vocabulary ORDER BY p.vocabulary"""
    if hasattr(con_or_warehouse, "execute"):
        cur = con_or_warehouse.execute(sql, [snapshot_id])  # type: ignore[attr-defined]
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]
    with catalog.connect(con_or_warehouse.catalog_path, read_only=True) as con:  # type: ignore[attr-defined]
        return vocabulary_table(con, snapshot_id)
