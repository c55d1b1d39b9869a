"""``kgbuild audit sample|score|fit``: blind precision audits (a Typer sub-app the CLI mounts).

``kgbuild audit sample alzheimers@2020 --n 100 --seed 7 --out sheet.tsv`` writes a blind sheet;
a person judges every row; ``kgbuild audit score sheet.tsv`` prints precision with intervals and
records it in the warehouse, where ``kgbuild quality`` shows it beside the shares, with the
confidence model's calibration on the judged rows. ``kgbuild audit fit SHEET... --out
data/confidence_model.json`` fits that model (:mod:`kgbuild.audit.calibrate`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from kgbuild.helptext import examples
from kgbuild.settings import warehouse_path
from kgbuild.store.snapshots import Warehouse
from kgbuild.store.sql_output import print_json

audit_app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Blind precision audits: sample evidence rows, judge them, score them.",
    epilog=examples(
        "kgbuild audit sample alzheimers@2020 --n 100 --seed 7 --out sheet.tsv",
        "kgbuild audit score sheet.tsv",
        "kgbuild audit fit sheet.tsv --out data/confidence_model.json",
    ),
)
out = Console(width=None if sys.stdout.isatty() else 200)

WarehouseOpt = Annotated[
    Path | None,
    typer.Option(
        "--warehouse", "-w", help="Warehouse folder [env KGBUILD_WAREHOUSE; default ./warehouse]"
    ),
]


SnapshotOpt = Annotated[
    str | None,
    typer.Option(help="Snapshot to read evidence features from [default: the sheet's own, "
                 "else the newest of its KG]"),
]  # fmt: skip
ModelOpt = Annotated[
    Path | None,
    typer.Option("--model", help="Confidence model [default data/confidence_model.json]"),
]


@audit_app.callback()
def _group() -> None:
    """Blind precision audits: sample evidence rows, judge them, score them."""


@audit_app.command(
    "sample",
    epilog=examples(
        "kgbuild audit sample alzheimers@2020 --n 100 --seed 7 --out sheet.tsv",
        "kgbuild audit sample latest --n 50 --method generative --out generative.tsv",
    ),
)
def sample(
    snapshot: Annotated[str, typer.Argument(help="Snapshot id/prefix, KG@YEAR or latest")],
    out_file: Annotated[Path, typer.Option("--out", help="Sheet to write (TSV)")],
    n: Annotated[int, typer.Option("--n", help="Evidence rows to sample")] = 100,
    seed: Annotated[int, typer.Option(help="Random seed (use a new one for a fresh sample)")] = 0,
    method: Annotated[
        str | None, typer.Option(help="Only evidence of this method (generative, …)")
    ] = None,
    force: Annotated[bool, typer.Option(help="Overwrite an existing sheet")] = False,
    warehouse: WarehouseOpt = None,
) -> None:
    """Write a blind audit sheet of N evidence rows (sentence, raw claim, stored triple)."""
    from kgbuild.audit.sample import write_sample

    wh = Warehouse(warehouse_path(warehouse))
    sid = wh.resolve(snapshot)
    meta = write_sample(wh, sid, n, seed, out_file, method=method, force=force)
    out.print(f"{meta['n']} rows of {meta['population']} of {sid} (seed {seed}) → {out_file}")


@audit_app.command(
    "score",
    epilog=examples(
        "kgbuild audit score sheet.tsv",
        "kgbuild audit score sheet.tsv --no-record --json",
    ),
)
def score(
    sheet: Annotated[Path, typer.Argument(help="A judged audit sheet")],
    record: Annotated[
        bool, typer.Option(help="Record the figures in the warehouse for `kgbuild quality`")
    ] = True,
    warehouse: WarehouseOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
    snapshot: SnapshotOpt = None,
    model: ModelOpt = None,
) -> None:
    """Precision of a judged sheet: raw claim supported, stored triple faithful, end to end;
    and the confidence model's calibration on its rows (reliability table, Brier score)."""
    from kgbuild.audit.score import calibration, score_sheet
    from kgbuild.audit.score import record as keep
    from kgbuild.audit.served import served_of_sheet
    from kgbuild.audit.sheet import read_sheet

    judged_sheet = read_sheet(sheet)
    figures = score_sheet(judged_sheet, sheet)
    wh = Warehouse(warehouse_path(warehouse))
    figures["calibration"] = calibration(sheet, wh, snapshot, model)
    figures["served"] = served_of_sheet(wh, judged_sheet, judged_sheet.judgments()[0])
    note = ""
    if record:
        known = {s["snapshot_id"] for s in wh.snapshots()}
        if figures["snapshot"] in known:
            figures["recorded"] = str(keep(wh.root, figures))
        else:
            note = f"not recorded: snapshot {figures['snapshot'] or '?'} is not in {wh.root}"
    if as_json:
        print_json(figures)
    else:
        out.print(audit_table(figures))
        out.print(calibration_table(figures["calibration"]))
        if figures["served"]:
            out.print(served_table(figures["served"]))
    if note:
        Console(stderr=True).print(note, highlight=False)


