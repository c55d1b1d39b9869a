"""``kgbuild eval judgments``: every judgment the pipeline makes about a fact, against gold.

Why: each judgment — is this ID right for this mention, does this sentence state a
relation between these two, is it negated or hedged, how likely is it true — was a rule tuned
on a few hundred rows and never measured against the expert gold that BioRED and BC5CDR hold.
One harness measures them all, so that a change to a rule is measured by the same numbers that
justified it (the rule lives in its stage folder, its figures here: GUIDE, "A judgment and its
measurement live apart"):

- **ID checks** (:mod:`kgbuild.evaluate.idchecks`): the ingestion checks run on curated
  mentions (every one linked by a curator): how many curated IDs they remove, change or mark
  suspect, per corpus, vocabulary, entity type and rule; and how many of a fixture of known
  mislinks they still catch;
- **relation verification** (:mod:`kgbuild.verifier`): the shipped verifier on gold dev pairs
  (BioRED entity pair, pair + type, per type; BC5CDR CID), with the gold entities;
- **epistemic status**: precision of ``negated`` / ``hypothesis`` on blind-judged status sheets
  (``bench/epistemic_sample.py`` draws them; a judge who sees only the sentence and the two
  concepts fills them), with Wilson intervals;
- **confidence**: the shipped model's cross-validated Brier score, AUC and reliability table on
  blind-judged audit sheets (:mod:`kgbuild.audit.calibrate`), and what the default serving rule
  keeps: the share of served rows the judges found supported, and of supported rows served.

A section whose inputs are not given (no ``../shared``, no sheets, no warehouse holding the
sheets' rows) says why it was skipped instead of a number. The result is one dict: the CLI
prints a table and one JSON line of its headline figures (:func:`headline`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kgbuild.audit.score import wilson
from kgbuild.errors import InputError

#: Where a checkout's gold lives (``../shared/data`` beside the project root), when it is there.
SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
#: Training + development splits used by default (the test splits are held out: pass them
#: explicitly, the command reads them unchanged).
DEFAULT_GOLD = {
    "bc5cdr": ("bc5cdr/CDR_TrainingSet.PubTator.txt", "bc5cdr/CDR_DevelopmentSet.PubTator.txt"),
    "biored": ("biored/Train.PubTator", "biored/Dev.PubTator"),
}
DEFAULT_DEV = {"biored": "biored/Dev.PubTator", "cdr": "bc5cdr/CDR_DevelopmentSet.PubTator.txt"}
#: The harness's sections, in the order they print.
SECTIONS = ("id_checks", "verifier", "epistemic", "confidence")
#: The status sheets' judged column for each status they sample.
STATUS_COLUMNS = {"negated": "really_negated", "hypothesis": "really_hypothesis"}


def default_gold() -> dict[str, list[Path]]:
    """The train+dev files of each corpus that exist beside the checkout (may be empty)."""
    out = {}
    for corpus, files in DEFAULT_GOLD.items():
        paths = [SHARED / f for f in files if (SHARED / f).is_file()]
        if paths:
            out[corpus] = paths
    return out


def gold_by_corpus(paths: Sequence[Path]) -> dict[str, list[Path]]:
    """Curated files grouped by corpus, named from the file: BC5CDR's ``CDR_*`` files are
    ``bc5cdr``, BioRED's (``Train``/``Dev``/``Test`` .PubTator / .BioC.*) are ``biored``;
    any other file is its own corpus, named by its stem."""
    out: dict[str, list[Path]] = {}
    for p in paths:
        name = p.name.lower()
        corpus = (
            "bc5cdr"
            if name.startswith("cdr")
            else "biored"
            if name.split(".")[0] in ("train", "dev", "test")
            else p.name.split(".")[0]
        )
        out.setdefault(corpus, []).append(Path(p))
    return out


def default_dev() -> dict[str, Path]:
    """The dev file of each corpus that exists beside the checkout."""
    return {k: SHARED / f for k, f in DEFAULT_DEV.items() if (SHARED / f).is_file()}


# ---- epistemic status: blind-judged status sheets --------------------------------------------
def read_status_sheet(path: Path) -> tuple[str, list[bool]]:
    """(status, verdicts) of a judged status sheet: its ``# status:`` header names the status
    the rows were drawn from; its ``really_<status>`` column holds the judge's yes/no. Rows
    left blank are not counted; any other value is an error naming the row."""
    if not path.is_file():
        raise InputError("no such status sheet", path=path)
    text = path.read_text(encoding="utf-8-sig")
    lines = text.splitlines()
    meta = {}
    body = 0
    while body < len(lines) and lines[body].startswith("#"):
        key, sep, value = lines[body][1:].partition(":")
        if sep:
            meta[key.strip()] = value.strip()
        body += 1
    status = meta.get("status", "")
    column = STATUS_COLUMNS.get(status)
    reader = csv.DictReader(io.StringIO("\n".join(lines[body:])), delimiter="\t")
    if column is None or column not in (reader.fieldnames or []):
        raise InputError(
            "not a judged status sheet (needs '# status: negated|hypothesis' and its "
            "really_<status> column)",
            path=path,
        )
    verdicts = []
    for row in reader:
        v = (row.get(column) or "").strip().lower()
        if v in ("yes", "no"):
            verdicts.append(v == "yes")
        elif v:
            raise InputError("status sheet: verdict must be yes or no", path=path,
                             item=row.get("item"), value=v[:20])  # fmt: skip
    return status, verdicts


def status_precision(sheets: Sequence[Path]) -> dict[str, Any]:
    """Precision of each sampled status over its judged sheets, with a Wilson 95% interval."""
    pooled: dict[str, list[bool]] = {}
    for path in sheets:
        status, verdicts = read_status_sheet(Path(path))
        pooled.setdefault(status, []).extend(verdicts)
    out = {}
    for status, v in sorted(pooled.items()):
        k, n = sum(v), len(v)
        out[status] = {"judged": n, "correct": k, "precision": round(k / n, 4) if n else None,
                       "ci95": wilson(k, n)}  # fmt: skip
    return out


# ---- relation verifier: the shipped model on gold dev pairs ---------------------------------
def evaluate_dev(dev: dict[str, Path], limit: int | None = None) -> dict[str, Any]:
    """The shipped verifier on the gold entities of ``dev`` (``biored`` / ``cdr`` files), at
    its own thresholds: BioRED pair, pair + type (all pairs and KG-node pairs), per type and
    kind pair; BC5CDR CID. Outside the pipeline, so the figures are the model's alone (``eval
    re`` measures the extractor through the whole build)."""
    from kgbuild.verifier.corpus import read_gold
    from kgbuild.verifier.measure import biored_figures, cid_figures
    from kgbuild.verifier.model import load_verifier
    from kgbuild.verifier.train import CHEM_DIS, score_docs

    verifier = load_verifier()
    out: dict[str, Any] = {"model": verifier.ref}
    if "biored" in dev:
        docs = read_gold(Path(dev["biored"]))[:limit]
        f = biored_figures(score_docs(verifier, docs), docs, verifier.pair_threshold)
        out["biored"] = {
            "file": Path(dev["biored"]).name,
            "pair": _prf(f["all"]["pair"]),
            "pair_type": _prf(f["all"]["pair+type"]),
            "nodes_pair": _prf(f["nodes"]["pair"]),
            "nodes_pair_type": _prf(f["nodes"]["pair+type"]),
            "per_type": {t: _prf(x) for t, x in f["per_type"].items()},
        }
    if "cdr" in dev:
        docs = read_gold(Path(dev["cdr"]))[:limit]
        f = cid_figures(score_docs(verifier, docs, CHEM_DIS), docs, verifier.cid_threshold)
        out["cdr"] = {"file": Path(dev["cdr"]).name, "cid": _prf(f["CID"])}
    return out


def _prf(f: dict[str, Any]) -> dict[str, Any]:
    return {"precision": f["p"], "recall": f["r"], "f1": f["f1"], "tp": f["tp"],
            "predicted": f["predicted"], "gold": f["gold"]}  # fmt: skip


# ---- the harness ----------------------------------------------------------------------------
def _section(fn: Callable[..., dict[str, Any]], *args: Any, **kwargs: Any) -> dict[str, Any]:
    """Run one section; an input error becomes the section's ``skipped`` reason (one line)."""
    try:
        return fn(*args, **kwargs)
    except InputError as exc:
        return {"skipped": str(exc)}


