"""The ID checks measured against curated gold: curated-style links the
checks used to remove are kept, the known mislinks are still caught, and on the curated
BC5CDR / BioRED files the checks remove or change at most 0.5% of the curated IDs."""

from pathlib import Path

import pytest

from kgbuild.errors import InputError
from kgbuild.evaluate.idchecks import measure_id_checks, mislink_fixture, read_fixture
from kgbuild.resolve import vocabularies
from tests.conftest import shared

needs_vocabularies = pytest.mark.skipif(
    not all(vocabularies.installed().values()),
    reason="vocabulary packages not installed (make install: vocabularies.txt)",
)

#: Curated-style links (BioCreative V CDR's own forms) the vocabulary check removed before.
CURATED = """\
1|t|FK506 nephrotoxicity in rats.
1|a|FK506 raised serum urate and lowered K in rats with nephropathy.
1\t0\t5\tFK506\tChemical\tD016559
1\t30\t35\tFK506\tChemical\tD016559
1\t49\t54\turate\tChemical\tD014527
1\t67\t68\tK\tChemical\tD011188
1\t82\t93\tnephropathy\tDisease\tD007674

"""


def _curated_file(tmp_path: Path) -> Path:
    path = tmp_path / "curated.PubTator"
    path.write_text(CURATED, encoding="utf-8")
    return path


@needs_vocabularies
def test_curated_links_are_kept_and_counted(tmp_path):
    report = measure_id_checks([_curated_file(tmp_path)], examples=3)
    assert (report["documents"], report["curated"]) == (1, 5)
    assert report["removed"] == report["relinked"] == 0
    assert report["false_removal_share"] == 0.0
    # FK506 is Tacrolimus, but no installed vocabulary names it so: suspect, not removed
    assert report["suspect"] == 2 and report["kept"] == 3
    assert report["by_vocabulary"]["mesh"]["curated"] == 5
    assert report["by_rule"] == {"suspect:no_match": {"suspect": 2}}
    assert report["examples"]["suspect"][0] == {
        "form": "FK506", "id": "MESH:D016559", "name": "Tacrolimus", "mentions": 2}  # fmt: skip
    assert report["held_out"]["false_removal_share"] == 0.0


@needs_vocabularies
def test_the_fixture_of_known_mislinks_is_caught():
    report = mislink_fixture()
    missed = [c for c in report["cases"] if not c["caught"]]
    assert report["total"] == len(read_fixture()) >= 15
    assert report["caught"] == report["total"], missed


def test_missing_inputs_are_input_errors(tmp_path):
    with pytest.raises(InputError):
        measure_id_checks([])
    with pytest.raises(InputError):
        measure_id_checks([tmp_path / "absent.PubTator"])
    with pytest.raises(InputError):
        mislink_fixture(tmp_path / "absent.tsv")


@needs_vocabularies
@pytest.mark.parametrize(
    ("corpus", "files"),
    [
        ("bc5cdr", ("CDR_TrainingSet.PubTator.txt", "CDR_DevelopmentSet.PubTator.txt")),
        ("biored", ("Train.PubTator", "Dev.PubTator")),
    ],
)
def test_curated_gold_loses_at_most_half_a_percent_of_its_ids(corpus, files):
    """The first 150 documents of each train/dev file (the whole files: ``kgbuild eval
    judgments``); skipped without ../shared."""
    paths = [shared(corpus, f) for f in files]
    report = measure_id_checks(paths, limit=150, examples=5)
    assert report["curated"] > 3000
    assert report["false_removal_share"] <= 0.005, report["examples"]
    assert report["held_out"]["false_removal_share"] <= 0.005, report["held_out"]["examples"]
