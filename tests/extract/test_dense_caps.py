"""One dense abstract (600 entities in one sentence) is bounded per document.

Co-occurrence keeps at most 40 entities a sentence and 2,000 co-mentions a document, without
ever building the 179,700 pairs (memory measured with tracemalloc); pair-wise asks at most
2,000 pairs, the most-mentioned entities' (requests counted on a loopback LLM server); both
mark the document ``partial`` with the cap in its reason; ``--estimate`` says how many documents
hit the cap and the calls saved; and real abstracts (DALK, the fixture corpus) are unaffected.
"""

import math
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from kgbuild.extract import cooccurrence
from kgbuild.extract.pairwise import CHUNK_SIZE, candidate_pairs, doc_nodes
from kgbuild.llm.client import LLMSettings
from kgbuild.pipeline.build import build_kg, estimate_build
from kgbuild.pipeline.options import ExtractionOptions
from kgbuild.sources.pubtator_files import read_pubtator
from kgbuild.store.snapshots import Warehouse
from tests.conftest import FIXTURES, shared
from tests.support.replay_llm_server import ReplayLLM, serve_llm

LLM_CORPUS = FIXTURES / "llm" / "corpus"
RECORDINGS = FIXTURES / "llm" / "recordings"
N_GENES = 600
#: The stated caps (kgbuild/extract/caps.py), spelled out: they are part of the contract.
MAX_PAIRS_PER_DOCUMENT = 2_000
MAX_ENTITIES_PER_SENTENCE = 40
#: 600 genes + APOE in one Gene–Gene clique, each gene also paired with the disease.
DENSE_PAIRS = math.comb(N_GENES + 1, 2) + N_GENES + 1


def pubtator_doc(pmid: str, title: str, abstract: str, ids: dict[str, tuple[str, str]]) -> str:
    """A PubTator record whose mentions are every occurrence of each ``ids`` form in the text."""
    text = f"{title} {abstract}"
    lines = [f"{pmid}|t|{title}", f"{pmid}|a|{abstract}"]
    spans = []
    for form, (kind, cid) in ids.items():
        at = text.find(form)
        while at >= 0:
            end = at + len(form)
            if (at == 0 or not text[at - 1].isalnum()) and (
                end == len(text) or not text[end].isalnum()
            ):
                spans.append((at, end, form, kind, cid))
            at = text.find(form, at + 1)
    lines += [f"{pmid}\t{a}\t{b}\t{f}\t{k}\t{c}" for a, b, f, k, c in sorted(spans)]
    return "\n".join(lines) + "\n\n"


def dense_record(pmid: str = "7001", n: int = N_GENES) -> str:
    """APOE and Alzheimer disease (two mentions each) and a sentence listing ``n`` genes once."""
    genes = [f"GX{i}" for i in range(1, n + 1)]
    ids = {"APOE": ("Gene", "348"), "Alzheimer disease": ("Disease", "MESH:D000544")}
    ids |= {g: ("Gene", str(100000 + i)) for i, g in enumerate(genes, 1)}
    return pubtator_doc(
        pmid,
        "APOE and Alzheimer disease in a screen.",
        f"Genes {', '.join(genes)} were measured. APOE is associated with Alzheimer disease.",
        ids,
    )


def read_one(text: str, tmp_path: Path):
    path = tmp_path / "2019.pubtator"
    path.write_text(text, encoding="utf-8")
    (rec,) = read_pubtator(path, 2019)
    return rec.document(2019, path.name), rec.mentions


def test_the_caps_stated_here_are_the_code_constants():
    from kgbuild.extract import caps

    assert caps.MAX_PAIRS_PER_DOCUMENT == MAX_PAIRS_PER_DOCUMENT
    assert caps.MAX_ENTITIES_PER_SENTENCE == MAX_ENTITIES_PER_SENTENCE


