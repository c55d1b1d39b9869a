"""A microRNA's partners are not the microRNAs listed beside it.

A microRNA acts by pairing with the mRNAs of protein-coding genes (miRBase, Kozomara et al.
2019; TargetScan's targets are mRNAs), yet the abstracts that name one list it with a dozen
others profiled together ("miR-9, -15b, -16, -195, -29c, -124 were decreased"): counted by
co-mention, "What are the targets of miR-132?" answered miR-134, miR-370, miR-874. In
BioRED's curated relations (Luo et al. 2022) no microRNA is related to another microRNA
(Train: 22 microRNA concepts, 44 relations, 22 of them with genes, none with a microRNA). So
when the question is about a microRNA and does not ask for microRNAs, none is an answer.
"""

from __future__ import annotations

from typing import Any

from kgbuild.question.kinds import AnswerKind, answer_kinds, kind_nodes
from kgbuild.search.index import SnapshotIndex

KEY = "microrna"


def _kind() -> AnswerKind:
    return next(k for k in answer_kinds() if k.key == KEY)


def about_microrna(index: SnapshotIndex, subject: list[int], phrase: str | None) -> bool:
    """Is the question's subject a microRNA: a linked microRNA node, or an unlinked phrase
    written as one ("miR-124")?"""
    kind = _kind()
    if subject and kind_nodes(index, kind)[subject].any():
        return True
    return bool(phrase) and kind.name is not None and kind.name.search(phrase or "") is not None


def without_micrornas(
    index: SnapshotIndex,
    answers: list[dict[str, Any]],
    subject: list[int],
    phrase: str | None,
    asked: AnswerKind | None,
) -> list[dict[str, Any]]:
    """``answers`` without microRNAs when the subject is one and microRNAs are not asked."""
    if not answers or (asked is not None and asked.key == KEY):
        return answers
    if not about_microrna(index, subject, phrase):
        return answers
    mirna = kind_nodes(index, _kind())
    return [a for a in answers
            if a["id"] not in index.node_of or not mirna[index.node_of[a["id"]]]]  # fmt: skip
