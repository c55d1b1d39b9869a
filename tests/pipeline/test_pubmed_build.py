"""`kgbuild build --source pubmed` end to end against loopback E-utilities and PubTator3 servers:
every record accounted for (retractions rejected, unannotated PMIDs built and flagged), a re-run
downloads nothing and reuses the snapshot, and the scispaCy annotator path with a real model."""

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from tests.support.eutils_server import FakeNCBI, serve

pytestmark = pytest.mark.slow  # PubMed builds through loopback servers

TERMS = {  # PMID → (mention, PubTator type, identifier)
    "99000001": [("Curcumin", "Chemical", "MESH:D003474"), ("APP", "Gene", "351"),
                 ("Amyloid beta", "Gene", "351"), ("Alzheimer disease", "Disease", "MESH:D000544")],
    "99000002": [("APOE4", "Gene", "348"), ("tau", "Gene", "4137"),
                 ("cognitive decline", "Disease", "MESH:D003072")],
    "99000010": [("Memantine", "Chemical", "MESH:D008559"),
                 ("glutamate", "Chemical", "MESH:D018698")],
}  # fmt: skip


def bioc(fake: FakeNCBI, pmid: str) -> dict:
    """A PubTator3 BioC document for a fixture article, annotating TERMS (real export shape)."""
    from kgbuild.sources.pubmed import parse_pubmed_xml

    (art,) = parse_pubmed_xml(
        f"<PubmedArticleSet>{fake.articles[pmid]}</PubmedArticleSet>".encode()
    )
    passages, offset = [], 0
    for kind, text in (("title", art.title), ("abstract", art.abstract)):
        anns = []
        for mention, typ, ident in TERMS[pmid]:
            at = text.find(mention)
            if at >= 0:
                where = [{"offset": offset + at, "length": len(mention)}]
                anns.append({"text": mention, "infons": {"type": typ, "identifier": ident},
                             "locations": where})  # fmt: skip
        passages.append({"offset": offset, "text": text, "infons": {"type": kind},
                         "annotations": anns})  # fmt: skip
        offset += len(text) + 1
    return {"_id": f"{pmid}|None", "pmid": int(pmid), "passages": passages, "relations": []}


def kgbuild(*args, fake, warehouse):
    env = {**os.environ, "KGBUILD_WAREHOUSE": str(warehouse), "KGBUILD_EUTILS_URL":
           fake.eutils_url, "KGBUILD_PUBTATOR_URL": fake.pubtator_url}  # fmt: skip
    return subprocess.run([sys.executable, "-m", "kgbuild.cli", *args], capture_output=True,
                          text=True, env=env, timeout=300)  # fmt: skip


def sql(fake, warehouse, query):
    out = kgbuild("sql", query, "--format", "json", fake=fake, warehouse=warehouse)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_pubmed_pubtator_build_accounts_for_every_record(tmp_path):
    fake = FakeNCBI()
    fake.pubtator = {p: bioc(fake, p) for p in TERMS}
    wh = tmp_path / "wh"
    args = ["build", "--source", "pubmed", "--query", "alzheimer", "--years", "2015",
            "--annotator", "pubtator", "--kg", "live"]  # fmt: skip
    with serve(fake):
        first = kgbuild(*args, fake=fake, warehouse=wh)
        assert first.returncode == 0, first.stderr
        n_requests = len(fake.requests)
        again = kgbuild(*args, fake=fake, warehouse=wh)
        assert again.returncode == 0, again.stderr
        assert len(fake.requests) == n_requests  # raw responses cached: nothing downloaded
        assert "reused" in again.stderr or "reused" in again.stdout
        status = {r["pmid"]: r for r in sql(fake, wh, "SELECT * FROM doc_status")}
        problems = sql(fake, wh, "SELECT pmid, kind, detail FROM problems")
        triples = sql(fake, wh, "SELECT head_id, relation, tail_id FROM triples")
    assert len(status) == 11  # every 2015 record of the query (99000012 is from 1998)
    assert (
        status["99000003"]["status"] == "rejected" and "retraction" in status["99000003"]["reason"]
    )
    assert (
        status["99000004"]["status"] == "rejected" and "retracted" in status["99000004"]["reason"]
    )
    assert status["99000005"]["status"] == "built"
    assert "empty abstract" in status["99000005"]["reason"]
    # first occurrence per passage: Curcumin and APP in the title, four terms in the abstract
    assert status["99000001"]["n_mentions"] == 6 and status["99000001"]["reason"] == "ok"
    unannotated = {p["pmid"] for p in problems if p["kind"] == "not_annotated"}
    built = {p for p, s in status.items() if s["status"] == "built"}
    assert unannotated == built - set(TERMS)  # known to PubMed, not to PubTator: flagged
    assert "not annotated" in status["99000006"]["reason"]
    assert {
        "head_id": "MESH:D000544",
        "relation": "associates",
        "tail_id": "NCBIGene:351",
    } in triples


@pytest.mark.skipif(importlib.util.find_spec("en_chem_ner") is None,
                    reason="needs the en-chem-ner model (make test installs it)")  # fmt: skip
def test_pubmed_scispacy_build_types_mentions_without_ids(tmp_path):
    fake = FakeNCBI()
    wh = tmp_path / "wh"
    with serve(fake):
        out = kgbuild("build", "--source", "pubmed", "--query", "alzheimer", "--years", "2015",
                      "--annotator", "scispacy", "--scispacy-model", "en_chem_ner",
                      fake=fake, warehouse=wh)  # fmt: skip
        assert out.returncode == 0, out.stderr
        mentions = sql(fake, wh, "SELECT text, source_type, hetionet_type, concept_id, annotator "
                                 "FROM mentions")  # fmt: skip
    assert not fake.calls("biocjson")  # the PubTator3 API is not asked
    texts = {m["text"].lower() for m in mentions}
    assert "curcumin" in texts  # a real, weak model: it misses memantine, tags "decline"
    assert all(m["concept_id"] is None and m["annotator"] == "scispacy:en_chem_ner"
               for m in mentions)  # fmt: skip
    assert {m["hetionet_type"] for m in mentions} == {"Compound"}