def evaluate_judgments(
    gold: dict[str, list[Path]] | None = None,
    dev: dict[str, Path] | None = None,
    status_sheets: Sequence[Path] = (),
    audit_sheets: Sequence[Path] = (),
    warehouse: Path | None = None,
    limit: int | None = None,
    sections: Sequence[str] = SECTIONS,
) -> dict[str, Any]:
    """Every judgment against gold (see the module docstring). ``gold``: corpus → curated
    files for the ID checks (default: train+dev beside the checkout); ``dev``: ``biored`` /
    ``cdr`` dev files for the verifier; ``limit``: first N documents of each file (a slice
    for tests); ``warehouse``: the build the audit sheets were drawn from."""
    report: dict[str, Any] = {}
    if "id_checks" in sections:
        from kgbuild.evaluate.idchecks import measure_id_checks, mislink_fixture

        gold = default_gold() if gold is None else gold
        report["id_checks"] = {
            corpus: _section(measure_id_checks, paths, limit=limit)
            for corpus, paths in sorted(gold.items())
        } or {"skipped": "no curated gold files given (../shared/data is not here)"}
        report["mislinks"] = mislink_fixture()
    if "verifier" in sections:
        dev = default_dev() if dev is None else dev
        report["verifier"] = (
            _section(evaluate_dev, dev, limit=limit)
            if dev
            else {"skipped": "no dev gold files given (../shared/data is not here)"}
        )
    if "epistemic" in sections:
        report["epistemic"] = (
            _section(status_precision, status_sheets)
            if status_sheets
            else {"skipped": "no judged status sheets given (--status-sheet)"}
        )
    if "confidence" in sections:
        report["confidence"] = _confidence(audit_sheets, warehouse)
    return report