@audit_app.command(
    "fit",
    epilog=examples(
        "kgbuild audit fit sheet.tsv --out data/confidence_model.json",
        "kgbuild audit fit sheet.tsv generative.tsv --out model.json --json",
    ),
)
def fit(
    sheets: Annotated[list[Path], typer.Argument(help="Judged audit sheets")],
    out_file: Annotated[Path, typer.Option("--out", help="Model file to write (JSON)")],
    snapshot: SnapshotOpt = None,
    warehouse: WarehouseOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Fit the confidence model on judged sheets; print its cross-validated calibration."""
    from kgbuild.audit.calibrate import fit_sheets

    wh = Warehouse(warehouse_path(warehouse))
    model, report = fit_sheets(sheets, wh, snapshot)
    out_file.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
    cv = report["cross_validated"]
    if as_json:
        print_json(report)
        return
    out.print(calibration_table({**cv, "snapshot": report["snapshot"]},
                                "cross-validated calibration (10 folds by document)"))  # fmt: skip
    out.print(
        f"{report['found']} judged rows of {report['labelled']} found in "
        f"{report['snapshot']} ({report['skipped_not_in_snapshot']} skipped) → {out_file}"
    )


def calibration_table(c: dict[str, Any], title: str = "") -> Table | str:
    """Reliability table (predicted mean, observed share, n per bin) with Brier scores."""
    if "skipped" in c:
        return f"calibration: {c['skipped']}"
    t = Table(title=title or f"confidence calibration on {c['n']} judged rows ({c['snapshot']})")
    for col in ("predicted", "mean predicted", "observed share", "n"):
        t.add_column(col, justify="right")
    for b in c["bins"]:
        lo, hi = b["bin"]
        t.add_row(f"{lo:.1f}–{hi:.1f}", f"{b['predicted']:.3f}", f"{b['observed']:.3f}",
                  str(b["n"]))  # fmt: skip
    t.caption = f"Brier {c['brier']:.4f} (base rate {c['brier_base_rate']:.4f}); ECE {c['ece']:.4f}"
    if c.get("auc") is not None:
        t.caption += f"; AUC {c['auc']:.3f}"
    if c.get("not_in_snapshot"):
        t.caption += f"; {c['not_in_snapshot']} judged rows not in the snapshot"
    years = c.get("by_year") or []
    if len(years) > 1:  # the belief's inputs, year by year
        t.caption += "\nby as-of year (rows that year's snapshot holds, its probabilities): " + (
            "; ".join(f"{r['year']}: n {r['n']}, predicted {r['mean_predicted']:.2f}, "
                      f"observed {r['observed']:.2f}, Brier {r['brier']:.3f}" for r in years)
        )  # fmt: skip
    return t


def served_table(s: dict[str, Any]) -> Table:
    """What ``kg_edges`` serves by default (asserted evidence): precision, recall, per status."""
    t = Table(title=f"served by default (asserted evidence): {s['rows_with_status']} judged rows "
              "with a status in the snapshot")  # fmt: skip
    for c in ("figure", "k/n", "share", "Wilson 95%"):
        t.add_column(c)
    for key, label, share in (
        ("served", "served rows supported end to end (precision)", "precision"),
        ("recall", "supported rows still served (recall)", "share"),
    ):
        q = s[key]
        value = "–" if q[share] is None else _pct(q[share])
        t.add_row(label, f"{q['k']}/{q['n']}", value, " – ".join(map(_pct, q["wilson_95"])))
    for status, c in s["by_status"].items():
        t.add_row(f"status {status}", f"{c['supported']}/{c['rows']}",
                  _pct(c["supported"] / c["rows"]), "")  # fmt: skip
    return t


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def audit_table(f: dict[str, Any]) -> Table:
    """One row per question: k/n, precision, bootstrap and Wilson 95% intervals."""
    t = Table(title=f"audit of {f['snapshot']} (seed {f['seed']}): {f['judged']} judged rows"
              + (f", {f['unjudged']} not judged" if f.get("unjudged") else ""))  # fmt: skip
    for c in ("question", "k/n", "precision", "bootstrap 95%", "Wilson 95%"):
        t.add_column(c)
    for key, label in (
        ("claim_supported", "raw claim supported by the sentence"),
        ("faithful", "stored triple faithful to the raw claim"),
        ("end_to_end", "stored triple supported end to end"),
    ):
        q = f[key]
        t.add_row(label, f"{q['k']}/{q['n']}", _pct(q["precision"]),
                  " – ".join(map(_pct, q["bootstrap_95"])),
                  " – ".join(map(_pct, q["wilson_95"])))  # fmt: skip
    d, fa = f["normalization_delta"], f["faithful"]
    t.add_row("end to end − raw claim", f"-{d['lowered']} +{d['raised']}", _pct(d["delta"]),
              " – ".join(map(_pct, d["bootstrap_95"])), "")  # fmt: skip
    t.caption = (
        f"faithful: {fa['exact']} exact, {fa['vaguer']} vaguer, {fa['wrong']} wrong "
        f"(concept {fa['wrong_concept']}, relation/direction {fa['wrong_relation_or_direction']})"
    )
    return t


def quality_tables(figures: dict[str, Any]) -> list[Table]:
    """``kgbuild quality``'s issue-16 tables: the latest audit and the mixed-concept IDs."""
    tables = []
    a = figures.get("audit")
    if a:
        where = "this snapshot" if a["this_snapshot"] else f"snapshot {a['snapshot']}"
        t = Table(title=f"audited precision ({a['sheet']}, seed {a['seed']}, {where}, "
                  f"{a['judged']} judged rows)")  # fmt: skip
        for c in ("question", "k/n", "precision", "bootstrap 95%", "Wilson 95%"):
            t.add_column(c)
        for key, label in (
            ("claim_supported", "raw claim supported"),
            ("faithful", "stored triple faithful to the claim"),
            ("end_to_end", "stored triple supported end to end"),
        ):
            q = a[key]
            t.add_row(label, f"{q['k']}/{q['n']}", _pct(q["precision"]),
                      " – ".join(map(_pct, q["bootstrap_95"])),
                      " – ".join(map(_pct, q["wilson_95"])))  # fmt: skip
        tables.append(t)
    mixed = figures.get("mixed_concepts")
    if mixed:
        t = Table(title="mixed-concept IDs (forms naming another concept: mislinked_forms.tsv)")
        for c in ("ID", "kind", "own", "foreign", "reviewed", "verdict", "foreign forms"):
            t.add_column(c, overflow="fold")
        for d in mixed:
            forms = "; ".join(f for v in d["foreign_forms"].values() for f in v)
            t.add_row(d["concept_id"], d["kind"], str(d["own_mentions"]),
                      str(d["foreign_mentions"]), "yes" if d["reviewed"] else "no",
                      d["verdict"], forms[:120])  # fmt: skip
        tables.append(t)
    return tables
