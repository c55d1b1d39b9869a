"""scispaCy NER as an annotator: spaCy entities → kgbuild Mentions over title + " " + abstract.

Why: PubTator gives normalized IDs, but only for what NCBI has processed; a local NER model
annotates any text offline. Its mentions are *unnormalized* (``concept_id=None``) unless the
UMLS linker is on; grounding and entity resolution then work from the surface forms.

Models (Neumann et al. 2019, "ScispaCy"). scispaCy's trained pipelines are published on S3
only; on a networked machine install one with e.g.
``pip install https://s3-us-west-2.amazonaws.com/ai2-s2-scispacy/releases/v0.5.4/en_ner_bc5cdr_md-0.5.4.tar.gz``
(the PyPI names ``en_core_sci_*``/``en_ner_*`` at version 999.9.9 are name squats: never install
them). ``en_chem_ner`` (PyPI, MIT, CHEMICAL only) installs with
``pip install --no-deps en-chem-ner==0.1.0`` (it declares spacy<3.8 and loads under 3.8 with a
W095 warning, silenced here). ``model="blank"`` is ``spacy.blank("en")``: no NER at all.

Labels map to PubTator type names through ``data/scispacy_labels.tsv`` (CHEMICAL → Chemical,
DISEASE → Disease, GENE_OR_GENE_PRODUCT → Gene, …); a label not in the table, or mapped to '-',
stays its own source type. The Hetionet kind is then ``schema.hetionet_kind(source_type)``
(DALK Table 10), so only Chemical, Disease and Gene mentions can become KG nodes.

Abbreviations (Schwartz & Hearst 2003, scispaCy's AbbreviationDetector, run on the model's own
Doc without changing its pipeline): every occurrence of a defined short form that overlaps no
NER entity becomes an entity with the label of its long form: that of the longest NER entity
ending where the long form ends (noun phrases are head-final; in "lithium carbonate toxicity
(LCT)" the entity "lithium carbonate" does not end there, so LCT gets no Chemical label). Short
forms the NER already labelled keep the NER's label. On BC5CDR dev with en_chem_ner this adds
3.2 points of strict F1; also taking a label from an NER-labelled occurrence of the short form
(and giving it to the long form) lowered it slightly, so it is not done.

Linking (``linker="umls"``): scispaCy's EntityLinker downloads the UMLS KB and its TF-IDF index
(~1 GB) from S3 on first use, so it is unavailable offline; it is constructed only when asked
for, and its best candidate becomes ``UMLS:C…``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from functools import cache
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc, Span

from kgbuild.errors import ConfigError
from kgbuild.records import Document, Mention
from kgbuild.schema import hetionet_kind, read_tsv

SCISPACY_S3 = "https://s3-us-west-2.amazonaws.com/ai2-s2-scispacy/releases/v0.5.4"
_PYPI_MODELS = {"en_chem_ner": "pip install --no-deps en-chem-ner==0.1.0"}
#: scispaCy linker name → CURIE prefix of the IDs it returns.
LINKERS = {"umls": "UMLS", "mesh": "MESH"}
#: Documents per ``nlp.pipe`` batch.
BATCH_SIZE = 32


def install_command(model: str) -> str:
    """How a user installs a spaCy pipeline this module can load."""
    if model in _PYPI_MODELS:
        return _PYPI_MODELS[model]
    if model.startswith(("en_core_sci_", "en_ner_")):
        return f"pip install {SCISPACY_S3}/{model}-0.5.4.tar.gz (needs network; not PyPI)"
    return f"pip install the package that provides the spaCy pipeline {model!r}"


@cache
def label_types() -> dict[str, str]:
    """scispaCy entity label → source type (a PubTator type name, or the label itself)."""
    return {
        r["label"].upper(): r["source_type"] or r["label"] for r in read_tsv("scispacy_labels.tsv")
    }


def source_type(label: str) -> str:
    return label_types().get(label.upper(), label)


def load_pipeline(model: str) -> Language:
    """``spacy.load(model)`` ("blank": an empty English pipeline); ConfigError if missing."""
    import spacy

    if model == "blank":
        return spacy.blank("en")
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r"\[W095\]")  # trained with an older spaCy
            return spacy.load(model)
    except (OSError, ImportError) as exc:
        raise ConfigError(
            f"spaCy model {model!r} is not installed; install it with: {install_command(model)}",
            model=model,
        ) from exc


def make_linker(name: str) -> Any:
    """scispaCy's EntityLinker for a KB; ConfigError when it cannot be loaded (offline)."""
    if name not in LINKERS:
        raise ConfigError("unknown scispaCy linker", linker=name, known=",".join(LINKERS))
    try:
        from scispacy.linking import EntityLinker

        return EntityLinker(resolve_abbreviations=True, linker_name=name)
    except Exception as exc:  # the KB/index download fails in many ways (DNS, HTTP, disk)
        raise ConfigError(
            "scispaCy linker unavailable: it downloads its KB (~1 GB) from S3 on first use",
            linker=name,
            error=type(exc).__name__,
        ) from exc


