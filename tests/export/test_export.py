"""Exports of a snapshot, read back by the tools people use: pyarrow, a fresh DuckDB, pandas,
the real ``kgx`` validator, and LadybugDB (an embedded Cypher database) loading the Neo4j CSVs.

The snapshot is synthetic (tests/support/synthetic_kg.py) and published through the real
writer, with quotes, commas, pipes, tabs, newlines and non-ASCII letters in names and
sentences; a second one is built by the pipeline from the fixture corpus (co-occurrence) and one
with the replayed LLM (generative, with an unlinked node)."""

import csv
import json
import os
import subprocess
import sys

import duckdb
import pandas as pd
import pyarrow.parquet as pq
import pytest

from kgbuild.errors import ExportError
from kgbuild.export import FORMATS, export_snapshot, ladybug, parse_formats
from kgbuild.export.biolink import predicate
from kgbuild.store import catalog
from kgbuild.store.snapshots import Warehouse
from tests.support.kgx_venv import run_check
from tests.support.synthetic_kg import build_fixture_kgs, publish_synthetic


@pytest.fixture(scope="module")
def syn(tmp_path_factory):
    """A two-year synthetic KG with hostile strings; (warehouse, head snapshot id)."""
    root = tmp_path_factory.mktemp("syn") / "wh"
    ids = publish_synthetic(root, 300, 120, years=(2019, 2020), tricky=True)
    return Warehouse(root), ids[-1]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Pipeline-built KGs: co-occurrence on the fixture corpus, generative with the replayed LLM."""
    return build_fixture_kgs(tmp_path_factory.mktemp("built"))


def counts(wh, sid):
    return wh.manifest(sid)["tables"], wh.manifest(sid)["counts"]


# ---- Parquet / TSV ------------------------------------------------------------------------
def test_parquet_and_tsv_read_back_with_pyarrow_duckdb_and_pandas(syn, tmp_path):
    wh, sid = syn
    written = export_snapshot(wh, sid, tmp_path / "out", ["parquet", "tsv"])
    tables, c = counts(wh, sid)
    con = duckdb.connect()  # a fresh DuckDB: no catalog, no kgbuild
    for table, info in tables.items():
        pq_path, tsv_path = written["parquet"][table][0], written["tsv"][table][0]
        assert pq.read_table(pq_path).num_rows == info["rows"], table
        assert con.execute("SELECT count(*) FROM read_parquet(?)", [str(pq_path)]).fetchone()[
            0
        ] == info["rows"]  # fmt: skip
        assert len(pd.read_parquet(pq_path)) == info["rows"]
        df = pd.read_csv(tsv_path, sep="\t", keep_default_na=False, dtype=str)
        assert len(df) == info["rows"], table
        n = con.execute("SELECT count(*) FROM read_csv(?, delim='\t', header=true, quote='\"')",
                        [str(tsv_path)]).fetchone()[0]  # fmt: skip
        assert n == info["rows"], table
    assert pq.read_table(written["parquet"]["kg_edges"][0]).num_rows == c["triples"]
    schema = pq.read_schema(written["parquet"]["entities"][0])
    assert schema.metadata[b"kgbuild.record"] == b"entities"
    # Values survive: the hostile strings and the lists (JSON in TSV) equal the Parquet's.
    ents = pq.read_table(written["parquet"]["entities"][0]).to_pandas().set_index("id")
    tsv = pd.read_csv(written["tsv"]["entities"][0],
                      sep="\t", keep_default_na=False).set_index("id")  # fmt: skip
    assert any("\n" in n or "\t" in n or '"' in n for n in ents["name"])
    for node_id, row in ents.iterrows():
        assert tsv.loc[node_id, "name"] == row["name"]
        assert json.loads(tsv.loc[node_id, "aliases"]) == list(row["aliases"])


def test_the_staged_kg_edges_file_holds_exactly_the_view(syn, built, tmp_path):
    """The export reads ``kg_edges`` from staged parts (kgbuild.store.edges.stage_edges: one
    1M-row join per query), not from the view's single plan: the rows must be the view's, in
    its order, with its column types — on hostile strings, co-occurrence and generative KGs."""
    for name, wh in (("syn", syn[0]), ("cooc", built["cooc"]), ("gen", built["gen"])):
        sid = wh.resolve("latest")
        path = export_snapshot(wh, sid, tmp_path / name, ["parquet"])["parquet"]["kg_edges"][0]
        got = pq.read_table(path)
        with catalog.connect(wh.catalog_path, True) as con:
            want = con.sql("SELECT * FROM kg_edges_at(?) ORDER BY triple_id", params=[sid])
            want = want.to_arrow_table()
        assert got.num_rows == want.num_rows > 0, name
        assert got.schema.remove_metadata() == want.schema, name
        assert got.cast(want.schema).equals(want), name


@pytest.mark.slow  # LadybugDB loads and multi-format exports
def test_exports_are_byte_identical_across_runs_and_paths_are_never_sql(syn, tmp_path):
    wh, sid = syn
    formats = ["parquet", "tsv", "kgx", "neo4j"]
    a = export_snapshot(wh, sid, tmp_path / "o'brien", formats)
    b = export_snapshot(wh, sid, tmp_path / "with space é ü", formats)
    c = export_snapshot(wh, sid, tmp_path / "o'brien", formats)  # overwrite in place
    for fmt in formats:
        for name, (path, _) in a[fmt].items():
            assert path.read_bytes() == b[fmt][name][0].read_bytes(), (fmt, name)
            assert c[fmt][name][0] == path
    assert not list((tmp_path / "o'brien").rglob(".tmp-*"))


def test_parquet_export_into_a_folder_named_with_a_quote(syn, tmp_path):
    wh, sid = syn
    written = export_snapshot(wh, sid, tmp_path / "it's here", ["parquet"])["parquet"]
    files = {t: path for t, (path, _) in written.items()}
    assert pq.read_table(files["triples"]).num_rows == counts(wh, sid)[1]["triples"]


def test_bad_export_requests_are_clear_errors(syn, tmp_path):
    wh, sid = syn
    afile = tmp_path / "a-file.txt"
    afile.write_text("x")
    with pytest.raises(ExportError, match="is not a folder"):
        export_snapshot(wh, sid, afile, ["parquet"])
    with pytest.raises(ExportError, match="cannot write to the export folder"):
        export_snapshot(wh, sid, afile / "below", ["parquet"])
    with pytest.raises(ExportError, match="unknown export format"):
        parse_formats(["parquet,csv"])
    assert parse_formats(["ladybug,kgx", "kgx"]) == ["kgx", "ladybug"]
    assert parse_formats(list(FORMATS)) == list(FORMATS)


@pytest.mark.slow  # CLI process, the kgx venv
def test_export_from_the_command_line(syn, tmp_path):
    wh, sid = syn
    env = {**os.environ, "KGBUILD_WAREHOUSE": str(wh.root)}

    def run(*args):
        return subprocess.run([sys.executable, "-m", "kgbuild.cli", "export", *args],
                              capture_output=True, text=True, env=env, timeout=300)  # fmt: skip

    ok = run(sid[:8], "--out", str(tmp_path / "o'brien é"), "-f", "kgx,neo4j", "-f", "ladybug")
    assert ok.returncode == 0, ok.stderr
    assert "kgx" in ok.stdout and "kg.lbug" in ok.stdout
    assert (tmp_path / "o'brien é" / "ladybug" / "kg.lbug").is_file()
    (tmp_path / "file").write_text("")
    for args, message in [
        (["latest", "--out", str(tmp_path / "file")], "is not a folder"),
        (["latest", "--out", str(tmp_path / "file" / "x")], "cannot write"),
        (["latest", "--out", str(tmp_path / "y"), "-f", "xml"], "unknown export format"),
        (["latest"], "give an output folder"),
        (["nope", "--out", str(tmp_path / "z")], "unknown snapshot"),
    ]:
        bad = run(*args)
        lines = [ln for ln in bad.stderr.splitlines() if ln.strip()]
        assert bad.returncode == 2 and len(lines) == 1 and message in lines[0], (args, bad.stderr)


# ---- KGX ------------------------------------------------------------------------------------
def _read_tsv(path):
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


@pytest.mark.slow  # LadybugDB loads and multi-format exports
def test_kgx_columns_provenance_and_direction(built, syn, tmp_path):
    wh = built["cooc"]
    sid = wh.resolve("latest")
    kgx = export_snapshot(wh, sid, tmp_path / "cooc", ["kgx"])["kgx"]
    edges = _read_tsv(kgx["edges.tsv"][0])
    assert edges and {e["knowledge_level"] for e in edges} == {"text_co_occurrence"}
    assert {e["agent_type"] for e in edges} == {"data_analysis_pipeline"}  # Biolink's pairing
    assert {e["negated"] for e in edges} == {""}  # served edges are asserted; absent = false
    assert all(p.startswith("PMID:") for e in edges for p in e["publications"].split("|"))
    dag = [e for e in edges if e["hetionet_metaedge"] == "DaG"]
    assert dag and all(e["predicate"] == "biolink:gene_associated_with_condition" for e in dag)
    assert all(e["subject"].startswith("NCBIGene:") for e in dag)  # Biolink: the gene is subject
    top = wh.query("SELECT triple_id, support, n_evidence, confidence FROM kg_edges")
    by_id = {e["id"]: e for e in edges}
    for tid, support, n_ev, conf in top:
        assert int(by_id[tid]["support"]) == support and int(by_id[tid]["evidence_count"]) == n_ev
        assert float(by_id[tid]["confidence"]) == conf
        assert float(by_id[tid]["has_confidence_score"]) == conf  # Biolink's slot, same value

    gen = built["gen"]
    out = export_snapshot(gen, gen.resolve("latest"), tmp_path / "gen", ["kgx"])["kgx"]
    g_edges = _read_tsv(out["edges.tsv"][0]) + _read_tsv(out["unlinked_edges.tsv"][0])
    assert {e["knowledge_level"] for e in g_edges} == {"knowledge_assertion"}
    assert {e["agent_type"] for e in g_edges} == {"text_mining_agent"}
    assert all(e["supporting_text"] and e["publications"] for e in g_edges)
    # an LLM claim's row names its model; the sentence reader's own reading names the reader
    assert all("dalk-replay" in e["llm_models"] or "sentence-reader@" in e["llm_models"]
               for e in g_edges)  # fmt: skip
    free = _read_tsv(out["unlinked_nodes.tsv"][0])
    assert [n["id"] for n in free] == ["free:cognitive decline"]
    assert free[0]["category"] == "biolink:NamedThing"
    meta = json.loads(out["kgx_metadata.json"][0].read_text())
    assert meta["biolink_version"] == "4.4.6" and meta["files"]["unlinked_nodes.tsv"] == 1
    assert predicate("associates", "Disease", "Gene").swap
    assert predicate("upregulates", "Compound", "Gene").object_direction_qualifier == "increased"
    assert predicate("no such relation", "", "").predicate == "biolink:related_to"


@pytest.mark.slow  # CLI process, the kgx venv
def test_kgx_export_is_valid_for_the_kgx_validator(built, syn, kgx_python, tmp_path):
    """The real kgx (TSV source, Transformer, Validator: `kgx validate`) finds no error in the
    linked files, reads every row, and rejects the unlinked files (so it is really checking)."""
    cases = [(syn[0], syn[1]), *((w, w.resolve("latest")) for w in built.values())]
    graphs, expected = [], []
    for i, (wh, sid) in enumerate(cases):
        kgx = export_snapshot(wh, sid, tmp_path / str(i), ["kgx"])["kgx"]
        # the served graph: kg_edges and their endpoints (what the reader did not read as a
        # stated fact is not an edge of the export)
        served_edges, served_nodes = wh.query(
            "SELECT count(*), (SELECT count(*) FROM (SELECT head_id FROM kg_edges_at(?) "
            "UNION SELECT tail_id FROM kg_edges_at(?))) FROM kg_edges_at(?)",
            [sid, sid, sid],
        )[0]
        n_nodes, n_edges = kgx["nodes.tsv"][1], kgx["edges.tsv"][1]
        assert n_nodes + kgx["unlinked_nodes.tsv"][1] == served_nodes
        assert n_edges + kgx["unlinked_edges.tsv"][1] == served_edges
        graphs += ["--graph", str(kgx["nodes.tsv"][0]), str(kgx["edges.tsv"][0])]
        expected.append((n_nodes, n_edges))
    unlinked = tmp_path / "0" / "kgx"
    graphs += [
        "--graph",
        str(unlinked / "unlinked_nodes.tsv"),
        str(unlinked / "unlinked_edges.tsv"),
    ]
    got = run_check(kgx_python, *graphs)
    assert got["kgx_version"] == "2.6.0"
    *linked, bad = got["validation"]
    for v, (n_nodes, n_edges) in zip(linked, expected, strict=True):
        assert v["errors"] == {}, v["errors"]
        assert (v["nodes"], v["edges"]) == (n_nodes, n_edges)
    assert "biolink:gene_associated_with_condition" in linked[1]["predicates"]
    assert "INVALID_NODE_PROPERTY_VALUE" in bad["errors"]["ERROR"]  # free: ids are no CURIEs


def test_a_chemical_induced_disease_is_exported_as_biolink_causes():
    # BC5CDR's CID (cocaine-induced seizures) is a cause, not a treatment's side effect
    assert predicate("causes", "Compound", "Disease").predicate == "biolink:causes"
    assert predicate("causes", "Compound", "Disease").direction == "head_to_tail"
    assert predicate("causes", "Compound", "Side Effect").predicate == "biolink:has_side_effect"


@pytest.mark.slow  # LadybugDB loads and multi-format exports
def test_biolink_mapping_names_are_current_biolink(kgx_python):
    from kgbuild.schema import data_dir

    mapping = run_check(kgx_python, "--mapping", str(data_dir()))["mapping"]
    assert mapping["biolink_version"] == "4.4.6"
    assert mapping["problems"] == []
    assert mapping["categories_checked"] >= 11 and mapping["predicates_checked"] >= 30


# ---- Neo4j CSVs in a real Cypher database (LadybugDB) ------------------------------------
def _duck(wh, sql, sid):
    return wh.query(sql, [sid] * sql.count("?"))


@pytest.mark.slow  # LadybugDB loads and multi-format exports
def test_neo4j_csvs_load_into_ladybug_and_answer_like_the_snapshot(syn, tmp_path):
    wh, sid = syn
    neo = export_snapshot(wh, sid, tmp_path / "x", ["neo4j"])["neo4j"]
    header = (neo["nodes.csv"][0]).read_text(encoding="utf-8").splitlines()[0]
    assert header.startswith("id:ID,:LABEL,") and "aliases:string[]" in header
    rel_header = neo["relationships.csv"][0].read_text(encoding="utf-8").splitlines()[0]
    assert rel_header.startswith(":START_ID,:END_ID,:TYPE,") and "support:int" in rel_header
    assert "confidence:float" in rel_header and "pmids:string[]" in rel_header
    assert "neo4j-admin database import full" in neo["import.sh"][0].read_text()
    db = tmp_path / "graph é.lbug"
    n_nodes, n_rels = ladybug.load_neo4j_csv(neo["nodes.csv"][0], neo["relationships.csv"][0], db)
    c = counts(wh, sid)[1]
    assert (n_nodes, n_rels) == (c["nodes"], c["triples"])
    q = lambda cypher, **p: ladybug.query(db, cypher, p)  # noqa: E731
    assert q("MATCH (n) RETURN count(*)") == [[c["nodes"]]]
    assert q("MATCH ()-[r]->() RETURN count(*)") == [[c["triples"]]]
    # Per label and per type, as DuckDB counts them.
    kinds = dict(_duck(wh, "SELECT coalesce(nullif(e.type, ''), 'Unlinked'), count(*) FROM "
                       "(SELECT head_id AS id FROM triples_at(?) UNION SELECT tail_id FROM "
                       "triples_at(?)) n LEFT JOIN entities_at(?) e USING (id) GROUP BY 1",
                       sid))  # fmt: skip
    assert dict(q("MATCH (n) RETURN label(n), count(*)")) == kinds
    rels = dict(_duck(wh, "SELECT upper(relation), count(*) FROM triples_at(?) GROUP BY 1", sid))
    assert dict(q("MATCH ()-[r]->() RETURN label(r), count(*)")) == rels
    # A multi-hop path query: Compound -> Gene -> Gene chains, counted both ways.
    two_hop = _duck(wh, "SELECT count(*) FROM triples_at(?) a JOIN triples_at(?) b "
                    "ON a.tail_id = b.head_id JOIN entities_at(?) h ON h.id = a.head_id "
                    "JOIN entities_at(?) m ON m.id = a.tail_id JOIN entities_at(?) t "
                    "ON t.id = b.tail_id WHERE h.type = 'Compound' AND m.type = 'Gene' "
                    "AND t.type = 'Gene'", sid)[0][0]  # fmt: skip
    assert two_hop > 0
    assert q("MATCH (c:Compound)-[]->(g:Gene)-[]->(x:Gene) RETURN count(*)") == [[two_hop]]
    # Any two-hop path from the best-supported treated disease's drug, with names and pmids.
    tid, head, tail, support, pmids = _duck(
        wh, "SELECT t.triple_id, t.head_id, t.tail_id, k.support, list_sort(list(DISTINCT "
        "e.pmid)) FROM triples_at(?) t JOIN kg_edges_at(?) k USING (triple_id) JOIN "
        "evidence_at(?) e USING (triple_id) WHERE t.relation = 'treats' GROUP BY ALL "
        "ORDER BY k.support DESC, t.triple_id LIMIT 1", sid)[0]  # fmt: skip
    got = q("MATCH (c:Compound)-[r:TREATS]->(d:Disease) WHERE r.triple_id = $t "
            "RETURN c.id, d.id, r.support, r.pmids", t=tid)  # fmt: skip
    assert got == [[head, tail, support, pmids]]
    names = dict(_duck(wh, "SELECT id, name FROM entities_at(?)", sid))
    for node_id, name in q("MATCH (n) RETURN n.id, n.name"):
        assert name == " ".join(names[node_id].split())  # cells are one line


@pytest.mark.slow  # LadybugDB loads and multi-format exports
def test_ladybug_export_format_and_its_content_is_deterministic(syn, tmp_path):
    wh, sid = syn
    a = export_snapshot(wh, sid, tmp_path / "a", ["ladybug"])["ladybug"]["kg.lbug"][0]
    b = export_snapshot(wh, sid, tmp_path / "b", ["ladybug", "neo4j"])["ladybug"]["kg.lbug"][0]
    dump = "MATCH (a)-[r]->(b) RETURN a.id, label(r), b.id, r.support, r.confidence, r.pmids"
    rows_a, rows_b = sorted(ladybug.query(a, dump)), sorted(ladybug.query(b, dump))
    assert rows_a == rows_b and len(rows_a) == counts(wh, sid)[1]["triples"]
    assert not list((tmp_path / "a" / "ladybug").glob(".csv-*"))  # the temp CSVs are gone


def test_the_loader_rejects_what_neo4j_admin_would(tmp_path):
    nodes = tmp_path / "n.csv"
    rels = tmp_path / "r.csv"
    nodes.write_text("id:ID,:LABEL,score:decimal\nA,Gene,1\n")
    with pytest.raises(ExportError, match="unsupported Neo4j import type"):
        ladybug.load_neo4j_csv(nodes, rels, tmp_path / "db")
    nodes.write_text("id:ID,:LABEL,n:int\nA,Gene,1\nB,Gene,\n")
    rels.write_text(":START_ID,:END_ID,:TYPE\nA,C,BINDS\n")
    with pytest.raises(ExportError, match="not a node"):
        ladybug.load_neo4j_csv(nodes, rels, tmp_path / "db")
    nodes.write_text("id:ID,:LABEL\nA,Gene|Bad Label\n")  # labels split on the array delimiter
    rels.write_text(":START_ID,:END_ID,:TYPE\n")
    assert ladybug.load_neo4j_csv(nodes, rels, tmp_path / "db") == (1, 0)  # first label
    nodes.write_text("id:ID,:LABEL\nA,Ge`ne\n")
    with pytest.raises(ExportError, match="plain identifier"):
        ladybug.load_neo4j_csv(nodes, rels, tmp_path / "db")
