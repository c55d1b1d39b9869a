"""One display name per node from the vocabularies, and aliases shown cleaned."""

from collections import Counter

import pytest

from kgbuild.names import clean_alias, is_systematic, norm
from kgbuild.pipeline.state import KGState
from kgbuild.resolve.naming import display_name, readable_name
from kgbuild.resolve.vocabularies import installed


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ('"amyloid-beta', "amyloid-beta"),
        ("-amyloid beta", "amyloid beta"),
        ("49 Alzheimer's disease dementia", "Alzheimer's disease dementia"),
        ("1. tau", "tau"),
        ("3) Abeta", "Abeta"),
        ("A&beta", "Aβ"),
        ("TNF-&alpha;", "TNF-α"),
        ("AT&amp;T", "AT&T"),
        ("AD &", "AD"),
        ("'quoted'", "quoted"),
        ("Abeta)", "Abeta"),
        ("  tau   protein ", "tau protein"),
        ("...", ""),
        # names that look alike but are whole: kept as written
        ("(+)-catechin", "(+)-catechin"),
        ("1,10-phenanthroline", "1,10-phenanthroline"),
        ("12-lipoxygenase", "12-lipoxygenase"),
        ("5'-nucleotidase", "5'-nucleotidase"),
        ("APP(695)", "APP(695)"),
        ("5 HT", "5 HT"),
        ("Alzheimer's disease", "Alzheimer's disease"),
    ],
)
def test_clean_alias(raw, shown):
    assert clean_alias(raw) == shown
    assert clean_alias(shown) == shown  # idempotent: cleaning a stored alias changes nothing


def test_cleaning_keeps_matching_keys():
    """What a key folds (quotes, dashes, Greek) matches before and after cleaning."""
    for raw in ('"amyloid-beta', "-amyloid beta", "A&beta;", "Aβ"):
        assert norm(clean_alias(raw)) in {"amyloid beta", "abeta", "a beta"}


needs_vocabularies = pytest.mark.skipif(
    not (installed()["hgnc"] and installed()["mesh"]),
    reason="HGNC and MeSH vocabularies not installed (make install)",
)


@needs_vocabularies
@pytest.mark.parametrize(
    ("cid", "name", "shown"),
    [
        ("NCBIGene:351", "APP", "APP (amyloid beta precursor protein)"),
        ("NCBIGene:54209", "TREM2", "TREM2 (triggering receptor expressed on myeloid cells 2)"),
        ("MESH:D000544", "AD", "Alzheimer Disease"),
        ("NCBIGene:11820", "App", "App"),  # a mouse gene: HGNC does not name it
        ("free:amyloid beta", '"amyloid-beta', "amyloid-beta"),
        ("MESH:D999999999", "49 Some thing", "Some thing"),  # no such descriptor: its name
        # MeSH names semagacestat by its IUPAC name: the node's common name is shown instead
        ("MESH:C484278", "semagacestat", "semagacestat"),
    ],
)
def test_display_name_rule(cid, name, shown):
    assert display_name(cid, name) == shown


@needs_vocabularies
def test_build_state_writes_display_names_and_clean_aliases():
    st = KGState()
    for cid, forms, kind in (
        ("NCBIGene:351", {"Abeta": 5, '"amyloid-beta': 2, "A&beta": 1}, "Gene"),
        ("MESH:D000544", {"AD": 9, "49 Alzheimer's disease dementia": 1}, "Disease"),
    ):
        st.forms[cid].update(Counter(forms))
        st.kinds[cid][kind] += sum(forms.values())
        st.first_year[cid] = 2019
    app, ad = st.entity("NCBIGene:351"), st.entity("MESH:D000544")
    assert app.display_name == "APP (amyloid beta precursor protein)"
    assert ad.display_name == "Alzheimer Disease"
    assert app.aliases == sorted(["Abeta", "amyloid-beta", "Aβ"])
    assert ad.aliases == ["AD", "Alzheimer's disease dementia"]
    st.free["free:x"] |= {'"amyloid-beta', "amyloid beta"}
    st.first_year["free:x"] = 2019
    free = st.free_entity("free:x")
    assert free.display_name == "amyloid beta"
    assert free.aliases == ['"amyloid-beta', "amyloid beta"]  # as merged: restore reads them


@pytest.mark.parametrize(
    ("name", "systematic"),
    [
        ("N2-((2S)-2-(3,5-difluorophenyl)-2-hydroxyethanoyl)-N1-((7S)-5-methyl-6-oxo-6,7-dihydro-"
         "5H-dibenzo(b,d)azepin-7-yl)-L-alaninamide", True),
        ("2-(4-(methylamino)phenyl)-6-hydroxybenzothiazole", True),
        ("4-aminopyridine", False),  # short: the name chemists use
        ("Receptors, N-Methyl-D-Aspartate", False),
        ("amyloid beta-protein (1-42)", False),
        ("tumor necrosis factor alpha (TNF-alpha)", False),
    ],
)  # fmt: skip
def test_systematic_names_are_told_from_common_ones(name, systematic):
    assert is_systematic(name) is systematic


def test_a_systematic_display_name_gives_way_to_a_common_one():
    iupac = "2-(4-(methylamino)phenyl)-6-hydroxybenzothiazole"
    assert readable_name(iupac, ["", iupac, "Pittsburgh compound B"]) == "Pittsburgh compound B"
    assert readable_name(iupac, [iupac]) == iupac  # nothing better: kept
    assert readable_name("Donepezil", ["x"]) == "Donepezil"
