"""LLM extraction end to end against real loopback servers: generative and pair-wise, grounding,
the hallucination guard, statuses, the response cache, faults and accounting."""

import json
from pathlib import Path

import pytest

from kgbuild.extract.ground import DocumentGrounder
from kgbuild.extract.pairwise import OTHERS, candidate_pairs
from kgbuild.extract.parse import parse_choice, parse_choices, parse_triples
from kgbuild.llm.client import LLMSettings
from kgbuild.names import norm, variants
from kgbuild.pipeline.build import build_kg, estimate_build
from kgbuild.pipeline.options import ExtractionOptions
from kgbuild.records import Document
from kgbuild.sources.pubtator_files import read_pubtator
from kgbuild.store.snapshots import Warehouse
from tests.conftest import FIXTURES
from tests.support.replay_llm_server import ReplayLLM, serve_llm
from tests.support.scripted_llm_server import ScriptedLLM, serve

CORPUS = FIXTURES / "llm" / "corpus"
RECORDINGS = FIXTURES / "llm" / "recordings"
SECRET = "sk-test-SECRET-never-in-the-warehouse"


def settings(url, **kw):
    base = {"model": "dalk-replay", "base_url": url, "api_key": SECRET, "backoff_s": 0.05}
    return LLMSettings(**{**base, **kw})


def build(url, wh, extractor="generative", mode="batched", chunk=80, years=None, **kw):
    opts = ExtractionOptions(extractor, settings(url, **kw), mode, chunk)
    return build_kg(CORPUS, kg="t", extractor=opts, warehouse=wh, years=years)


def rows(wh, sql):
    return Warehouse(wh).query(sql)


def doc(pmid):
    year = 2020 if pmid == "2003" else 2019
    rec = next(r for r in read_pubtator(CORPUS / f"{year}.pubtator", year) if r.pmid == pmid)
    return rec.document(year, "f"), rec.mentions


# ---- parsing ----------------------------------------------------------------------------------
def test_parse_triples_reads_json_lines_and_says_what_it_could_not():
    js = parse_triples('Sure! ```json\n{"triples": [{"head": "A", "relation": "binds", '
                       '"tail": "B"}]}\n```')  # fmt: skip
    assert [(t.head, t.relation, t.tail) for t in js.triples] == [("A", "binds", "B")]
    dalk = parse_triples('[{"entity1": {"entity_name": "A"}, "relation": "r", '
                         '"entity2": {"entity_name": "B"}}]')  # fmt: skip
    assert [(t.head, t.tail) for t in dalk.triples] == [("A", "B")]
    lines = parse_triples("1. APOE | binds | amyloid beta\nnoise here\n- AD | associates | APOE")
    assert [t.head for t in lines.triples] == ["APOE", "AD"] and "1 line(s)" in lines.problem
    garbage = parse_triples("I am a small model and I like turtles.")
    assert not garbage.triples and "no JSON triples" in garbage.problem


def test_parse_choices_json_and_dalk_text():
    assert (
        parse_choice('{"reasoning": "x", "answer": "b", "predicate": ""}').choices[0].letter == "B"
    )
    text = "1. A could be B. 2. So the answer is: D. is a risk factor for"
    c = parse_choice(text).choices[0]
    assert (c.letter, c.predicate) == ("D", "is a risk factor for")
    assert parse_choice("no idea").problem
    batch = parse_choices("1: A\n2: F (causes)\nPair 3 - C")
    assert {n: (c.letter, c.predicate) for n, c in batch.choices.items()} == {
        1: ("A", ""), 2: ("F", "causes"), 3: ("C", "")}  # fmt: skip
    js = parse_choices('{"answers": [{"pair": 2, "answer": "B", "predicate": ""}]}')
    assert list(js.choices) == [2]


