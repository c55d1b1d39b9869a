"""Tiny hand-written gold files (BioRED-style and BC5CDR-style PubTator text) for the verifier's
tests: offsets are computed from the surface forms, so the documents read as written."""

from __future__ import annotations

import re
from pathlib import Path

Entity = tuple[str, str, str]  # surface form, type, ID


def pubtator(pmid: str, title: str, abstract: str, ents: list[Entity], rels: list[str]) -> str:
    """One PubTator record: every occurrence of each surface form is a mention."""
    text = f"{title} {abstract}"
    lines = [f"{pmid}|t|{title}", f"{pmid}|a|{abstract}"]
    spans = []
    for surface, typ, ident in ents:
        for m in re.finditer(rf"(?<!\w){re.escape(surface)}(?!\w)", text):
            spans.append((m.start(), m.end(), surface, typ, ident))
    for start, end, surface, typ, ident in sorted(spans):
        lines.append(f"{pmid}\t{start}\t{end}\t{surface}\t{typ}\t{ident}")
    lines += [f"{pmid}\t{r}" for r in rels]
    return "\n".join(lines) + "\n\n"


G, C, D = "GeneOrGeneProduct", "ChemicalEntity", "DiseaseOrPhenotypicFeature"

BIORED_DOCS = [
    ("1001", "Aspirin inhibits COX2 in colon cancer.",
     "Aspirin reduced COX2 expression. We also measured IL6 and TNF levels in serum.",
     [("Aspirin", C, "D001241"), ("COX2", G, "5743"), ("colon cancer", D, "D003110"),
      ("IL6", G, "3569"), ("TNF", G, "7124")],
     ["Negative_Correlation\tD001241\t5743", "Association\t5743\tD003110"]),
    ("1002", "Cisplatin induces nephrotoxicity.",
     "Cisplatin treatment increased nephrotoxicity and TP53 levels. Glucose and insulin were "
     "measured.",
     [("Cisplatin", C, "D002945"), ("nephrotoxicity", D, "D007674"), ("TP53", G, "7157"),
      ("Glucose", C, "D005947"), ("insulin", G, "3630")],
     ["Positive_Correlation\tD002945\tD007674", "Positive_Correlation\tD002945\t7157"]),
    ("1003", "BRCA1 mutations in breast cancer.",
     "BRCA1 is associated with breast cancer. Tamoxifen and estradiol were given to all.",
     [("BRCA1", G, "672"), ("breast cancer", D, "D001943"), ("Tamoxifen", C, "D013629"),
      ("estradiol", C, "D004958")],
     ["Association\t672\tD001943"]),
    ("1004", "Metformin lowers glucose in diabetes.",
     "Metformin decreased glucose and improved diabetes. AMPK and LKB1 were studied.",
     [("Metformin", C, "D008687"), ("glucose", C, "D005947"), ("diabetes", D, "D003920"),
      ("AMPK", G, "5562"), ("LKB1", G, "6794")],
     ["Negative_Correlation\tD008687\tD005947", "Negative_Correlation\tD008687\tD003920"]),
    ("1005", "APOE binds amyloid beta in Alzheimer disease.",
     "APOE is associated with Alzheimer disease. Donepezil and memantine were listed.",
     [("APOE", G, "348"), ("amyloid beta", G, "351"), ("Alzheimer disease", D, "D000544"),
      ("Donepezil", C, "D000077265"), ("memantine", C, "D008559")],
     ["Bind\t348\t351", "Association\t348\tD000544"]),
]  # fmt: skip

CDR_DOCS = [
    ("2001", "Haloperidol-induced catalepsy in rats.",
     "Haloperidol caused catalepsy. Saline and dopamine were measured, with hypotension absent.",
     [("Haloperidol", "Chemical", "D006220"), ("catalepsy", "Disease", "D002375"),
      ("Saline", "Chemical", "D012965"), ("dopamine", "Chemical", "D004298"),
      ("hypotension", "Disease", "D007022")],
     ["CID\tD006220\tD002375"]),
    ("2002", "Cocaine and myocardial infarction.",
     "Cocaine induced myocardial infarction. Nitroglycerin treated the angina.",
     [("Cocaine", "Chemical", "D003042"), ("myocardial infarction", "Disease", "D009203"),
      ("Nitroglycerin", "Chemical", "D005996"), ("angina", "Disease", "D000787")],
     ["CID\tD003042\tD009203"]),
    ("2003", "Lithium toxicity.",
     "Lithium produced tremor. Sodium was normal and seizures did not occur.",
     [("Lithium", "Chemical", "D008094"), ("tremor", "Disease", "D014202"),
      ("Sodium", "Chemical", "D012964"), ("seizures", "Disease", "D012640")],
     ["CID\tD008094\tD014202"]),
]  # fmt: skip


def write(path: Path, docs: list[tuple[str, str, str, list[Entity], list[str]]]) -> Path:
    path.write_text("".join(pubtator(*d) for d in docs), encoding="utf-8")
    return path


def gold_files(folder: Path) -> dict[str, Path]:
    """The four inputs of a training run (train and dev are the same tiny files)."""
    folder.mkdir(parents=True, exist_ok=True)
    biored = write(folder / "biored.PubTator", BIORED_DOCS)
    cdr = write(folder / "cdr.PubTator", CDR_DOCS)
    return {"biored_train": biored, "cdr_train": cdr, "biored_dev": biored, "cdr_dev": cdr}
