"""KG quality figures: how clean a snapshot is, and the same figures for a DALK-style TSV.

The figures compare kgbuild with DALK on the same raw LLM outputs (issue "Entity resolution"):
the share of triple endpoints with a normalized ID, the share of triples using a Hetionet
relation, the number of distinct relation strings, how many node strings each concept is split
over (worst offenders listed), how many nodes Alzheimer's disease's own surface forms end up in,
and the support histogram (distinct PMIDs per triple).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from kgbuild.errors import InputError
from kgbuild.extract.ground import norm
from kgbuild.schema import hetionet_relation_names, hetionet_relations
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


def _figures(
    triples: list[tuple[str, str, str]], surface: dict[str, set[str]], support: list[int]
) -> dict[str, Any]:
    hetio, dalk = hetionet_relation_names(), hetionet_relations()
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
        "hetionet_relation_share": round(
            sum(r.strip().lower() in hetio for _, r, _ in triples) / n, 4
        ),
        "dalk_relation_share": round(sum(r.strip().lower() in dalk for _, r, _ in triples) / n, 4),
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
    """Quality figures of one snapshot; node strings are the extractors' own endpoint texts."""
    triples = wh.query("SELECT head_id, relation, tail_id FROM triples_at(?)", [snapshot_id])
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
    return {"snapshot_id": snapshot_id, **_figures(triples, surface, support)}


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
