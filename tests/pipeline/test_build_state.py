"""The cumulative build state across year slices: restored state equals carried state."""

from pathlib import Path

import pytest

from kgbuild.pipeline.build import build_kg
from kgbuild.store.snapshots import Warehouse


def write(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text.lstrip("\n"), encoding="utf-8")


def test_year_whose_touched_entities_are_all_unchanged_is_published(tmp_path):
    """2021 only mentions APOE the way 2020 did: no entity row changes (an empty upsert)."""
    src = tmp_path / "src"
    write(
        src,
        "2020.pubtator",
        """
1|t|APOE and tau.
1|a|APOE binds tau.
1\t0\t4\tAPOE\tGene\t348
1\t9\t12\ttau\tGene\t4137
1\t14\t18\tAPOE\tGene\t348
1\t25\t28\ttau\tGene\t4137
""",
    )
    write(
        src,
        "2021.pubtator",
        """
2|t|APOE.
2|a|Nothing else here.
2\t0\t4\tAPOE\tGene\t348
""",
    )
    report = build_kg(src, kg="t", warehouse=tmp_path / "wh")
    assert [y.year for y in report.years] == [2020, 2021]
    wh = Warehouse(tmp_path / "wh")
    assert wh.query("SELECT count(*) FROM documents_asof(2021, kg_name := 't')")[0][0] == 2
    assert wh.query("SELECT name FROM entities WHERE id = 'NCBIGene:348'") == [("APOE",)]


@pytest.mark.slow  # several builds
def test_identical_rows_survive_a_round_trip_so_split_builds_equal_one_go(tmp_path):
    """A duplicated annotation line is two identical mention rows. Counting them once when a
    build restores its state (and twice when it carries it) names the concept differently. (Mouse
    Mapt, 17762: a human gene would be named by its official symbol, whatever the counts.)"""
    src = tmp_path / "src"
    write(
        src,
        "2019.pubtator",
        """
1|t|tau and MAPT.
1|a|More tau here.
1\t0\t3\ttau\tGene\t17762
1\t0\t3\ttau\tGene\t17762
1\t8\t12\tMAPT\tGene\t17762
""",
    )
    write(
        src,
        "2020.pubtator",
        """
2|t|MAPT protein again.
2|a|Nothing else.
2\t0\t12\tMAPT protein\tGene\t17762
""",
    )
    one_go = build_kg(src, kg="t", warehouse=tmp_path / "a")
    build_kg(src, kg="t", years="2019", warehouse=tmp_path / "b")
    split = build_kg(src, kg="t", warehouse=tmp_path / "b")
    assert [y.reused for y in split.years] == [True, False]
    assert [y.snapshot.snapshot_id for y in split.years] == [
        y.snapshot.snapshot_id for y in one_go.years
    ]
    q = "SELECT id, name, aliases FROM entities ORDER BY id"
    assert Warehouse(tmp_path / "a").query(q) == Warehouse(tmp_path / "b").query(q)
    names = {r[0]: r[1] for r in Warehouse(tmp_path / "b").query(q)}
    assert names["NCBIGene:4137"] == "MAPT"  # mouse Mapt took its human ortholog
    n = "SELECT count(*) FROM mentions_asof(2019, kg_name := 't')"
    assert Warehouse(tmp_path / "b").query(n) == [(3,)]


def test_reuse_settles_after_an_upgrade(corpus, tmp_path, monkeypatch):
    """New code that reproduces every snapshot is rebuilt once; the next build reuses every
    year and a refresh plan is a no-op (it said "code changed" forever before)."""
    from kgbuild.pipeline import build as pipeline

    wh = tmp_path / "wh"
    first = build_kg(corpus, kg="t", warehouse=wh)
    monkeypatch.setattr(pipeline, "code_version", lambda: "9.9.9+upgraded")
    assert [p.reason for p in pipeline.plan_build(corpus, kg="t", warehouse=wh)] == [
        "code changed",
        "parent rebuilt",
    ]
    rebuilt = build_kg(corpus, kg="t", warehouse=wh)  # same content: same snapshots
    assert [y.snapshot.snapshot_id for y in rebuilt.years] == [
        y.snapshot.snapshot_id for y in first.years
    ]
    plan = pipeline.plan_build(corpus, kg="t", warehouse=wh)
    assert [(p.action, p.reason) for p in plan] == [("reuse", "published")] * 2
    calls = []
    monkeypatch.setattr(pipeline, "fold_year", lambda *a, **k: calls.append(a))
    again = build_kg(corpus, kg="t", warehouse=wh)
    assert all(y.reused for y in again.years) and calls == []


@pytest.mark.slow  # several builds
def test_a_year_built_after_its_parent_reads_only_that_year(corpus, tmp_path, monkeypatch):
    """A flow's year task continues the previous year's snapshot (``after=``): it digests and
    reads only its own year (it used to re-digest every earlier year: O(years²) reads)."""
    from kgbuild.pipeline import batches as batches_module
    from kgbuild.sources.corpus import LocalCorpus

    one_go = build_kg(corpus, kg="t", warehouse=tmp_path / "a")
    first = build_kg(LocalCorpus(corpus, "2019", None), kg="t", warehouse=tmp_path / "b")
    digested, read = [], []
    real_digest, real_read = LocalCorpus.digest, batches_module.read_file
    monkeypatch.setattr(LocalCorpus, "digest", lambda s, y: digested.append(y) or real_digest(s, y))
    monkeypatch.setattr(  # the year's files are streamed in batches
        batches_module, "read_file",
        lambda sf, root: (read.append(sf.year), real_read(sf, root))[1],
    )  # fmt: skip
    second = build_kg(
        LocalCorpus(corpus, "2020", None), kg="t", warehouse=tmp_path / "b",
        after=first.head.snapshot_id,
    )  # fmt: skip
    assert set(digested) == {2020} and set(read) == {2020}
    assert second.head.snapshot_id == one_go.head.snapshot_id
    again = build_kg(
        LocalCorpus(corpus, "2020", None), kg="t", warehouse=tmp_path / "b",
        after=first.head.snapshot_id,
    )  # fmt: skip
    assert [y.reused for y in again.years] == [True]
