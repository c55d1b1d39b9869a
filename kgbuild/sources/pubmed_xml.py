"""PubMed XML (EFetch ``retmode=xml``, the PubMed DTD) → :class:`PubMedArticle` → SourceRecord.

Kept apart from the E-utilities calls in :mod:`kgbuild.sources.pubmed` so it can be used on
downloaded files too. Structured abstracts keep their section labels ("BACKGROUND: …"), since
they carry meaning for extraction; retraction notices and retracted publications are flagged
and rejected with their reason rather than silently kept or silently dropped.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from kgbuild.errors import SourceError
from kgbuild.sources.record import SourceRecord, finish
from kgbuild.sources.values import normal_pmid
from kgbuild.sources.xml_encoding import utf8_xml

RETRACTION_NOTICE = "retraction notice (PubMed publication type 'Retraction of Publication')"
RETRACTED = "retracted publication"


class EutilsError(SourceError):
    """E-utilities answered a well-formed error (unknown WebEnv, bad query): not retried."""


@dataclass(slots=True)
class PubMedArticle:
    """The fields of one PubmedArticle that kgbuild uses."""

    pmid: str
    title: str = ""
    abstract: str = ""
    year: int | None = None
    journal: str | None = None
    mesh: list[str] = field(default_factory=list)
    publication_types: list[str] = field(default_factory=list)
    is_retraction_notice: bool = False
    is_retracted: bool = False


def parse_pubmed_xml(data: bytes) -> list[PubMedArticle]:
    """The articles of an EFetch ``PubmedArticleSet`` (PubMed DTD). ValueError when the XML is
    malformed or is not an article set; EutilsError when it is E-utilities' ``<ERROR>``."""
    try:
        # an unknown or false encoding name is a ValueError here, never a LookupError
        root = ET.fromstring(utf8_xml(data)[0])
    except ET.ParseError as exc:
        raise ValueError(f"malformed PubMed XML: {exc}") from None
    if root.tag != "PubmedArticleSet":
        error = root.findtext(".//ERROR")
        if error:
            raise EutilsError(f"EFetch error: {error.strip()}", path="efetch.fcgi")
        raise ValueError(f"not a PubmedArticleSet: <{root.tag}>")
    return [_article(el) for el in root.findall("PubmedArticle")]


def _text(el: ET.Element | None) -> str:
    """All text of an element (inline markup such as <i> kept as text), whitespace collapsed."""
    return " ".join("".join(el.itertext()).split()) if el is not None else ""


def _article(el: ET.Element) -> PubMedArticle:
    cit = el.find("MedlineCitation")
    art = cit.find("Article") if cit is not None else None
    if cit is None or art is None:
        return PubMedArticle(pmid=normal_pmid(_text(el.find(".//PMID"))))
    sections = []
    for part in art.findall("Abstract/AbstractText"):
        text, label = _text(part), (part.get("Label") or "").strip()
        label = "" if label.upper() == "UNLABELLED" else label  # PubMed's mark for "no label"
        if text:
            sections.append(f"{label}: {text}" if label else text)
    types = [_text(p) for p in art.findall("PublicationTypeList/PublicationType")]
    refs = cit.findall("CommentsCorrectionsList/CommentsCorrections")
    return PubMedArticle(
        pmid=normal_pmid(_text(cit.find("PMID"))),  # as every reader: 0091000001 is 91000001
        title=_text(art.find("ArticleTitle")) or _text(art.find("VernacularTitle")),
        abstract=" ".join(sections),
        year=_year(art),
        journal=_text(art.find("Journal/Title")) or None,
        mesh=[_text(d) for d in cit.findall("MeshHeadingList/MeshHeading/DescriptorName")],
        publication_types=types,
        is_retraction_notice="Retraction of Publication" in types,
        is_retracted="Retracted Publication" in types
        or any(r.get("RefType") == "RetractionIn" for r in refs),
    )


def _year(art: ET.Element) -> int | None:
    """PubDate/Year, else the first year of PubDate/MedlineDate ("1998 Dec-1999 Jan"), else
    the electronic ArticleDate."""
    for text in (
        art.findtext("Journal/JournalIssue/PubDate/Year"),
        art.findtext("Journal/JournalIssue/PubDate/MedlineDate"),
        art.findtext("ArticleDate/Year"),
    ):
        if found := re.search(r"\b(\d{4})\b", text or ""):
            return int(found.group(1))
    return None


def to_source_record(article: PubMedArticle, record_no: int, source_file: str) -> SourceRecord:
    """One article in kgbuild's record vocabulary; retractions are rejected with the reason."""
    rec = SourceRecord(
        pmid=article.pmid,
        source_file=source_file,
        record_no=record_no,
        line_no=record_no,
        title=article.title,
        abstract=article.abstract,
        year=article.year,
        journal=article.journal,
    )
    if not article.pmid:
        rec.reject_reason = "PubMed record without PMID"
    elif article.is_retraction_notice:
        rec.reject_reason = RETRACTION_NOTICE
    elif article.is_retracted:
        rec.reject_reason = RETRACTED
    return finish(rec)
