"""The sentence reader: its judged corpus, a deterministic retrain on the train split only,
the shipped model checked against its digest, and what a build serves when the model is
damaged (nothing typed, nothing lost)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kgbuild.errors import InputError
from kgbuild.reader import apply, judged
from kgbuild.reader.model import DEFAULT_PATH, ReaderModelError, load
from kgbuild.reader.train import train
from tests.conftest import ROOT

CORPUS = judged.DEFAULT_DIR


@pytest.fixture(scope="module")
def corpus():
    return judged.load(CORPUS)


@pytest.fixture
def corpus_dir():
    return ROOT / "tests" / "fixtures" / "corpus"


def test_the_judged_corpus_is_large_blind_double_judged_and_split_by_pmid(corpus):
    assert len(corpus) >= 4000
    sources = {j.row.source for j in corpus}
    assert sources == {"dalk_default", "dalk_llm", "biored_train", "bc5cdr_train"}
    for j in corpus:  # provenance on every row
        assert j.label["guideline"].startswith("reader-judging/")
        assert j.label["judge"] and j.row.seed > 0
        if j.second:
            assert j.second["judge"] != j.label["judge"]
    twice = [j for j in corpus if j.second]
    assert len(twice) >= 0.10 * len(corpus)
    agreement = judged.agreement(corpus)
    assert all(a["kappa"] >= 0.6 for a in agreement.values()), agreement
    splits: dict[str, set[str]] = {}
    for j in corpus:
        splits.setdefault(j.row.pmid, set()).add(j.row.split)
    assert all(len(s) == 1 for s in splits.values())  # no PMID on two sides


def _copy_corpus(dst: Path) -> Path:
    dst.mkdir()
    for name in ("rows.tsv", "judgments.tsv"):
        shutil.copy(CORPUS / name, dst / name)
    return dst


def _reader_cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "kgbuild.cli", "reader", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


@pytest.mark.slow  # CLI processes
def test_a_bad_judged_file_is_one_clear_line_and_nothing_is_trained(tmp_path):
    folder = _copy_corpus(tmp_path / "judged")
    lines = (folder / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    cells = lines[6].split("\t")
    cells[7] = "maybe"  # the `stated` column of line 7
    lines[6] = "\t".join(cells)
    (folder / "judgments.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "model.json"
    proc = _reader_cli("train", "--judged", str(folder), "--out", str(out))
    assert proc.returncode != 0
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and "judgments.tsv" in err[0], proc.stderr
    assert "line 7" in err[0] and "stated" in err[0] and "maybe" in err[0]
    assert not out.exists() and not out.with_suffix(".npz").exists()
    # a row with a field missing
    rows = (folder / "rows.tsv").read_text(encoding="utf-8").splitlines()
    rows[3] = rows[3].rsplit("\t", 2)[0]
    (folder / "rows.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    proc = _reader_cli("corpus", "--judged", str(folder))
    err = proc.stderr.strip().splitlines()
    assert proc.returncode != 0 and len(err) == 1 and "rows.tsv" in err[0] and "line 4" in err[0]


def test_an_unknown_label_names_file_line_and_field(tmp_path):
    folder = _copy_corpus(tmp_path / "judged")
    text = (folder / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    cells = text[2].split("\t")
    cells[8] = "causes"  # `relation`: not one of the guideline's
    text[2] = "\t".join(cells)
    (folder / "judgments.tsv").write_text("\n".join(text) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"line 3, field relation: unknown label 'causes'"):
        judged.load(folder)


def _small(corpus, n_train: int = 700):
    train_rows = [j for j in corpus if j.row.split == "train"][:n_train]
    return train_rows + [j for j in corpus if j.row.split == "dev"][:200]


def _bytes(reader, folder: Path) -> tuple[bytes, bytes]:
    from kgbuild.reader.model import save

    folder.mkdir(exist_ok=True)
    save(reader, folder / "m.json")
    return (folder / "m.json").read_bytes(), (folder / "m.npz").read_bytes()


def test_retraining_gives_the_same_bytes_and_reads_only_the_train_split(corpus, tmp_path):
    part = _small(corpus)
    first = _bytes(train(part), tmp_path / "a")
    assert _bytes(train(part), tmp_path / "b") == first
    flipped = []  # every dev label flipped: a model tuned on dev would change
    for j in part:
        if j.row.split == "dev":
            label = {**j.label, "stated": "no" if j.label["stated"] == "yes" else "yes"}
            j = judged.Judged(j.row, label, j.second)
        flipped.append(j)
    assert _bytes(train(flipped), tmp_path / "c") == first


def test_the_shipped_model_is_small_checked_and_refused_when_damaged(tmp_path):
    reader = load(DEFAULT_PATH)
    assert 0 < reader.threshold < 1
    npz = DEFAULT_PATH.with_suffix(".npz")
    assert npz.stat().st_size + DEFAULT_PATH.stat().st_size <= 40 * 2**20
    copy = tmp_path / "reader.json"
    shutil.copy(DEFAULT_PATH, copy)
    shutil.copy(npz, tmp_path / "reader.npz")
    data = bytearray((tmp_path / "reader.npz").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / "reader.npz").write_bytes(bytes(data))
    with pytest.raises(ReaderModelError, match="digest differs"):
        load(copy)
    meta = json.loads(DEFAULT_PATH.read_text())
    copy.write_text(json.dumps({**meta, "format": "someone-elses-reader/7"}))
    with pytest.raises(ReaderModelError, match="someone-elses-reader/7"):
        load(copy)


def _doc():
    from kgbuild.records import Document, Mention

    title = "Donepezil in Alzheimer disease"
    abstract = (
        "Donepezil improved cognition in patients with Alzheimer disease. "
        "Memantine and donepezil were given to the same patients."
    )
    doc = Document("900001", 2020, title, abstract)
    text = doc.text

    def m(word: str, nth: int, cid: str, kind: str) -> Mention:
        start = -1
        for _ in range(nth + 1):
            start = text.find(word, start + 1)
        return Mention(
            "900001",
            start,
            start + len(word),
            word,
            "Chemical" if kind == "Compound" else "Disease",
            kind,
            cid,
        )

    mentions = [
        m("Donepezil", 0, "MESH:D000077265", "Compound"),
        m("Alzheimer disease", 0, "MESH:D000544", "Disease"),
        m("Donepezil", 1, "MESH:D000077265", "Compound"),
        m("Alzheimer disease", 1, "MESH:D000544", "Disease"),
        m("Memantine", 0, "MESH:D008559", "Compound"),
        m("donepezil", 0, "MESH:D000077265", "Compound"),
    ]
    return doc, mentions


def _extract():
    from kgbuild.extract.classifier import ClassifierExtractor

    doc, mentions = _doc()
    result = ClassifierExtractor().extract([doc], {doc.pmid: mentions})
    return doc, mentions, result


def test_the_reader_decides_what_the_offline_extractor_serves():
    doc, mentions, result = _extract()
    before = {ev.evidence_id for ev in result.evidence}
    apply.read_result("classifier", result, [doc], {doc.pmid: mentions})
    after = {ev.evidence_id: ev for ev in result.evidence}
    assert before <= set(after)  # the extractor's rows are all kept
    triples = {t.triple_id: t for t in result.triples}
    assert all(ev.triple_id in triples for ev in result.evidence)
    for ev in result.evidence:
        rel = triples[ev.triple_id].relation
        if ev.epistemic == "asserted":  # served: read by the reader, with its confidence
            assert rel != "co_mentioned" and ev.epistemic_cue == "" and 0 < ev.confidence <= 1
        if ev.method == "reader":
            assert ev.epistemic == "asserted" and ev.extractor == apply.EXTRACTOR
        if rel == "co_mentioned":
            assert ev.epistemic != "asserted"


def test_a_damaged_model_serves_no_typed_fact_and_loses_nothing(tmp_path, monkeypatch):
    bad = tmp_path / "reader.json"
    bad.write_text("{not json")
    monkeypatch.setenv("KGBUILD_READER_MODEL", str(bad))
    doc, mentions, result = _extract()
    before = {ev.evidence_id: ev.epistemic for ev in result.evidence}
    apply.read_result("classifier", result, [doc], {doc.pmid: mentions})
    assert {ev.evidence_id for ev in result.evidence} == set(before)  # nothing lost
    assert "asserted" in before.values()
    assert not [ev for ev in result.evidence if ev.epistemic == "asserted"]
    for ev in result.evidence:
        if before[ev.evidence_id] == "asserted":  # not served, and says why
            assert apply.UNAVAILABLE in ev.epistemic_cue or ev.epistemic == "not_in_sentence"
        else:  # what the extractor's rules said stays
            assert ev.epistemic == before[ev.evidence_id]


@pytest.mark.slow  # a build process
def test_a_build_with_a_foreign_model_says_so_once_and_serves_co_mentions_only(
    corpus_dir, tmp_path
):
    foreign = tmp_path / "reader.json"
    foreign.write_text(json.dumps({"format": "someone-elses-reader/7"}))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KGBUILD_READER_MODEL": str(foreign)}
    wh = tmp_path / "wh"
    proc = subprocess.run(
        [sys.executable, "-m", "kgbuild.cli", "build", "--source", str(corpus_dir), "-w", str(wh)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    said = [ln for ln in proc.stderr.splitlines() if "sentence reader unavailable" in ln]
    assert len(said) == 1 and "someone-elses-reader/7" in said[0], proc.stderr
    sql = subprocess.run(
        [
            sys.executable,
            "-m",
            "kgbuild.cli",
            "sql",
            "-w",
            str(wh),
            "--format",
            "csv",
            "SELECT (SELECT count(*) FROM kg_edges), (SELECT count(*) FROM "
            "evidence), (SELECT count(*) FROM evidence WHERE epistemic = "
            "'asserted')",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    edges, evidence, asserted = map(int, sql.stdout.strip().splitlines()[-1].split(","))
    assert edges == 0 and asserted == 0 and evidence > 0


def test_judging_sheets_are_safe_to_open_in_a_spreadsheet(tmp_path):
    """A sheet's text cells that a spreadsheet would run as formulas (OWASP "CSV Injection")
    carry a ``'``; the item number does not."""
    import csv

    from kgbuild.reader.rows import Row
    from kgbuild.reader.sheet import write_sheet

    sentence = "-2+3+cmd|' /C calc'!A0 inhibits APOE"
    row = Row("r1", "build", "1", "train", sentence, 0, 22, "-2+3+cmd|' /C calc'!A0", "free:x",
              "=HYPERLINK(1)", "Gene", 32, 36, "APOE", "NCBIGene:348", "APOE", "Gene", "", "",
              "", "")  # fmt: skip
    write_sheet(tmp_path / "s.tsv", "s01", [row])
    text = (tmp_path / "s.tsv").read_text(encoding="utf-8")
    body = [ln for ln in text.splitlines() if not ln.startswith("#")]
    (cells,) = list(csv.DictReader(body, delimiter="\t"))
    assert cells["item"] == "1" and cells["sentence"].startswith("<A>-2+3+cmd")  # safe as is
    assert cells["A_text"] == "'-2+3+cmd|' /C calc'!A0" and cells["A_concept"].startswith("'=")
    assert not [c for c in cells.values() if c[:1] in ("=", "+", "-", "@", "\t", "\r")]


def test_the_readers_signed_reading_takes_the_pairs_own_name():
    # the reader reads "raises" / "lowers"; between a chemical and a disease that is
    # causes / treats (data/pair_relations.tsv), between a chemical and a gene it stays signed
    assert apply.kg_relation("upregulates", "Compound", "Disease") == "causes"
    assert apply.kg_relation("downregulates", "Compound", "Disease") == "treats"
    assert apply.kg_relation("upregulates", "Compound", "Gene") == "upregulates"
    assert apply.kg_relation("upregulates", "Disease", "Compound") == "upregulates"
    assert apply.kg_relation("other", "Compound", "Disease") == "related_to"
    # an extractor's proposal is shown under the name the reader was trained on
    assert apply._canonical("causes", "Compound", "Disease") == "upregulates"
    assert apply._canonical("induces", "Compound", "Disease") == "upregulates"
    assert apply._canonical("treats", "Compound", "Disease") == "treats"
    assert apply._canonical("causes", "Gene", "Disease") == "causes"
