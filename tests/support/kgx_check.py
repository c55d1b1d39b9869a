"""Validate a KGX export with the real ``kgx`` library, and the Biolink mapping tables with
``bmt``, offline. Runs in the isolated venv of ``tests/kgx-requirements.txt`` (kgx pins
duckdb<2 and pyarrow 15, which the project's venv cannot take), so it imports nothing from
kgbuild and prints one JSON object.

    <kgx venv>/bin/python tests/support/kgx_check.py [--graph NODES.tsv EDGES.tsv]… [--mapping
    DATA_DIR]

Offline: bmt and kgx fetch the Biolink model YAML, its predicate map and its JSON-LD context from
GitHub by default. The ``biolink-model`` package ships the model YAML and the prefix map, so
bmt's Toolkit is pointed at them (the predicate map, used only to map legacy predicates, is not
shipped: it is given empty) and kgx's ``biolink`` JSON-LD context is the shipped prefix map.
Everything else is kgx's own code: its TSV source, Transformer and Validator (``kgx validate``).
"""

from __future__ import annotations

import argparse
import csv
import importlib.resources
import json
import sys


def offline_biolink() -> str:
    """Point bmt and kgx at the Biolink model files the biolink-model package ships."""
    import bmt

    pkg = importlib.resources.files("biolink_model")
    schema = str(pkg / "schema" / "biolink_model.yaml")
    bmt.Toolkit.__init__.__defaults__ = (schema, {"predicate mappings": []})
    prefixes = json.loads((pkg / "prefixmaps" / "biolink-model-prefix-map.json").read_text())
    import kgx.config

    kgx.config.get_config()
    kgx.config.jsonld_context_map["biolink"] = prefixes
    return schema


def validate(nodes: str, edges: str) -> dict:
    """``kgx validate`` (its streaming Transformer + Validator) and a full load of the graph."""
    from kgx.cli.cli_utils import validate as kgx_validate
    from kgx.transformer import Transformer

    errors = kgx_validate([nodes, edges], "tsv", None, "/dev/null")
    seen = {"nodes": 0, "edges": 0, "predicates": set(), "categories": set()}

    def inspect(kind, rec) -> None:  # every record kgx's TSV source parsed
        if kind.name == "NODE":
            seen["nodes"] += 1
            seen["categories"].update(rec[-1].get("category", []))
        else:
            seen["edges"] += 1
            seen["predicates"].add(rec[-1].get("predicate"))

    Transformer(stream=True).transform(
        {"filename": [nodes, edges], "format": "tsv"}, {"format": "null"}, inspector=inspect
    )
    return {
        "errors": errors,
        **{k: sorted(v) if isinstance(v, set) else v for k, v in seen.items()},
    }


def check_mapping(data_dir: str) -> dict:
    """Every category and predicate of the mapping tables is a current Biolink name."""
    from bmt import Toolkit

    tk = Toolkit()
    aspects = tk.view.get_enum("GeneOrGeneProductOrChemicalEntityAspectEnum").permissible_values
    directions = tk.view.get_enum("DirectionQualifierEnum").permissible_values
    problems: list[str] = []
    mixins: list[str] = []

    def known(curie: str, kind: str) -> None:
        element = tk.get_element(curie)
        ok = tk.is_category(curie) if kind == "category" else tk.is_predicate(curie)
        if not ok or element is None:
            problems.append(f"{curie}: not a Biolink {kind}")
        elif element.deprecated:
            problems.append(f"{curie}: deprecated in Biolink {tk.get_model_version()}")
        elif tk.is_mixin(curie):
            # kgx rejects mixin categories; mixin predicates such as treats_or_applied_or_
            # studied_to_treat are canonical and used by Translator, so they are only listed.
            (problems if kind == "category" else mixins).append(curie)

    rows, preds = (
        list(csv.DictReader(open(f"{data_dir}/{name}", encoding="utf-8"), delimiter="\t"))  # noqa: SIM115
        for name in ("biolink_categories.tsv", "biolink_predicates.tsv")
    )
    for r in rows:
        known(r["category"], "category")
    for r in preds:
        known(r["predicate"], "predicate")
        symmetric = bool(tk.get_element(r["predicate"]).symmetric)
        if symmetric != (r["direction"] == "symmetric"):
            problems.append(
                f"{r['predicate']}: direction {r['direction']} but symmetric={symmetric}"
            )
        if r["qualified_predicate"] != "-":
            known(r["qualified_predicate"], "predicate")
        if r["object_aspect_qualifier"] != "-" and r["object_aspect_qualifier"] not in aspects:
            problems.append(f"{r['object_aspect_qualifier']}: not an aspect qualifier value")
        if r["object_direction_qualifier"] != "-" and r["object_direction_qualifier"] not in (
            directions
        ):
            problems.append(f"{r['object_direction_qualifier']}: not a direction value")
    return {
        "biolink_version": tk.get_model_version(),
        "categories_checked": len(rows),
        "predicates_checked": len(preds),
        "problems": problems,
        "mixin_predicates": sorted(set(mixins)),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--graph", nargs=2, action="append", default=[], metavar=("NODES", "EDGES"))
    ap.add_argument("--mapping", help="data/ folder with the Biolink mapping tables")
    args = ap.parse_args()
    out: dict = {"schema": offline_biolink()}
    import kgx

    out["kgx_version"] = getattr(kgx, "__version__", "")
    out["validation"] = [validate(nodes, edges) for nodes, edges in args.graph]
    if args.mapping:
        out["mapping"] = check_mapping(args.mapping)
    json.dump(out, sys.stdout, default=str)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
