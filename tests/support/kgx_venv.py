"""The isolated venv with the real ``kgx`` (``tests/kgx-requirements.txt``), made on first use.

kgx 2.6 pins duckdb<2 and pyarrow 15, so it cannot live in the project's venv (duckdb 2,
pyarrow 25). ``make kgx-venv`` (through uv, ``KGBUILD_UV``: tools/uv_pip.py) or the first test
that needs it (through pip) creates ``.venv-kgx`` from PyPI; ``KGBUILD_KGX_VENV`` points at
another one. The venv is remade when the requirements file changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS = ROOT / "tests" / "kgx-requirements.txt"
CHECK = ROOT / "tests" / "support" / "kgx_check.py"
UV_PIP = ROOT / "tools" / "uv_pip.py"


def venv_dir() -> Path:
    return Path(os.environ.get("KGBUILD_KGX_VENV") or ROOT / ".venv-kgx")


def ensure_kgx_venv() -> Path:
    """The kgx venv's python, creating the venv if needed (raises on failure)."""
    venv = venv_dir()
    python = venv / "bin" / "python"
    stamp = venv / ".kgbuild-requirements"
    want = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    if python.exists() and stamp.exists() and stamp.read_text() == want:
        return python
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--clear", str(venv)], check=True)
    if os.environ.get("KGBUILD_UV"):  # `make kgx-venv`: uv, with pip's configuration
        install = [str(python), str(UV_PIP), "install"]
    else:
        install = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run(
        [*install, "-r", str(REQUIREMENTS)],
        check=True, capture_output=True, text=True, timeout=1200,
    )  # fmt: skip
    stamp.write_text(want)
    return python


def run_check(python: Path, *args: str) -> dict:
    """Run tests/support/kgx_check.py in the kgx venv; its JSON answer."""
    proc = subprocess.run(
        [str(python), str(CHECK), *args], capture_output=True, text=True, timeout=600
    )
    if proc.returncode != 0:
        raise RuntimeError(f"kgx_check failed: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    print(ensure_kgx_venv())
