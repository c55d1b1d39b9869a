"""Train the relation verifier: ``python -m kgbuild.verifier.train`` (or :func:`train_verifier`).

Inputs, and what each is for: BioRED Train (Luo et al. 2022) fits the pair and type heads;
BC5CDR Training (Wei et al. 2016) and BioRED Train's Compound–Disease pairs fit the CID head;
BioRED Dev and BC5CDR Development choose the thresholds and give the dev figures. Nothing
else is read (the test splits are held out). Same inputs, same bytes: the file's sha256
(recorded in the sidecar) is the same on every run (:mod:`kgbuild.verifier.weights`,
:mod:`kgbuild.verifier.fit`).

Thresholds: the pair threshold maximizes the mean of pair F1 and pair+type F1 on BioRED Dev
(the two measures of the BioCreative VIII track the KG needs: that a relation exists, and
which); the CID threshold maximizes CID F1 on BC5CDR Development.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

from kgbuild.errors import KgbuildError
from kgbuild.verifier.corpus import GoldDoc, read_gold
from kgbuild.verifier.examples import examples
from kgbuild.verifier.fit import Hyper, best_threshold, fit_weights, with_thresholds
from kgbuild.verifier.measure import Scored, biored_figures, cid_figures
from kgbuild.verifier.model import CHEMICAL_DISEASE, Verifier
from kgbuild.verifier.weights import write_weights

#: The Compound–Disease kind pair as the corpus module spells it.
CHEM_DIS = frozenset({CHEMICAL_DISEASE})


def _input(path: Path, docs: list[GoldDoc]) -> dict[str, Any]:
    return {
        "file": path.name,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "documents": len(docs),
        "relation_pairs": sum(len(d.relations) for d in docs),
    }


def score_docs(
    verifier: Verifier, docs: list[GoldDoc], kinds: frozenset[tuple[str, str]] | None = None
) -> list[Scored]:
    """Raw head outputs for every candidate pair of gold documents."""
    out = []
    for d in docs:
        got = (
            verifier.score_pairs(d.doc, d.mentions, kinds)
            if kinds
            else verifier.score_pairs(d.doc, d.mentions)
        )
        for s in got:
            kinds_ = "|".join(sorted((s.kind_a, s.kind_b)))
            out.append(Scored(d.doc.pmid, s.a, s.b, kinds_, s.p_related, s.rel_type, s.p_cid))
    return out


def default_command(paths: dict[str, Path], out: Path) -> str:
    args = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in paths.items())
    return f"python -m kgbuild.verifier.train {args} --out {out}"


def train_verifier(
    biored_train: Path,
    cdr_train: Path,
    biored_dev: Path,
    cdr_dev: Path,
    out: Path,
    hyper: Hyper | None = None,
    command: str | None = None,
) -> dict[str, Any]:
    """Fit, tune on dev, write ``out`` (+ ``.json``); the report (dev figures, digest, size,
    seconds). InputError when a gold file is missing or has no relation lines."""
    t0 = time.perf_counter()
    hyper = hyper or Hyper()
    paths = {"biored_train": biored_train, "cdr_train": cdr_train,
             "biored_dev": biored_dev, "cdr_dev": cdr_dev}  # fmt: skip
    gold = {name: read_gold(Path(p)) for name, p in paths.items()}
    weights = fit_weights(
        examples(gold["biored_train"]), examples(gold["cdr_train"], CHEM_DIS), hyper
    )
    t_fit = time.perf_counter() - t0
    verifier = Verifier(weights)
    dev_b = score_docs(verifier, gold["biored_dev"])
    dev_c = score_docs(verifier, gold["cdr_dev"], CHEM_DIS)

    def pair_objective(t: float) -> float:
        f = biored_figures(dev_b, gold["biored_dev"], t)["all"]
        return (f["pair"]["f1"] + f["pair+type"]["f1"]) / 2

    pair_t = best_threshold(pair_objective)
    cid_t = best_threshold(lambda t: cid_figures(dev_c, gold["cdr_dev"], t)["CID"]["f1"])
    weights = with_thresholds(weights, pair_t, cid_t)
    dev = {
        "biored": biored_figures(dev_b, gold["biored_dev"], pair_t),
        "cdr": cid_figures(dev_c, gold["cdr_dev"], cid_t),
    }
    info = {
        "training_command": command or default_command(paths, out),
        "inputs": {name: _input(Path(p), gold[name]) for name, p in paths.items()},
        "hyperparameters": hyper.to_dict(),
        "thresholds": weights.meta["thresholds"],
        "types": weights.meta["types"],
        "vocabulary": len(verifier.index),
        "dev": dev,
    }
    digest = write_weights(out, weights, info)
    return {
        "out": str(out),
        "sha256": digest,
        "bytes": out.stat().st_size,
        "fit_seconds": round(t_fit, 1),
        "seconds": round(time.perf_counter() - t0, 1),
        **info,
    }


def render(report: dict[str, Any]) -> str:
    """The dev report as text lines, then one JSON line of the headline figures."""
    b, c = report["dev"]["biored"], report["dev"]["cdr"]["CID"]
    lines = [
        f"relation verifier → {report['out']} ({report['bytes']:,} bytes, sha256 "
        f"{report['sha256'][:12]}, {report['vocabulary']:,} features; fit "
        f"{report['fit_seconds']} s, total {report['seconds']} s)",
        f"thresholds: pair {report['thresholds']['pair']}, cid {report['thresholds']['cid']}",
    ]

    def row(name: str, f: dict[str, Any]) -> str:
        return (f"  {name:<28} P {f['p']:.3f}  R {f['r']:.3f}  F1 {f['f1']:.3f}  "
                f"({f['tp']}/{f['predicted']} predicted, {f['gold']} gold)")  # fmt: skip

    for scope in ("all", "nodes"):
        for m in ("pair", "pair+type"):
            lines.append(row(f"BioRED dev {m} ({scope})", b[scope][m]))
    lines += [row(f"  type {t}", f) for t, f in b["per_type"].items()]
    lines += [row(f"  kinds {k}", f) for k, f in b["per_kinds"].items()]
    lines.append(row("BC5CDR dev CID", c))
    head = {
        "biored_pair_f1": b["all"]["pair"]["f1"],
        "biored_pair_type_f1": b["all"]["pair+type"]["f1"],
        "biored_nodes_pair_f1": b["nodes"]["pair"]["f1"],
        "biored_nodes_pair_type_f1": b["nodes"]["pair+type"]["f1"],
        "cdr_cid_f1": c["f1"],
        "sha256": report["sha256"],
        "bytes": report["bytes"],
        "seconds": report["seconds"],
    }
    lines.append(json.dumps(head, sort_keys=True))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kgbuild.verifier.train", description=__doc__)
    ap.add_argument("--biored-train", type=Path, required=True)
    ap.add_argument("--cdr-train", type=Path, required=True)
    ap.add_argument("--biored-dev", type=Path, required=True)
    ap.add_argument("--cdr-dev", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True, help="the .npz to write (+ .json)")
    args = ap.parse_args(argv)
    command = "python -m kgbuild.verifier.train " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    try:
        report = train_verifier(
            args.biored_train, args.cdr_train, args.biored_dev, args.cdr_dev, args.out,
            command=command,
        )  # fmt: skip
    except KgbuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(render(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
