"""What ``kgbuild export`` does and prints: resolve the snapshot, export, one line per file."""

from __future__ import annotations

import json
from pathlib import Path

from kgbuild.errors import ExportError
from kgbuild.export import LADYBUG_FILE, export_snapshot, parse_formats
from kgbuild.export.publish import MANIFEST, verify
from kgbuild.store.snapshots import Warehouse


def run_export(
    wh: Warehouse, ref: str | None, out_dir: Path | None, formats: list[str]
) -> list[str]:
    """Export snapshot ``ref``; the lines to print (format, file, rows)."""
    if ref is None:
        raise ExportError("give a snapshot: kgbuild export SNAPSHOT --out DIR")
    if out_dir is None:
        raise ExportError("give an output folder: kgbuild export SNAPSHOT --out DIR")
    wanted = parse_formats(formats)
    sid = wh.resolve(ref)
    written = export_snapshot(wh, sid, out_dir, wanted)
    lines = [f"snapshot {sid} → {out_dir}"]
    for fmt, files in written.items():
        for name, (path, rows) in files.items():
            if fmt == "ladybug" and name != LADYBUG_FILE:
                continue
            if rows is None:
                lines.append(f"{fmt:8} {path}")
            elif fmt == "ladybug":
                rels = files["relationships"][1] or 0
                lines.append(f"{fmt:8} {path}  ({rows:,} nodes, {rels:,} relationships)")
            else:
                lines.append(f"{fmt:8} {path}  ({rows:,} rows)")
    return lines


def run_verify(folder: Path) -> list[str]:
    """Check an export folder against its manifests: the lines to print when it is whole,
    else one error naming the first problem (and how many there are)."""
    problems = verify(folder)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ExportError(f"export not whole: {problems[0]}{more}")
    own = folder / MANIFEST
    lines = []
    for m in [own] if own.exists() else sorted(folder.glob(f"*/{MANIFEST}")):
        about = json.loads(m.read_text(encoding="utf-8"))
        n = len(about["files"])
        lines.append(f"ok {about['format']:8} {m.parent}  (snapshot {about['snapshot_id']}, "
                     f"{n} file{'' if n == 1 else 's'})")  # fmt: skip
    return lines