def test_cooccurrence_of_a_600_entity_sentence_is_bounded_in_pairs_and_memory(tmp_path):
    doc, mentions = read_one(dense_record(), tmp_path)
    tracemalloc.start()
    try:
        _, evidence = cooccurrence.extract(doc, mentions)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    per_sentence = math.comb(MAX_ENTITIES_PER_SENTENCE, 2)
    assert len(evidence) == per_sentence + 2  # the list's 780, APOE–AD in two sentences
    assert peak < 8 << 20, f"peak {peak:,} bytes"  # uncapped: 179,700 rows, hundreds of MB
    kept = {(e.head_text, e.tail_text) for e in evidence}
    assert ("Alzheimer disease", "APOE") in kept  # the normal sentences keep their pair
    listed = {t for e in evidence for t in (e.head_text, e.tail_text)} - {"APOE"}
    assert listed - {"Alzheimer disease"} == {f"GX{i}" for i in range(1, 41)}  # earliest 40
    total = 1 + math.comb(N_GENES, 2) + 1
    status = cooccurrence.CooccurrenceExtractor().extract([doc], {doc.pmid: mentions}).statuses
    assert [(s.status, s.reason) for s in status] == [
        (
            "partial",
            f"pair cap: {total:,} sentence co-mention pairs, over 40 entities a sentence or "
            f"2,000 a document; kept {per_sentence + 2:,}",
        )
    ]


def test_cooccurrence_stops_at_the_document_pair_cap(tmp_path):
    genes = [f"GX{i}" for i in range(1, MAX_ENTITIES_PER_SENTENCE + 1)]
    sentence = f"Genes {', '.join(genes)} were measured."
    ids = {g: ("Gene", str(100000 + i)) for i, g in enumerate(genes, 1)}
    doc, mentions = read_one(pubtator_doc("7002", "Many lists.", " ".join([sentence] * 60), ids),
                             tmp_path)  # fmt: skip
    _, evidence = cooccurrence.extract(doc, mentions)
    assert len(evidence) == MAX_PAIRS_PER_DOCUMENT  # of 60 x 780 = 46,800
    third = doc.text.find(sentence, doc.text.find(sentence, doc.text.find(sentence) + 1) + 1)
    assert max(e.sent_start for e in evidence) == third  # earliest sentences first
    (status,) = cooccurrence.CooccurrenceExtractor().extract([doc], {doc.pmid: mentions}).statuses
    assert status.reason.startswith("pair cap: 46,800 sentence co-mention pairs")


def test_pairwise_questions_of_a_dense_document_are_capped_to_the_top_entities(tmp_path):
    _, mentions = read_one(dense_record(), tmp_path)
    assert len(doc_nodes(mentions)) == N_GENES + 2
    questions = candidate_pairs(mentions)
    assert len(questions) == MAX_PAIRS_PER_DOCUMENT
    ids = {n.id for q in questions for n in (q.head, q.tail)}
    # APOE and AD (two mentions each) first, then the genes by first mention: C(63,2) = 1,953
    # pairs among the top 63, and 47 with the 64th (GX62).
    assert {"NCBIGene:348", "MESH:D000544"} <= ids
    assert ids - {"NCBIGene:348", "MESH:D000544"} == {
        f"NCBIGene:{100000 + i}" for i in range(1, 63)
    }
    assert ("NCBIGene:348", "MESH:D000544") in {(q.tail.id, q.head.id) for q in questions}
    assert candidate_pairs(mentions) == questions  # deterministic


def pairwise(url: str, mode: str = "batched") -> ExtractionOptions:
    llm = LLMSettings(model="dalk-replay", base_url=url, api_key="sk-test", backoff_s=0.05)
    return ExtractionOptions("pairwise", llm, mode, CHUNK_SIZE, embed_model="none")


