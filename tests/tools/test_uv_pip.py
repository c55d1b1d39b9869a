"""tools/uv_pip.py: uv installs with this machine's pip configuration (where its packages are)."""

from __future__ import annotations

import base64
import hashlib
import itertools
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tools import uv_pip

UV = Path(sys.executable).with_name("uv")


def _pip_env(monkeypatch: pytest.MonkeyPatch, config: Path) -> None:
    for name in [n for n in os.environ if n.startswith("PIP_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("PIP_CONFIG_FILE", str(config))


def test_pips_indexes_links_constraints_and_certificate_become_uvs(tmp_path, monkeypatch):
    config = tmp_path / "pip.conf"
    config.write_text(
        "[global]\nextra-index-url = file:///srv/a/simple file:///srv/b/simple\n"
        "find-links = /srv/wheels\nconstraint = /srv/caps.txt\ncert = /srv/ca.pem\n"
        "default-timeout = 77\n"
    )
    _pip_env(monkeypatch, config)
    monkeypatch.setenv("PIP_FIND_LINKS", "/srv/env-wheels")  # pip's variable wins over its file
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    command, env = uv_pip.uv_command(sys.executable, ["install", "-e", "."])
    pairs = list(itertools.pairwise(command))
    assert ("--extra-index-url", "file:///srv/a/simple") in pairs
    assert ("--extra-index-url", "file:///srv/b/simple") in pairs
    assert ("--find-links", "/srv/env-wheels") in pairs
    assert ("--find-links", "/srv/wheels") not in pairs
    assert ("--constraint", "/srv/caps.txt") in pairs
    assert ("--index-strategy", "unsafe-best-match") in pairs  # pip's best version of all
    assert "--compile-bytecode" in command
    assert ("--python", sys.executable) in pairs and command[-2:] == ["-e", "."]
    assert env["SSL_CERT_FILE"] == "/srv/ca.pem" and env["UV_HTTP_TIMEOUT"] == "77"


def _wheel(folder: Path, name: str, version: str) -> Path:
    """A minimal pure-Python wheel (PEP 427), written by hand: one module."""
    dist = f"{name}-{version}.dist-info"
    files = {
        f"{name}.py": b"ANSWER = 42\n",
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    files[f"{dist}/RECORD"] = ("\n".join([*record, f"{dist}/RECORD,,"]) + "\n").encode()
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for path, data in files.items():
            z.writestr(path, data)
    return wheel


@pytest.mark.skipif(not UV.exists(), reason="uv is installed into the venv by `make install`")
def test_a_package_found_only_where_pips_configuration_says_is_installed_and_compiled(
    tmp_path, monkeypatch
):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels, "kgbuild_uv_probe", "1.0")
    config = tmp_path / "pip.conf"
    config.write_text(f"[global]\nno-index = true\nfind-links = {wheels}\n")
    _pip_env(monkeypatch, config)
    monkeypatch.setenv("KGBUILD_UV", str(UV))
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    script = Path(uv_pip.__file__)
    done = subprocess.run([python, script, "install", "kgbuild_uv_probe"], capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    got = subprocess.run([python, "-c", "import kgbuild_uv_probe as m; print(m.ANSWER)"],
                         capture_output=True, text=True, check=True)  # fmt: skip
    assert got.stdout.strip() == "42"
    site = next((venv / "lib").glob("python3.*/site-packages"))
    assert list((site / "__pycache__").glob("kgbuild_uv_probe.*.pyc"))  # compiled, as pip does
    # without pip's configuration the package is found nowhere: the settings were what uv used
    config.write_text("[global]\nno-index = true\n")
    shutil.rmtree(tmp_path / "uv-cache")
    again = subprocess.run([python, script, "install", "--reinstall", "kgbuild_uv_probe"],
                           capture_output=True, text=True, check=False)  # fmt: skip
    assert again.returncode != 0
