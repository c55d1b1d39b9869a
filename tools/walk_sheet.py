"""Make a blind newcomer walk's sheet: ask each question of a walk folder's ``questions.jsonl``
of a build (``kgbuild ask --no-llm``, as a newcomer without an LLM endpoint runs it), shuffle
the answers into ``sheet.md`` and keep which row is which question in ``key.json`` (never shown
to the judges). This checkout's head, and others' with ``--head LABEL=DIR`` (each run with
its own code and this venv); the judges' procedure is in ``data/walks/README.md``.

    .venv/bin/python tools/walk_sheet.py data/walks/walk13 --seed 1313 [--warehouse W]
    .venv/bin/python tools/walk_sheet.py data/walks/walk14 --seed 1414 --label after \
        --head before=/tmp/before
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def ask(question: dict, warehouse: Path | None, checkout: Path = ROOT) -> str:
    """The tool's whole printed answer (stdout and stderr, without cache notices), as the
    ``checkout``'s code prints it (this venv's packages, that checkout's ``kgbuild``)."""
    argv = [sys.executable, "-m", "kgbuild.cli", "ask", question["question"], "--no-llm"]
    if question.get("choices"):
        argv += ["--choices", question["choices"]]
    if warehouse is not None:
        argv += ["-w", str(warehouse.resolve())]  # each head runs in its own checkout
    env = {**os.environ, "COLUMNS": "140", "PYTHONPATH": str(checkout)}
    p = subprocess.run(argv, cwd=checkout, env=env, capture_output=True, text=True, timeout=600)
    lines = (p.stdout + p.stderr).splitlines()
    out = "\n".join(ln for ln in lines if not ln.startswith("query cache "))
    return out + (f"\n[exit {p.returncode}]" if p.returncode else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("walk", type=Path, help="the walk's folder (questions.jsonl)")
    ap.add_argument("--seed", type=int, required=True, help="the sheet's shuffle seed")
    ap.add_argument("--label", default="now", help="this checkout's label in key.json")
    ap.add_argument("--head", action="append", default=[], metavar="LABEL=DIR",
                    help="ask this checkout of another head too (e.g. a `git worktree` of the "
                    "commit before a change), its rows shuffled in with this one's")  # fmt: skip
    ap.add_argument("--warehouse", "-w", type=Path)
    a = ap.parse_args()
    heads = [(a.label, ROOT)] + [(h.split("=", 1)[0], Path(h.split("=", 1)[1]).resolve())
                                 for h in a.head]  # fmt: skip
    text = (a.walk / "questions.jsonl").read_text(encoding="utf-8")
    questions = [json.loads(line) for line in text.splitlines() if line.strip()]
    rows = []
    for label, checkout in heads:
        for q in questions:
            t0 = time.perf_counter()
            rows.append((label, q, ask(q, a.warehouse, checkout)))
            print(f"{label} {q['id']}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    random.Random(a.seed).shuffle(rows)
    sheet, key = ["# Blind sheet", ""], {}
    for i, (label, q, out) in enumerate(rows, 1):
        rid = f"R{i:03d}"
        key[rid] = {"label": label, "qid": q["id"], "kind": q["kind"]}
        sheet += [f"## {rid}", f"Question: {q['question']}"]
        if q.get("choices"):
            sheet.append(f"Choices: {q['choices']}")
        sheet += ["", "Tool output:", "```", out.rstrip(), "```", ""]
    (a.walk / "sheet.md").write_text("\n".join(sheet), encoding="utf-8")
    (a.walk / "key.json").write_text(json.dumps(key, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
