"""Keep thinc from importing torch when no spaCy pipeline here can use it.

spaCy imports thinc, and ``thinc.compat`` imports torch, if installed, only to offer its optional
PyTorch layers. The spaCy pipelines kgbuild runs never use them: scispaCy's abbreviation detector
(a rule-based matcher on a blank English pipeline) and scispaCy's NER models (thinc's own CNNs).
Yet importing torch was ~2 s of CPU in every process that imports spaCy: each ``kgbuild build``
(grounding reads abbreviations with scispaCy's detector), an NER evaluation. Measured on the
2-core machine: importing spaCy 3.1 s with torch, 1.1 s without; a 6-document build 15 s.

So a finder on ``sys.meta_path`` refuses ``import torch`` *when, and only when, the import comes
from ``thinc.compat``*: thinc then records ``has_torch = False``, as on a machine without torch.
Everything else that imports torch (sentence-transformers for the embedding tiers) gets it as
usual, in any thread, before or after. When torch is already imported the finder is never asked
(``sys.modules`` answers first) and thinc sees it. When ``spacy-transformers`` is installed —
transformer pipelines (e.g. ``en_core_sci_scibert``) run on thinc's PyTorch layers — the finder
is not installed at all.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec
    from types import ModuleType

#: How many frames up from the finder to look for thinc.compat's module body (the import
#: machinery sits between: _find_and_load, _find_spec, ...).
_FRAMES = 12


def _imported_by_thinc() -> bool:
    frame = sys._getframe(2)
    for _ in range(_FRAMES):
        if frame is None:
            return False
        if frame.f_globals.get("__name__") == "thinc.compat":
            return True
        frame = frame.f_back
    return False


class ThincWithoutTorch:
    """Answers ``import torch`` from ``thinc.compat`` with ModuleNotFoundError; passes on all
    other imports (returns None, so the next finder looks). A meta-path finder by protocol
    (``find_spec``), not by base class: ``importlib.abc`` alone costs 20 ms to import."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        if fullname == "torch" and _imported_by_thinc():
            raise ModuleNotFoundError(
                "torch withheld from thinc: no kgbuild spaCy pipeline uses its PyTorch layers",
                name="torch",
            )
        return None


def install() -> bool:
    """Install the finder once (idempotent); False when it must not be (thinc already
    imported, or spacy-transformers installed)."""
    if any(isinstance(f, ThincWithoutTorch) for f in sys.meta_path):
        return True
    if "thinc.compat" in sys.modules or importlib.util.find_spec("spacy_transformers"):
        return False
    sys.meta_path.insert(0, ThincWithoutTorch())
    return True
