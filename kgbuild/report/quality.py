"""KG quality figures: how clean a snapshot is, and the same figures for a DALK-style TSV.

The figures compare kgbuild with DALK on the same raw LLM outputs (issue "Entity resolution"):
the share of triple endpoints with a normalized ID, the share of triples using a Hetionet
relation, the number of distinct relation strings, how many node strings each concept is split
over (worst offenders listed), how many nodes Alzheimer's disease's own surface forms end up in,
and the support histogram (distinct PMIDs per triple).

Shares cannot tell a right ID from a wrong one, so a snapshot's report also gives:
the share of triples whose kinds and relation are a Hetionet metaedge (stricter than the
relation *name*), the mentions whose annotator ID was taken away at ingestion and the triple
endpoints that are free because of it (a fall of the ID share for a good reason), the
mixed-concept IDs the detector finds in the snapshot's mentions (reviewed or not, see
``data/mislinked_forms.tsv``), and the precision of the latest scored blind audit
(``kgbuild audit``) beside the shares.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from kgbuild.errors import InputError
from kgbuild.names import norm
from kgbuild.report.vocabulary import vocabulary_table
from kgbuild.schema import hetionet_relation_names, hetionet_relations
from kgbuild.store.edges import EPISTEMIC
from kgbuild.store.snapshots import Warehouse

#: Surface forms of Alzheimer's disease itself (after :func:`norm`): "AD", "Alzheimer's disease",
#: "Alzheimer disease (AD)", "AD (Alzheimer's Disease)", "Alzheimers disease"… — not the 396 DALK
#: node strings that merely contain the word (AD mouse models, AD pathology, familial AD…).
AD_FORM = re.compile(
    r"(ad|alzheimers?|alzheimers? disease|ad alzheimers? disease|alzheimers? disease ad"
    r"|alzheimers? s disease|dementia of the alzheimers? type|alzheimers? type dementia)"
)
_BUCKETS = ((1, 1), (2, 2), (3, 5), (6, 10), (11, 10**9))


def is_ad_form(name: str) -> bool:
    return AD_FORM.fullmatch(norm(name)) is not None


def _histogram(support: list[int]) -> dict[str, int]:
    return {
        (f"{lo}" if lo == hi else f"{lo}+" if hi > 10**6 else f"{lo}-{hi}"): sum(
            1 for s in support if lo <= s <= hi
        )
        for lo, hi in _BUCKETS
    }


#: Methods whose relation is a model's judgment (an LLM's or the trained relation verifier's).
#: A co-occurrence edge's relation is a label chosen by its kind pair, not extracted: it never
#: counts as a Hetionet-typed relation (else "Hetionet relation share 100%" for a KG in
#: which no relation was extracted).
MODEL_METHODS = frozenset({"generative", "pairwise", "classifier"})
#: Relations that say only that two concepts were named together.
UNTYPED = frozenset({"co_mentioned"})


def _figures(
    triples: list[tuple[str, str, str]],
    surface: dict[str, set[str]],
    support: list[int],
    by_model: list[bool] | None = None,
) -> dict[str, Any]:
    """``by_model``: per triple, whether a model produced its relation (None: all did, as in a
    DALK TSV of LLM outputs)."""
    hetio, dalk = hetionet_relation_names(), hetionet_relations()
    made = by_model if by_model is not None else [True] * len(triples)
    # the relation of each triple a model typed, else None
    typed = [
        r.strip().lower() if m and r.strip().lower() not in UNTYPED else None
        for (_, r, _), m in zip(triples, made, strict=True)
    ]
    nodes = {x for h, _, t in triples for x in (h, t)}
    endpoints = [x for h, _, t in triples for x in (h, t)]
    ad_nodes = {node for node, forms in surface.items() if any(is_ad_form(f) for f in forms)}
    per_node = {node: len({norm(f) for f in forms}) for node, forms in surface.items()}
    worst = sorted(per_node.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
    n = len(triples) or 1
    return {
        "triples": len(triples),
        "nodes": len(nodes),
        # Hetionet's relation names (its 24 metaedges), and DALK's 10 of them (Table 11).
        "hetionet_relation_share": round(sum(r in hetio for r in typed if r) / n, 4),
        "dalk_relation_share": round(sum(r in dalk for r in typed if r) / n, 4),
        "model_typed_triples": sum(r is not None for r in typed),
        "relation_strings": len({r for _, r, _ in triples}),
        "endpoint_id_share": round(
            sum(not x.startswith("free:") for x in endpoints) / (len(endpoints) or 1), 4
        ),
        "ad_surface_form_nodes": len(ad_nodes),
        "ad_nodes": sorted(ad_nodes)[:50],
        "node_strings_per_node_mean": round(sum(per_node.values()) / (len(per_node) or 1), 3),
        "worst_split_nodes": [{"node": k, "strings": v} for k, v in worst],
        "support_histogram": _histogram(support),
    }


def snapshot_quality(wh: Warehouse, snapshot_id: str) -> dict[str, Any]:
    """:func:`_snapshot_quality` on one catalog connection (its queries would otherwise open one
    each: :meth:`~kgbuild.store.snapshots.Warehouse.reader`)."""
    with wh.reader():
        return _snapshot_quality(wh, snapshot_id)


def _snapshot_quality(wh: Warehouse, snapshot_id: str) -> dict[str, Any]:
    """Quality figures of one snapshot; node strings are the extractors' own endpoint texts."""
    rows = wh.query(
        "SELECT t.head_id, t.relation, t.tail_id, coalesce(bool_or(list_contains(?, e.method)), "
        "false) FROM triples_at(?) t LEFT JOIN evidence_at(?) e USING (triple_id) "
        "GROUP BY ALL ORDER BY ALL",
        [sorted(MODEL_METHODS), snapshot_id, snapshot_id],
    )
    triples = [(h, r, t) for h, r, t, _ in rows]
    by_model = [bool(m) for *_, m in rows]
    surface: dict[str, set[str]] = defaultdict(set)
    for node, text in wh.query(
        "SELECT t.head_id, e.head_text FROM evidence_at(?) e JOIN triples_at(?) t "
        "USING (triple_id) UNION SELECT t.tail_id, e.tail_text FROM evidence_at(?) e "
        "JOIN triples_at(?) t USING (triple_id)",
        [snapshot_id] * 4,
    ):
        if text:
            surface[node].add(text)
    support = [r[0] for r in wh.query("SELECT support FROM kg_edges_at(?)", [snapshot_id])]
    return {
        "snapshot_id": snapshot_id,
        **_figures(triples, surface, support, by_model),
        **_precision_figures(wh, snapshot_id),
        **epistemic_figures(wh, snapshot_id),
        **vocabulary_figures(wh, snapshot_id),
    }


