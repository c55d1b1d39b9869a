"""Lexical checks a similarity match must pass: a close string or vector is not the same concept.

Why: string similarity (rapidfuzz) and embeddings score names by how much they share, and the
words that change what a name denotes are short: "Abeta1-42" vs "Abeta1-40", "GluN2B" vs
"GluN2A", "apoA-I KO" vs "apoA-I", "mitochondrial function" vs "mitochondrial dysfunction",
"5-HT4 receptor agonist" vs "5-HT4 receptor", "microglia" vs "dysfunctional microglia". A precision
audit of the replayed DALK build found each of these merged by the fuzzy, embedding or
cluster step. Entity linkers guard the same way (scispaCy's linker keeps abbreviation and number
checks outside the vector score): a candidate is kept only when no rule below says otherwise.

Rules (:func:`incompatible` returns the first that fires):

1. **numbers** — the numbers in the two names, and letters glued to them ("2a", "5p", "ht4"),
   must be the same: IL-6 is not IL-6R's neighbour 6R, CA1 is not CA3;
2. **perturbation** — a word that turns a concept into another (knockout, deficiency,
   inhibitor, antagonist, agonist, antibody, siRNA, negation…) in one name but not the other;
3. **antonym prefix** — a word of one name is a word of the other with a prefix that reverses
   it (dys-, de-, in-, un-, non-, anti-) or hypo-/hyper- swapped;
4. **semantic steps only** (embedding, cluster): unless both have the same content words in
   another order ("tau hyperphosphorylation"), the name must not be a strict part of the
   candidate that adds a content word (a component of a longer concept: "myelin" vs "myelin
   damage"; "human" or "levels" add none), the head nouns must share a stem (the head noun
   names the concept: "synaptic loss" is not "visual memory"), two modifiers must share a
   word ("synaptic failure" is not "heart failure"), and a disease suffix (-osis,
   -itis, -emia, -pathy) must be on both or neither ("amyloid" vs "amyloidosis").
"""

from __future__ import annotations

import re
from functools import lru_cache

from kgbuild.names import norm

#: Words that make a name denote something else than the concept it contains.
PERTURBATIONS = frozenset({
    "ko", "knockout", "knockouts", "deficient", "deficiency", "deficiencies", "null",
    "inhibitor", "inhibitors", "antagonist", "antagonists", "agonist", "agonists",
    "antibody", "antibodies", "blocker", "blockers", "knockdown", "sirna", "shrna", "deletion",
    "lacking", "no", "not", "non", "without", "anti", "absence", "loss",
})  # fmt: skip
_ANTONYM_PREFIXES = ("dys", "de", "in", "im", "un", "non", "anti", "dis")
_DISEASE_SUFFIX = re.compile(r"(osis|oses|itis|emia|aemia|pathy|pathie|pathies)$")
#: Words too generic to be a name's head noun; the head is the last word not among them.
_GENERIC = frozenset({
    "the", "of", "in", "on", "by", "to", "and", "for", "with", "a", "an", "patients", "patient",
    "level", "levels", "human", "mice", "mouse", "rat", "rats", "brain", "brains",
})  # fmt: skip
_NUMBER = re.compile(r"([a-z]{0,2})(\d+)([a-z]{0,2})(?![a-z])")
_STOP = frozenset({"the", "of", "in", "on", "by", "to", "and", "for", "with", "a", "an", "at"})
#: Shortest common prefix for two head words to count as one stem.
STEM = 5


@lru_cache(maxsize=1 << 16)
def _words(name: str) -> tuple[str, ...]:
    return tuple(norm(name).split())


def _numbers(name: str) -> list[tuple[str, str, str]]:
    """Each number with the short letter runs glued to it, in a canonical order; a letter run
    glued to a longer word ("abeta1") is not an affix; a short word just before a bare number
    is ("IL 6" reads as "IL6", "BV 2" as "BV2")."""
    out = []
    words = _words(name)
    for i, w in enumerate(words):
        for m in _NUMBER.finditer(w):
            before = w[: m.start(2)]
            pre = m.group(1) if len(before) <= 2 else ""
            if not before and i and len(words[i - 1]) <= 2 and words[i - 1].isalpha():
                pre = words[i - 1]
            out.append((pre, m.group(2), m.group(3)))
    return sorted(out)


def _singular(w: str) -> str:
    if len(w) <= 3 or not w.endswith("s") or w.endswith(("ss", "is", "us")):
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    return w[:-1]


#: Prepositions that end a noun phrase's head ("activation of caspase 9", "dementia with Lewy
#: bodies" are an activation and a dementia).
_HEAD_END = ("of", "with", "in", "from", "by", "for")


def _head(words: tuple[str, ...]) -> str:
    """The head noun: the last content word, before a preposition when there is one."""
    cut = next((i for i, w in enumerate(words) if i and w in _HEAD_END), None)
    if cut is not None:
        words = words[:cut]
    content = [w for w in words if w not in _GENERIC and not w.isdigit()]
    return _singular(content[-1]) if content else ""


def _same_stem(a: str, b: str) -> bool:
    if a == b:
        return True
    k = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        k += 1
    return k >= min(STEM, len(a), len(b)) and (k >= STEM or a.startswith(b) or b.startswith(a))


