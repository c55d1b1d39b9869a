"""ADQA question files in their four source formats, read into one record.

DALK's ADQA keeps each subset in its source data set's format (DALK §4.1; its
``dataset_utils.py`` reads them the same way):

- **MedQA**: ``{id, question, choices: [...], answer: [text of the right choice]}``;
- **MedMCQA**: ``{id, question, opa, opb, opc, opd, cop}`` (``cop``: 0-based index);
- **MMLU**: ``{question, choices, answer}`` with ``choices`` a list or a Python-list string and
  ``answer`` a 0-based index (int or digit string) — or a letter;
- **QA4MRE**: ``{question_str, answer_options: {answer_id: [...], answer_str: [...]},
  correct_answer_id, document_str}`` (``correct_answer_id`` matches an ``answer_id``, 1-based).

A file is a JSON array or JSON Lines. Items may carry DALK's recorded question entities
(``entity``: a numbered list, the ``*_ner.json`` files), which the evaluation compares with its
own linking. An item that fits no format, or whose answer is not one of its choices, stops the
read with its file and position: nothing is skipped silently.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbuild.errors import InputError
from kgbuild.query.entity_lists import LETTERS, parse_entity_list

#: Largest question file read (bytes): ADQA's are ~200 KB; MMLU/QA4MRE dumps with background
#: documents stay far below this.
MAX_FILE_BYTES = 256 * 1024 * 1024


@dataclass(slots=True)
class Question:
    """One multiple-choice question, whatever its source format."""

    subset: str
    qid: str
    question: str
    choices: list[str]
    answer: int  # 0-based index of the right choice
    fmt: str
    recorded_entities: list[str] = field(default_factory=list)

    @property
    def letter(self) -> str:
        return LETTERS[self.answer]


def subset_name(path: Path) -> str:
    """``medqa_filter.json`` → ``medqa``: the file name up to its first ``_`` or ``.``."""
    return re.split(r"[_.]", path.name, maxsplit=1)[0].lower() or path.stem


def read_questions(path: Path, subset: str | None = None) -> list[Question]:
    """Every question of one file (JSON array or JSON Lines), in file order."""
    path = Path(path)
    if not path.is_file():
        raise InputError("no such question file", path=path)
    if path.stat().st_size > MAX_FILE_BYTES:
        raise InputError("question file too large", path=path, limit_bytes=MAX_FILE_BYTES)
    text = path.read_text(encoding="utf-8-sig")
    items = _items(text, path)
    name = subset or subset_name(path)
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise InputError("question item is not a JSON object", path=path, item=i)
        try:
            out.append(parse_item(item, name, i))
        except (KeyError, ValueError, TypeError, IndexError) as exc:
            raise InputError(f"unreadable question: {exc}", path=path, item=i) from exc
    if not out:
        raise InputError("no questions in file", path=path)
    return out


def _items(text: str, path: Path) -> list[Any]:
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON: {exc.msg} at line {exc.lineno}", path=path) from exc
        return list(data)
    items = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                items.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InputError(f"not valid JSON Lines: {exc.msg}", path=path, line=n) from exc
    return items


def parse_item(item: dict[str, Any], subset: str, pos: int) -> Question:
    """One item in any of the four formats (told apart by their keys)."""
    recorded = parse_entity_list(item.get("entity"))
    if "question_str" in item and "answer_options" in item:  # QA4MRE
        opts = item["answer_options"]
        ids = [str(x) for x in opts["answer_id"]]
        choices = [str(x) for x in opts["answer_str"]]
        answer = ids.index(str(item["correct_answer_id"]))
        qid = str(item.get("question_id") or item.get("id") or pos)
        return _checked(subset, qid, item["question_str"], choices, answer, "qa4mre", recorded)
    if "opa" in item and "cop" in item:  # MedMCQA
        choices = [str(item[k]) for k in ("opa", "opb", "opc", "opd") if item.get(k) is not None]
        answer = int(item["cop"])
        if answer not in range(len(choices)):  # some dumps count 1..4
            answer -= 1
        return _checked(
            subset, str(item.get("id", pos)), item["question"], choices, answer, "medmcqa", recorded
        )
    if "question" in item and "choices" in item and "answer" in item:
        choices = item["choices"]
        if isinstance(choices, str):  # MMLU dumps: "['A', 'B', ...]"
            choices = ast.literal_eval(choices)
        choices = [str(c) for c in choices]
        ans = item["answer"]
        if isinstance(ans, list):  # MedQA: the right choice's text
            fmt, answer = "medqa", choices.index(str(ans[0]))
        else:
            fmt, answer = "mmlu", _index(ans, choices)
        qid = str(item.get("id", item.get("question_id", pos)))
        return _checked(subset, qid, item["question"], choices, answer, fmt, recorded)
    raise ValueError("not MedQA, MedMCQA, MMLU or QA4MRE (see kgbuild eval adqa --help)")


def _index(ans: Any, choices: list[str]) -> int:
    text = str(ans).strip()
    if text.isascii() and text.isdigit() and len(text) <= 9:  # not "²", not 5,000 digits
        return int(text)
    if len(text) == 1 and text.upper() in LETTERS:
        return LETTERS.index(text.upper())
    return choices.index(text)


def _checked(
    subset: str,
    qid: str,
    question: Any,
    choices: list[str],
    answer: int,
    fmt: str,
    recorded: list[str],
) -> Question:
    if not isinstance(question, str) or not question.strip():
        raise ValueError("empty question")
    if not 2 <= len(choices) <= len(LETTERS):
        raise ValueError(f"{len(choices)} choices")
    if answer not in range(len(choices)):
        raise ValueError(f"answer index {answer} is not a choice")
    return Question(subset, qid, question, choices, answer, fmt, recorded)