def _confidence(sheets: Sequence[Path], warehouse: Path | None) -> dict[str, Any]:
    if not sheets:
        return {"skipped": "no judged audit sheets given (--audit-sheet)"}
    if warehouse is None or not (Path(warehouse) / "kg.duckdb").exists():
        return {"skipped": "the audit sheets' build is needed to read their rows' features "
                           "(--warehouse of the replayed DALK build)"}  # fmt: skip
    from kgbuild.audit.calibrate import cross_validated_report
    from kgbuild.store.snapshots import Warehouse

    out = _section(cross_validated_report, [Path(s) for s in sheets], Warehouse(warehouse))
    served = out.get("served")
    if served:
        served["precision_ci95"] = wilson(served["served_supported"], served["served"])
    return out


def headline(report: dict[str, Any]) -> dict[str, Any]:
    """The figures the issue names, flat, for the JSON line (None where a section skipped)."""

    def get(*keys: str) -> Any:
        node: Any = report
        for k in keys:
            if not isinstance(node, dict) or k not in node:
                return None
            node = node[k]
        return node

    out: dict[str, Any] = {}
    for corpus in ("bc5cdr", "biored"):
        out[f"id_false_removal_{corpus}"] = get("id_checks", corpus, "false_removal_share")
        out[f"id_suspect_{corpus}"] = get("id_checks", corpus, "suspect")
    out["mislinks_caught"] = get("mislinks", "caught")
    out["mislinks_total"] = get("mislinks", "total")
    out["biored_pair_f1"] = get("verifier", "biored", "pair", "f1")
    out["biored_pair_type_f1"] = get("verifier", "biored", "pair_type", "f1")
    out["cdr_cid_f1"] = get("verifier", "cdr", "cid", "f1")
    out["negated_precision"] = get("epistemic", "negated", "precision")
    out["hypothesis_precision"] = get("epistemic", "hypothesis", "precision")
    out["confidence_brier"] = get("confidence", "brier")
    out["confidence_brier_base_rate"] = get("confidence", "brier_base_rate")
    out["confidence_auc"] = get("confidence", "auc")
    out["served_supported"] = get("confidence", "served", "precision")
    out["supported_served"] = get("confidence", "served", "recall")
    return out