# ---- grounding ----------------------------------------------------------------------------------
def test_grounding_order_exact_alias_abbreviation_fuzzy_free():
    g = DocumentGrounder(*doc("2001"))
    assert (g.ground("Telmisartan").node_id, g.ground("Telmisartan").method) == (
        "MESH:D000077353", "exact")  # fmt: skip
    alias = g.ground("AD (Alzheimer's disease)")
    assert (alias.node_id, alias.method) == ("MESH:D000544", "alias")
    assert g.ground("APOE expression").node_id == "NCBIGene:348"  # head noun dropped
    abbrev = g.ground("Abeta")  # only defined in the text: "Amyloid beta (Abeta)"
    assert (abbrev.node_id, abbrev.method) == ("NCBIGene:351", "abbreviation")
    fuzzy = g.ground("Oxidative stresses")
    assert fuzzy.node_id == "MESH:D018384"
    free = g.ground("cognitive decline")
    assert (free.node_id, free.grounded, free.spans[0][0] > 0) == ("free:cognitive decline",
                                                                  False, True)  # fmt: skip
    assert g.ground("APH1").method == "free"  # short symbols are never fuzzy-matched (APP)
    assert g.occurs("cognitive decline") and not g.occurs("Parkinson's disease")
    assert norm("Amyloid-β") == norm("amyloid beta") == "amyloid beta"
    assert "alzheimer disease" in variants("AD (Alzheimer's disease)")
    # a formula's parentheses are no second name (precision audit, seed 1606: "Ru(bpy)3 MOFs"
    # was grounded to 2,2'-bipyridine); the name outside them still is one ("Abeta(1-42)")
    assert "bpy" not in variants("3D Ru(bpy)32+/zinc oxalate MOFs")
    assert "abeta" in variants("Abeta(1-42)") and "1 42" not in variants("Abeta(1-42)")


def test_a_short_form_defined_here_is_its_long_form_not_a_corpus_alias():
    """Precision audits: "MAPT" defined as a trial and "RPE" as a tissue were resolved, as free
    names, to the genes MAPT and RPE through their corpus-wide aliases."""
    text = ("Participants of the Multidomain Alzheimer Preventive Trial (MAPT) took omega-3. "
            "MAPT found no effect on the retinal pigment epithelium (RPE).")  # fmt: skip
    g = DocumentGrounder(Document("9", 2017, text, ""), [])
    got = g.ground("MAPT")
    assert (got.node_id, got.method) == ("free:multidomain alzheimer preventive trial", "free")
    assert [text[a:b] for a, b in got.spans] == ["MAPT", "MAPT"]  # where the text says it
    assert g.ground("RPE").node_id == "free:retinal pigment epithelium"
    assert g.ground("omega-3").node_id == "free:omega 3"  # nothing defined: its own name


# ---- pair-wise candidates ----
def test_candidate_pairs_follow_table_11_once_per_unordered_pair():
    pairs = candidate_pairs(doc("2001")[1])
    keys = [(q.head.id, q.tail.id) for q in pairs]
    assert len(keys) == len({frozenset(k) for k in keys}) == 15  # 6 concepts, all kind pairs
    by = {frozenset((q.head.id, q.tail.id)): q for q in pairs}
    cd = by[frozenset(("MESH:D000077353", "MESH:D000544"))]
    assert cd.head.kind == "Compound"
    assert [o.text for o in cd.options] == ["palliates", "treats", "no-relation", OTHERS]
    dg = by[frozenset(("MESH:D000544", "NCBIGene:348"))]
    assert dg.head.kind == "Disease"  # DaG: Disease is the metaedge's source
    gg = by[frozenset(("NCBIGene:348", "NCBIGene:351"))]
    assert {"regulates", "is regulated by", "covaries", "interacts"} <= {o.text for o in gg.options}
    assert all(q.options[-2].text == "no-relation" for q in pairs)
    assert not any("NCBITaxon" in k[0] + k[1] for k in keys)  # species are not KG nodes


