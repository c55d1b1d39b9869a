"""A chemical–disease KG built by the offline extractor names what the text says.

``tests/fixtures/chemical_disease/2020.pubtator`` holds two hand-written BC5CDR-style
abstracts: cocaine inducing seizures (a chemical-induced disease, BC5CDR's CID) and valproate
reducing seizures (BioRED's chemical–disease Negative_Correlation). A real build (the trained
relation verifier, the sentence reader, a real DuckDB catalog) must store the first as
``causes`` and the second as ``treats``; ``upregulates`` between a chemical and a disease
("Cocaine upregulates Seizures") is not what the text says.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kgbuild.pipeline.build import build_kg
from kgbuild.pipeline.options import ExtractionOptions
from kgbuild.store.snapshots import Warehouse

pytestmark = pytest.mark.slow  # a build: the verifier and the reader load

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "chemical_disease"
COCAINE, SEIZURES, VALPROATE = "MESH:D003042", "MESH:D012640", "MESH:D014635"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    wh = tmp_path_factory.mktemp("cdr") / "wh"
    build_kg(
        CORPUS, kg="cdr", warehouse=wh,
        extractor=ExtractionOptions("classifier", embed_model="none"),
    )  # fmt: skip
    return wh


@pytest.fixture(scope="module")
def edges(warehouse) -> dict[tuple[str, str], set[str]]:
    rows = Warehouse(warehouse).query("SELECT head_id, tail_id, relation FROM kg_edges")
    out: dict[tuple[str, str], set[str]] = {}
    for head, tail, relation in rows:
        out.setdefault((head, tail), set()).add(relation)
    return out


def test_a_chemical_that_induces_a_disease_causes_it(edges):
    assert edges[(COCAINE, SEIZURES)] == {"causes"}


def test_a_chemical_that_reduces_a_disease_treats_it(edges):
    assert edges[(VALPROATE, SEIZURES)] == {"treats"}


def test_no_chemical_upregulates_a_disease(edges):
    assert all("upregulates" not in rels for rels in edges.values())


def test_the_readers_rows_name_the_candidate_as_the_reader_learnt_it(warehouse):
    # the sentence reader was trained on signed names: a stored ``causes`` is its upregulates
    from kgbuild.reader.rows import build_rows

    cands = {(r.a_id, r.b_id, r.cand_relation) for r in build_rows(warehouse, "classifier")}
    assert (COCAINE, SEIZURES, "upregulates") in cands
    assert not [c for c in cands if c[2] == "causes"]
