"""A small real KG whose abstracts say what its facts do not: type 2 diabetes raising the risk
of Alzheimer's disease (no fact joins them), hypertension said *not* to raise it, lithium
inhibiting GSK3B to prevent tau phosphorylation in one sentence, exercise (no entity kind) said
to lower the risk, a trial whose finding negates its title's aim, and one hostile abstract
(markup, a huge run-on sentence). Mentions carry real offsets into title + " " + abstract, as
the annotators write them."""

from __future__ import annotations

import re
from pathlib import Path

from kgbuild.records import Document, Entity, Mention
from kgbuild.store.snapshots import SnapshotInfo, Warehouse
from tests.support.query_kg import publish_year

AD, T2D, HTN = "MESH:D000544", "MESH:D003924", "MESH:D006973"
LITHIUM, GSK3B, MAPT, APP = "MESH:D008094", "NCBIGene:2932", "NCBIGene:4137", "NCBIGene:351"
DONEPEZIL, NAUSEA, DEMENTIA = "MESH:D000077265", "MESH:D009325", "MESH:D003704"
SIMVASTATIN, MOUSE, HUMAN = "MESH:D019821", "NCBITaxon:10090", "NCBITaxon:9606"
GINKGO = "MESH:D020934"
NODES = [
    (AD, "Alzheimer disease", "Disease", ["Alzheimer's disease", "AD"]),
    (T2D, "type 2 diabetes", "Disease", ["T2D"]),
    (HTN, "hypertension", "Disease", []),
    (LITHIUM, "lithium", "Compound", []),
    (GSK3B, "GSK3B", "Gene", ["GSK3-beta"]),
    (MAPT, "tau", "Gene", ["MAPT"]),
    (APP, "APP", "Gene", []),
    (DONEPEZIL, "donepezil", "Compound", []),
    (NAUSEA, "nausea", "Disease", []),
    (DEMENTIA, "dementia", "Disease", []),
    (SIMVASTATIN, "simvastatin", "Compound", []),
    (GINKGO, "Ginkgo biloba", "Compound", []),
]
#: (pmid, title, abstract, {surface: CURIE or None}) — every surface found is a mention.
DOCS = [
    (
        "501",
        "Diabetes and dementia.",
        "Type 2 diabetes increases the risk of Alzheimer's "
        "disease in older adults. Insulin was measured.",
        {"Type 2 diabetes": T2D, "Alzheimer's disease": AD},
    ),
    (
        "502",
        "A cohort study.",
        "People with type 2 diabetes had a higher risk of Alzheimer's disease.",
        {"type 2 diabetes": T2D, "Alzheimer's disease": AD},
    ),
    (
        "503",
        "Blood pressure.",
        "Hypertension did not increase the risk of Alzheimer's disease in this cohort.",
        {"Hypertension": HTN, "Alzheimer's disease": AD},
    ),
    (
        "504",
        "Lithium and tau.",
        "Lithium's GSK3-beta inhibitory effect prevents tau phosphorylation in mice.",
        {"Lithium": LITHIUM, "GSK3-beta": GSK3B, "tau": None},
    ),
    (
        "505",
        "Exercise.",
        "Regular exercise reduced the risk of Alzheimer's disease in a trial.",
        {"Alzheimer's disease": AD},
    ),
    (
        "506",
        "<b>Markup</b> & noise.",
        "<i>type 2 diabetes</i> raises the risk of <b>Alzheimer's "
        "disease</b>. In type 2 diabetes and Alzheimer's disease " + "x " * 3000 + "end.",
        {"type 2 diabetes": T2D, "Alzheimer's disease": AD},
    ),
    # the pair named the other way round, closer together than in any abstract above
    (
        "510",
        "Reverse.",
        "In Alzheimer's disease, risk of type 2 diabetes rises.",
        {"Alzheimer's disease": AD, "type 2 diabetes": T2D},
    ),
    # no fact joins donepezil to anything: its abstract names nausea and the corpus's topic
    (
        "511",
        "Donepezil in Alzheimer's disease.",
        "Donepezil caused nausea in Alzheimer's disease patients with dementia.",
        {"Donepezil": DONEPEZIL, "nausea": NAUSEA, "Alzheimer's disease": AD, "dementia": DEMENTIA},
    ),
    # simvastatin "prevents" AD in one mouse study: "human" there modifies the transgene
    (
        "512",
        "Statins in mice.",
        "Simvastatin prevented Alzheimer's disease pathology in human APP mice.",
        {"Simvastatin": SIMVASTATIN, "Alzheimer's disease": AD, "human": HUMAN, "mice": MOUSE},
    ),
    # a molecular effect read in mice: an animal study states it as well as any
    (
        "513",
        "Statins and APP in mice.",
        "Simvastatin decreased APP levels in mice.",
        {"Simvastatin": SIMVASTATIN, "APP": APP, "mice": MOUSE},
    ),
    # two abstracts state the opposite of "lithium increases APP", one that of
    # "hypertension increases APP"
    (
        "507",
        "Lithium in neurons.",
        "Lithium reduced APP levels in neurons.",
        {"Lithium": LITHIUM, "APP": APP},
    ),
    (
        "508",
        "Lithium in mice.",
        "In mice, lithium decreased APP expression.",
        {"lithium": LITHIUM, "APP": APP},
    ),
    # a trial whose title and aim name the hoped-for effect, and whose finding negates it
    # (GuidAge, PMID 22959217, shortened)
    (
        "514",
        "Ginkgo biloba for the prevention of Alzheimer's disease: a randomised trial.",
        "We aimed to assess efficacy of Ginkgo biloba for the reduction of incidence of "
        "Alzheimer's disease. Long-term use of Ginkgo biloba in this trial did not reduce the "
        "risk of progression to Alzheimer's disease compared with placebo.",
        {"Ginkgo biloba": GINKGO, "Alzheimer's disease": AD},
    ),
    (
        "509",
        "A kinase.",
        "Hypertension reduced APP processing in cells.",
        {"Hypertension": HTN, "APP": APP},
    ),
]