def vocabulary_figures(wh: Warehouse, sid: str) -> dict[str, Any]:
    """Annotator IDs checked against their vocabularies (per vocabulary: IDs and
    mentions checked, kept, dropped, uncheckable) and the gene mentions moved to their human
    ortholog. Snapshots built before the check have no ``id_check`` column: no table."""
    cols = {r[0] for r in wh.query("DESCRIBE SELECT * FROM mentions_at(?)", [sid])}
    if "id_check" not in cols:
        return {}
    kinds = dict(
        wh.query(
            "SELECT kind, count(*) FROM problems_at(?) WHERE kind IN "
            "('vocabulary_mismatch', 'ortholog_id') GROUP BY 1",
            [sid],
        )
    )
    return {
        "mentions_vocabulary_dropped": int(kinds.get("vocabulary_mismatch", 0)),
        "mentions_moved_to_human_ortholog": int(kinds.get("ortholog_id", 0)),
        "vocabulary": vocabulary_table(wh, sid),
    }


def epistemic_figures(wh: Warehouse, sid: str) -> dict[str, Any]:
    """The share of evidence rows per epistemic status (``unclassified``: rows of parts
    written before statuses existed) and the share of triples that ``kg_edges`` serves (with
    at least one asserted, not-refuted evidence row)."""
    rows = dict(wh.query("SELECT epistemic, count(*) FROM evidence_status_at(?) GROUP BY 1", [sid]))
    total = sum(rows.values())
    out: dict[str, Any] = {
        f"evidence_{s}_share": round(rows.get(s, 0) / total, 4) if total else 0.0
        for s in EPISTEMIC
        if rows.get(s) or s != "unclassified"
    }
    served = wh.query("SELECT count(*) FROM kg_edges_at(?)", [sid])[0][0]
    every = wh.query("SELECT count(*) FROM triples_at(?)", [sid])[0][0]
    out["edges_with_asserted_evidence_share"] = round(served / every, 4) if every else 0.0
    out["epistemic_rows"] = {s: int(rows.get(s, 0)) for s in EPISTEMIC}
    return out


