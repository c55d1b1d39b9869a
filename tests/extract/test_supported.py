"""The relation verifier as a second reader of LLM claims: every LLM row is
scored, an asserted row whose pair the verifier rejects becomes ``unsupported`` (kept), free
endpoints are placed at the claim's span, and a missing verifier leaves rows unscored."""

import logging
import shutil

import pytest

from kgbuild.extract import supported
from kgbuild.extract.base import ExtractionResult
from kgbuild.records import Document, Evidence, Mention, Triple
from kgbuild.verifier.model import default_path

TITLE = "Donepezil improves cognition in Alzheimer disease."
ABSTRACT = (
    "Donepezil significantly improved cognitive function in patients with Alzheimer disease. "
    "Blood samples for APOE genotyping and for glucose were collected at baseline."
)


def _doc_and_mentions():
    doc = Document("1", 2020, TITLE, ABSTRACT)
    text = doc.text
    spans = [("Donepezil", "Compound", "MESH:D000077265"), ("Alzheimer disease", "Disease",
             "MESH:D000544"), ("APOE", "Gene", "NCBIGene:348"), ("glucose", "Compound",
             "MESH:D005947")]  # fmt: skip
    ms = []
    for form, kind, cid in spans:
        at = 0
        while (at := text.find(form, at)) >= 0:
            ms.append(Mention("1", at, at + len(form), form, kind, kind, cid))
            at += len(form)
    return doc, ms


def _row(doc, ms, head, tail, relation, status="asserted", method="generative"):
    h = next(m for m in ms if m.concept_id == head and m.start > len(doc.title))
    t = next(m for m in ms if m.concept_id == tail and m.start > len(doc.title))
    tid = f"{head}|{relation}|{tail}"
    ev = Evidence(f"e{tid}", tid, "1", 2020, "", 0, 0, h.start, h.end, t.start, t.end, method,
                  "x", epistemic=status)  # fmt: skip
    return Triple(tid, head, relation, tail, relation, method), ev


def test_llm_rows_are_scored_and_a_rejected_asserted_pair_is_unsupported(monkeypatch):
    doc, ms = _doc_and_mentions()
    stated = _row(doc, ms, "MESH:D000077265", "MESH:D000544", "treats")
    listed = _row(doc, ms, "NCBIGene:348", "MESH:D005947", "associates")
    hedged = _row(doc, ms, "NCBIGene:348", "MESH:D005947", "binds", status="hypothesis")
    cooc = _row(doc, ms, "NCBIGene:348", "MESH:D005947", "covaries", method="cooccurrence")
    rows = [stated, listed, hedged, cooc]
    result = ExtractionResult(triples=[t for t, _ in rows], evidence=[e for _, e in rows])
    supported.score_claims(result.triples, result.evidence, [doc], {"1": ms})
    p_stated, p_listed = stated[1].verifier_score, listed[1].verifier_score
    assert p_stated is not None and p_listed is not None and p_stated > p_listed
    assert cooc[1].verifier_score is None  # not an LLM row: the verifier is not its reader
    # a verifier that rejects everything: asserted LLM rows become unsupported, others stay
    monkeypatch.setattr(supported, "UNSUPPORTED_BELOW", 1.01)
    for _, e in rows:
        e.epistemic = "hypothesis" if e is hedged[1] else "asserted"
    supported.score_claims(result.triples, result.evidence, [doc], {"1": ms})
    assert stated[1].epistemic == listed[1].epistemic == "unsupported"
    assert stated[1].epistemic_cue.startswith("verifier p=")
    assert hedged[1].epistemic == "hypothesis" and cooc[1].epistemic == "asserted"


def test_a_free_endpoint_is_placed_at_the_claims_span():
    doc, ms = _doc_and_mentions()
    at = doc.text.index("cognitive function")
    d = next(m for m in ms if m.concept_id == "MESH:D000077265" and m.start > len(doc.title))
    t = Triple("t", "MESH:D000077265", "upregulates", "free:cognitive function", "improves",
               "generative")  # fmt: skip
    e = Evidence("e", "t", "1", 2020, "", 0, 0, d.start, d.end, at, at + 18, "generative", "x")
    supported.score_claims([t], [e], [doc], {"1": ms})
    assert e.verifier_score is not None and 0.0 <= e.verifier_score <= 1.0


def test_without_a_verifier_rows_are_left_unscored_and_it_says_so_once(tmp_path, caplog):
    doc, ms = _doc_and_mentions()
    t, e = _row(doc, ms, "NCBIGene:348", "MESH:D005947", "associates")
    gone = tmp_path / "relation_verifier.npz"  # no file: a clear message, nothing lost
    caplog.set_level(logging.WARNING)
    supported._warned.clear()
    for _ in range(2):
        supported.score_claims([t], [e], [doc], {"1": ms}, model_path=gone)
    assert e.verifier_score is None and e.epistemic == "asserted"
    assert sum("relation verifier unavailable" in r.message for r in caplog.records) == 1
    corrupt = tmp_path / "bad.npz"
    shutil.copy(default_path(), corrupt)
    shutil.copy(default_path().with_suffix(".json"), corrupt.with_suffix(".json"))
    corrupt.write_bytes(corrupt.read_bytes()[:-100] + b"x" * 100)
    supported.score_claims([t], [e], [doc], {"1": ms}, model_path=corrupt)
    assert e.verifier_score is None and e.epistemic == "asserted"


@pytest.mark.parametrize("method", ["generative", "pairwise"])
def test_llm_extractors_record_the_verifier_in_their_config(method, tmp_path):
    from kgbuild.extract.select import make_extractor
    from kgbuild.llm.client import LLMSettings

    ex = make_extractor(method, LLMSettings(model="m", base_url="http://127.0.0.1:9/v1"),
                        cache_path=tmp_path / "cache.sqlite")  # fmt: skip
    try:
        assert ex.config()["verifier"].startswith("relation_verifier@")
    finally:
        ex.close()