def _pct(x: Any) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _id_rows(ids: dict[str, Any]) -> list[str]:
    lines = ["| corpus | curated mentions | removed | relinked | suspect | false removal |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    for corpus, f in ids.items():
        if "skipped" in f:
            lines.append(f"| {corpus} | skipped: {f['skipped']} | | | | |")
            continue
        lines.append(f"| {corpus} | {f['curated']:,} | {f['removed']:,} | {f['relinked']:,} | "
                     f"{f['suspect']:,} | {_pct(f['false_removal_share'])} |")  # fmt: skip
    return lines


def _verifier_rows(ver: dict[str, Any]) -> list[str]:
    lines = ["| gold | measure | P | R | F1 |", "|---|---|---|---|---|"]
    for corpus, measures in ver.items():
        if not isinstance(measures, dict) or "skipped" in measures:
            continue
        for name, m in measures.items():
            if isinstance(m, dict) and "f1" in m:
                lines.append(f"| {corpus} | {name} | {m['precision']:.3f} | "
                             f"{m['recall']:.3f} | {m['f1']:.3f} |")  # fmt: skip
    return lines


def _status_rows(epi: dict[str, Any]) -> list[str]:
    lines = ["| status | judged | correct | precision [95% CI] |", "|---|---|---|---|"]
    for status, f in epi.items():
        lo, hi = f["ci95"]
        ci = f"[{100 * lo:.1f}–{100 * hi:.1f}]"
        lines.append(f"| {status} | {f['judged']} | {f['correct']} | "
                     f"{_pct(f['precision'])} {ci} |")  # fmt: skip
    return lines


def _confidence_rows(conf: dict[str, Any]) -> list[str]:
    auc = "–" if conf.get("auc") is None else f"{conf['auc']:.3f}"
    base = conf["brier_base_rate"]
    lines = [f"{conf['n']} judged rows: Brier {conf['brier']:.4f} (base rate {base:.4f}), "
             f"AUC {auc}, ECE {conf['ece']:.4f}",
             "", "| predicted | mean predicted | observed | n |", "|---|---|---|---|"]  # fmt: skip
    for b in conf["bins"]:
        lo, hi = b["bin"]
        lines.append(f"| {lo:.1f}–{hi:.1f} | {b['predicted']:.3f} | {b['observed']:.3f} | "
                     f"{b['n']} |")  # fmt: skip
    s = conf["served"]
    lines += ["", f"served rows judged supported: {s['served_supported']}/{s['served']} = "
              f"{_pct(s['precision'])}; supported rows served: {_pct(s['recall'])}"]  # fmt: skip
    return lines


#: Each section of :func:`render`: its report key, title and table.
_RENDERED: tuple[tuple[str, str, Callable[[dict[str, Any]], list[str]]], ...] = (
    ("id_checks", "ID checks on curated mentions", _id_rows),
    ("verifier", "Relation verifier on gold dev pairs (gold entities)", _verifier_rows),
    ("epistemic", "Epistemic status on blind-judged sheets", _status_rows),
    ("confidence", "Confidence on blind-judged audit sheets (10-fold CV by document)",
     _confidence_rows),
)  # fmt: skip


def render(report: dict[str, Any]) -> str:
    """The report as a markdown table per section (skipped sections say why)."""
    lines = ["# Judgments against gold", ""]
    for key, title, rows in _RENDERED:
        section = report.get(key)
        if section is None:
            continue
        lines += [f"## {title}", ""]
        lines += [f"skipped: {section['skipped']}"] if "skipped" in section else rows(section)
        mislinks = (report.get("mislinks") or {}) if key == "id_checks" else {}
        if "caught" in mislinks:
            lines += ["", f"known mislinks caught: {mislinks['caught']}/{mislinks['total']}"]
        lines.append("")
    return "\n".join(lines)
