"""The two entities of a fact marked in its evidence sentence: «APOE» … «APP».

The query index keeps each (triple, PMID)'s best sentence but not the mention offsets, so the
spans are found again the way the linker finds names in a question: the sentence's normalized
tokens (case, Greek letters, possessives and plurals folded: "Alzheimer disease" finds
"Alzheimer's disease", "Abeta" finds "Aβ") against the node's keys in the snapshot's alias
dictionary (``kgbuild.search.aliases``: every surface form PubTator linked to it, its name and
display name), never across punctuation; the longest match wins, then the first. One token
lookup per n-gram, no regex per alias: Alzheimer's disease has about a thousand. A long
sentence is cut around the spans (:func:`excerpt`), so a terminal line
shows what states the fact. Callers escape the result for where it is shown (rich markup,
HTML): a sentence is untrusted text from an abstract.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from kgbuild.search.aliases import SEP, SHORT_KEY, display_parts
from kgbuild.search.index import SnapshotIndex
from kgbuild.search.text import key, tokenize

OPEN, CLOSE = "«", "»"
#: Answers whose facts' sentences are marked (the ten shown; the rest keep plain sentences).
SHOWN_ANSWERS = 10
#: Characters of context kept around the marked spans when a sentence is cut.
CONTEXT_CHARS = 70

#: Longest sentence read (characters): a run-on "sentence" of a hostile abstract is skipped.
MAX_SENTENCE = 2000


@dataclass(frozen=True, slots=True)
class Forms:
    """A node's names as dictionary keys (normalized token sequences, as the linker matches
    them), each with the surface spellings kept for short keys."""

    keys: dict[str, frozenset[str]]
    longest: int  # tokens
    firsts: frozenset[str] = frozenset()  # the keys' first tokens: most words start none

    @classmethod
    def of(cls, names: list[str], surfaces: dict[str, frozenset[str]] | None = None) -> Forms:
        keys = dict(surfaces or {})
        for n in names:
            k = key(n)
            if k:
                keys.setdefault(k, frozenset())
        longest = max((k.count(" ") + 1 for k in keys), default=0)
        return cls(keys, longest, frozenset(k.split(" ", 1)[0] for k in keys))


def node_forms(index: SnapshotIndex, node: int) -> Forms:
    """The keys a node may appear as in a sentence: its name, display name and its parts, and
    every alias key of the snapshot's dictionary that names it."""
    a = index.aliases
    rows = np.flatnonzero(np.asarray(a["node"]) == node)
    surfaces = {a["key"][r]: frozenset((a["surfaces"][r] or "").split(SEP)) - {""}
                for r in rows.tolist()}  # fmt: skip
    display = index.nodes["display"][node]
    return Forms.of([index.nodes["name"][node], display, *display_parts(display)], surfaces)


def find_span(sentence: str, forms: Forms | list[str],
              avoid: tuple[int, int] | None = None) -> tuple[int, int] | None:  # fmt: skip
    """The longest occurrence of one of the forms (the first of equals), not overlapping
    ``avoid``: the sentence's normalized tokens matched against the keys, never across
    punctuation — case, Greek letters, possessives and plurals as the linker folds them. A key
    of one short token (≤ 4 characters: "AD", "APP") must match one of its kept spellings or be
    written with a capital, as the linker requires."""
    if not isinstance(forms, Forms):
        forms = Forms.of(forms)
    toks = tokenize(sentence)
    best: tuple[int, int, int] | None = None  # (tokens, start, end)
    for i in range(len(toks)):
        if toks[i].norm not in forms.firsts:
            continue
        for n in range(min(forms.longest, len(toks) - i), 0, -1):
            if best is not None and n <= best[0]:
                break
            if n > 1 and any(t.brk for t in toks[i + 1 : i + n]):
                continue
            k = " ".join(t.norm for t in toks[i : i + n])
            if k not in forms.keys:
                continue
            start, end = toks[i].start, toks[i + n - 1].end
            if avoid is not None and start < avoid[1] and end > avoid[0]:
                continue
            if not _accept(k, sentence[start:end], forms.keys[k]):
                continue
            best = (n, start, end)
            break
    return None if best is None else (best[1], best[2])


def _accept(k: str, surface: str, spellings: frozenset[str]) -> bool:
    if " " in k or len(k) > SHORT_KEY:
        return True
    surface = re.sub(r"['’][sS]$", "", surface)
    return surface in spellings or any(ch.isupper() for ch in surface)


