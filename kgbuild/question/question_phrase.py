"""The phrase an open question names that the KG has no entity for ("the MAPK pathway",
"PET tracers", "cell types"), found in the question and sized by the corpus.

PubTator annotates genes, chemicals, diseases, variants, species and cell lines (Wei et al.
2019, PubTator central), not pathways, cell types, procedures or tracer classes; so "What role
does the PI3K/Akt pathway play in AD?" leaves "PI3K", "pathway" and "play" unlinked and links
only "Akt". The phrase is a run of adjacent question words that are neither question words,
stopwords nor relation/answer cues (:mod:`kgbuild.question.intent`), holding a word the
dictionary left unlinked; a linked name inside the run is a modifier of it ("Notch" in "Notch
signaling pathway"). Without a part-of-speech tagger the run may end in a verb ("pathway
play"), so its extent is read from the corpus: of its sub-runs, the longest the snapshot's
abstracts write (words adjacent, in order) in at least :data:`MIN_DOCS` documents — one catalog
query counting every sub-run at once. A run of generic words alone ("role",
:data:`kgbuild.link.generic.GENERIC_WORDS`) names nothing. A run holding a name no abstract
writes (:func:`name_like`: "miR-342-5p", "TTP488"), or headed by one, is the question's subject
as written nowhere: the question is about it, not about a later run the corpus writes ("what
does miR-195 do in alzheimer's models?") nor about its modifier.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kgbuild.corpus.documents import lowered_text
from kgbuild.corpus.stems import stem_regex, word_stems
from kgbuild.corpus.unwritten import name_like
from kgbuild.corpus.unwritten import unwritten as unwritten_words
from kgbuild.link.generic import GENERIC_WORDS
from kgbuild.question.intent import QUESTION_WORDS, Intent
from kgbuild.search.text import STOPWORDS

#: Least documents writing a sub-run for it to be the phrase (else the longest written once).
MIN_DOCS = 3
#: Largest share of the documents a phrase may be written in (a larger one is a common word:
#: on DALK "cell" 0.33, "involved" 0.2; "cell types" 0.01, "MAPK pathway" 0.003).
MAX_SHARE = 0.05
#: Documents a phrase may always be written in (a share of a small corpus says nothing).
MIN_COMMON = 50
#: Longest run read (words): a longer one is a clause, not a name.
MAX_WORDS = 6
#: Function words and pronouns that end a phrase ("will someone with MCI progress" names no
#: "someone"; the index's stopwords also hold content nouns a phrase may need: "cell types",
#: "AD patients").
_FUNCTION = frozenset(
    """a an the of in on at to by for with from into through during
