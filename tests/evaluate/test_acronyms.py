"""The acronym reading measured against gold (kgbuild/evaluate/acronyms.py): a gold file whose
curators tag an acronym with its long form's concept, built with its relations hidden."""

from kgbuild.evaluate.acronyms import gold_acronyms, measure
from kgbuild.evaluate.facts import _read, build_hidden, hide_relations

TITLE = "Mild cognitive impairment and donepezil."
ABSTRACT = ("Patients with mild cognitive impairment (MCI) took donepezil. MCI was followed up. "
            "Heart failure (HF) was absent; HF was not seen.")  # fmt: skip
MENTIONS = [("cognitive impairment", "DiseaseOrPhenotypicFeature", "D003072"),
            ("MCI", "DiseaseOrPhenotypicFeature", "D003072"),
            ("donepezil", "ChemicalEntity", "D000077265"),
            ("failure", "DiseaseOrPhenotypicFeature", "D006333"),
            ("HF", "DiseaseOrPhenotypicFeature", "D006333")]  # fmt: skip


def _gold(path):
    text = f"{TITLE} {ABSTRACT}"
    lines = [f"501|t|{TITLE}", f"501|a|{ABSTRACT}"]
    for surface, kind, cid in MENTIONS:
        at = -1
        while (at := text.find(surface, at + 1)) >= 0:
            lines.append(f"501\t{at}\t{at + len(surface)}\t{surface}\t{kind}\t{cid}")
    lines.append("501\tAssociation\tD000077265\tD003072\tNovel")
    path.write_text("\n".join(lines) + "\n\n")
    return path


def test_a_defined_acronym_is_read_as_its_gold_concept(tmp_path):
    gold = _gold(tmp_path / "gold.PubTator")
    assert gold_acronyms(gold) == {"HF": "MESH:D006333", "MCI": "MESH:D003072"}
    wh = tmp_path / "wh"
    build_hidden(hide_relations(gold, _read(gold).fmt, tmp_path / "input"), wh)
    got = measure(gold, wh)
    # MCI: "cognitive impairment" spells its end; HF: "failure" covers too little of it
    assert (got["acronyms"], got["defined"], got["right"]) == (2, 1, 1)
    assert got["precision"] == 1.0 and got["recall"] == 0.5 and got["wrong"] == []
