"""Junk aliases: spans joining two concepts, or cut inside brackets, name no node."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from kgbuild.pipeline.state import KGState
from kgbuild.resolve.entities import AliasIndex
from kgbuild.resolve.junk import is_junk_alias
from kgbuild.search.aliases import build_aliases

JUNK = [
    "Abeta and tau",
    "beta-amyloid (Abeta) and tau",
    "Abeta and C5a",
    "APP or PS1",
    "amyotrophic lateral sclerosis and frontotemporal dementia",
    "Abeta and/or tau",
    "and tau",
    "Abeta (1-42",
    "tau)",
    "Abeta, tau",
    "IL-6, TNF-alpha, IL-1beta",
]
FINE = [
    "Creutzfeldt-Jakob disease",
    "amyloid-beta",
    "tumor necrosis factor (TNF)-alpha",
    "Alzheimer's disease",
    "PS-1",
]


@pytest.mark.parametrize("form", JUNK)
def test_forms_joining_two_concepts_or_cut_in_brackets_are_junk(form):
    assert is_junk_alias(form, frozenset())


@pytest.mark.parametrize("form", FINE)
def test_names_of_one_concept_are_not_junk(form):
    assert is_junk_alias(form, frozenset()) is None


def test_a_vocabularys_own_name_with_and_is_never_junk():
    known = frozenset({"signs and symptoms", "plaque amyloid"})
    for name in ("Signs and Symptoms", "Plaque, Amyloid"):  # MeSH descriptors
        assert is_junk_alias(name, known) is None
        assert is_junk_alias(name, frozenset())


def test_the_resolvers_alias_index_refuses_junk():
    idx = AliasIndex()
    idx.add("Abeta and tau", "NCBIGene:4137", "Gene")
    idx.add("tau", "NCBIGene:4137", "Gene")
    assert idx.lookup("abeta and tau") is None
    assert set(idx.forms) == {"tau"}


def test_entity_aliases_written_to_the_entities_table_leave_junk_out():
    st = KGState()
    st.forms["NCBIGene:4137"] = Counter({"beta-amyloid (Abeta) and tau": 9, "tau": 3, "MAPT": 1})
    st.kinds["NCBIGene:4137"] = Counter({"Gene": 13})
    st.first_year["NCBIGene:4137"] = 2011
    e = st.entity("NCBIGene:4137")
    assert e.aliases == ["MAPT", "tau"]
    assert "and" not in e.name


def test_a_question_never_links_through_a_junk_alias():
    ents = [("NCBIGene:351", "APP", "Gene", ["Abeta and C5a", "amyloid beta"], 2011),
            ("NCBIGene:728", "C5AR1", "Gene", [], 2011)]  # fmt: skip
    node_of = {e[0]: i for i, e in enumerate(ents)}
    mentions = [("NCBIGene:351", "Abeta and C5a", 3), ("NCBIGene:351", "Abeta", 5),
                ("NCBIGene:351", "amyloid beta", 2)]  # fmt: skip
    table, _ = build_aliases(ents, node_of, mentions, [], [], np.array([5, 5]))
    assert "abeta and c5a" not in table["key"]
    assert "amyloid beta" in table["key"] and "abeta" in table["key"]


def test_a_chemical_locant_comma_is_no_list():
    assert is_junk_alias("2,6-diaminopyridine", frozenset()) is None
    assert is_junk_alias("1,2,3-triazole", frozenset()) is None
    assert is_junk_alias("2,6-diaminopyridine, Abeta, tau", frozenset()) == "comma list of concepts"