def mentions_of(docs: list[tuple[str, str, str, dict[str, str | None]]]) -> list[Mention]:
    """A mention at every place each (pmid, title, abstract, {surface: CURIE or None}) row's
    surfaces occur in title + " " + abstract, as the annotators write them."""
    out = []
    for pmid, title, abstract, names in docs:
        text = f"{title} {abstract}"
        for surface, cid in names.items():
            for m in re.finditer(re.escape(surface), text):
                out.append(Mention(pmid, m.start(), m.end(), surface, "x", None, cid,
                                   [cid] if cid else []))  # fmt: skip
    return out


def build_sentences_kg(root: Path, kg: str = "sentences") -> SnapshotInfo:
    """Publish the KG's one snapshot (2019) into ``root``: one unrelated fact, the abstracts
    and their mentions."""
    w = Warehouse(root).writer(kg)
    ents = [Entity(i, n, t, [n, *a], 2019) for i, n, t, a in NODES]
    w.add("documents", [Document(p, 2019, t, a) for p, t, a, _ in DOCS])
    w.add("mentions", mentions_of(DOCS))
    # the served sentence gives the snapshot's vocabulary "exercise" (spelling correction)
    said = "APP is associated with AD whatever the exercise."
    edges = [(APP, "associates", AD, [("900", 2019, said, 0.8)])]
    return publish_year(w, 2019, edges, ents)


def publish_abstracts(root: Path, kg: str, docs: list[tuple[str, str, str, dict]],
                      mentions: list[Mention], edges: list, nodes: list) -> None:  # fmt: skip
    """Publish one 2019 snapshot of ``docs`` ((pmid, title, abstract, names) rows), their
    ``mentions``, ``edges`` and ``nodes`` ((id, name, kind, aliases) rows) into ``root``."""
    w = Warehouse(root).writer(kg)
    w.add("documents", [Document(p, 2019, t, a) for p, t, a, _ in docs])
    w.add("mentions", mentions)
    publish_year(w, 2019, edges, [Entity(i, n, t, [n, *a], 2019) for i, n, t, a in nodes])


def question_links(engine, question: str) -> dict[str, str | None]:
    """Each question surface → the CURIE it links to (None: left unlinked)."""
    r = engine.retrieve(question, embed="off")
    return {x.surface: x.curie for x in r.links if x.where == "question"}