# ---- generative through the replay server -------------------------------------------------------
@pytest.mark.slow  # builds through the replay LLM server
def test_generative_build_grounds_guards_and_accounts_for_every_document(tmp_path):
    llm = ReplayLLM(RECORDINGS)
    with serve_llm(llm) as url:
        report = build(url, tmp_path / "wh")
        again = build(url, tmp_path / "wh")  # identical re-run: reused, 0 calls
        fresh = build(url, tmp_path / "wh2")  # other warehouse, own cache: same content
    wh = tmp_path / "wh"
    # the LLM's own triples (the sentence reader's readings are rows of method ``reader``)
    got = set(rows(wh, "SELECT DISTINCT head_id, relation, tail_id, metaedge FROM triples "
                   "JOIN evidence e USING (triple_id) WHERE e.method <> 'reader'"))  # fmt: skip
    assert got == {
        ("MESH:D000077353", "treats", "MESH:D000544", "CtD"),
        ("MESH:D000077353", "downregulates", "NCBIGene:351", "CdG"),  # Abeta by abbreviation
        ("NCBIGene:351", "regulates", "NCBIGene:348", "Gr>G"),
        ("NCBIGene:348", "interacts", "NCBIGene:54209", "GiG"),  # symmetric: sorted IDs
        ("MESH:D018384", "associates", "free:cognitive decline", None),  # canonicalized
        ("MESH:D000077265", "palliates", "MESH:D003704", "CpD"),
        ("MESH:D000077265", "binds", "NCBIGene:43", "CbG"),
    }
    raw = rows(wh, "SELECT relation_raw FROM triples WHERE tail_id = 'free:cognitive decline'")
    assert raw == [("is a risk factor for",)]
    reasons = dict(rows(wh, "SELECT relation, reason FROM rejections"))
    assert reasons == {
        "cures": "tail not in title/abstract (hallucinated)",
        "model": "head is not a KG node kind (DALK Table 10)",
        "is": "head and tail are the same concept",
    }
    status = {r[0]: r[1:] for r in rows(wh, "SELECT pmid, status, n_triples, n_rejected, "
                                             "n_calls FROM extraction_status")}  # fmt: skip
    assert status == {"2001": ("done", 5, 3, 1), "2002": ("done", 0, 0, 1),
                      "2003": ("done", 2, 0, 1)}  # fmt: skip
    free = rows(wh, "SELECT name, type FROM entities WHERE id LIKE 'free:%'")
    assert free == [("cognitive decline", "")]
    ev = rows(wh, "SELECT DISTINCT method, model, prompt_version FROM evidence "
              "WHERE method <> 'reader'")  # fmt: skip
    assert len(ev) == 1 and ev[0][:2] == ("generative", "dalk-replay")
    read = rows(wh, "SELECT DISTINCT model, prompt_version FROM evidence WHERE method = 'reader'")
    assert all(m.startswith("sentence-reader@") and p is None for m, p in read)
    assert ev[0][2].startswith("generative/v1@")
    sentence = rows(wh, "SELECT e.sentence FROM evidence e JOIN triples t USING (triple_id) "
                        "WHERE t.relation = 'interacts'")[0][0]  # fmt: skip
    assert sentence == "APP regulates APOE expression, and TREM2 interacts with APOE."
    assert report.llm_usage["calls"] == 3 and again.llm_usage == {}
    assert all(y.reused for y in again.years) and fresh.llm_usage["calls"] == 3
    assert fresh.head.content_hash == report.head.content_hash
    counts = report.head.counts
    assert (counts.llm_calls, counts.extraction_done, counts.rejections) == (3, 3, 3)
    assert llm.stats()["requests"] == 6
    for path in (tmp_path / "wh").rglob("*"):  # the key is never written anywhere
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


@pytest.mark.slow  # builds through the replay LLM server
def test_rebuild_sharing_the_cache_makes_no_calls_and_same_hash(tmp_path):
    with serve_llm(ReplayLLM(RECORDINGS)) as url:
        first = build(url, tmp_path / "a")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "llm_cache.sqlite").write_bytes(
        (tmp_path / "a" / "llm_cache.sqlite").read_bytes()
    )
    # The same endpoint (answers are an endpoint's), now stopped: any call would fail.
    second = build(url, tmp_path / "b", max_retries=0)
    assert second.llm_usage["calls"] == 0 and second.llm_usage["cache_hits"] == 3
    assert second.head.content_hash == first.head.content_hash


@pytest.mark.slow  # builds through the replay LLM server
def test_faults_are_retried_to_the_same_triples(tmp_path):
    with serve_llm(ReplayLLM(RECORDINGS)) as url:
        clean = build(url, tmp_path / "clean")
    faulty_llm = ReplayLLM(RECORDINGS, fault_rate=0.6, seed=3, retry_after_s=0, slow_s=1.5)
    with serve_llm(faulty_llm) as url:
        # 60% faults: allow enough retries that no request ends truncated or failed.
        faulty = build(url, tmp_path / "faulty", timeout_s=0.5, max_retries=30,
                       truncation_retries=30, backoff_cap_s=0.2)  # fmt: skip
    assert faulty.head.content_hash == clean.head.content_hash
    assert sum(faulty_llm.stats()["faults"].values()) > 0
    assert faulty.llm_usage["retries"] + faulty.llm_usage.get("truncated", 0) > 0


