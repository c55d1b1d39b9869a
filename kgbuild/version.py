"""The code version recorded in every manifest: package version + digest of code and data tables.

The digest makes a changed extractor or type map a different version, so cached year slices
built by older code are never mistaken for current ones.
"""

from __future__ import annotations

import hashlib
from functools import cache
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
    return f"{__version__}+{digest.hexdigest()}"
