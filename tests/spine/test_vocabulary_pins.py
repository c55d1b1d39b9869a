"""The vocabulary packages (the ID checks' names, the orthologs) are pinned in one list that
`make install` reads, and every one of them is part of the code version (a snapshot is never
reused across a vocabulary change)."""

from pathlib import Path

from kgbuild.resolve.vocabularies import FILES
from kgbuild.version import VOCABULARIES

ROOT = Path(__file__).resolve().parents[2]


def pinned() -> dict[str, str]:
    lines = (ln.strip() for ln in (ROOT / "vocabularies.txt").read_text().splitlines())
    return dict(ln.split("==") for ln in lines if ln and not ln.startswith("#"))


def test_every_pinned_vocabulary_is_in_the_code_version_and_read_by_the_checks():
    assert set(pinned()) == set(VOCABULARIES)
    packages = {pkg.replace("_", "-") for pkg, _ in FILES.values()}
    assert packages <= set(pinned())  # what the checks open is what make install pins
    assert all(v.count(".") >= 1 for v in pinned().values())  # exact versions, not ranges