def mark(sentence: str, spans: list[tuple[int, int]]) -> str:
    """The sentence with each span wrapped in «»."""
    out, last = [], 0
    for a, b in sorted(spans):
        out += [sentence[last:a], OPEN, sentence[a:b], CLOSE]
        last = b
    out.append(sentence[last:])
    return "".join(out)


def disjoint_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` sorted, without repeats and without any that overlaps an earlier one: what
    :func:`excerpt` marks when a sentence's names share characters ("tau" inside "tau PET")."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(set(spans)):
        if not out or a >= out[-1][1]:
            out.append((a, b))
    return out


def excerpt(sentence: str, spans: list[tuple[int, int]], width: int = 240) -> str:
    """The marked sentence, cut to about ``width`` characters around its spans ("…" where
    cut)."""
    text = mark(sentence, spans)
    if len(text) <= width:
        return text
    if not spans:
        return text[: width - 1].rstrip() + "…"
    # the spans' positions in the marked text (each mark adds one character)
    m = [(a + 2 * i, b + 2 * i + 2) for i, (a, b) in enumerate(sorted(spans))]
    lo, hi = max(0, m[0][0] - CONTEXT_CHARS), min(len(text), m[-1][1] + CONTEXT_CHARS)
    if hi - lo > width:  # spans far apart: each with a little context
        near = CONTEXT_CHARS // 2
        (a1, b1), (a2, b2) = m[0], m[-1]
        lo, hi = _word_start(text, max(0, a1 - near)), _word_end(text, min(len(text), b2 + near))
        if a2 - near > b1 + near:
            left = text[lo : _word_end(text, b1 + near)].rstrip()
            right = text[_word_start(text, a2 - near) : hi].lstrip()
            middle = left + " … " + right
        else:  # one long span: its start and end
            middle = text[lo:hi]
    else:
        lo, hi = _word_start(text, lo), _word_end(text, hi)
        middle = text[lo:hi]
    return ("…" if lo > 0 else "") + middle.strip() + ("…" if hi < len(text) else "")


def _word_start(text: str, i: int) -> int:
    """``i`` moved forward to the start of a word (not past a mark), so a cut never shows half
    a word."""
    if i <= 0 or text[i - 1].isspace():
        return max(i, 0)
    j = i
    while j < len(text) and not text[j].isspace() and text[j] != OPEN:
        j += 1
    return j if j - i <= 20 else i


def _word_end(text: str, i: int) -> int:
    """``i`` moved back to the end of a word (not before a mark)."""
    if i >= len(text) or text[i].isspace():
        return min(i, len(text))
    j = i
    while j > 0 and not text[j - 1].isspace() and text[j - 1] != CLOSE:
        j -= 1
    return j if i - j <= 20 else i


def annotate(index: SnapshotIndex, rdict: dict[str, Any], status: str = "asserted") -> None:
    """Mark the entity spans in every evidence sentence of a retrieval's JSON (its triples,
    its answers' facts, its verdict's facts), in place: each evidence gains ``marked``,
    ``excerpt``, ``head_span``, ``tail_span`` and ``status`` (the row's, from the index;
    ``status`` when the index predates it: served evidence is asserted, not refuted)."""
    forms: dict[int, Forms] = {}

    def forms_of(curie: str) -> Forms:
        node = index.node_of.get(curie)
        if node is None:
            return Forms({}, 0)
        if node not in forms:
            forms[node] = node_forms(index, node)
        return forms[node]

    facts = list(rdict.get("triples") or [])
    for a in (rdict.get("answers") or [])[:SHOWN_ANSWERS]:
        facts += a.get("facts") or []
    if rdict.get("verdict"):
        facts += rdict["verdict"].get("facts") or []
    for t in facts:
        hf, tf = forms_of(t["head_id"]), forms_of(t["tail_id"])
        for ev in t.get("evidence") or []:
            s = ev["sentence"]
            hs = find_span(s, hf)
            ts = find_span(s, tf, hs)
            spans = [x for x in (hs, ts) if x is not None]
            ev.update(head_span=list(hs) if hs else None, tail_span=list(ts) if ts else None,
                      marked=mark(s, spans), excerpt=excerpt(s, spans),
                      status=ev.get("status") or status)  # fmt: skip
    for a in (rdict.get("answers") or [])[:SHOWN_ANSWERS]:  # its shown sentence, as its fact's
        first = next((ev for f in a.get("facts") or [] for ev in f.get("evidence") or []), None)
        if first is not None and "excerpt" in first:
            a["excerpt"] = first["excerpt"]