def corpus_with_dense_doc(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for f in LLM_CORPUS.iterdir():
        (src / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    with open(src / "2019.pubtator", "a", encoding="utf-8") as fh:
        fh.write("\n" + dense_record())
    return src


@pytest.mark.slow  # builds through the replay LLM server
def test_pairwise_build_sends_a_bounded_number_of_prompts_and_marks_the_document(tmp_path):
    src = corpus_with_dense_doc(tmp_path)
    llm = ReplayLLM(RECORDINGS)
    with serve_llm(llm) as url:
        build_kg(LLM_CORPUS, kg="t", extractor=pairwise(url), warehouse=tmp_path / "plain")
        plain_calls = llm.stats()["requests"]
        build_kg(src, kg="t", extractor=pairwise(url), warehouse=tmp_path / "dense")
        dense_calls = llm.stats()["requests"] - plain_calls
    capped_calls = MAX_PAIRS_PER_DOCUMENT // CHUNK_SIZE  # 25; uncapped: 2,262
    assert dense_calls == plain_calls + capped_calls
    status = {r[0]: r[1:] for r in Warehouse(tmp_path / "dense").query(
        "SELECT pmid, status, reason, n_calls FROM extraction_status")}  # fmt: skip
    st, reason, n_calls = status["7001"]
    assert (st, n_calls) == ("partial", capped_calls)
    assert reason.startswith(
        f"pair cap: {DENSE_PAIRS:,} candidate pairs, over 2,000 per document; kept 2,000"
    )
    # the other documents are built exactly as without the dense one
    plain = Warehouse(tmp_path / "plain")
    for sql in ("SELECT pmid, status, reason, n_calls FROM extraction_status",
                "SELECT head_id, relation, tail_id FROM triples"):  # fmt: skip
        assert set(plain.query(sql)) <= set(Warehouse(tmp_path / "dense").query(sql))


@pytest.mark.slow  # the CLI in a process
def test_estimate_says_how_many_documents_hit_the_cap_and_the_calls_saved(tmp_path):
    src = corpus_with_dense_doc(tmp_path)
    saved = math.ceil(DENSE_PAIRS / CHUNK_SIZE) - MAX_PAIRS_PER_DOCUMENT // CHUNK_SIZE
    llm = ReplayLLM(RECORDINGS)
    with serve_llm(llm) as url:
        _, per_year = estimate_build(src, extractor=pairwise(url), warehouse=tmp_path / "wh")
        est = per_year[2019]
        assert (est.capped_docs, est.calls_saved) == (1, saved)
        per_pair = pairwise(url, "per-pair")
        _, per_year = estimate_build(src, extractor=per_pair, warehouse=tmp_path / "wh")
        assert per_year[2019].calls_saved == DENSE_PAIRS - MAX_PAIRS_PER_DOCUMENT
        assert per_year[2019].calls <= 100 + MAX_PAIRS_PER_DOCUMENT
        env = {**os.environ, "KGBUILD_WAREHOUSE": str(tmp_path / "wh")}
        proc = subprocess.run(
            [sys.executable, "-m", "kgbuild.cli", "build", "--source", str(src), "--kg", "t",
             "--extractor", "pairwise", "--llm-base-url", url, "--estimate"],
            capture_output=True, text=True, env=env, timeout=300,
        )  # fmt: skip
    assert llm.stats()["requests"] == 0
    assert proc.returncode == 0, proc.stderr
    assert (
        f"pair cap: 1 document(s) over 2,000 candidate pairs (only the pairs of their "
        f"most-mentioned entities are asked; they end partial): {saved:,} call(s) saved"
    ) in " ".join(proc.stdout.split())


@pytest.mark.integration  # the whole DALK corpus
def test_no_dalk_abstract_reaches_a_cap():
    """Real abstracts are untouched: no DALK document is over either cap (the densest has 300
    candidate pairs and 20 entities in a sentence)."""
    from kgbuild.extract.pairwise import count_candidate_pairs

    dalk = shared("dalk", "by_year")
    n = 0
    for path in sorted(dalk.glob("*.pubtator")):
        year = int(path.stem)
        for rec in read_pubtator(path, year):
            n += 1
            assert count_candidate_pairs(doc_nodes(rec.mentions)) <= MAX_PAIRS_PER_DOCUMENT
            doc = rec.document(year, path.name)
            assert not cooccurrence.extract_bounded(doc, rec.mentions).capped, rec.pmid
    assert n == 9_764
