"""The served-by-default audit: precision of asserted evidence and recall of true facts,
from a uniform sheet whose statuses come from the snapshot (never from the sheet)."""

from kgbuild.audit.served import row_statuses, served_figures, served_of_sheet
from kgbuild.audit.sheet import Judgment, read_sheet
from kgbuild.extract.epistemics import STATUSES
from kgbuild.pipeline.build import build_kg
from kgbuild.store.snapshots import Warehouse
from tests.audit.test_audit import fill, kgbuild


def judged(item: int, supported: bool) -> Judgment:
    return Judgment(item, supported, "exact", (), supported)


def test_precision_recall_and_per_status_counts():
    rows = [judged(1, True), judged(2, True), judged(3, False), judged(4, True), judged(5, False),
            judged(6, True)]  # fmt: skip
    status = {1: "asserted", 2: "asserted", 3: "asserted", 4: "hypothesis", 5: "negated"}
    got = served_figures(rows, status)  # item 6: evidence gone from the snapshot
    assert got["rows_with_status"] == 5 and got["rows_without_status"] == 1
    assert got["served"]["k"] == 2 and got["served"]["n"] == 3  # 2 of 3 served rows hold
    assert got["served"]["precision"] == 0.6667
    assert got["recall"]["k"] == 2 and got["recall"]["n"] == 3  # item 4 true but withheld
    assert got["by_status"]["hypothesis"] == {"rows": 1, "supported": 1}
    assert got["by_status"]["negated"] == {"rows": 1, "supported": 0}
    assert got["all_rows_end_to_end"] == 0.6


def test_nothing_served_is_no_precision_not_a_crash():
    got = served_figures([judged(1, True)], {1: "negated"})
    assert got["served"]["precision"] is None and got["recall"]["share"] == 0.0


def test_statuses_come_from_the_sheets_snapshot(corpus, warehouse, tmp_path):
    build_kg(corpus, kg="demo", warehouse=warehouse)
    blank, sheet_path = tmp_path / "blank.tsv", tmp_path / "judged.tsv"
    kgbuild("audit", "sample", "latest", "--n", "4", "--seed", "3", "--out", str(blank),
            warehouse=warehouse)  # fmt: skip
    fill(blank, sheet_path, lambda r: {"claim_supported": "yes", "faithful": "exact",
                                       "triple_supported": "yes"})  # fmt: skip
    wh = Warehouse(warehouse)
    sheet = read_sheet(sheet_path)
    ids = [r["evidence_id"] for r in sheet.rows]
    statuses = row_statuses(wh, sheet.meta["snapshot"], ids)
    assert set(statuses) == set(ids)
    assert set(statuses.values()) <= {*STATUSES, "refuted"}
    got = served_of_sheet(wh, sheet, sheet.judgments()[0])
    assert got is not None and got["rows_with_status"] == 4
    served = sum(s == "asserted" for s in statuses.values())
    assert got["served"]["n"] == served and got["recall"]["k"] == served
    other = read_sheet(sheet_path)
    other.meta["snapshot"] = "0" * 20  # a sheet of another warehouse: no figures, no error
    assert served_of_sheet(wh, other, other.judgments()[0]) is None
