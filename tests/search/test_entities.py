"""Finding a node by name, symbol or synonym (``kgbuild entities``, ``GET /entities``) and the
one display name every reader shows."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kgbuild.errors import InputError
from kgbuild.records import Entity, Mention
from kgbuild.search.entities import find_entities
from kgbuild.search.index import open_index
from kgbuild.store.snapshots import Warehouse
from tests.support.query_kg import EDGES_2019, publish_year


@pytest.fixture(scope="module")
def idx(toy):
    wh = Warehouse(toy)
    return open_index(wh, wh.resolve("latest"))


def top(idx, q, **kw):
    return find_entities(idx, q, **kw)["entities"]


@pytest.mark.parametrize(
    ("query", "node", "how"),
    [
        ("NCBIGene:351", "NCBIGene:351", "id"),
        ("APP", "NCBIGene:351", "exact"),  # the gene's symbol
        ("ApoE", "NCBIGene:348", "exact"),  # a mention's form, any case
        ("Alzheimer's disease", "MESH:D000544", "exact"),
        ("apolipo", "NCBIGene:348", "prefix"),
        ("alzheimer desease", "MESH:D000544", "fuzzy"),  # misspelt
        ("donepezill", "MESH:D000077265", "fuzzy"),
        ("elzheimer disease", "MESH:D000544", "fuzzy"),  # first letter wrong
        ("disease alzheimer", "MESH:D000544", "exact"),  # the same words, reordered
        ("amyloid precursor protien", "NCBIGene:351", "fuzzy"),
    ],
)
def test_a_name_symbol_synonym_or_misspelling_finds_the_node(idx, query, node, how):
    hit = top(idx, query)[0]
    assert (hit["id"], hit["match"]) == (node, how)
    assert hit["name"] == idx.nodes["display"][idx.node_of[node]]
    assert set(hit) >= {"id", "name", "type", "degree", "match", "alias", "score", "source"}


def test_ranked_by_match_then_degree_and_filtered_by_type(idx):
    hits = top(idx, "filler compound", limit=50)
    assert len(hits) == 20 and {h["match"] for h in hits} == {"prefix"}
    assert hits == sorted(hits, key=lambda h: (-h["score"], -h["degree"], h["id"]))
    assert [h["id"] for h in top(idx, "AD")][:1] == ["MESH:D000544"]
    genes = top(idx, "a", types=["gene"], limit=50)
    assert genes and {h["type"] for h in genes} == {"Gene"}
    assert not top(idx, "Alzheimer disease", types=["Compound"])


def test_no_match_is_an_empty_list_and_an_empty_query_an_error(idx):
    assert find_entities(idx, "xyzzyq")["entities"] == []
    assert find_entities(idx, "q")["entities"] == []  # too short for fuzzy, no key starts so
    with pytest.raises(InputError):
        find_entities(idx, "   ")


@pytest.mark.slow
def test_cli_prints_matches_json_and_one_line_without_a_match(toy):
    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "kgbuild.cli", "entities", *args, "-w", str(toy)],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    found = run("donepezill", "--json", "--kg", "toy", "--limit", "3")
    assert found.returncode == 0, found.stderr
    body = json.loads(found.stdout)
    assert body["entities"][0]["id"] == "MESH:D000077265" and body["query"] == "donepezill"
    table = run("APOE", "--type", "Gene")
    assert table.returncode == 0 and "NCBIGene:348" in table.stdout
    none = run("xyzzyq")
    assert none.returncode == 0 and none.stdout.strip() == "no entity matches 'xyzzyq'"


def test_one_display_name_in_sql_views_index_and_search(tmp_path: Path):
    """A node's stored display name is what kg_nodes, kg_edges, the query index and the search
    show; a node written without one (an older part) shows its name everywhere SQL reads it."""
    wh = Warehouse(tmp_path / "wh")
    w = wh.writer("names")
    shown = {"NCBIGene:351": "APP (amyloid beta precursor protein)",
             "MESH:D000544": "Alzheimer Disease"}  # fmt: skip
    ents = [Entity(cid, cid.split(":")[1], "Gene", [], 2019, shown.get(cid, ""))
            for cid in sorted({x for h, _, t, _ in EDGES_2019 for x in (h, t)})]  # fmt: skip
    # four "APPs" mislinked elsewhere do not take "app" from the gene whose symbol it is
    w.add("mentions", [Mention(f"77{j}", 0, 4, "APPs", "Gene", "Gene", "NCBIGene:348",
                               ["NCBIGene:348"]) for j in range(4)])  # fmt: skip
    publish_year(w, 2019, EDGES_2019, ents)
    sql = dict(wh.query("SELECT id, display_name FROM kg_nodes"))
    assert sql["NCBIGene:351"] == shown["NCBIGene:351"] and sql["NCBIGene:348"] == "348"
    edge = wh.query(
        "SELECT head_name, tail_name FROM kg_edges "
        "WHERE head_id = 'NCBIGene:351' AND tail_id = 'MESH:D000544'"
    )
    assert edge == [(shown["NCBIGene:351"], shown["MESH:D000544"])]
    idx = open_index(wh, wh.resolve("latest"), cache=False)
    assert idx.nodes["display"][idx.node_of["MESH:D000544"]] == "Alzheimer Disease"
    app = idx.aliases["key"].index("app")
    assert idx.nodes["id"][idx.aliases["node"][app]] == "NCBIGene:351"
    for q in ("amyloid beta precursor protein", "Alzheimer Disease"):  # the display name's parts
        hit = top(idx, q)[0]
        assert hit["name"] == sql[hit["id"]] and hit["match"] == "exact"
