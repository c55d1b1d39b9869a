"""The query module on a small hand-written KG published through the real snapshot writer:
linking, the cached index, exploration (hop limit, hub capping), ranking, filters, the budgeted
context, determinism, bad input and reloading a newer snapshot."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from kgbuild.belief.confidence import model_digest
from kgbuild.errors import InputError, StoreError
from kgbuild.query import engine as engine_mod
from kgbuild.query.engine import QueryEngine, retrieve
from kgbuild.query.explore import Filters
from kgbuild.search.text import key, tokenize
from kgbuild.store.snapshots import Warehouse
from tests.conftest import ROOT
from tests.support.query_kg import build_query_kg, publish_year

AD_Q = "Which gene is the main genetic risk factor of Alzheimer's disease (AD)?"
CHOICES = ["APOE", "APP", "MAPT", "ACh"]


@pytest.fixture(scope="module")
def eng(toy):
    return QueryEngine(toy, "latest", embeddings=False)


def names(links, where=None):
    return {x.curie for x in links if x.node is not None and (where is None or x.where == where)}


def test_normalization_folds_case_punctuation_plurals_greek_and_possessives():
    assert key("Alzheimer's diseases") == key("alzheimer disease") == "alzheimer disease"
    assert key("Aβ") == "abeta" and key("amyloid-β") == "amyloid beta"
    assert key("Neurofibrillary Tangles") == "neurofibrillary tangle"
    toks = tokenize("APOE (apolipoprotein E), tau")
    assert [t.norm for t in toks] == ["apoe", "apolipoprotein", "e", "tau"]
    assert [t.brk for t in toks] == [True, True, False, True]  # phrases break at ( and ,


def test_dictionary_linker_longest_match_sources_and_short_key_rule(eng):
    linker = eng.state().linker
    links, rest = linker.dictionary(
        "Does apolipoprotein E or AD dementia raise tau in MCI? All of the above.", "question"
    )
    got = {x.surface: (x.curie, x.method) for x in links}
    assert got["apolipoprotein E"] == ("NCBIGene:348", "dictionary:mention")
    assert got["AD dementia"] == ("MESH:D000544", "dictionary:resolution")  # longest match
    assert got["tau"][0] == "NCBIGene:4137"
    assert got["MCI"] == ("MESH:D060825", "dictionary:abbreviation")
    assert "All" not in got  # "ALL" (a gene's mention) needs its own spelling
    assert linker.dictionary("ALL", "q")[0][0].curie == "NCBIGene:999"
    unlinked = {"Does apolipoprotein E or AD dementia raise tau"[a:b] for a, b in rest if b < 47}
    assert "raise" in unlinked  # unlinked phrases are reported, not dropped


def test_retrieval_links_paths_and_ranks_with_evidence(eng):
    r = eng.retrieve(AD_Q, CHOICES, k=5, hub_degree=10)
    assert names(r.links, "question") == {"MESH:D000544"}
    assert names(r.links, "choice:0") == {"NCBIGene:348"}
    assert names(r.links, "choice:3") == {"MESH:D000109"}
    top = r.triples[0]
    assert (top.head_id, top.relation, top.tail_id) == (
        "NCBIGene:348",
        "associates",
        "MESH:D000544",
    )
    assert top.support == 3 and top.pmids == ["1001", "1002"]  # ≤ 2 PMIDs per triple
    assert top.evidence[0].sentence.startswith("APOE is the main genetic risk factor")
    assert r.kg_answer == 0  # APOE: the strongest support
    assert r.choice_support[0] > max(r.choice_support[1:])
    assert "MESH:D000544" in r.diagnostics["hubs_capped"]
    assert all(len(t.pmids) <= 2 for t in r.triples)
    assert set(r.timings) >= {"link_ms", "explore_ms", "rank_ms", "context_ms", "total_ms"}


def test_paths_stop_at_the_hop_limit_and_never_cross_hubs(eng):
    r3 = eng.retrieve("How is ACHE related to dementia?", hops=3)
    assert r3.paths[0]["ids"] == [
        "NCBIGene:43", "MESH:D000109", "free:cholinergic neurons", "MESH:D003704",
    ]  # fmt: skip
    assert not eng.retrieve("How is ACHE related to dementia?", hops=2).paths
    # APP and MAPT meet only through Alzheimer disease: with AD a hub, no path crosses it
    q = "Are APP and MAPT related?"
    via_hub = eng.retrieve(q, hub_degree=100).paths
    assert via_hub and via_hub[0]["ids"][1] == "MESH:D000544"
    assert not eng.retrieve(q, hub_degree=10).paths


def test_hub_neighbours_are_capped_by_strength_not_row_order(eng):
    q = "What is known about Alzheimer disease?"
    r = eng.retrieve(q, k=20, hub_degree=10, neighbour_cap=3)
    others = {t.head_id for t in r.triples} - {"MESH:D000544"}
    # the three strongest edges of the hub: APOE (support 3), donepezil (2, conf .91), then
    # the strongest of the support-1 edges at confidence 0.7 by edge id
    assert len(others) == 3 and {"NCBIGene:348", "MESH:D000077265"} <= others
    assert eng.retrieve(q, k=20, hub_degree=10, neighbour_cap=3).context == r.context


def test_conflicting_relations_and_filters(eng):
    q = "Does APOE regulate APP?"
    rels = {t.relation for t in eng.retrieve(q, k=20).triples if t.tail_id == "NCBIGene:351"}
    assert {"upregulates", "downregulates"} <= rels
    only_up = eng.retrieve(q, k=20, filters=Filters(relations=frozenset({"upregulates"})))
    assert {t.relation for t in only_up.triples} == {"upregulates"}
    genes = eng.retrieve(q, k=20, filters=Filters(kinds=frozenset({"Gene"})))
    assert all(t.head_id.startswith("NCBIGene") and t.tail_id.startswith("NCBIGene")
               for t in genes.triples)  # fmt: skip
    strong = eng.retrieve(AD_Q, CHOICES, k=20, filters=Filters(min_support=2))
    assert strong.triples and all(t.support >= 2 for t in strong.triples)
    confident = eng.retrieve(AD_Q, CHOICES, k=20, filters=Filters(min_confidence=0.9))
    assert all(t.confidence >= 0.9 for t in confident.triples)
    q2 = "Does donepezil treat Alzheimer disease?"
    assert any(t.relation == "treats" for t in eng.retrieve(q2).triples)
    old = eng.retrieve(q2, filters=Filters(as_of_year=2019))
    assert all(t.first_year <= 2019 and t.relation != "treats" for t in old.triples)


def test_context_respects_a_hard_token_budget(eng):
    full = eng.retrieve(AD_Q, CHOICES, k=10)
    tight = eng.retrieve(AD_Q, CHOICES, k=10, token_budget=150)
    assert len(tight.context) / 4 <= 150 < len(full.context) / 4
    assert tight.diagnostics["budget"]["left_out"] + tight.diagnostics["budget"]["shortened"]
    assert tight.triples[0].triple_id == full.triples[0].triple_id


def test_index_is_cached_by_content_hash_and_rebuilt_when_damaged(toy, tmp_path):
    wh = Warehouse(toy)
    sid = wh.resolve("latest")
    idx_dir = tmp_path / "idx"
    first = QueryEngine(toy, "latest", idx_dir, embeddings=False)
    model = model_digest()[:8]  # the edges' confidence is the calibrated model's
    folder = idx_dir / f"{sid}-{wh.manifest(sid)['content_hash'][:16]}-{model}"
    assert (folder / "meta.json").is_file() and "build_s" in first.state().index.timings
    second = QueryEngine(toy, "latest", idx_dir, embeddings=False)
    assert "load_s" in second.state().index.timings
    a, b = first.retrieve(AD_Q, CHOICES), second.retrieve(AD_Q, CHOICES)
    assert a.to_dict(timings=False) == b.to_dict(timings=False)
    (folder / "edges.arrow").write_bytes(b"not arrow")  # damaged cache: rebuilt, not trusted
    third = QueryEngine(toy, "latest", idx_dir, embeddings=False)
    assert "build_s" in third.state().index.timings
    assert third.retrieve(AD_Q, CHOICES).context == a.context


def test_unwritable_index_folder_keeps_the_index_in_memory(toy, tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")  # no one, root included, can create folders in a file
    e = QueryEngine(toy, "latest", blocked, embeddings=False)
    assert e.state().index.path is None and e.retrieve(AD_Q, CHOICES).triples


@pytest.mark.slow  # builds a query KG and reindexes
def test_same_snapshot_and_question_give_byte_identical_context(toy, tmp_path):
    code = (
        "import json,sys; from kgbuild.query.engine import QueryEngine; "
        f"e = QueryEngine(sys.argv[1], 'latest', sys.argv[2], embeddings=False); "
        f"r = e.retrieve({AD_Q!r}, {CHOICES!r}); "
        "print(json.dumps(r.to_dict(timings=False), sort_keys=True))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "random"}
    outs = [
        subprocess.run([sys.executable, "-c", code, str(toy), str(tmp_path / f"i{n}")],
                       capture_output=True, text=True, env=env, check=True).stdout
        for n in range(2)
    ]  # fmt: skip
    assert outs[0] == outs[1] and json.loads(outs[0])["context"]


def test_bad_input_gets_one_clear_error(eng, toy):
    with pytest.raises(InputError, match="empty"):
        eng.retrieve("   ")
    with pytest.raises(InputError, match="too long"):
        eng.retrieve("x" * 100_000)
    with pytest.raises(InputError, match="hops"):
        eng.retrieve(AD_Q, hops=5)
    r = eng.retrieve("What is the capital city of France?")
    assert not r.found and r.message == "no entity of this snapshot found in the question"
    assert "capital city" in " ".join(r.unlinked()) and not r.triples
    with pytest.raises(StoreError, match="unknown snapshot"):
        QueryEngine(toy, "nope", embeddings=False)


@pytest.mark.slow  # builds a query KG and reindexes
def test_python_api_and_a_newer_snapshot_are_picked_up_without_restart(tmp_path, monkeypatch):
    root = tmp_path / "wh"
    infos = build_query_kg(root)
    monkeypatch.setattr(engine_mod, "REFRESH_S", 0.0)
    r = retrieve(AD_Q, CHOICES, warehouse=root)
    assert r.snapshot_id == infos[1].snapshot_id
    pinned = QueryEngine(root, "toy@2019", embeddings=False)
    assert pinned.snapshot_id == infos[0].snapshot_id
    w = Warehouse(root).writer("toy", infos[1].snapshot_id)
    new = publish_year(
        w,
        2021,
        [
            (
                "MESH:D003704",
                "associates",
                "MESH:D008569",
                [("3001", 2021, "Dementia involves memory disorders.", 0.7)],
            )
        ],
    )
    assert retrieve(AD_Q, CHOICES, warehouse=root).snapshot_id == new.snapshot_id
    assert pinned.snapshot_id == infos[0].snapshot_id  # toy@2019 still names 2019
    shutil.rmtree(root / "index")


@pytest.mark.slow  # CLI processes
def test_ask_cli_prints_linking_triples_and_pmids_and_fails_in_one_line(toy, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    env.pop("OPENAI_BASE_URL", None)
    env.pop("OPENAI_API_KEY", None)

    def ask(*args):
        return subprocess.run([sys.executable, "-m", "kgbuild.cli", "ask", *args, "-w", str(toy),
                               "--index-dir", str(tmp_path / "i"), "--embed", "off"],
                              capture_output=True, text=True, env=env)  # fmt: skip

    out = ask(AD_Q, "--choices", ";".join(CHOICES), "-k", "3")
    assert out.returncode == 0, out.stderr
    assert "NCBIGene:348" in out.stdout and "1001, 1002" in out.stdout  # CURIE and PMIDs
    assert "KG-only answer A" in out.stdout and "no LLM endpoint configured" in out.stdout
    runs = [json.loads(ask(AD_Q, "--choices", ";".join(CHOICES), "--json").stdout) for _ in "ab"]
    for r in runs:
        r.pop("timings_ms")
    assert runs[0] == runs[1] and runs[0]["triples"][0]["evidence"][0]["pmid"] == "1001"
    bad = ask("What is the capital city of France?")
    assert bad.returncode == 2 and "no entity of this snapshot found" in bad.stderr
    assert "capital city" in bad.stderr and "Traceback" not in bad.stderr
    assert '"France"' in bad.stderr and "so this KG cannot answer it" in bad.stderr
    bad = ask(AD_Q, "--choices", "APOE;;APP")
    assert bad.returncode == 2 and "empty choice" in bad.stderr


def test_a_flood_from_the_llm_is_cut_before_it_is_read_and_printed_as_an_excerpt(toy, tmp_path):
    """An endpoint answering 8 MB to every step once made ``ask`` take 332 s (entity names
    embedded, the whole answer printed through rich). Each answer is now cut to the budget
    before anything parses it: the names read are few and short, the printed answer is an
    excerpt, and the cut is said (``truncated``, counted per answer)."""
    from kgbuild.query.llm import MAX_ANSWER_CHARS, MAX_NAME_CHARS, MAX_NAMES
    from tests.support.scripted_llm_server import ScriptedLLM, serve

    lines = "".join(
        f"{i}. APOE variant {i}\nanswer is A. PMID 1001 {'x' * 300}\n" for i in range(9)
    )
    flood = (lines * (8_000_000 // len(lines) + 1))[:8_000_000]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": "sk-x"}
    with serve(ScriptedLLM(default=("ok", flood))) as url:
        env["OPENAI_BASE_URL"] = url

        def ask(*extra: str) -> subprocess.CompletedProcess:
            return subprocess.run(
                [sys.executable, "-m", "kgbuild.cli", "ask", AD_Q, "--choices", ";".join(CHOICES),
                 "-w", str(toy), "--index-dir", str(tmp_path / "i"), "--embed", "off", *extra],
                capture_output=True, text=True, env=env, timeout=120,
            )  # fmt: skip

        out = ask()
        data = json.loads(ask("--json").stdout)
    assert out.returncode == 0, out.stderr[-2000:]
    assert len(out.stdout) < 3 * MAX_ANSWER_CHARS, len(out.stdout)
    assert "more characters; --json shows them" in out.stdout and "truncated: " in out.stdout
    assert data["truncated"] is True and data["llm"]["answers_cut"] == data["llm"]["calls"] >= 2
    assert len(data["explanation"]) <= MAX_ANSWER_CHARS
    names = data["named_entities"]["question"] + [
        n for ns in data["named_entities"]["choices"].values() for n in ns
    ]
    assert names and len(names) <= MAX_NAMES and max(map(len, names)) <= MAX_NAME_CHARS
