"""Evaluation reports: one JSON and one markdown file per run in ``<warehouse>/reports/eval/``.

A report holds everything needed to read and compare a run later — configuration, gold file
digest, scores with intervals, ceilings, build statuses and the per-document counts — and
nothing that varies between identical runs (no clock time, no calls-sent-vs-cached split), so
the same inputs write byte-identical files under the same run id (``re-<gold>-<extractor>-…-
<digest of the content>``). :func:`compare` sets two runs side by side; over the same gold
documents it adds the F1 difference with a paired bootstrap interval on the shared resamples.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from kgbuild.errors import InputError

SUBDIR = Path("reports") / "eval"
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
_NUMBER_LIST = re.compile(r"\[\s*(-?[\d.eE+-]+(?:,\s*-?[\d.eE+-]+)*)\s*\]")


def reports_dir(warehouse: Path) -> Path:
    return warehouse / SUBDIR


def _digest(report: dict[str, Any]) -> str:
    body = json.dumps({k: v for k, v in report.items() if k != "run_id"}, sort_keys=True)
    return hashlib.blake2b(body.encode(), digest_size=4).hexdigest()


def run_id(report: dict[str, Any]) -> str:
    """A readable, content-derived id: kind, gold file, what was evaluated, digest."""
    stem = Path(report["gold"]["file"]).stem.replace(".", "_")
    if report["kind"] == "re":
        ex = report["extractor"]
        parts = [ex["chosen"]]
        mode = ex["extraction"].get("mode")
        if mode:
            parts.append(mode)
        if "llm" in ex:
            parts.append(ex["llm"]["model"])
    else:
        parts = [row["model"] for row in report["models"]]
    if report["gold"].get("limit") is not None:
        parts.append(f"first{report['gold']['limit']}")
    name = "-".join([report["kind"], stem, *parts, _digest(report)])
    return _SAFE.sub("_", name)


def dumps(report: dict[str, Any]) -> str:
    """Indented JSON with number lists on one line (intervals, per-document counts)."""
    text = json.dumps(report, indent=1, ensure_ascii=False)
    return (
        _NUMBER_LIST.sub(lambda m: f"[{', '.join(x.strip() for x in m.group(1).split(','))}]", text)
        + "\n"
    )


def write_report(warehouse: Path, report: dict[str, Any]) -> tuple[Path, Path]:
    """Write ``<run_id>.json`` and ``<run_id>.md``; returns both paths."""
    from kgbuild.evaluate.markdown import render

    folder = reports_dir(warehouse)
    folder.mkdir(parents=True, exist_ok=True)
    json_path = folder / f"{report['run_id']}.json"
    md_path = folder / f"{report['run_id']}.md"
    json_path.write_text(dumps(report), encoding="utf-8")
    md_path.write_text(render(report), encoding="utf-8")
    return json_path, md_path


def list_reports(warehouse: Path) -> list[dict[str, Any]]:
    """Every report in the warehouse, oldest name first, with its headline figure."""
    out = []
    for path in sorted(reports_dir(warehouse).glob("*.json")):
        try:
            r = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        out.append({"run_id": r.get("run_id", path.stem), **headline(r)})
    return out


def headline(report: dict[str, Any]) -> dict[str, Any]:
    """Kind, gold file, what was evaluated and its main F1 (for listings)."""
    gold = report.get("gold", {})
    if report.get("kind") == "re":
        main = "pair+type" if "pair+type" in report["measures"] else next(iter(report["measures"]))
        what = report["extractor"]["chosen"]
        if "llm" in report["extractor"]:
            what += f" ({report['extractor']['llm']['model']})"
        return {
            "kind": "re",
            "gold": gold.get("file"),
            "evaluated": what,
            "measure": main,
            "f1": report["measures"][main]["f1"],
        }
    rows = [r for r in report.get("rows", []) if r.get("strict")]
    return {
        "kind": report.get("kind"),
        "gold": gold.get("file"),
        "evaluated": ", ".join(m["model"] for m in report.get("models", [])),
        "measure": "strict micro F1",
        "f1": max((r["strict"]["f1"] for r in rows if r["type"] == "micro"), default=None),
    }


def load_report(warehouse: Path, ref: str) -> dict[str, Any]:
    """A report by path, run id or unique run-id prefix (InputError otherwise)."""
    path = Path(ref)
    if not (path.suffix == ".json" and path.is_file()):
        folder = reports_dir(warehouse)
        exact = folder / f"{_SAFE.sub('_', ref)}.json"
        matches = (
            [exact] if exact.is_file() else sorted(folder.glob(f"{_SAFE.sub('_', ref)}*.json"))
        )
        if len(matches) != 1:
            raise InputError(
                "no such evaluation report" if not matches else "ambiguous report prefix",
                ref=ref,
                folder=folder,
                matches=len(matches),
            )
        path = matches[0]
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError("unreadable evaluation report", path=path, error=str(exc)[:80]) from exc
    if not isinstance(report, dict) or report.get("kind") not in ("re", "ner"):
        raise InputError("not a kgbuild evaluation report", path=path)
    return report
