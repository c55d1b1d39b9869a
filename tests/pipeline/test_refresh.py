"""What a refresh has to build (kgbuild.pipeline.refresh, pipeline.plan_build) and the growth
report (kgbuild.report): library functions the Prefect flows call, tested without Prefect."""

import shutil
import struct
from datetime import UTC, datetime

import pytest

from kgbuild.errors import InputError
from kgbuild.pipeline.build import build_kg, plan_build
from kgbuild.pipeline.refresh import latest_snapshot, plan_refresh
from kgbuild.pipeline.spec import BuildSpec, expand_years
from kgbuild.report import (
    data_uri,
    growth_chart,
    markdown_table,
    report_path,
    snapshot_ids,
    year_rows,
)
from kgbuild.store.snapshots import Warehouse
from tests.conftest import FIXTURES
from tests.support.doc_examples import pubtator_docs
from tests.support.eutils_server import FakeNCBI, serve

EXTRA_DOC = (  # one more 2020 abstract, as a new PMID would arrive in the current year
    "\n9001|t|Donepezil in Alzheimer's disease.\n"
    "9001|a|Donepezil treats Alzheimer's disease.\n"
    "9001\t0\t9\tDonepezil\tChemical\tMESH:D000077265\n"
    "9001\t13\t32\tAlzheimer's disease\tDisease\tMESH:D000544\n"
    "9001\t34\t43\tDonepezil\tChemical\tMESH:D000077265\n"
    "9001\t51\t70\tAlzheimer's disease\tDisease\tMESH:D000544\n\n"
)


def spec_for(src, wh, **kw):
    base = {"source": str(src), "kg": "r", "warehouse": wh, "extractor": "cooccurrence"}
    return BuildSpec.resolve(**{**base, **kw, "embed_model": "none"})


def build(spec):
    return build_kg(
        spec.corpus(), kg=spec.kg, extractor=spec.options(), warehouse=spec.warehouse_dir
    )


def actions(plan):
    return [(y.year, y.action, y.reason) for y in plan.years]


def test_expand_years_follows_the_current_year():
    today = datetime(2026, 11, 23, tzinfo=UTC)
    assert expand_years("2011-now", today) == "2011-2026"
    assert expand_years("now", today) == "2026"
    assert expand_years("2011-2020", today) == "2011-2020"
    assert expand_years(None) is None
    with pytest.raises(InputError):
        expand_years("last year")


def test_spec_resolves_domain_then_arguments(tmp_path):
    spec = BuildSpec.resolve(domain="alzheimers", source=str(FIXTURES / "corpus"),
                             warehouse=tmp_path / "wh", years="2019-2020")  # fmt: skip
    assert (spec.kg, spec.years, spec.annotator) == ("alzheimers", "2019-2020", "pubtator")
    assert spec.query and "Alzheimer" in spec.query and spec.llm_model == "gpt-4o-mini"
    assert spec.warehouse == str((tmp_path / "wh").resolve())
    assert spec.year_steps() == [2019, 2020] and spec.only(2019).years == "2019"
    assert not spec.uses_ncbi and spec_for(FIXTURES / "corpus", tmp_path).llm_slots() == 0
    with pytest.raises(InputError):
        BuildSpec.resolve()


@pytest.mark.slow  # several builds
def test_plan_refresh_finds_new_years_changed_inputs_and_nothing(tmp_path):
    src, wh = tmp_path / "src", tmp_path / "wh"
    src.mkdir()
    shutil.copy(FIXTURES / "corpus" / "2019.pubtator", src)
    spec = spec_for(src, wh)

    empty = plan_refresh(spec)
    assert (empty.head, actions(empty)) == (None, [(2019, "build", "new")])
    build(spec)
    same = plan_refresh(spec)
    assert same.noop and same.head_year == 2019 and "no-op" in same.summary()

    shutil.copy(FIXTURES / "corpus" / "2020.pubtator", src)  # a new year
    assert actions(plan_refresh(spec)) == [(2019, "reuse", "published"), (2020, "build", "new")]
    first = build(spec)
    assert [y.reused for y in first.years] == [True, False]
    assert plan_refresh(spec).noop

    with (src / "2020.pubtator").open("a") as fh:  # a new PMID in the current year
        fh.write(EXTRA_DOC)
    changed = plan_refresh(spec)
    assert actions(changed) == [(2019, "reuse", "published"), (2020, "build", "inputs changed")]
    assert changed.todo[0].snapshot_id == first.years[1].snapshot.snapshot_id
    second = build(spec)
    before, after = first.years[1].snapshot.counts, second.years[1].snapshot.counts
    assert after.documents == before.documents + 1
    assert plan_refresh(spec).noop
    assert latest_snapshot(wh, "r")["snapshot_id"] == second.years[1].snapshot.snapshot_id

    # another extractor config rebuilds everything: the first year says why, the rest follow
    other = spec_for(src, wh, extractor="generative", llm_base_url="http://127.0.0.1:9/v1")
    assert actions(plan_refresh(other)) == [(2019, "build", "config changed"),
                                            (2020, "build", "parent rebuilt")]  # fmt: skip
    n = len(Warehouse(wh).snapshots("r"))
    plan_build(spec.corpus(), kg="r", extractor=spec.options(), warehouse=wh)
    assert len(Warehouse(wh).snapshots("r")) == n  # planning publishes nothing