def _antonyms(a: set[str], b: set[str]) -> str | None:
    for x in a:
        for y in b:
            for p in _ANTONYM_PREFIXES:
                if (x == p + y or y == p + x) and min(len(x), len(y)) >= 4:
                    return f"{x}/{y}"
            if x[:4] in ("hypo", "hype") and y[:4] in ("hypo", "hype") and x[:5] != y[:5]:
                rx, ry = x[5 if x[4:5] == "r" else 4 :], y[5 if y[4:5] == "r" else 4 :]
                if rx and rx == ry:
                    return f"{x}/{y}"
    return None


def incompatible(name: str, form: str, semantic: bool = False) -> str | None:
    """Why ``name`` cannot be ``form``'s concept (see the module docstring), or None."""
    a, b = _words(name), _words(form)
    if a == b:
        return None
    if _numbers(name) != _numbers(form):
        return "numbers differ"
    sa, sb = {_singular(w) for w in a}, {_singular(w) for w in b}
    pert = (sa ^ sb) & PERTURBATIONS
    if pert:
        return f"perturbation word {sorted(pert)[0]!r}"
    why = _antonyms(sa - sb, sb - sa)
    if why:
        return f"antonym prefix ({why})"
    if not semantic:
        return None
    ca, cb = sa - _STOP, sb - _STOP
    if ca == cb:  # the same words in another order: "tau hyperphosphorylation"
        return None
    if ca < cb and cb - ca - _GENERIC:
        return "name is a part of a longer concept"
    ha, hb = _head(a), _head(b)
    if ha and hb and not _same_stem(ha, hb):
        return f"head words differ ({ha}/{hb})"
    ma, mb = ca - _GENERIC - {ha}, cb - _GENERIC - {hb}
    if ma and mb and not any(_same_stem(x, y) for x in ma for y in mb):
        return "modifiers differ"  # "synaptic failure" is not "heart failure"
    if bool(_DISEASE_SUFFIX.search(ha)) != bool(_DISEASE_SUFFIX.search(hb)):
        return "disease suffix on one name only"
    return None


#: Words that describe *what is wrong* rather than *what* ("deficits", "syndrome"): two disease
#: names that share only these share nothing ("axonal transport deficits", "memory deficits").
_DISEASE_WORDS = frozenset({
    "disease", "diseases", "disorder", "disorders", "syndrome", "syndromes", "deficit",
    "deficits", "dysfunction", "dysfunctions", "impairment", "impairments", "impaired", "loss",
    "abnormality", "abnormalities", "damage", "injury", "injuries", "induced", "type", "related",
    "associated", "symptom", "symptoms", "condition", "conditions", "lesion", "lesions",
    "failure", "defect", "defects", "decline", "change", "changes", "acute", "chronic", "severe",
    "mild", "state", "states", "dysfunctional", "abnormal", "problem", "problems", "degeneration",
    "degenerations",
})  # fmt: skip


def _content(form: str) -> list[str]:
    return [
        _singular(w)
        for w in form.split()
        if w not in _STOP and w not in _DISEASE_WORDS and len(w) > 2 and not w.isdigit()
    ]


def _initials(form: str) -> str:
    return "".join(w[0] for w in form.split() if w not in _STOP)


def only_says_something_is_wrong(form: str) -> bool:
    """Whether a normalized disease form has no word but words for *something wrong*
    ("dysfunction", "deficits", "disease"): it names no particular disorder."""
    words = [w for w in form.split() if w not in _STOP]
    return bool(words) and all(w in _DISEASE_WORDS for w in words)


def _stem_match(a: str, b: str) -> bool:
    """Two content words of one concept: a shared stem or one inside the other — unless only one
    has a disease suffix ("neurites" is no "neuritis", "amyloid" no "amyloidosis")."""
    if bool(_DISEASE_SUFFIX.search(a)) != bool(_DISEASE_SUFFIX.search(b)):
        return False
    return _same_stem(a, b) or (len(b) >= 5 and b in a) or (len(a) >= 5 and a in b)


def names_something_else(
    form: str, known: frozenset[str] | set[str], abbreviation: bool | None = None
) -> bool:
    """Whether a disease surface form shares nothing with any name a reference gives its ID.

    ``form`` and ``known`` are normalized (:func:`kgbuild.names.norm`). Related means: one
    contains the other (spaces aside: "sch23390"), one is the other's initials ("amd"), a short
    known form is one of the form's words ("familial ad"), or two content words share a stem
    (:data:`STEM`) or contain each other ("bioflavonoid"/"flavonoid"). Words that say what is
    wrong (:data:`_DISEASE_WORDS`) do not count: "memory deficits" is not "birth defects" and
    "axonal transport deficits" is not Menkes Kinky Hair Syndrome. A form with no content word
    ("dysfunction") or an abbreviation cannot be judged this way: False. ``abbreviation`` says
    whether the form was written as one (the caller has the case: "fits" is a word, "AD" is
    not); by default a single word of up to 6 characters is taken for one.
    """
    words = _content(form)
    if abbreviation is None:
        abbreviation = len(form.replace(" ", "")) <= 6 and " " not in form
    if not words or form in known or abbreviation:
        return False
    flat = form.replace(" ", "")
    for k in known:
        k_flat = k.replace(" ", "")
        if len(k_flat) >= 4 and (k_flat in flat or flat in k_flat):
            return False
        if len(k) <= 5 and (k in form.split() or k == _initials(form)):
            return False
        if len(flat) >= 2 and _initials(k) == flat:
            return False
        if any(_stem_match(a, b) for a in words for b in _content(k)):
            return False
    return True