@pytest.mark.slow  # builds through the replay LLM server
def test_failed_documents_get_a_reason_and_are_retried_by_the_next_build(tmp_path):
    # First build: the endpoint refuses everything → every document "failed", with the reason.
    with serve(ScriptedLLM(default=("status", 503, None))) as url:
        report = build(url, tmp_path / "wh", max_retries=1)
    st = rows(tmp_path / "wh", "SELECT pmid, status, reason FROM extraction_status ORDER BY 1")
    assert [s[1] for s in st] == ["failed"] * 3
    assert "after 2 attempts: HTTP 503" in st[0][2]
    assert report.head.counts.extraction_failed == 3
    calls = rows(tmp_path / "wh", "SELECT DISTINCT outcome FROM llm_calls")
    assert calls == [("failed",)]
    # Next build: the endpoint works → the failed years are rebuilt, not reused.
    with serve_llm(ReplayLLM(RECORDINGS)) as url:
        healed = build(url, tmp_path / "wh")
    assert not any(y.reused for y in healed.years) and healed.llm_usage["calls"] == 3
    assert healed.head.counts.extraction_failed == 0
    llm_triples = rows(tmp_path / "wh", "SELECT count(DISTINCT triple_id) FROM evidence "
                       "WHERE method <> 'reader'")  # fmt: skip
    assert llm_triples == [(7,)]


def test_truncated_answers_keep_whole_triples_and_mark_the_document_partial(tmp_path):
    cut = '{"triples": [{"head": "Donepezil", "relation": "palliates", "tail": "dementia"}, {"he'
    llm = ScriptedLLM(default=("ok", cut))
    llm.finish_reason = "length"
    with serve(llm) as url:
        # the whole budget used (8 tokens: the scripted server counts words): a genuine cut-off
        report = build(url, tmp_path / "wh", years="2020", truncation_retries=1, max_tokens=8)
    (status,) = rows(tmp_path / "wh", "SELECT status, reason, n_triples FROM extraction_status")
    assert status[0] == "partial" and "cut off" in status[1]
    assert report.head.counts.extraction_partial == 1 and len(llm.requests) == 2


def test_garbage_answers_are_rejected_with_reasons_not_crashes(tmp_path):
    with serve(ScriptedLLM(default=("ok", "Bananas are yellow. I cannot answer."))) as url:
        build(url, tmp_path / "wh")
    reasons = rows(tmp_path / "wh", "SELECT pmid, reason FROM rejections ORDER BY 1")
    assert [r[0] for r in reasons] == ["2001", "2002", "2003"]
    assert all(r[1].startswith("unparseable answer: 'Bananas") for r in reasons)
    st = rows(tmp_path / "wh", "SELECT DISTINCT status FROM extraction_status")
    assert st == [("done",)]


# ---- pair-wise ----------------------------------------------------------------------------------
# 2001 has 15 candidate pairs, 2002 none (no call), 2003 three (Compound–Disease, Compound–Gene,
# Disease–Gene): per-pair 18 calls; batched 1 + 1, or ceil(15/4) + 1 with 4 pairs per call.
@pytest.mark.parametrize(("mode", "chunk", "calls"), [("per-pair", 40, 18), ("batched", 40, 2),
                                                      ("batched", 4, 5)])  # fmt: skip
@pytest.mark.slow  # builds through the replay LLM server
def test_pairwise_modes_cost_and_agree(tmp_path, mode, chunk, calls):
    with serve_llm(ReplayLLM(RECORDINGS)) as url:
        report = build(url, tmp_path / "wh", extractor="pairwise", mode=mode, chunk=chunk)
    assert report.llm_usage["calls"] == calls
    got = set(rows(tmp_path / "wh", "SELECT head_id, relation, tail_id FROM triples"))
    assert ("MESH:D000077353", "treats", "MESH:D000544") in got
    assert ("NCBIGene:351", "regulates", "NCBIGene:348") in got
    assert ("MESH:D000077265", "palliates", "MESH:D003704") in got
    assert ("MESH:D000077265", "binds", "NCBIGene:43") in got
    st = dict(rows(tmp_path / "wh", "SELECT pmid, reason FROM extraction_status"))
    assert st["2002"] == "nothing to ask (no candidate pairs)"