def _precision_figures(wh: Warehouse, sid: str) -> dict[str, Any]:
    """The issue-16 figures: metaedge share, unlinked IDs, mixed concepts, the latest audit."""
    from kgbuild.audit.score import latest_audit
    from kgbuild.resolve.mislinked import (
        PROBLEM_KIND,
        RELINK_KIND,
        banned_forms,
        mislinked_table,
        unlinked_form,
    )
    from kgbuild.resolve.mixed import detect
    from kgbuild.resolve.vocab import reference

    (n, with_edge), = wh.query(
        "SELECT count(*), count(metaedge) FROM triples_at(?)", [sid]
    )  # fmt: skip
    details = [r[0] for r in wh.query(
        "SELECT detail FROM problems_at(?) WHERE kind = ?", [sid, PROBLEM_KIND]
    )]  # fmt: skip
    (relinked,) = wh.query(
        "SELECT count(*) FROM problems_at(?) WHERE kind = ?", [sid, RELINK_KIND]
    )[0]  # fmt: skip
    removed = [u for d in details if (u := unlinked_form(d))]
    ids = {cid for _, cid in removed}
    # forms that lost an ID: the reviewed table's and every automatic rule's
    forms = set(banned_forms()) | {form for form, _ in removed}
    freed = wh.query(
        # distinct nodes: one freed endpoint read in several triples is one node
        "SELECT count(DISTINCT x) FROM triples_at(?) t, unnest([t.head_id, t.tail_id]) AS u(x) "
        "WHERE list_contains(?, x)",
        [sid, sorted(f"free:{f}" for f in forms)],
    )[0][0]
    rows = wh.query(
        "SELECT concept_id, hetionet_type, text, count(*) FROM mentions_at(?) "
        "WHERE concept_id IS NOT NULL AND hetionet_type IS NOT NULL GROUP BY ALL",
        [sid],
    )
    table = mislinked_table()
    mixed = []
    for mc in detect(rows, reference()):
        d = mc.as_dict()
        foreign = [f for forms in mc.foreign.values() for f, _ in forms]
        d["reviewed"] = all((mc.concept_id, f) in table for f in foreign)
        if d["reviewed"]:
            actions = sorted({table[(mc.concept_id, f)][0] for f in foreign})
            d["detector_verdict"] = d["verdict"]
            d["verdict"] = f"reviewed ({'/'.join(actions)}) in data/mislinked_forms.tsv"
        mixed.append(d)
    kg = wh.query("SELECT kg FROM snapshots WHERE snapshot_id = ?", [sid])
    audit = latest_audit(wh.root, kg[0][0] if kg else "", sid)
    return {
        "hetionet_metaedge_share": round(with_edge / (n or 1), 4),
        "mislinked_mentions_unlinked": len(details),
        "mislinked_ids_unlinked": len(ids),
        "mentions_relinked": relinked,
        "endpoints_freed_by_unlinking": freed,
        "mixed_concept_ids": len(mixed),
        "mixed_concept_ids_unreviewed": sum(not d["reviewed"] for d in mixed),
        "mixed_concepts": mixed,
        "audit": _audit_summary(audit, sid) if audit else None,
    }


def _audit_summary(a: dict[str, Any], sid: str) -> dict[str, Any]:
    """The audited figures to show beside the shares."""
    return {
        "sheet": a.get("sheet"),
        "snapshot": a.get("snapshot"),
        "this_snapshot": a.get("snapshot") == sid,
        "seed": a.get("seed"),
        "judged": a.get("judged"),
        "scored_at": a.get("scored_at"),
        **{
            q: {k: a[q][k] for k in ("k", "n", "precision", "bootstrap_95", "wilson_95")}
            for q in ("claim_supported", "faithful", "end_to_end")
        },
        "normalization_delta": a.get("normalization_delta"),
    }


def tsv_quality(path: Path) -> dict[str, Any]:
    """The same figures for a ``head<TAB>relation<TAB>tail`` KG (DALK's ``train_s2s.txt``): every
    distinct string is a node with no ID; support is the number of identical lines."""
    lines: Counter[tuple[str, str, str]] = Counter()
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("not a UTF-8 text file (expected head<TAB>relation<TAB>tail lines)",
                         path=path, at_byte=exc.start) from exc  # fmt: skip
    if "\x00" in text:
        raise InputError("binary file, not head<TAB>relation<TAB>tail lines", path=path)
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) == 3:
            lines[(parts[0], parts[1], parts[2])] += 1
    triples = [(f"free:{h}", r, f"free:{t}") for h, r, t in lines]
    surface = {f"free:{x}": {x} for h, _, t in lines for x in (h, t)}
    return {"source": str(path), **_figures(triples, surface, list(lines.values()))}
