"""Trust drill: no input is lost without a trace, read off a real ``kgbuild build``.

A small hostile source folder is written and built by the CLI (co-occurrence, offline, no
embedding model), the way a user runs it; every figure is read off the warehouse the build
wrote and compared with what the folder holds, never off the build's own report:

* ``files_without_status``: files in the folder (any name, any depth) and folders named like a
  corpus file (``2018.pubtator/``) with no ``doc_status`` row under their name. The folder holds
  PubTator text with CR, CRLF and LF line ends mixed, BioC XML beside it, a folder named
  ``2018.pubtator``, a ``.docx`` and a ``kgbuild.toml``.
* ``merged_title_abstract``: documents whose stored title holds their abstract (a lone CR that
  was not a line break glued each title to its abstract, and left the abstract empty).
* ``duplicate_pmids_built``: documents beyond the first of one PMID (``0099000001`` and
  ``99000001`` are one PubMed record).
* ``control_chars_kept``: documents whose title or abstract still holds a C0 control character
  other than tab and newline (a NUL and a BEL were written into a title).
* ``encodings_unsaid``: XML files whose declared encoding is unknown (``x-made-up``) or false
  (Latin-1 over UTF-8 bytes) with no ``bad_encoding`` problem row; ``mojibake_kept``: documents
  whose text holds UTF-8 read as Latin-1 ("Ã").

* ``formula_cells_written``: cells a spreadsheet would run as a formula (OWASP "CSV
  Injection": a cell beginning with ``=``, ``+``, ``-``, ``@``, tab or CR that is not a plain
  number) in every CSV/TSV file ``kgbuild export -f tsv,kgx,neo4j`` writes and in the output of
  ``kgbuild sql --format csv``, for a snapshot whose names, aliases, sentences, titles and
  mention texts are all such formulas (``tests/support/formula_kg.py``).
* ``formula_values_changed``: of those formula values, the ones the Parquet export or
  ``kgbuild sql --format json`` does not give back exactly (the raw value stays there).

Each must be 0, and so must ``build_exit`` (one bad file never stops the build) and
``formula_exit`` (the export's and the sql's exit statuses, summed). Also given, to read them
beside: ``entries``, ``documents``, ``statuses``, ``triples`` (the mixed-line-ending file's
co-occurrence edges) and ``csv_files_checked``.

    .venv/bin/python bench/trust_inputs.py [--workdir DIR]

Ends with one JSON line. About 30 s (one CLI build, one export, two sql runs).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pyarrow.parquet as pq

from bench import common
from kgbuild.store.snapshots import Warehouse
from tests.support.bad_inputs import bioc_xml, good_record
from tests.support.formula_kg import FORMULAS, formula_cells, publish_formulas

#: good_record's text: what each built document's title and abstract must be.
TITLE = "APOE and amyloid beta in Alzheimer's disease."
ABSTRACT = "APOE binds amyloid beta. Donepezil treats Alzheimer's disease."
CONTROL = re.compile("[\x00-\x08\x0b-\x1f]")
CORPUS_NAME = re.compile(r"\.(pubtator|txt|json|bioc|biocjson|xml)$", re.IGNORECASE)
ENV = common.cli_env((*common.NO_LLM, "NCBI_"), HF_HUB_OFFLINE="1", DO_NOT_TRACK="1")


def mixed_endings(text: str) -> bytes:
    """``text`` with its lines ending in CR, CRLF and LF in turn."""
    lines = text.split("\n")
    ends = ("\r", "\r\n", "\n")
    return ("".join(ln + ends[i % 3] for i, ln in enumerate(lines[:-1])) + lines[-1]).encode()


def hostile_folder(src: Path) -> None:
    """The source folder: one entry per class of hostile input, beside good records."""
    src.mkdir(parents=True)
    (src / "2015.pubtator").write_bytes(
        mixed_endings("".join(good_record(f"{99000001 + i}") for i in range(4)))
    )
    anns = [("APOE", "Gene", "348"), ("amyloid beta", "Gene", "351"),
            ("Alzheimer's disease", "Disease", "MESH:D000544")]  # fmt: skip
    (src / "2015.xml").write_text(
        bioc_xml(("99000011", TITLE, ABSTRACT, anns), ("99000012", TITLE, ABSTRACT, anns))
    )
    (src / "2018.pubtator").mkdir()
    (src / "notes.docx").write_bytes(b"PK\x03\x04 a word-processor file")
    (src / "kgbuild.toml").write_text('[kgbuild]\nwarehouse = "elsewhere"\n')
    for name, encoding in (("2015_x.xml", "x-made-up"), ("2015_lie.xml", "ISO-8859-1")):
        xml = bioc_xml((f"{len(name)}99000031", f"{TITLE} Aß", ABSTRACT, anns))
        (src / name).write_bytes(xml.replace("UTF-8", encoding, 1).encode("utf-8"))
    nul = good_record("99000021").replace(" in ", " \x00\x07 ", 1)  # same length, same offsets
    (src / "2016.pubtator").write_text(
        good_record("0099000001") + good_record("0000099000011") + nul
    )


def entries(src: Path) -> list[str]:
    """What must each end with a status: every file, and every folder named like a corpus
    file, as ``doc_status.source_file`` names them (relative to the source folder)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(src):
        here = Path(dirpath)
        out += [str((here / n).relative_to(src)) for n in filenames]
        out += [str((here / n).relative_to(src)) for n in dirnames if CORPUS_NAME.search(n)]
    return sorted(out)


