"""How often the corpus's annotator tags a short gene-like key as its gene, where the key occurs.

Why: a short capitalized form names a gene in some abstracts and something else in most
("CSF" is cerebrospinal fluid in Alzheimer's abstracts; PubTator tagged it as CSF2 in 7 of the
599 DALK abstracts that write it, "PET" as a gene in 2 of 601). The alias dictionary keeps the
gene, because the tags are all it sees; the text of every abstract says how rare they are. The
measure is the one PubTator's own ambiguity studies use for a surface form — the share of its
occurrences an annotator links to the concept (Wei et al. 2019, *Nucleic Acids Res.*
47:W587, GNormPlus's ambiguous-symbol filter) — counted here per abstract, once per index
build (two queries over the warehouse, ~1 s on DALK), and never per question.

Judged keys: one token of at most :data:`~kgbuild.search.aliases.SHORT_KEY` characters whose
dictionary link came from the annotator's mentions (a vocabulary's own symbol — "APP" is
HGNC's — is never judged), naming a gene, seen as an acronym ("CSF", "PS1"). A key written in
fewer than :data:`MIN_OCCURRENCES` abstracts is not judged (too few to tell); one tagged as its
gene in fewer than :data:`MIN_TAG_SHARE` of them links no more from a question.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import numpy as np

from kgbuild.search.alias_trust import is_acronym
from kgbuild.search.aliases import SEP, SHORT_KEY

#: Least share of the abstracts writing a judged key in which the annotator tagged it as its
#: gene (measured on DALK: CSF 0.012, PET 0.003, CTF 0.026 lose their link; TNF, ER, CD33,
#: PS1 keep it; bench/link_questions.py).
MIN_TAG_SHARE = 0.05
#: Fewest abstracts writing a key for its share to be judged.
MIN_OCCURRENCES = 20
#: Words of an abstract or a mention, as a case-sensitive surface is matched ("TNF-alpha" has
#: the word "TNF").
WORD = re.compile(r"[A-Za-z0-9]+")
#: The same pattern for DuckDB's ``regexp_extract_all``.
WORD_SQL = "[A-Za-z0-9]+"


def judged_forms(aliases: dict[str, Any], ids: list[str]) -> dict[int, tuple[str, ...]]:
    """Alias row → the acronym forms to count, for the keys this module judges."""
    out = {}
    for row, k in enumerate(aliases["key"]):
        if " " in k or len(k) > SHORT_KEY or aliases["source"][row] != "mention":
            continue
        if not ids[int(aliases["node"][row])].startswith("NCBIGene:"):
            continue
        seen = aliases["surfaces"][row]
        forms = tuple(f for f in (seen.split(SEP) if seen else ()) if is_acronym(f))
        if forms:
            out[row] = forms
    return out


def tag_shares(
    aliases: dict[str, Any],
    ids: list[str],
    forms: dict[int, tuple[str, ...]],
    occurs: Iterable[tuple[str, str]],
    tagged: Iterable[tuple[str, str, str]],
) -> np.ndarray:
    """Each alias row's share (1.0: not judged). ``occurs``: (word, pmid) pairs of the
    abstracts' words that are judged forms; ``tagged``: (pmid, concept_id, mention text) of
    the annotator's mentions of judged nodes."""
    where: dict[str, set[str]] = defaultdict(set)
    for word, pmid in occurs:
        where[word].add(pmid)
    tags: dict[tuple[str, str], set[str]] = defaultdict(set)
    for pmid, cid, text in tagged:
        for word in set(WORD.findall(text or "")):
            tags[(word, cid)].add(pmid)
    out = np.ones(len(aliases["key"]), np.float32)
    for row, fs in forms.items():
        cid = ids[int(aliases["node"][row])]
        seen = set().union(*(where.get(f, set()) for f in fs))
        if len(seen) < MIN_OCCURRENCES:
            continue
        hit = set().union(*(tags.get((f, cid), set()) for f in fs)) & seen
        out[row] = len(hit) / len(seen)
    return out


def share_blocked(aliases: dict[str, Any], row: int) -> bool:
    """Whether a key's gene link is too rare in the abstracts that write it (an index built
    before this column: never)."""
    shares = aliases.get("tag_share")
    return shares is not None and len(shares) > row and float(shares[row]) < MIN_TAG_SHARE
