"""What ``kgbuild export`` does and prints: resolve the snapshot, export, one line per file."""

from __future__ import annotations

from pathlib import Path

from kgbuild.errors import ExportError
from kgbuild.export import LADYBUG_FILE, export_snapshot, parse_formats
from kgbuild.store.snapshots import Warehouse


def run_export(wh: Warehouse, ref: str, out_dir: Path | None, formats: list[str]) -> list[str]:
    """Export snapshot ``ref``; the lines to print (format, file, rows)."""
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