def drill(workdir: Path) -> dict[str, int]:
    """Write the hostile folder under ``workdir``, build it with the CLI, and count what was
    lost or kept that should not be (each count must be 0)."""
    src, wh = workdir / "src", workdir / "wh"
    hostile_folder(src)
    cmd = [*common.CLI, "build", "--source", str(src), "--kg", "trust",
           "-w", str(wh), "--extractor", "cooccurrence", "--embed-model", "none"]  # fmt: skip
    proc = subprocess.run(cmd, cwd=workdir, env=ENV, capture_output=True, text=True, timeout=300)
    listed = entries(src)
    out = {"entries": len(listed), "build_exit": proc.returncode}
    if proc.returncode != 0 or not (wh / "kg.duckdb").exists():
        print(proc.stderr[-2000:], file=sys.stderr)
        return {**out, "files_without_status": len(listed), "merged_title_abstract": -1,
                "duplicate_pmids_built": -1, "control_chars_kept": -1, "encodings_unsaid": -1,
                "mojibake_kept": -1}  # fmt: skip
    w = Warehouse(wh)
    named = {f for (f,) in w.query("SELECT DISTINCT source_file FROM doc_status")}
    docs = w.query("SELECT pmid, title, abstract FROM documents")
    pmids = [p.lstrip("0") for p, _, _ in docs]
    out.update(
        files_without_status=sum(name not in named for name in listed),
        merged_title_abstract=sum(
            ABSTRACT in title or "|a|" in title or (a and a in title) for _, title, a in docs
        ),
        duplicate_pmids_built=len(pmids) - len(set(pmids)),
        control_chars_kept=sum(bool(CONTROL.search(t + a)) for _, t, a in docs),
        encodings_unsaid=2
        - w.query(
            "SELECT count(DISTINCT source_file) FROM problems WHERE kind = 'bad_encoding' "
            "AND source_file IN ('2015_x.xml', '2015_lie.xml')"
        )[0][0],
        mojibake_kept=sum("Ã" in t + a for _, t, a in docs),
        documents=len(docs),
        statuses=w.query("SELECT count(*) FROM doc_status")[0][0],
        triples=w.query("SELECT count(*) FROM kg_edges")[0][0],
    )
    return out


def _cli(*args: str, wh: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**ENV, "KGBUILD_WAREHOUSE": str(wh)}
    return subprocess.run([*common.CLI, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip


def formulas(workdir: Path) -> dict[str, int]:
    """Export a snapshot of formulas with the CLI and read every CSV/TSV cell it wrote, and
    ``kgbuild sql`` as CSV and JSON: formula cells written, raw values not given back."""
    wh, sid = publish_formulas(workdir / "formulas-wh")
    out = workdir / "formulas-out"
    export = _cli("export", sid, "--out", str(out), "-f", "parquet,tsv,kgx,neo4j",
                  wh=wh.root, cwd=workdir)  # fmt: skip
    query = "SELECT e.name, e.aliases, v.sentence, v.relation_raw FROM entities e, evidence v"
    csv_out = _cli("sql", query, "--format", "csv", wh=wh.root, cwd=workdir)
    json_out = _cli("sql", query, "--format", "json", wh=wh.root, cwd=workdir)
    for proc in (export, csv_out, json_out):
        if proc.returncode:
            print(proc.stderr[-2000:], file=sys.stderr)
    files = sorted(p for p in out.rglob("*") if p.suffix in (".csv", ".tsv"))
    cells = sum(len(formula_cells(p)) for p in files)
    sql_csv = workdir / "formulas-sql.csv"
    sql_csv.write_text(csv_out.stdout, encoding="utf-8")
    cells += len(formula_cells(sql_csv))
    stored = set(FORMULAS)
    parquet = out / "parquet"
    kept: set[str] = set()
    if (parquet / "evidence.parquet").is_file():
        kept |= set(pq.read_table(parquet / "entities.parquet").column("name").to_pylist())
        kept |= set(pq.read_table(parquet / "evidence.parquet").column("relation_raw").to_pylist())
    rows = json.loads(json_out.stdout) if json_out.returncode == 0 else []
    from_json = {r[k] for r in rows for k in ("name", "relation_raw")}
    return {
        "formula_cells_written": cells,
        "formula_values_changed": len(stored - kept) + len(stored - from_json),
        "csv_files_checked": len(files) + 1,
        "formula_exit": export.returncode + csv_out.returncode + json_out.returncode,
    }


def main() -> None:
    common.run_drill(lambda workdir: {**drill(workdir), **formulas(workdir)}, __doc__, "trust-")


if __name__ == "__main__":
    main()
