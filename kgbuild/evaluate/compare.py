"""``kgbuild eval compare A B``: two evaluation runs side by side.

Rows are matched by name (a measure, a relation type, a kind pair; for NER a model's type and
match). When both runs scored the very same gold documents (same file digest, same PMIDs in the
same order) the overall measures also get A − B in F1 with a **paired** bootstrap interval:
both runs' per-document counts are resampled with the same document draws, so the variation the
documents share cancels out (Berg-Kirkpatrick et al. 2012). The difference is significant at
95% when its interval excludes 0.
"""

from __future__ import annotations

from typing import Any

from kgbuild.errors import InputError
from kgbuild.evaluate.bootstrap import paired_difference, resample_indices


def _same_documents(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Same documents in the same order with the same gold annotations (a BioC-JSON file and
    its PubTator twin qualify: the gold content is compared, not the file bytes)."""
    return (
        a["gold"]["content_digest"] == b["gold"]["content_digest"]
        and a["per_document"]["pmids"] == b["per_document"]["pmids"]
    )


def _re_rows(r: dict[str, Any]) -> dict[str, dict[str, Any]]:
    rows = {f"measure {k}": v for k, v in r["measures"].items()}
    rows.update({f"type {k}": v for k, v in r["per_type"].items()})
    rows.update({f"kinds {k}": v for k, v in r["per_kinds"].items()})
    return rows


def _ner_rows(r: dict[str, Any]) -> dict[str, dict[str, Any]]:
    rows = {}
    for row in r["rows"]:
        for match in ("strict", "overlap"):
            if match in row:
                rows[f"{row['model']} {row['type']} {match}"] = row[match]
    return rows


def _per_doc_keys(r: dict[str, Any]) -> dict[str, str]:
    """Row name → per-document counts key, for rows a paired difference can be computed on."""
    if r["kind"] == "re":
        return {f"measure {k}": k for k in r["measures"]}
    return {
        f"{row['model']} {row['type']} {m}": f"{row['model']}|{row['type']}|{m}"
        for row in r["rows"]
        for m in ("strict", "overlap")
        if m in row
    }


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Matched rows of two reports of the same kind, with paired F1 differences where the
    two runs scored the same documents."""
    if a["kind"] != b["kind"]:
        raise InputError("cannot compare an NER run with a relation run", a=a["kind"], b=b["kind"])
    rows_a, rows_b = (
        (_re_rows(a), _re_rows(b)) if a["kind"] == "re" else (_ner_rows(a), _ner_rows(b))
    )
    paired = _same_documents(a, b)
    idx = None
    if paired:
        boot = a["bootstrap"]
        idx = resample_indices(len(a["per_document"]["pmids"]), boot["resamples"], boot["seed"])
    keys_a, keys_b = _per_doc_keys(a), _per_doc_keys(b)
    rows = []
    for name in list(dict.fromkeys([*rows_a, *rows_b])):
        row: dict[str, Any] = {"row": name, "a": rows_a.get(name), "b": rows_b.get(name)}
        if idx is not None and name in keys_a and name in keys_b:
            counts_a = a["per_document"][keys_a[name]]
            counts_b = b["per_document"][keys_b[name]]
            row["difference"] = paired_difference(counts_a, counts_b, idx)
        rows.append(row)
    return {
        "kind": a["kind"],
        "a": a["run_id"],
        "b": b["run_id"],
        "same_documents": paired,
        "rows": rows,
    }
