"""Text normalization shared by the linker and the index: one function decides when two surface
forms are "the same words", so dictionary keys and question tokens always agree.

Case, punctuation and plurals are normalized (the issue's "case/punctuation/plural-normalized"
dictionary), Greek letters are spelled out ("Aβ" → "abeta", as PubTator's corpus also writes
it), and possessives are dropped ("Alzheimer's disease" = "Alzheimer disease"). Singularization
is a few suffix rules applied the same way to keys and questions, so its mistakes cancel out.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

_GREEK = {
    "α": "alpha",
    "β": "beta",
    "γ": "gamma",
    "δ": "delta",
    "ε": "epsilon",
    "κ": "kappa",
    "λ": "lambda",
    "μ": "mu",
    "τ": "tau",
    "ω": "omega",
}
_TOKEN = re.compile(r"[a-z0-9]+")
_POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")
_WORD_OR_MARK = re.compile(r"[^\W_]+(?:['’][sS]\b)?|[^\w\s]")
#: Punctuation that separates phrases: a mention never spans it (a hyphen does not separate).
_BREAK_CHARS = re.compile(r"[.,;:!?()\[\]{}\"/|<>=+*]")

#: English function words and question boilerplate: never a mention on their own, never the
#: start or end of an unlinked chunk (the words MCQ stems are made of: "which of the following").
_STOPWORD_TEXT = """a about above after again against all also am an and any are as at be because
    been before being below between both but by can could did do does doing down during each
    either few for from further had has have having he her here hers him his how i if in into
    is it its itself
    just me more most my neither no nor not of off on once only or other our out over own same she
    should so some such than that the their them then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you
    your following true false correct incorrect statement statements except best least likely
    usually commonly common seen found given known called cause causes caused due associated
    feature features characteristic characteristics shown show shows one two three four five
    first second third type types patient patients year years old man woman men women male female
    child children history presents presented present examination finding findings diagnosis
    option options answer answers none above below regarding related case cases
    may might must use used using drug drugs treatment treatments mr mrs
    ii iii iv vi vii viii ix"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def fold(text: str) -> str:
    """Lower case, Greek letters spelled out, accents dropped, possessives removed."""
    if text.isascii():  # the common case, without the Unicode passes
        return _POSSESSIVE.sub("", text).lower()
    text = "".join(_GREEK.get(ch, ch) for ch in unicodedata.normalize("NFKC", text))
    text = _POSSESSIVE.sub("", text)
    text = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in text if not unicodedata.combining(ch))


@lru_cache(maxsize=65536)
def singular(token: str) -> str:
    """A plural English noun's singular by suffix rules (tokens of ≥ 4 letters only)."""
    if len(token) < 4 or not token.isalpha():
        return token
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith(("sses", "xes", "ches", "shes")):
        return token[:-2]
    if token.endswith("s") and not token.endswith(("ss", "us", "is", "ys", "as", "os")):
        return token[:-1]
    return token


def tokens(text: str) -> tuple[str, ...]:
    """Normalized tokens of a surface form: the dictionary key of a name."""
    return tuple(singular(t) for t in _TOKEN.findall(fold(text)))


def key(text: str) -> str:
    """One string key for a surface form (tokens joined by spaces)."""
    return " ".join(tokens(text))


@dataclass(frozen=True, slots=True)
class Token:
    """One normalized token of a question, with its span in the original text and whether a
    phrase break (punctuation) precedes it."""

    norm: str
    start: int
    end: int
    brk: bool


def tokenize(text: str) -> list[Token]:
    """Tokens of a question with their original offsets (for reporting surfaces as written).

    Folding can change lengths (``β`` → ``beta``), so words are found in the original text and
    folded one by one; ``Aβ-42`` yields ``abeta`` and ``42``, ``Alzheimer's`` yields
    ``alzheimer``.
    """
    out: list[Token] = []
    brk = True
    for m in _WORD_OR_MARK.finditer(text):
        piece = m.group(0)
        if not piece[0].isalnum():
            brk = brk or bool(_BREAK_CHARS.match(piece))
            continue
        for n in _TOKEN.findall(fold(piece)):
            out.append(Token(singular(n), m.start(), m.end(), brk))
            brk = False
    return out


def is_content(token: str) -> bool:
    """A token that can carry meaning on its own (not a stopword, not a bare number)."""
    return token not in STOPWORDS and not token.isdigit() and len(token) > 1