# ---- estimate, auto, config ----
@pytest.mark.slow  # builds through the replay LLM server
def test_estimate_spends_nothing_and_counts_cached_answers(tmp_path):
    llm = ReplayLLM(RECORDINGS)
    with serve_llm(llm) as url:
        opts = ExtractionOptions("generative", settings(url, model="gpt-4o-mini"))
        chosen, before = estimate_build(CORPUS, extractor=opts, warehouse=tmp_path / "wh")
        assert llm.stats()["requests"] == 0
        build(url, tmp_path / "wh", model="gpt-4o-mini")
        _, after = estimate_build(CORPUS, extractor=opts, warehouse=tmp_path / "wh")
    assert chosen == "generative"
    assert sum(e.calls for e in before.values()) == 3 and before[2019].cost_usd > 0
    assert sum(e.calls for e in after.values()) == 0 and sum(e.cached for e in after.values()) == 3


@pytest.mark.slow  # builds through the replay LLM server
def test_auto_is_an_llm_method_only_with_an_endpoint(tmp_path, monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "KGBUILD_LLM_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    report = build_kg(CORPUS, kg="t", extractor="auto", warehouse=tmp_path / "a")
    config = Warehouse(tmp_path / "a").manifest(report.head.snapshot_id)["config"]
    assert (config["extractor"], config["extractor_requested"]) == ("classifier", "auto")
    with serve_llm(ReplayLLM(RECORDINGS)) as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        report = build_kg(CORPUS, kg="t", extractor="auto", warehouse=tmp_path / "b")
    manifest = Warehouse(tmp_path / "b").manifest(report.head.snapshot_id)
    assert manifest["config"]["extractor"] == "generative"
    assert manifest["config"]["extraction"]["prompt"].startswith("generative/v1@")
    assert SECRET not in json.dumps(manifest)


def test_settings_come_from_the_config_file_and_prices_table(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in ("KGBUILD_LLM_MODEL", "KGBUILD_LLM_CONCURRENCY"):
        monkeypatch.delenv(var, raising=False)
    Path("kgbuild.toml").write_text(
        '[llm]\nmodel = "my-model"\nconcurrency = 3\napi_key = "ignored"\n'
        '[llm.prices]\n"my-model" = [1.0, 2.0]\n'
    )
    s = LLMSettings.from_env(max_tokens=99)
    assert (s.model, s.concurrency, s.max_tokens, s.price()) == ("my-model", 3, 99, (1.0, 2.0))
    assert s.api_key is None  # keys are read from the environment only
    assert LLMSettings.from_env(model="gpt-4o-mini").price() == (0.15, 0.60)


@pytest.mark.slow  # builds through the replay LLM server
def test_resolution_is_incremental_and_a_resumed_build_equals_an_unbroken_one(tmp_path):
    with serve_llm(ReplayLLM(RECORDINGS)) as url:
        one_go = build(url, tmp_path / "one")
        first = build(url, tmp_path / "steps", years="2019")  # stops after 2019 ("killed")
        rest = build(url, tmp_path / "steps")  # 2019 reused, 2020 resolved from its state
    assert [y.reused for y in rest.years] == [True, False]
    assert rest.head.content_hash == one_go.head.content_hash
    decided_2019 = sum(v for k, v in first.resolution.items() if k != "names_embedded")
    decided_2020 = sum(v for k, v in rest.resolution.items() if k != "names_embedded")
    total = rows(tmp_path / "steps", "SELECT count(*) FROM resolutions")[0][0]
    assert decided_2019 + decided_2020 == total  # 2020 decided only names new in 2020
    assert rows(tmp_path / "steps", "SELECT DISTINCT year FROM resolutions") == [(2019,)]
    assert rest.resolution.get("names_embedded", 0) <= first.resolution.get("names_embedded", 0)