@pytest.mark.slow  # several builds
def test_plan_refresh_searches_pubmed_again_for_the_latest_year(tmp_path, monkeypatch):
    fake = FakeNCBI()
    wh = tmp_path / "wh"
    with serve(fake):
        monkeypatch.setenv("KGBUILD_EUTILS_URL", fake.eutils_url)
        monkeypatch.setenv("KGBUILD_PUBTATOR_URL", fake.pubtator_url)
        spec = spec_for("pubmed", wh, query="alzheimer", years="2015")
        build(spec)
        searches = len(fake.calls("esearch.fcgi"))
        noop = plan_refresh(spec)
        assert noop.noop and noop.rechecked == {2015: 11}
        assert len(fake.calls("esearch.fcgi")) > searches  # asked again, past the raw cache

        pmid, new = "99000001", "99000099"  # a new 2015 record appears in PubMed
        fake.articles[new] = fake.articles[pmid].replace(f">{pmid}<", f">{new}<")
        fake.dates[new] = fake.dates[pmid]
        assert plan_refresh(spec, recheck_from=2016).noop  # without asking: the cache answers
        grown = plan_refresh(spec)
        assert grown.rechecked == {2015: 12}
        assert actions(grown) == [(2015, "build", "inputs changed")]
        rebuilt = build(spec)
    assert rebuilt.head.counts.records == noop_records(wh, noop.head) + 1
    assert rebuilt.head.snapshot_id != noop.head


def noop_records(wh, sid):
    return Warehouse(wh).manifest(sid)["counts"]["records"]


@pytest.mark.slow  # several builds
def test_growth_report_rows_table_and_chart(tmp_path):
    wh = tmp_path / "wh"
    report = build(spec_for(FIXTURES / "corpus", wh))
    head = report.head.snapshot_id
    rows = year_rows(Warehouse(wh), head)
    assert [r["year"] for r in rows] == [2019, 2020]
    assert snapshot_ids(Warehouse(wh), head) == [r["snapshot"] for r in rows]
    assert rows[1]["triples"] == report.head.counts.triples and rows[0]["failed"] == 0
    table = markdown_table(rows, "t")
    assert table.splitlines()[2].startswith("| year | snapshot | corpus | nodes |")
    assert len(table.splitlines()) == 3 + 1 + 2
    png = growth_chart(rows, report_path(wh, "my kg"), "growth")
    assert png == wh / "reports" / "my-kg-growth.png"
    head_bytes = png.read_bytes()[:24]
    assert head_bytes[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", head_bytes[16:24]) == (1000, 400)  # 10 x 4 in at 100 dpi
    assert data_uri(png).startswith("data:image/png;base64,iVBORw0KGgo")


def test_a_year_published_with_failed_extractions_is_planned_again(tmp_path, monkeypatch):
    monkeypatch.setenv("KGBUILD_LLM_MAX_RETRIES", "0")
    spec = spec_for(FIXTURES / "llm" / "corpus", tmp_path / "wh", years="2019",
                    extractor="generative", llm_base_url="http://127.0.0.1:9/v1")  # fmt: skip
    report = build(spec)  # nothing listens on port 9: every call fails
    assert report.head.counts.extraction_failed == 2
    plan = plan_refresh(spec)
    assert actions(plan) == [(2019, "build", "incomplete")]
    assert plan.todo[0].snapshot_id == report.head.snapshot_id


@pytest.mark.slow  # three builds
def test_a_refresh_with_nothing_new_still_records_papers_retracted_since(tmp_path, monkeypatch):
    """Every year is published and PubMed has nothing new, but it now marks a paper of the head
    "Retracted Publication": the last year is built again to record it, instead of
    serving the paper until new literature happens to arrive."""
    fake = FakeNCBI()
    fake.pubtator = pubtator_docs(fake)  # mentions, so that papers carry served evidence
    wh = tmp_path / "wh"
    with serve(fake):
        monkeypatch.setenv("KGBUILD_EUTILS_URL", fake.eutils_url)
        monkeypatch.setenv("KGBUILD_PUBTATOR_URL", fake.pubtator_url)
        spec = spec_for("pubmed", wh, query="alzheimer", years="2015")
        first = build(spec).head
        quiet = plan_refresh(spec)
        assert quiet.noop and quiet.retracted == [] and quiet.rebuild_from is None

        served = "SELECT DISTINCT pmid FROM served_evidence_at(?)"
        pmid = sorted(p for (p,) in Warehouse(wh).query(served, [first.snapshot_id]))[0]
        fake.retracted.add(pmid)  # retracted after the KG was built
        plan = plan_refresh(spec)
        assert plan.retracted == [pmid] and plan.rebuild_from == 2015
        assert actions(plan) == [(2015, "build", "papers retracted")]
        assert "1 of 1 years to build: 2015 (papers retracted); 1 papers" in plan.summary()
        assert plan.to_dict()["status"] == "build"

        head = build_kg(spec.corpus(), kg=spec.kg, extractor=spec.options(),
                        warehouse=spec.warehouse_dir, rebuild_from=2015).head  # fmt: skip
        after = plan_refresh(spec)
        again = build(spec)  # a later build continues from the new head, not the old one
    wh_ = Warehouse(wh)
    assert head.snapshot_id != first.snapshot_id and head.as_of_year == 2015
    assert wh_.query("SELECT pmid FROM retractions_at(?)", [head.snapshot_id]) == [(pmid,)]
    assert (pmid,) not in wh_.query(served, [head.snapshot_id])
    assert (pmid,) in wh_.query(served, [first.snapshot_id])  # the literature as it stood then
    assert after.noop and after.retracted == []  # recorded: nothing left to do
    assert [y.action for y in again.years] == ["reused"]
    assert again.head.snapshot_id == head.snapshot_id
