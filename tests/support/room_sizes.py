"""Each room's share of the project's lines: no folder may grow to hold a fifth of the code.

A room is a folder of ``kgbuild/`` (a stage: ``query``, ``store``…), the spine (the modules
directly in ``kgbuild/``) or ``bench/``; the project is every file git tracks under ``kgbuild/``
and ``bench/`` (code, prompts, the explorer's static files), counted in lines. A room above
``--max-share`` holds more than one responsibility and is split by what its parts do (see
docs/development.md, "Layout"). Run by ``make lint``; prints the rooms, largest first, and exits 1
when one is too large.

    python tests/support/room_sizes.py [--max-share 0.12]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PARTS = ("kgbuild", "bench")


def tracked_files(root: Path = ROOT) -> list[str]:
    """The files git tracks under the project's parts (every file there, outside a checkout)."""
    try:
        out = subprocess.run(["git", "ls-files", *PARTS], cwd=root, capture_output=True,
                             text=True, check=True).stdout  # fmt: skip
        return out.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return [str(p.relative_to(root)) for part in PARTS for p in (root / part).rglob("*")
                if p.is_file() and "__pycache__" not in p.parts]  # fmt: skip


def room_of(path: str) -> str:
    parts = path.split("/")
    if parts[0] == "kgbuild":
        return "kgbuild (spine)" if len(parts) == 2 else f"kgbuild/{parts[1]}"
    return parts[0]


def room_lines(root: Path = ROOT) -> Counter[str]:
    lines: Counter[str] = Counter()
    for rel in tracked_files(root):
        path = root / rel
        if path.is_file():
            lines[room_of(rel)] += path.read_bytes().count(b"\n")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-share", type=float, default=0.12)
    args = parser.parse_args(argv)
    lines = room_lines()
    total = sum(lines.values())
    over = []
    for room, n in lines.most_common():
        share = n / total
        print(f"{room:<20} {n:>6} {share:6.1%}{'  TOO LARGE' if share > args.max_share else ''}")
        if share > args.max_share:
            over.append(room)
    print(f"{'project':<20} {total:>6}")
    if over:
        print(f"rooms above {args.max_share:.0%} of the lines: {', '.join(over)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
