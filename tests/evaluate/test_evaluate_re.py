"""kgbuild.evaluate relation extraction: the mapping, gold reading, scoring, ceilings, reports,
``eval re`` / ``eval compare`` as a user runs them, and the LLM extractors through the replay
server (DALK-style recorded answers for the fixture's abstracts) on 127.0.0.1.

Fixtures (tests/fixtures/eval, hand-written): ``biored_small.PubTator`` (3 abstracts, 10 BioRED
relations: a variant endpoint, a composite gene mention, a Cotreatment) and its BioC-JSON twin;
``cdr_small.PubTator.txt`` (2 abstracts, 6 CID); ``recordings/`` the answers the replay server
gives for the BioRED abstracts. Figures below were worked out by hand from those files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kgbuild.errors import ConfigError, InputError
from kgbuild.evaluate import mapping
from kgbuild.evaluate.compare import compare
from kgbuild.evaluate.gold import read_gold_corpus
from kgbuild.evaluate.mapping import detect_scheme, get_scheme, reachable_types
from kgbuild.evaluate.relations import PredictedTriple, predicted_facts
from kgbuild.evaluate.reports import load_report
from kgbuild.evaluate.run_re import EvalExtraction, estimate_re, evaluate_re
from kgbuild.llm.client import LLMSettings
from tests.conftest import FIXTURES, shared
from tests.llm import test_local_llm
from tests.support.replay_llm_server import serve_replay

#: The llama.cpp server fixture of test_local_llm (SmolLM2 on 127.0.0.1), shared here.
smollm2 = test_local_llm.smollm2
EVAL = FIXTURES / "eval"
BIORED = EVAL / "biored_small.PubTator"
BIORED_BIOC = EVAL / "biored_small.BioC.JSON"
CDR = EVAL / "cdr_small.PubTator.txt"


def kgbuild(*args: str, warehouse: Path, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "KGBUILD_WAREHOUSE": str(warehouse), "KGBUILD_EMBED_MODEL": "none"}
    proc = subprocess.run(
        [sys.executable, "-m", "kgbuild.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def f1s(report: dict) -> dict[str, tuple[float, float, float]]:
    return {k: (v["precision"], v["recall"], v["f1"]) for k, v in report["measures"].items()}


# --- the mapping table -------------------------------------------------------------------


def test_mapping_reads_both_schemes_and_maps_by_kinds():
    biored, cdr = get_scheme("biored"), get_scheme("cdr")
    assert biored.types == (
        "Bind",
        "Drug_Interaction",
        "Positive_Correlation",
        "Negative_Correlation",
        "Conversion",
        "Cotreatment",
        "Comparison",
        "Association",
    )
    assert cdr.types == ("CID",)
    assert biored.gold_type("interacts", "Gene", "Gene") == "Bind"
    assert biored.gold_type("interacts", "Compound", "Compound") == "Drug_Interaction"
    assert biored.gold_type("interacts", "Compound", "Disease") == "Association"
    assert biored.gold_type("treats", "Disease", "Compound") == "Negative_Correlation"
    assert biored.gold_type("treats", "Gene", "Gene") == "Association"
    assert biored.gold_type("upregulates", "Gene", "Disease") == "Positive_Correlation"
    assert biored.gold_type("isa", "Gene", "Gene") is None
    assert biored.gold_type("associates", "Disease", "Disease") is None  # not a BioRED pair type
    assert biored.gold_type("some new predicate", "Gene", "Gene") is None
    assert cdr.gold_type("associates", "Disease", "Compound") == "CID"
    assert cdr.gold_type("treats", "Compound", "Disease") is None
    assert cdr.gold_type("associates", "Disease", "Disease") is None


def test_reachable_types_follow_kgbuild_canonicalization():
    biored = get_scheme("biored")
    # Gene "upregulates" Gene becomes Hetionet's unsigned regulates: no signed gene-gene type.
    assert reachable_types(biored, "Gene", "Gene") == {"Association", "Bind"}
    assert reachable_types(biored, "Compound", "Compound") == {
        "Association",
        "Bind",
        "Conversion",
        "Drug_Interaction",
        "Negative_Correlation",
        "Positive_Correlation",
    }
    assert "Cotreatment" not in reachable_types(biored, "Compound", "Compound")
    assert reachable_types(get_scheme("cdr"), "Compound", "Disease") == {"CID"}
    rows = mapping.forward_table(biored, [("Gene", "Gene")])
    assert {"gold_type": "Bind", "kinds": "Gene-Gene", "relations": "interacts"} in rows


def test_detect_scheme_and_unknown_types():
    assert detect_scheme({"CID"}).name == "cdr"
    assert detect_scheme({"Association", "Bind", "Novelty_Thing"}).name == "biored"
    with pytest.raises(InputError, match="no relation lines"):
        detect_scheme(set())
    with pytest.raises(InputError, match="no mapping for these relation types"):
        detect_scheme({"Foo"})
    with pytest.raises(InputError, match="unknown gold scheme"):
        get_scheme("chemprot")


def test_a_row_mapping_one_relation_to_two_types_is_refused(tmp_path, monkeypatch):
    data = tmp_path / "data"
    shutil.copytree(Path(mapping.__file__).resolve().parents[2] / "data", data)
    with open(data / mapping.MAP_TSV, "a", encoding="utf-8") as fh:
        fh.write("biored\tBind\t*\t*\tassociates\tcontradicts the Association row\n")
    monkeypatch.setenv("KGBUILD_DATA", str(data))
    mapping.schemes.cache_clear()
    try:
        with pytest.raises(ConfigError, match="two gold types"):
            mapping.schemes()
    finally:
        monkeypatch.delenv("KGBUILD_DATA")
        mapping.schemes.cache_clear()


# --- gold files ----------------------------------------------------------------------------


def test_gold_relations_become_curies_through_their_mentions():
    gold = read_gold_corpus(BIORED)
    assert gold.pmids == ["101", "102", "103"] and len(gold.relations) == 10
    by = {(r.a, r.b): r for r in gold.relations}
    li_ndi = by[("MESH:D008094", "MESH:D018500")]
    assert (li_ndi.rel_type, li_ndi.kinds, li_ndi.novelty) == (
        "Positive_Correlation",
        "Compound-Disease",
        "Novel",
    )
    assert by[("MESH:D003919", "tmVar:rs1800")].kinds == "Disease-Variant"
    # 840 is the second ID of the composite "Caspase-3/7" (836,840): an entity, not a node.
    assert gold.entities["102"]["NCBIGene:840"] == "Gene"
    assert "NCBIGene:840" not in gold.nodes("102") and "NCBIGene:836" in gold.nodes("102")
    twin = read_gold_corpus(BIORED_BIOC)
    assert twin.fmt == "bioc" and twin.relations == gold.relations
    assert twin.content_digest() == gold.content_digest() and twin.digest != gold.digest


def test_gold_problems_unannotated_ids_and_unusable_files(tmp_path):
    path = tmp_path / "odd.txt"
    path.write_text(
        "5|t|Aspirin.\n5|a|Nothing else.\n5\t0\t7\tAspirin\tChemical\tD001241\n"
        "5\tCID\tD001241\tD999999\n5\tCID\tD001241\n\n"
    )
    gold = read_gold_corpus(path)
    (rel,) = gold.relations  # the line without a second ID is a problem, not a relation
    assert (rel.a, rel.kind_a, rel.b, rel.kinds) == ("D999999", "", "MESH:D001241", "?-Compound")
    assert sorted(p.kind for p in gold.problems) == ["gold_id_not_annotated", "malformed_line"]
    with pytest.raises(InputError, match="no such gold file"):
        read_gold_corpus(tmp_path / "missing.PubTator")
    (tmp_path / "empty.json").write_text('{"documents": []}')
    with pytest.raises(InputError, match="no usable document"):
        read_gold_corpus(tmp_path / "empty.json")


# --- scoring ---------------------------------------------------------------------------------


def test_one_type_per_pair_specific_first_then_evidence_then_table_order():
    gold, biored = read_gold_corpus(BIORED), get_scheme("biored")
    t = PredictedTriple
    facts, aside = predicted_facts(
        [
            t("101", "MESH:D008094", "associates", "MESH:D018500", 5),
            t("101", "MESH:D018500", "upregulates", "MESH:D008094", 1),  # reversed: same pair
            t("101", "MESH:D008094", "upregulates", "NCBIGene:2932", 1),
            t("101", "MESH:D008094", "downregulates", "NCBIGene:2932", 2),
            t("101", "MESH:D000584", "upregulates", "MESH:D003919", 1),
            t("101", "MESH:D000584", "downregulates", "MESH:D003919", 1),
            t("101", "MESH:D008094", "associates", "free:kidney cells", 1),
            t("102", "MESH:D001241", "isa", "MESH:D000077144", 1),
            t("102", "MESH:D008094", "associates", "MESH:D001241", 1),  # Lithium is not in 102
        ],
        gold,
        biored,
    )
    types = {(f.pmid, f.pair): f.rel_type for f in facts}
    assert types == {
        ("101", ("MESH:D008094", "MESH:D018500")): "Positive_Correlation",
        ("101", ("MESH:D008094", "NCBIGene:2932")): "Negative_Correlation",
        ("101", ("MESH:D000584", "MESH:D003919")): "Positive_Correlation",
    }
    assert aside == {"outside_gold_entities": 2, "outside_scheme": {"isa": 1}}
    assert {f.novelty for f in facts} == {"Novel"}


# --- eval re as a user runs it -------------------------------------------------------------------


@pytest.mark.slow  # whole gold corpora, CLI processes
def test_eval_re_cooccurrence_figures_ceilings_and_byte_identical_reports(tmp_path):
    wh = tmp_path / "wh"
    scratch = tmp_path / "scratch"
    args = ["eval", "re", "--gold", str(BIORED), "--extractor", "cooccurrence", "--json"]
    report = json.loads(kgbuild(*args, "--scratch", str(scratch), warehouse=wh).stdout)
    # 9 predicted pairs (one per sentence co-mention), 7 gold among them; all say Association.
    assert f1s(report)["pair"] == (0.7778, 0.7, 0.7368)
    assert report["measures"]["pair+type"]["tp"] == 1  # only GSK3B-NDI is an Association
    assert report["measures"]["all"]["tp"] == 0  # ...and its novelty is "No"
    assert report["per_type"]["Association"]["n_predicted"] == 9
    ceil = report["ceilings"]
    assert ceil["mapping"]["pair"]["recall"] == 0.8  # a variant, a composite's second ID
    assert ceil["mapping"]["pair+type"]["recall"] == 0.7  # and Cotreatment
    assert ceil["cooccurrence"]["pair"]["recall"] == 0.7  # Lithium-AQP2 share no sentence
    assert ceil["pairwise"] == ceil["generative"] == ceil["mapping"]
    assert ceil["losses"] == {
        "endpoint: Variant is not a KG node kind": 1,
        "type: no canonical relation for Cotreatment between Compound-Compound": 1,
        "endpoint: second ID of a composite mention": 1,
    }
    assert report["build"]["documents"] == {"built": 3}
    assert report["build"]["extraction"] == {"done": 3}
    assert len(report["per_document"]["pair"]) == 3
    saved = wh / "reports" / "eval" / f"{report['run_id']}.json"
    first = saved.read_bytes()
    assert json.loads(first) == report
    md = (wh / "reports" / "eval" / f"{report['run_id']}.md").read_text()
    assert "| entity pair | 0.778 [" in md and "Cotreatment" in md
    # The kept scratch warehouse holds the gold lines as written, queryable with SQL.
    rows = kgbuild(
        "sql",
        "SELECT count(*) AS n FROM source_relations",
        "--format",
        "json",
        warehouse=scratch / "warehouse",
    ).stdout
    assert json.loads(rows) == [{"n": 10}]
    # A re-run writes the same bytes under the same id; the BioC twin scores the same.
    again = json.loads(kgbuild(*args, warehouse=wh).stdout)
    assert again["run_id"] == report["run_id"] and saved.read_bytes() == first
    twin_args = ["eval", "re", "--gold", str(BIORED_BIOC), "--extractor", "cooccurrence"]
    twin = json.loads(kgbuild(*twin_args, "--json", warehouse=wh).stdout)
    assert twin["measures"] == report["measures"] and twin["run_id"] != report["run_id"]
    cmp = json.loads(
        kgbuild("eval", "compare", report["run_id"], twin["run_id"], "--json", warehouse=wh).stdout
    )
    assert cmp["same_documents"] is True
    pair = next(r for r in cmp["rows"] if r["row"] == "measure pair")
    assert pair["difference"] == {"f1_difference": 0.0, "ci": [0.0, 0.0]}
    listing = kgbuild("eval", "reports", warehouse=wh).stdout
    assert report["run_id"] in listing and twin["run_id"] in listing


@pytest.mark.slow  # whole gold corpora
def test_eval_re_cdr_scheme(tmp_path):
    report = json.loads(
        kgbuild(
            "eval",
            "re",
            "--gold",
            str(CDR),
            "--extractor",
            "cooccurrence",
            "--json",
            "--no-save",
            warehouse=tmp_path,
        ).stdout
    )
    assert report["gold"]["scheme"] == "cdr" and list(report["measures"]) == ["pair+type"]
    # 7 chemical-disease co-mentions, 6 CID; "Amifostine prevented renal failure" is the miss.
    assert f1s(report)["pair+type"] == (0.8571, 1.0, 0.9231)
    # Disease-disease co-mentions assert nothing about chemical-induced disease.
    assert report["predictions"]["outside_scheme"] == {"associates": 3}
    assert not (tmp_path / "reports").exists()  # --no-save


@pytest.mark.slow  # whole gold corpora, CLI processes
def test_eval_re_user_errors_are_one_line(tmp_path):
    bad = kgbuild(
        "eval", "re", "--gold", str(tmp_path / "nope.PubTator"), warehouse=tmp_path, check=False
    )
    assert bad.returncode == 2 and bad.stderr.strip().startswith("error: no such gold file")
    assert len(bad.stderr.strip().splitlines()) == 1
    plain = tmp_path / "plain.PubTator"
    plain.write_text("1|t|A title.\n1|a|An abstract.\n\n")
    norel = kgbuild("eval", "re", "--gold", str(plain), warehouse=tmp_path, check=False)
    assert norel.returncode == 2 and "no relation lines" in norel.stderr
    scheme = kgbuild(
        "eval", "re", "--gold", str(BIORED), "--scheme", "chemprot", warehouse=tmp_path, check=False
    )
    assert scheme.returncode == 2 and "unknown gold scheme" in scheme.stderr
    nov = kgbuild(
        "eval",
        "re",
        "--gold",
        str(BIORED),
        "--assume-novelty",
        "Maybe",
        warehouse=tmp_path,
        check=False,
    )
    assert nov.returncode == 2 and "--assume-novelty" in nov.stderr
    cmp = kgbuild("eval", "compare", "re-x", "re-y", warehouse=tmp_path, check=False)
    assert cmp.returncode == 2 and "no such evaluation report" in cmp.stderr


def _llm(url: str) -> LLMSettings:
    return LLMSettings(model="dalk-replay", base_url=url, concurrency=2, timeout_s=30)


@pytest.mark.slow  # whole gold corpora
def test_generative_and_pairwise_through_the_replay_server(tmp_path):
    """The LLM extractors end to end: a real HTTP endpoint answering with recorded outputs;
    the response cache outlives the scratch warehouse, so a re-run sends nothing."""
    cache = tmp_path / "llm_cache.sqlite"
    with serve_replay(EVAL / "recordings") as url:
        opts = EvalExtraction("generative", _llm(url), embed_model="none", cache_path=cache)
        before = estimate_re(BIORED, opts)
        assert (before["docs"], before["calls"], before["cached"]) == (3, 3, 0)
        gen, facts = evaluate_re(BIORED, opts, resamples=200)
        assert estimate_re(BIORED, opts)["cached"] == 3  # what a re-run costs: nothing
        assert facts["llm_usage"]["calls"] == 3 and facts["scratch"] is None
        # Every recorded claim between gold entities is right at pair level; "combined with"
        # (related_to: Association) is not the gold Cotreatment.
        assert f1s(gen)["pair"] == (1.0, 0.7, 0.8235)
        assert gen["measures"]["pair+type"]["tp"] == 6
        assert gen["per_type"]["Negative_Correlation"]["f1"] == 1.0
        # "AQP2 located in kidney cells" names a free node; "Aspirin is a clopidogrel" is isa.
        assert gen["predictions"]["outside_gold_entities"] == 1
        assert gen["predictions"]["outside_scheme"] == {"isa": 1}
        assert gen["build"]["rejected_claims"] == 1  # "mice": a species is not a KG node
        assert gen["build"]["extraction"] == {"done": 3} and gen["build"]["llm_requests"] == 3
        assert gen["extractor"]["llm"]["model"] == "dalk-replay"
        again, facts = evaluate_re(BIORED, opts, resamples=200)
        assert facts["llm_usage"]["calls"] == 0 and facts["llm_usage"]["cache_hits"] == 3
        assert again == gen
        for mode, limit in (("batched", None), ("per-pair", 1)):
            opts = EvalExtraction("pairwise", _llm(url), mode, embed_model="none", cache_path=cache)
            pw, _ = evaluate_re(BIORED, opts, limit=limit, resamples=200)
            assert pw["extractor"]["extraction"]["mode"] == mode
            assert pw["gold"]["documents"] == (limit or 3) and pw["gold"]["limit"] == limit
            assert pw["build"]["extraction"] == {"done": limit or 3}
            assert pw["measures"]["pair"]["precision"] == 1.0
    assert pw["run_id"].endswith(pw["run_id"][-8:]) and "first1" in pw["run_id"]
    cmp = compare(gen, again)
    assert all(r["difference"]["f1_difference"] == 0.0 for r in cmp["rows"] if "difference" in r)


@pytest.mark.slow  # whole gold corpora, CLI processes
def test_compare_refuses_mixed_kinds_and_reports_load_by_prefix(tmp_path):
    wh = tmp_path / "wh"
    kgbuild("eval", "re", "--gold", str(CDR), "--extractor", "cooccurrence", warehouse=wh)
    ner = kgbuild("eval", "ner", "--gold", str(CDR), "--model", "blank", "--json", warehouse=wh)
    ner_id = json.loads(ner.stdout)["run_id"]
    re_report = load_report(wh, "re-cdr_small")
    assert re_report["kind"] == "re"
    with pytest.raises(InputError, match="cannot compare"):
        compare(re_report, load_report(wh, ner_id))


# --- the shared gold files (development splits only) ----------------------------------------------


@pytest.mark.slow  # whole gold corpora
def test_biored_dev_cooccurrence_figures(tmp_path):
    dev = shared("biored", "Dev.PubTator")
    opts = EvalExtraction("cooccurrence", embed_model="none")
    report, _ = evaluate_re(dev, opts, resamples=200)
    assert report["gold"]["documents"] == 100 and report["gold"]["relations"] == 1162
    figures = f1s(report)
    assert figures["pair"] == (0.3382, 0.7169, 0.4596)
    assert figures["pair+type"] == (0.1652, 0.3503, 0.2246)
    # BioRED has no disease-disease relations: those 274 co-mentions are set aside.
    assert report["predictions"]["outside_scheme"] == {"associates": 274}
    assert report["ceilings"]["mapping"]["pair"]["recall"] == 0.8055  # 936 of 1,162
    bioc, _ = evaluate_re(shared("biored", "Dev.BioC.JSON"), opts, resamples=200)
    assert bioc["measures"] == report["measures"]


@pytest.mark.slow  # whole gold corpora
def test_bc5cdr_dev_cooccurrence_figures(tmp_path):
    dev = shared("bc5cdr", "CDR_DevelopmentSet.PubTator.txt")
    report, _ = evaluate_re(dev, EvalExtraction("cooccurrence", embed_model="none"), resamples=200)
    assert report["gold"]["documents"] == 500 and report["gold"]["relations"] == 1012
    assert f1s(report)["pair+type"] == (0.3086, 0.7431, 0.4361)


def test_a_slice_keeps_the_first_documents_in_the_same_format(tmp_path):
    from kgbuild.evaluate.run_re import slice_gold

    for i, path in enumerate((BIORED, BIORED_BIOC)):
        gold = read_gold_corpus(path)
        part = read_gold_corpus(slice_gold(gold, 2, tmp_path / str(i)))
        assert (part.fmt, part.pmids, len(part.relations)) == (gold.fmt, ["101", "102"], 9)
        assert part.relations == [r for r in gold.relations if r.pmid != "103"]


@pytest.mark.slow  # whole gold corpora, CLI processes
def test_a_real_small_model_is_scored_on_every_document(smollm2, tmp_path):
    """SmolLM2-135M through llama.cpp's server (the local-llm extra): its answers are nonsense,
    what counts is that every gold document is built, has an extraction status and is scored."""
    s = LLMSettings(model="smollm2", base_url=smollm2, max_tokens=200, concurrency=2, timeout_s=120)
    for extractor in ("generative", "pairwise"):
        opts = EvalExtraction(extractor, s, embed_model="none", cache_path=tmp_path / "c.sqlite")
        report, facts = evaluate_re(BIORED, opts, limit=2, resamples=100)
        assert report["build"]["documents"] == {"built": 2}
        assert sum(report["build"]["extraction"].values()) == 2
        assert set(report["build"]["extraction"]) <= {"done", "partial"}
        assert len(report["per_document"]["pair"]) == 2 and facts["llm_usage"]["failed"] == 0
        assert 0 <= report["measures"]["pair"]["f1"] <= 1