def long_form_label(long_form: Span, ents: list[Span]) -> str | None:
    """The label of the longest entity ending where the long form ends (the phrase's head)."""
    heads = [e for e in ents if e.end_char == long_form.end_char]
    return max(heads, key=len).label_ if heads else None


def add_abbreviation_entities(doc: Doc, detector: Any) -> list[Span]:
    """Label short forms the NER missed with their long form's label (module docstring)."""
    with warnings.catch_warnings():  # the detector's global matcher is empty until it has
        warnings.filterwarnings("ignore", message=r"\[W036\]")  # found a definition
        detector(doc)
    ents = list(doc.ents)
    taken = {i for e in ents for i in range(e.start, e.end)}
    added: list[Span] = []
    for short in sorted(doc._.abbreviations, key=lambda s: s.start):
        label = long_form_label(short._.long_form, ents)
        tokens = set(range(short.start, short.end))
        if label is None or tokens & taken:
            continue
        added.append(Span(doc, short.start, short.end, label=label))
        taken |= tokens
    if added:
        doc.ents = ents + added
    return added


class SciSpacyAnnotator:
    """Annotates documents with a spaCy/scispaCy NER pipeline (see the module docstring).

    ``nlp`` lets a caller (tests) pass a pipeline it built; ``model`` then only names it in
    ``Mention.annotator`` (``scispacy:<model>``).
    """

    def __init__(
        self,
        model: str = "en_ner_bc5cdr_md",
        abbreviations: bool = True,
        linker: str | None = None,
        nlp: Language | None = None,
    ) -> None:
        self.model = model
        self.annotator = f"scispacy:{model}"
        self.nlp = nlp if nlp is not None else load_pipeline(model)
        self._detector: Any = None
        if abbreviations:
            from scispacy.abbreviation import AbbreviationDetector

            self._detector = AbbreviationDetector(self.nlp)
        self._linker = make_linker(linker) if linker else None
        self._prefix = LINKERS[linker] if linker else None

    def annotate(self, doc: Document) -> list[Mention]:
        """Mentions of one document, offsets into ``doc.text`` (title + " " + abstract)."""
        return self._mentions(doc.pmid, self.nlp(doc.text))

    def annotate_many(
        self, docs: Iterable[Document], batch_size: int = BATCH_SIZE
    ) -> dict[str, list[Mention]]:
        """PMID → mentions for many documents, batched through ``nlp.pipe``."""
        docs = list(docs)
        texts = (d.text for d in docs)
        return {
            d.pmid: self._mentions(d.pmid, sd)
            for d, sd in zip(docs, self.nlp.pipe(texts, batch_size=batch_size), strict=True)
        }

    def _mentions(self, pmid: str, sdoc: Doc) -> list[Mention]:
        if self._detector is not None:
            add_abbreviation_entities(sdoc, self._detector)
        if self._linker is not None:
            self._linker(sdoc)
        out = []
        for ent in sdoc.ents:
            stype = source_type(ent.label_)
            cid = None
            if self._linker is not None and ent._.kb_ents:
                cid = f"{self._prefix}:{ent._.kb_ents[0][0]}"
            out.append(
                Mention(
                    pmid=pmid,
                    start=ent.start_char,
                    end=ent.end_char,
                    text=ent.text,
                    source_type=stype,
                    hetionet_type=hetionet_kind(stype),
                    concept_id=cid,
                    concept_ids=[cid] if cid else [],
                    annotator=self.annotator,
                )
            )
        return out
