"""spaCy is imported without torch (kgbuild/thinc_torch.py), and nothing else loses torch."""

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # fresh interpreters: the finder acts on a process's first imports


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_spacy_loads_without_torch_and_torch_still_imports_after():
    got = _run(
        "import sys, kgbuild\n"
        "from kgbuild.extract.ground import abbreviations\n"
        'found = abbreviations("Patients with Alzheimer\'s disease (AD) were seen.")\n'
        "import thinc.compat\n"
        "print(thinc.compat.has_torch, 'torch' in sys.modules, found)\n"
        "import torch\n"  # the embedding tiers' import still works
        "print(torch.zeros(2).sum().item())\n"
    )
    assert got.splitlines() == ["False False {'ad': 'alzheimer disease'}", "0.0"]


def test_torch_imported_first_is_what_thinc_sees():
    got = _run(
        "import torch, kgbuild, spacy, thinc.compat\n"
        "print(thinc.compat.has_torch, thinc.compat.torch is torch)\n"
    )
    assert got == "True True"


def test_only_thincs_import_of_torch_is_refused():
    """The finder looks at who imports: the same import from any other module goes through."""
    got = _run(
        "import sys, kgbuild\n"
        "from kgbuild.thinc_torch import ThincWithoutTorch\n"
        "assert any(isinstance(f, ThincWithoutTorch) for f in sys.meta_path)\n"
        "import torch\n"
        "import spacy, thinc.compat\n"
        "print(thinc.compat.has_torch)\n"
    )
    assert got == "True"
