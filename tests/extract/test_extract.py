from kgbuild.extract import cooccurrence
from kgbuild.extract.sentences import sentence_spans
from kgbuild.sources.pubtator_files import read_pubtator


def test_sentence_spans_respect_abbreviations_and_mentions():
    text = "APOE binds Abeta in mice. Donepezil treats AD, e.g. in trials. Smith et al. agree."
    spans = [text[a:b] for a, b in sentence_spans(text)]
    assert spans == [
        "APOE binds Abeta in mice.",
        "Donepezil treats AD, e.g. in trials.",
        "Smith et al. agree.",
    ]
    protected = [(text.find("mice. Donepezil"), text.find("mice. Donepezil") + 15)]
    assert len(sentence_spans(text, protected)) == 2


def _doc(corpus, pmid):
    rec = next(r for r in read_pubtator(corpus / "2019.pubtator", 2019) if r.pmid == pmid)
    return rec.document(2019, "2019.pubtator"), rec.mentions


def test_cooccurrence_pairs_within_sentences(corpus):
    doc, mentions = _doc(corpus, "1001")
    triples, evidence = cooccurrence.extract(doc, mentions)
    got = {(t.head_id, t.relation, t.tail_id, t.metaedge) for t in triples}
    assert ("MESH:D000544", "associates", "NCBIGene:351", "DaG") in got  # Disease head (DaG)
    assert ("NCBIGene:348", "covaries", "NCBIGene:351", "GcG") in got  # symmetric: sorted IDs
    assert ("MESH:D000077265", "associates", "MESH:D000544", None) in got  # no treats claim
    # BACE1 and APP share only the last sentence; Donepezil never meets BACE1.
    assert ("NCBIGene:23621", "covaries", "NCBIGene:351", "GcG") in got
    assert not any("NCBIGene:23621" in (h, t) and "MESH:D000077265" in (h, t) for h, _, t, _ in got)
    assert not any("NCBITaxon" in h or "NCBITaxon" in t for h, _, t, _ in got)
    for ev in evidence:
        assert doc.text[ev.sent_start : ev.sent_end] == ev.sentence
        assert ev.sent_start <= ev.head_start < ev.head_end <= ev.sent_end
        assert ev.method == "cooccurrence"
    assert len({e.evidence_id for e in evidence}) == len(evidence)


def test_no_id_mentions_make_no_triples(corpus):
    doc, mentions = _doc(corpus, "1002")
    triples, _ = cooccurrence.extract(doc, mentions)
    assert {(t.head_id, t.tail_id) for t in triples} == {("MESH:D008569", "NCBIGene:4137")}
