"""Every ``kgbuild`` process pays for what its command line imports before the command runs.

A command that only reads the catalog through SQL (``sql``, ``snapshots``, ``audit``, every
``--help``) needs DuckDB and the settings, not pyarrow (0.2–0.3 CPU s with numpy here), numpy,
pandas or torch: those are imported where a table is written or a model predicts.
"""

import subprocess
import sys

from kgbuild.records import SCHEMA_VERSION

HEAVY = ("pyarrow", "numpy", "pandas", "scipy", "torch", "spacy", "sentence_transformers")


def test_the_command_line_starts_without_the_heavy_libraries():
    code = f"import sys, kgbuild.cli\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.split() == [], out.stdout


def test_the_records_still_give_their_arrow_schemas_on_first_use():
    code = (
        "import sys, kgbuild.records as r\n"
        "assert 'pyarrow' not in sys.modules\n"
        "s = r.schema_for('triples')\n"
        "t = r.to_arrow('triples', [])\n"
        "print(s.metadata[b'kgbuild.schema_version'].decode(), t.num_rows, t.schema.equals(s))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.split() == [SCHEMA_VERSION, "0", "True"], out.stdout
