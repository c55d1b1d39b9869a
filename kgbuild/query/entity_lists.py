"""The answer letters of a multiple-choice question and the entity lists an LLM writes back.

The question files' formats are read by :mod:`kgbuild.evaluate.adqa`; what the query stage itself
needs of them (the letters a choice is named by, DALK's numbered entity answers) lives here.
"""

from __future__ import annotations

import re
from typing import Any

#: A choice's letter, in order (MedQA has up to five choices, MedMCQA four; ten is the limit).
LETTERS = "ABCDEFGHIJ"

_NUMBERED = re.compile(r"^\s*\d+\s*[.)]\s*(.+?)\s*$")


def parse_entity_list(raw: Any) -> list[str]:
    """DALK's recorded entity answer ("1. Alzheimer's disease\\n2. Delirium") → names.

    Lines without a number are kept too (some answers are bare lists); a "category: name" line
    keeps the name ("symptom: hallucinations" → "hallucinations")."""
    if not raw or not isinstance(raw, str):
        return []
    names = []
    for line in raw.splitlines():
        m = _NUMBERED.match(line)
        name = clean_name(m.group(1) if m else line)
        if name:
            names.append(name)
    return names


def clean_name(text: str) -> str:
    """An entity name as an LLM wrote it, without list marks or a "category:" label."""
    name = str(text).strip().strip("-•*").strip()
    if ":" in name:
        head, _, tail = name.partition(":")
        if tail.strip() and len(head.split()) <= 3:
            name = tail.strip()
    return name