among between within against via and or but nor not no as is are was
were be been being am do does did has have had it its this that
these those their there here than then so such any all each both either neither
some about over under after before while when where which what who whom whose why
how if whether also very can could may might must shall should will would
someone somebody anyone anybody everyone everybody something anything people person
you your we our they them i me my""".split()  # noqa: SIM905
)
#: Light verbs and fillers of everyday English ("make neurons hyperactive", "mess up synapses"):
#: rare in a small evidence index only because scientific prose avoids them, never what a
#: question is about, nor part of a phrase naming it ("the risks of giving antipsychotics":
#: antipsychotics) (from spaCy's English stop list, ``spacy.lang.en.stop_words``).
LIGHT_VERBS = frozenset({
    "make", "makes", "made", "making", "get", "gets", "got", "getting", "take", "takes", "took",
    "taken", "give", "gives", "gave", "given", "giving", "become", "becomes", "became", "show",
    "shows", "showed", "shown", "seem", "seems", "seemed", "keep", "keeps", "kept", "put", "puts",
    "go", "goes", "went", "gone", "come", "comes", "came", "mess", "messes", "turn", "turns",
    "bring", "brings", "let", "lets", "use", "uses", "used", "using", "happen", "happens",
    "really", "actually", "whole", "part", "well", "mostly", "stuff", "thing", "things", "kind",
    "sort",
})  # fmt: skip
#: Relative pronouns joining an answer noun to its verb ("drugs that slow …").
_RELATIVE = frozenset({"that", "which", "who"})
#: The verb "be": a word right after it, when the wh-phrase before it names the answer, is
#: said of the answer ("Which chemicals are bad for AD?"), not a name.
_COPULA = frozenset({"is", "are", "was", "were", "be", "been", "being"})
#: A question word: letters/digits, joined by "/" or "-" ("PI3K/Akt", "Abeta-induced").
_TOKEN = re.compile(r"[\w'’]+(?:[/-][\w'’]+)*")
_WH_WORD = re.compile(r"\b(?:which|what|list|name|identify|find|give|show)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Phrase:
    """A phrase of the question: its text, span and word stems (in order)."""

    text: str
    start: int
    end: int
    stems: tuple[str, ...]

    def pattern(self, sql: bool = False) -> str:
        """A regex finding the phrase's words adjacent and in order in lower-cased text
        (``sql``: RE2 syntax, without look-behind, for DuckDB)."""
        body = r"[^a-z0-9]{1,3}".join(stem_regex(s) for s in self.stems)
        if self.stems and self.stems[-1][-1:].isdigit():  # "miR-29" is not "miR-299"
            body += r"(?:[^a-z0-9]|$)" if sql else r"(?![0-9])"
        return rf"(^|[^a-z0-9]){body}" if sql else rf"(?<![a-z0-9]){body}"


def shorter(phrase: Phrase) -> list[Phrase]:
    """The phrase without its trailing generic words, one at a time ("Notch signaling
    pathway" → "Notch signaling" → "Notch"): a generic head adds little to what the
    abstracts name, and they often drop it."""
    out: list[Phrase] = []
    words = list(re.finditer(r"[A-Za-z0-9]+", phrase.text))
    while len(words) > 1 and words[-1].group(0).lower().rstrip("s") in _GENERIC_STEMS:
        words.pop()
        text = phrase.text[: words[-1].end()]
        out.append(Phrase(text, phrase.start, phrase.start + len(text), word_stems(text)))
    return out


_GENERIC_STEMS = frozenset(w.rstrip("s") for w in GENERIC_WORDS)


def _described(question: str, intent: Intent) -> list[tuple[int, int]]:
    """The spans that describe the answer: the intent's cues and qualifiers, and the words from
    the wh-word to an answer or kind cue heading its phrase ("What CSF biomarkers", "Which
    FDA-approved drugs") — unless a verb comes between ("What role does the PI3K/Akt
    pathway": the cue is in the clause's subject, and only its own words are). The
    wh-phrases are those spans that open with a wh-word."""
    return _spans(question, intent)[0]


def _spans(question: str, intent: Intent) -> tuple[list[tuple[int, int]], list[int]]:
    """(:func:`_described`'s spans, the ends of the wh-phrases among them)."""
    heads: list[int] = []
    out = [(c.start, c.end) for c in intent.cues]
    # a qualifier narrows the answers (data/question_qualifiers.toml: "early-onset", "CSF"),
    # read in their sentences; it names nothing the question is about
    out += [m.span() for q in intent.qualifiers for m in q.cue.finditer(question)]
    for c in intent.cues:
        if c.kind not in ("answer", "kind"):
            continue
        wh = None
        for m in _WH_WORD.finditer(question, 0, c.start):
            wh = m
        if wh is None:
            # a typed or wrapped query's answer noun heads it ("drugs that slow …", "Are
            # there any microRNAs that …"); a how-question's cue is no noun
            if not c.text.lower().startswith("how"):
                heads.append(c.end)
            continue
        between = re.findall(r"[\w'’-]+", question[wh.end() : c.start].lower())
        if not any(w in QUESTION_WORDS for w in between):
            out.append((wh.start(), c.end))
            heads.append(c.end)
    return out, heads


def runs(question: str, linked: Sequence[tuple[int, int]], intent: Intent
         ) -> list[list[tuple[int, int, bool]]]:  # fmt: skip
    """Runs of adjacent content words of ``question`` outside what describes the answer:
    (start, end, unlinked) per word; a run names something (:func:`_names`)."""
    cues, heads = _spans(question, intent)
    asked = [c.end for c in intent.cues if c.kind in ("answer", "kind")]
    out: list[list[tuple[int, int, bool]]] = []
    cur: list[tuple[int, int, bool]] = []
    prev: tuple[int, int, str] | None = None
    before: tuple[int, int, str] | None = None  # the word before ``prev``
    predicate = verb = False
    for m in _TOKEN.finditer(question):
        a, b, w = m.start(), m.end(), m.group(0).lower()
        in_cue = any(x < b and a < y for x, y in cues)
        stop = w in QUESTION_WORDS or w in _FUNCTION or w in LIGHT_VERBS or in_cue
        gap = question[prev[1] : a] if prev else " "
        if stop or (cur and gap.strip()):
            # "Which proteins make up the γ-secretase complex": words right after the asked
            # kind, up to an article or preposition, are the question's verb, not a name
            closed_by_function = stop and not in_cue and w in _FUNCTION and not gap.strip()
            out.append([] if predicate or (verb and closed_by_function) else cur)
            cur = []
        if not stop:
            if not cur:  # "Which chemicals are bad for AD": after the answer's verb, a predicate
                predicate = bool(prev and prev[2] in _COPULA and any(e <= prev[0] for e in asked)
                                 and not any(x <= prev[0] < y for x, y in cues))  # fmt: skip
                # … or right after it and a relative pronoun ("drugs that slow …")
                verb = bool(
                    prev
                    and not gap.strip()
                    and (
                        prev[1] in heads
                        or (prev[2] in _RELATIVE and before is not None and before[1] in heads)
                    )
                )
            inside = any(x <= a and b <= y for x, y in linked)
            cur.append((a, b, not inside))
        before, prev = prev, (a, b, w)
    out.append([] if predicate else cur)
    return [r[:MAX_WORDS] for r in out if r and _names(question, r)]


def _names(question: str, run: list[tuple[int, int, bool]]) -> bool:
    """Does a run name something: an unlinked word that is no stopword ("AD patients" names
    AD only), and a word that is neither generic nor a stopword ("role" names nothing)?"""
    words = [(question[a:b].lower(), u) for a, b, u in run]
    return any(u and w not in STOPWORDS for w, u in words) and any(
        w not in GENERIC_WORDS and w not in STOPWORDS for w, _ in words
    )


def candidates(question: str, run: list[tuple[int, int, bool]],
               linked: Sequence[tuple[int, int]] = ()) -> list[Phrase]:  # fmt: skip
    """The sub-runs of ``run`` that may be the phrase: holding an unlinked word, not generic
    words alone, longest first."""
    out = []
    for n in range(len(run), 0, -1):
        for i in range(len(run) - n + 1):
            part = run[i : i + n]
            a, b = part[0][0], part[-1][1]
            # a noun phrase ends in its head: one ending in a linked name is about that entity
            # ("target GSK3B"); nor may a part cut a linked name in two
            if (
                not part[-1][2]
                or not _names(question, part)
                or any(x < b and a < y and not (a <= x and y <= b) for x, y in linked)
            ):
                continue
            # a linked name inside is a modifier of a generic head only ("Notch signaling
            # pathway"); "tenofovir disoproxil fumarate" is tenofovir, which the facts answer
            if not all(u for _, _, u in part) and any(
                u and question[x:y].lower().rstrip("s") not in _GENERIC_STEMS for x, y, u in part
            ):
                continue
            stems = word_stems(question[a:b])
            if stems:
                out.append(Phrase(question[a:b], a, b, stems))
    return out


def doc_counts(wh: Any, snapshot_id: str, phrases: list[Phrase],
               as_of: int | None) -> tuple[list[int], int]:  # fmt: skip
    """How many of the snapshot's documents write each phrase, and how many there are (one
    catalog query)."""
    if not phrases:
        return [], 0
    cols = ", ".join(f"count_if(regexp_matches(t, $p{i}))" for i in range(len(phrases)))
    sql = (f"SELECT count(*), {cols} FROM (SELECT {lowered_text('')} AS t FROM documents_at($sid) "
           "WHERE $asof IS NULL OR year <= $asof)")  # fmt: skip
    named: dict[str, Any] = {"sid": snapshot_id, "asof": as_of}
    named |= {f"p{i}": p.pattern(sql=True) for i, p in enumerate(phrases)}
    rows = wh.query(sql, named)
    row = rows[0] if rows else None
    if not row:
        return [0] * len(phrases), 0
    return [int(x or 0) for x in row[1:]], int(row[0] or 0)


def pick(phrases: list[Phrase], counts: list[int], most: float) -> Phrase | None:
    """The longest phrase written in :data:`MIN_DOCS` to ``most`` documents (more documents
    first among equally long ones), else the longest written at all up to ``most``, else
    None."""
    for least in (MIN_DOCS, 1):
        pairs = enumerate(zip(phrases, counts, strict=True))
        ok = [(len(p.stems), c, -i, p) for i, (p, c) in pairs if least <= c <= most]
        if ok:
            return max(ok, key=lambda x: x[:3])[3]
    return None


def question_phrase(wh: Any, snapshot_id: str, question: str,
                    linked: Sequence[tuple[int, int]], intent: Intent,
                    as_of: int | None = None) -> tuple[Phrase | None, Phrase | None]:  # fmt: skip
    """(the phrase of the question's first run as the corpus writes it, or None; the run's
    longest form when no document writes any form of it, or None). A phrase written in more
    than :data:`MAX_SHARE` of the documents is a common word of the field ("involved",
    "brain", "cell"), not a name of something: neither is returned."""
    unwritten = None
    # the first run that names something the corpus writes: "What is the molecular target of
    # PBT2": "molecular" is a common word of the field, the drug's name is the phrase
    for run in runs(question, linked, intent):
        cands = candidates(question, run, linked)
        if not cands:
            continue
        counts, n_docs = doc_counts(wh, snapshot_id, cands, as_of)
        a, b, u = run[-1]
        ending = [(p, c) for p, c in zip(cands, counts, strict=True) if p.end == b]
        if (
            unwritten is None
            and u
            and ending
            and not any(c for _, c in ending)
            and name_like(question[a:b])
            and unwritten_words(wh, snapshot_id, [question[a:b]], as_of)[1]
        ):
            # "what does neuronal miR-342-5p do": the run's head is a name no abstract
            # writes; "neuronal", its modifier, is not what the question is about
            return None, ending[0][0]
        if not any(counts):
            names = [question[a:b] for a, b, u in run if u and name_like(question[a:b])]
            if (
                unwritten is None
                and names
                and len(unwritten_words(wh, snapshot_id, names, as_of)[1]) == len(names)
            ):
                # "what does miR-195 do in alzheimer's models?": a name no abstract writes is
                # what the question is about, not a later run the corpus writes
                return None, cands[0]
            unwritten = unwritten or cands[0]
            continue
        most = max(MAX_SHARE * n_docs, MIN_COMMON)
        # a subject phrase opens its run ("MAPK pathway involved"): prefixes first
        heads = [(p, c) for p, c in zip(cands, counts, strict=True) if p.start == run[0][0]]
        got = pick([p for p, _ in heads], [c for _, c in heads], most) or pick(cands, counts, most)
        if got is not None:
            return got, None
    return None, unwritten
