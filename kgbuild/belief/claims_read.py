"""A small claim reader: does a sentence, as written, state a signed claim between two mentions?

Used by :mod:`kgbuild.belief.conflicts` to read every sentence of a snapshot's abstracts where
two concepts are mentioned. The extractors type a pair per abstract and cite the sentence
holding the pair's closest mentions, so the cited sentence often does not say what the type
says ("N-acetyl-cysteine, a scavenger of ROS, inhibited the neurotoxic effect" cited as *ROS
lowers neurotoxicity*); two sides read off such rows mostly do not disagree. This reader ignores the
extractor's type and reads the sentence itself, and reads it only where the words between (and
around) the two mentions fit one of a few explicit templates — the rule-based indicator-word
approach to relation polarity (verb cues between two named entities, a fixed set of
constructions; SemRep-style indicator rules), deliberately narrow: a template that does not
fire costs a listed conflict, a template that fires wrongly lists a false one.

Measured on BioRED gold (``bench/claim_reader_gold.py``; tuned on Train, Dev held out): the
sign it reads agrees with the curators' Positive/Negative_Correlation on 131/131 Train and
25/25 Dev (pair, sentence) units it reads, but it reads only ~3–4% of the sentences holding a
signed pair.

The sentence is cut into three lower-cased, whitespace-collapsed pieces around the mentions
(``@1`` the first in the text, ``@2`` the second): ``pre`` (before @1), ``mid`` (between),
``post`` (after @2). A :class:`Template` is a regex that ``mid`` must match whole, plus checks
on ``pre`` and ``post``:

- active ``X [aux/adverbs] VERB [the|levels of|Z-induced|…] [list items and] Y`` — "X
  significantly reduced the levels of Y", "X reduced IL-1, IL-6 and Y" (VERB a raise cue:
  increases, induces, promotes…; or a lower cue: reduces, inhibits, prevents…; a list item is
  one to three words, never a verb in -ed/-ing: "X reduced A, increased B and Y" is not read);
- ``X-induced Y`` ("cocaine-induced seizures": X causes Y), ``Y induced by X``;
- passive ``Y [levels] was [adverbs] VERBed by X`` — the subject is the second mention;
- nominal ``X-induced increase (of|in) Y``, ``X resulted in a decrease in Y``;
- correlation ``X was positively/negatively correlated with Y``, ``X is associated with
  increased/reduced Y``, ``a positive/negative correlation between X and Y`` (symmetric);
- roles as nouns: ``X, a potent inhibitor of Y``, ``the Y inhibitor X`` (X lowers Y), ``X, an
  agonist of Y``, ``X is a major risk factor for Y`` (X raises Y); ``X-treated mice showed
  reduced Y``, ``X resulted in increased Y``; ``X and Y were positively correlated``;
- association ``X was associated with Y``, ``a significant correlation between X and Y``
  (unsigned, symmetric: only a denial can contradict it);
- denials ``X did not (affect|alter|increase|reduce…) Y``, ``Y was not affected by X``,
  ``X had no effect on Y``, ``Y was unaffected by X``, ``no effect of X on Y``, ``no change in
  Y was observed after X``, ``X reduced A without affecting Y`` (of an effect, oriented) and
  ``X was not associated with Y``, ``no association between X and Y``, ``X and Y were not
  correlated`` (of any association, symmetric). Group comparisons ("did
  not differ between X+ and X- groups", "compared with") fit no template.

Checks around the mentions: the text before the subject must not make it the object of a
preposition or a compound ("scavenger of X", "inhibition of X", "anti-X"; "levels of X" is
allowed; "in patients with full-blown X": a preposition, then a closed list of modifiers;
"on Z-induced X"), nor put the sentence in a question ("whether", "to investigate"); the
text after the object must end the clause or continue with a whitelisted measure noun ("Y levels",
"Y production") or a preposition/conjunction — never "-induced", "toxicity", "degradation",
"'s" (then Y is not what changes). The text after a passive agent likewise ("by X treatment").

Every pattern is one regex string that DuckDB (RE2: no lookaround, no backreferences) and
Python's ``re`` (with ``re.ASCII``, as RE2's ``\\w``/``\\b``/``\\s`` are ASCII) read the same
way: :func:`read_claim` applies them in Python (the gold measurement, ``bench/
claim_reader_gold.py``, runs the very same strings on BioRED), :func:`template_sql` in SQL (the
``conflicts`` view). The first template that matches decides; the order of :data:`TEMPLATES`
is part of the reader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

Span = tuple[int, int]
#: What a read claim says of (subject, object): ``up``/``down`` a signed effect or correlation,
#: ``assoc`` an unsigned association; ``deny_up``/``deny_down``/``deny_any`` a denial of an
#: increase, a decrease or any effect; ``deny_assoc`` a denial of any association.
Polarity = Literal["up", "down", "assoc", "deny_up", "deny_down", "deny_any", "deny_assoc"]
AFFIRM = ("up", "down", "assoc")
DENY = ("deny_up", "deny_down", "deny_any", "deny_assoc")
#: Which affirmations each denial contradicts ("X did not increase Y" says nothing against "X
#: reduces Y"; "X is not associated with Y" contradicts any claim about the two).
CONTRADICTS: dict[str, tuple[str, ...]] = {
    "deny_up": ("up",),
    "deny_down": ("down",),
    "deny_any": ("up", "down"),
    "deny_assoc": ("up", "down", "assoc"),
}


def _verbs(*words: str, forms: str = "finite") -> str:
    """A regex alternation of the forms of ``words`` (base forms; ``down-?regulate`` style
    regex pieces allowed): ``finite`` — base, 3rd person, past (increase|increases|increased);
    ``base``; ``past`` (the participle)."""
    out = []
    for w in words:
        if w.endswith("e"):
            stem, ends = w[:-1], {"finite": "e|es|ed", "base": "e", "past": "ed"}[forms]
        elif w.endswith("y"):
            stem, ends = w[:-1], {"finite": "y|ies|ied", "base": "y", "past": "ied"}[forms]
        elif w.endswith(("ss", "sh")):
            stem, ends = w, {"finite": "|es|ed", "base": "", "past": "ed"}[forms]
        else:
            stem, ends = w, {"finite": "|s|ed", "base": "", "past": "ed"}[forms]
        out.append(f"{stem}(?:{ends})")
    return "(?:" + "|".join(out) + ")"


#: Raise cues: the subject makes the object go up, or causes it (a disease).
RAISE = (
    "increase", "enhance", "induce", "promote", "up-?regulate", "elevate", "exacerbate",
    "aggravate", "augment", "potentiate", "stimulate", "activate", "accelerate", "worsen",
    "raise", "boost", "trigger", "cause", "amplify", "facilitate",
)  # fmt: skip
#: Lower cues: the subject makes the object go down, or prevents or treats it.
LOWER = (
    "reduce", "decrease", "inhibit", "suppress", "attenuate", "down-?regulate", "prevent",
    "block", "lower", "diminish", "abolish", "abrogate", "ameliorate", "alleviate", "mitigate",
    "counteract", "antagonize", "deplete", "inactivate",
)  # fmt: skip
#: Verbs a denial may deny besides the cues: any effect.
AFFECT = ("affect", "alter", "change", "influence", "modify", "modulate", "impact", "regulate")

_S = "[ ]+"  # one gap between words (the pieces are whitespace-collapsed)
#: Auxiliaries, modals and adverbs allowed between the subject and an affirmative verb.
AUX = (
    r"(?:(?:has|have|had|is|are|was|were|be|been|can|could|will|would|did|does|do|also|further"
    r"|both|then|thereby|therefore|thus|in turn|not only|[a-z]+ly|[a-z]+-dependently"
    r"|(?:was|were|is|are|has been|have been|had been) (?:shown|found|reported|demonstrated"
    r"|observed|known|suggested|thought|believed) to|(?:appears?|appeared|seems?|seemed"
    r"|tends?|tended) to|to)[ ]+)*"
)
#: Adverbs allowed inside a denial (a closed list: "not only" must not read as a denial).
NEG_ADV = (
    r"(?:(?:significantly|markedly|substantially|further|appreciably|measurably|directly"
    r"|consistently|statistically|detectably)[ ]+)*"
)
#: Nouns after the subject that keep it the agent: "X treatment reduced Y".
SUBJ_NOUN = (
    r"(?:treatment|administration|supplementation|exposure|overexpression|over-expression"
    r"|infusion|injection|application|pretreatment|pre-treatment|alone|therapy|intake|itself)"
)
#: An abbreviation in brackets right after a mention: "amyloid-beta (abeta) increases".
ABBREV = r"(?:[ ]*\([^() ,;:]{1,20}\))?"
#: Measure nouns of the object: "Y levels", "the levels of Y" (what changes is still Y).
OBJ_NOUN = (
    r"(?:levels?|expression|production|secretion|release|accumulation|deposition|aggregation"
    r"|formation|generation|synthesis|content|burden|load|concentrations?|mrna|protein"
    r"|plaques|deposits|risk|incidence|activity|activities|growth|symptoms|pathology)"
)
#: Words between the verb and the object ("reduced the serum levels of Y").
FILL = (
    r"(?:(?:the|a|an|its|their|both|significant|marked|severe|serum|plasma|brain|cerebral"
    r"|hippocampal|cortical|neuronal"
    r"|intracellular|extracellular|cellular|soluble|insoluble|total|mrna|protein|gene"
    r"|(?:risk|incidence|severity|progression|development|onset|symptoms|number) (?:of|for)"
    rf"|{OBJ_NOUN} of|[^ ]+-(?:induced|mediated|evoked|triggered|elicited))[ ]+)*"
)
#: Words that may follow the object (or a passive agent) and leave it what changes.
CONT = (
    r"(?:in|at|via|through|by|from|to|on|during|after|with|without|as|among|within|while"
    r"|whereas|but|which|that|when|both|under|compared|than|following|upon|for|over)\b"
)
#: A conjunct after the object ("Y and Z"): at most three words, then the clause ends or a
#: place/manner phrase follows (not "to", "for": "Y and Z degradation to increase…" is a
#: compound whose head is not Y).
_CONJ = (
    r"[ ]+(?:and|or)[ ]+(?:[^ ,.;:]+[ ]+){0,2}[^ ,.;:]+(?:[ ]*|[ ]*[,.;:)\]].*|[ ]+(?:in|at"
    r"|via|through|by|from|during|after|with|without|among|within|while|whereas|but|which"
    r"|when|under|compared|following|upon)\b.*)"
)
_END = rf"(?:[ ]*|[ ]*[,.;:)\]].*|[ ]+\([^()]*\).*|[ ]+{CONT}.*|{_CONJ})"
#: ``post`` after an object: the clause ends, or a measure noun / preposition follows.
OBJ_POST = rf"(?:{_END}|[ ]+{OBJ_NOUN}(?:[ ]+{OBJ_NOUN})?{_END})"
#: ``post`` after a passive agent: "by X", "by X treatment", "by X in mice".
AGENT_POST = rf"(?:{_END}|[ ]+{SUBJ_NOUN}{_END})"
#: ``pre`` that makes the first mention not a free subject/object: the end of a preposition
#: or a compound ("scavenger of X", "treatment with X", "anti-X", "and X").
#: Words that may stand between a preposition and the mention it governs ("in patients with
#: full-blown X", "scavenger of the X"): determiners, hyphenated modifiers and a few
#: adjectives — a closed list, so "In this study X" or "In addition X" stay free.
_MODIFIER = (
    r"(?:the|a|an|its|their|these|those|[^ ,;:()]*-[^ ,;:()]*|early|late|mild|moderate|severe"
    r"|human|murine|mouse|rat|endogenous|exogenous|soluble|oligomeric|fibrillar|total|serum"
    r"|plasma|brain|cerebral|high|low|elevated|increased|decreased|reduced|chronic|acute)"
)
PRE_BLOCK = (
    r"(?:.*[^ (\[])|(?:.*[^a-z-])?(?:of|by|with|to|for|on|in|into|against|from|than|between"
    r"|among|versus|vs\.?|and|or|nor|without|via|through|after|before|during|like|as|plus"
    r"|but|including|unlike|except|per|not|no|anti|non|[a-z]+ing)[ ]+"
    rf"(?:{_MODIFIER}[ ]+){{0,2}}"
    r"|(?:.*[^a-z])?[^ ]+-(?:induced|mediated|evoked|triggered|elicited|treated|exposed"
    r"|stimulated|injected)[ ]+"
    r"|(?:.*[^a-z-])?(?:deletion|knockdown|knockout|loss|inhibition|blockade|deficiency|silencing"
    r"|depletion|absence|lack|inhibitors?|antagonists?|blockers?|scavengers?|ablation"
    r"|suppression|down-?regulation|reduction|removal|mutations?|variants?|polymorphisms?|carriers?)"
    r"[ ]+(?:of|in)[ ]+(?:[^ ]+[ ]+){0,3}"
)
#: ``pre`` allowed although it ends in a preposition: the mention is what is given ("injection
#: of X causes Y", "treatment with X reduced Y": X is still the agent).
PRE_AGENT = (
    r"(?:.*[^a-z-])?(?:(?:injection|administration|infusion|application|addition|intake|use"
    r"|consumption|supplementation|co-?administration|delivery) of|(?:treatment|supplementation"
    r"|pretreatment|incubation) with|exposure to)[ ]+(?:the[ ]+)?"
)
#: ``pre`` allowed although it ends in "of": the measure of the mention ("levels of X").
PRE_MEASURE = rf"(?:.*[^a-z-])?(?:{OBJ_NOUN}|amount|amounts|number) of[ ]+(?:the[ ]+)?"
#: A sentence that asks or plans rather than states (checked on ``pre``).
PRE_QUESTION = (
    r".*\b(?:whether|if|hypothes[a-z]*|investigat[a-z]*|examin[a-z]*|explor[a-z]*"
    r"|determine|evaluat[a-z]*|assess[a-z]*|to test|unknown|unclear|aim[a-z]*|sought"
    r"|question[a-z]*|predict[a-z]*)\b.*"
)

_RAISE_F, _LOWER_F = _verbs(*RAISE), _verbs(*LOWER)
_RAISE_P, _LOWER_P = _verbs(*RAISE, forms="past"), _verbs(*LOWER, forms="past")
_ANY_B = _verbs(*RAISE, *LOWER, *AFFECT, forms="base")
_ANY_P = _verbs(*RAISE, *LOWER, *AFFECT, forms="past")
_RAISE_N = (
    r"(?:increases?|elevation|up-?regulation|enhancement|rise|overproduction|activation"
    r"|induction)"
)
_LOWER_N = (
    r"(?:decreases?|reduction|loss|down-?regulation|inhibition|suppression|decline|depletion)"
)
_BE = r"(?:is|are|was|were|be|been|being|has been|have been|had been|could be|can be|may be)"
_NOT = (
    r"(?:(?:did|does|do|could|can|would|was|were|is|are)[ ]+not|didn't|doesn't|don't"
    r"|couldn't|cannot|can not|failed to|fails to|fail to|(?:was|were) not able to"
    r"|(?:was|were|is|are) unable to)"
)
_SUBJ = rf"{ABBREV}(?:[ ]+{SUBJ_NOUN})?"
_ADJ = (
    r"(?:(?:a|an|significant|marked|dramatic|substantial|dose-dependent|strong|further|great"
    r"|robust|slight|modest|rapid|pronounced|[0-9.]+%|[0-9.]+-fold)[ ]+)*"
)
_BETWEEN_PRE = r"(?:[a-z]+ ){0,3}"


#: Longest text between the mentions read (a claim stated between two mentions is short: the
#: templates' fillers are a few words); a cheap first cut.
MAX_MID = 100


def _stem(word: str) -> str:
    """The part of a cue verb every one of its forms holds ("increas" of increase)."""
    return word[:-1] if word.endswith(("e", "y")) else word


#: A word every template's ``mid`` holds (a verb stem, "associated", "correlated"…), or the
#: bare "[(abbrev)] and" of the "between X and Y" templates: one partial-match regex, a
#: superset of what the templates read, tried before them. Pure speed: read over every pair of
#: mentions of a document, it drops ~95% of them with one RE2 scan instead of one full match per
#: template (:func:`worth_reading` applies it too, so the gold measurement counts any read it
#: would drop).
CUE = (
    "(?:"
    + "|".join(sorted({_stem(w) for w in (*RAISE, *LOWER, *AFFECT)}))
    + "|associat|correlat|linked|relat|lead|led|contribut|protect|evok|elicit|mediat|driv"
    + r"|result|produc|effect|influenc|impact|action|antagonist|agonist|risk"
    + r"|^[ ]*(?:\([^()]*\)[ ]*)?(?:and|on|upon) |observed|found|detected|seen"
    + r"|^[ ]*(?:\([^()]*\)[ ]*)?(?:[a-z]+[ ]+)?(?:after|following|upon) )"
)


@dataclass(frozen=True, slots=True)
class Template:
    """One construction: ``mid`` (full match of the text between the mentions), the
    ``polarity`` it reads, which mention is the ``subject`` (1: the first in the text), whether
    the claim is ``symmetric`` (a correlation, an association), ``pre`` (a full match the text
    before the first mention must be; None: :data:`PRE_BLOCK` must not match it, unless
    :data:`PRE_MEASURE` does), ``post`` (a full match of the text after the second) and
    ``gate`` (:data:`GATES`: a word ``mid`` must hold — pure speed, tried once for a group of
    templates before their full matches)."""

    name: str
    polarity: Polarity
    subject: Literal[1, 2]
    mid: str
    symmetric: bool = False
    pre: str | None = None
    post: str = OBJ_POST
    gate: str | None = None


#: A word of a list that is not a verb in -ed or -ing (so "reduced A, increased B and Y" is
#: not read as reducing Y).
_ITEM_WORD = r"(?:[^ ,;:]*(?:[^ ,;:dg]|[^ ,;:e]d|[^ ,;:n]g)|[^ ,;:])"
#: The items before the object in a list: "reduced a, b and Y", "reduced a and Y" (one to
#: three words an item; the verb governs every item).
_ITEM = rf"(?:{_ITEM_WORD}[ ]+){{0,2}}{_ITEM_WORD}"
LIST = rf"(?:{_ITEM}(?:,[ ]*{_ITEM})*,?[ ]+(?:and|or)[ ]+)?"


#: A relative clause on the subject: "X, which reduces Y" (X is still what acts).
_WHICH = r"(?:[ ]*,[ ]+which)?"


def _active(name: str, polarity: Polarity, verbs: str) -> Template:
    """``X [aux] VERB [(and|or) VERB] [fill] [list items and] Y``: two verbs of one direction
    may be joined; the object may be the last item of a list the verb governs."""
    two = rf"{verbs}(?:[ ]+(?:and|or|and/or)[ ]+{verbs})?"
    return Template(name, polarity, 1, rf"{_SUBJ}{_WHICH}[ ]+{AUX}{two}[ ]+{FILL}{LIST}{FILL}")


def _passive(name: str, polarity: Polarity, verbs: str) -> Template:
    return Template(
        name, polarity, 2, rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+{_BE}[ ]+{AUX}{verbs}[ ]+by[ ]+{FILL}",
        post=AGENT_POST,
    )  # fmt: skip


def _pair_pre(words: str) -> str:
    """``pre`` ending in "<words> between [the levels of]" (a claim about "X and Y")."""
    return rf"(?:.*[^a-z-])?{words}between[ ]+{FILL}"


_AND = rf"{ABBREV}[ ]+and[ ]+{FILL}"
#: "X-treated mice showed …": the animals or cells given X, then what they showed.
_TREATED = (
    r"-(?:treated|exposed|fed|injected)[ ]+(?:[a-z0-9/-]+[ ]+)?(?:mice|rats|animals|cells"
    r"|neurons|cultures|astrocytes|microglia)[ ]+(?:showed|exhibited|had|displayed"
    r"|demonstrated|presented)[ ]+"
)
_GERUND = (
    r"(?:affecting|altering|changing|modifying|influencing|increasing|decreasing|reducing"
    r"|inhibiting|enhancing)"
)
_CORR = r"(?:correlation|association|relationship|relation|link)s?"
_FOUND = r"(?:(?:was|were|is|are|has been|have been)[ ]+)?(?:(?:found|observed|detected|seen|shown|noted)[ ]+)?"  # noqa: E501

#: Adjectives before a role noun ("a potent and selective inhibitor of").
_ROLE_ADJ = (
    r"(?:(?:potent|selective|specific|novel|known|irreversible|reversible|competitive"
    r"|non-?competitive|natural|direct|endogenous|powerful|strong|putative|small-molecule|oral"
    r"|brain-penetrant|major|important|independent|significant|well-known|well-established"
    r"|modifiable|genetic|main|key|primary|established|strongest|greatest|most|and)[ ]+)*"
)
_INHIBITOR = r"(?:inhibitors?|antagonists?|blockers?|suppressors?)"
_ACTIVATOR = r"(?:activators?|agonists?|inducers?|enhancers?|stimulators?|potentiators?)"
#: ``pre`` of "the Y inhibitor X": Y (the first mention, the target) is a free word ("the",
#: a bracket, a space before it), not glued to another ("anti-Y").
NAME_PRE = r"(?:.*[ (\[])?"
#: ``post`` of a named compound ("the Y inhibitor X"): X is not glued to more ("X-treated").
NAME_POST = r"(?:[ ]*|[ ]*[,.;:()\]].*|[ ]+.*)"
#: How a correlation stated after the pair ends: the clause ends, or a place/manner phrase
#: follows — never "with Z" (then each was compared with Z, not with the other).
_PAIR_END = (
    r"(?:[ ]+(?:with|to)[ ]+each[ ]+other)?(?:[ ]*|[ ]*[,.;:(].*|[ ]+(?:in|among|at|after"
    r"|during|when|while|whereas|but|across)\b.*)"
)

#: The templates, in the order they are tried (the first that matches decides).
TEMPLATES: tuple[Template, ...] = (
    # denials first: "did not increase" must not read as "increase"
    Template("deny_effect", "deny_any", 1,
             rf"{_SUBJ}[ ]+{_NOT}[ ]+{NEG_ADV}{_verbs(*AFFECT, forms='base')}[ ]+{FILL}"),
    Template("deny_raise", "deny_up", 1,
             rf"{_SUBJ}[ ]+{_NOT}[ ]+{NEG_ADV}{_verbs(*RAISE, forms='base')}[ ]+{FILL}"),
    Template("deny_lower", "deny_down", 1,
             rf"{_SUBJ}[ ]+{_NOT}[ ]+{NEG_ADV}{_verbs(*LOWER, forms='base')}[ ]+{FILL}"),
    Template("deny_passive", "deny_any", 2,
             rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+(?:is|are|was|were)[ ]+not[ ]+{NEG_ADV}"
             rf"{_ANY_P}[ ]+by[ ]+{FILL}", post=AGENT_POST),
    Template("deny_no_effect", "deny_any", 1,
             rf"{_SUBJ}[ ]+(?:had|has|have|showed|exerted|produced|exhibited)[ ]+no[ ]+"
             r"(?:(?:significant|measurable|detectable|appreciable|apparent|obvious)[ ]+)?"
             rf"(?:effects?|influence|impact|action)[ ]+(?:on|upon)[ ]+{FILL}"),
    Template("deny_association", "deny_assoc", 1,
             rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+(?:(?:is|are|was|were)[ ]+not|(?:did|does|do)"
             rf"[ ]+not[ ]+(?:correlate|associate))[ ]+{NEG_ADV}"
             rf"(?:(?:associated|correlated|linked|related)[ ]+)?(?:with|to)[ ]+{FILL}",
             symmetric=True),
    Template("deny_association_no", "deny_assoc", 1,
             rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+(?:showed|had|has|have|displayed)[ ]+no[ ]+"
             rf"(?:significant[ ]+)?{_CORR}[ ]+(?:with|to)[ ]+{FILL}", symmetric=True),
    Template("deny_association_between", "deny_assoc", 1, _AND, symmetric=True,
             pre=_pair_pre(rf"\bno[ ]+(?:(?:significant|statistically significant|clear|direct"
                           rf"|obvious)[ ]+)?{_CORR}[ ]+{_FOUND}")),
    # signed correlations (symmetric)
    Template("correlated_positive", "up", 1,
             rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+(?:(?:is|are|was|were)[ ]+{AUX}positively[ ]+"
             rf"(?:correlated|associated)|{AUX}correlated[ ]+positively)[ ]+with[ ]+{FILL}",
             symmetric=True),
    Template("correlated_negative", "down", 1,
             rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+(?:(?:is|are|was|were)[ ]+{AUX}(?:negatively"
             r"|inversely)[ ]+(?:correlated|associated)|{AUX}correlated[ ]+(?:negatively"
             rf"|inversely))[ ]+with[ ]+{FILL}", symmetric=True),
    Template("correlation_positive_between", "up", 1, _AND, symmetric=True,
             pre=_pair_pre(rf"\ban?[ ]+{_BETWEEN_PRE}positive[ ]+{_CORR}[ ]+{_FOUND}")),
    Template("correlation_negative_between", "down", 1, _AND, symmetric=True,
             pre=_pair_pre(rf"\ban?[ ]+{_BETWEEN_PRE}(?:negative|inverse)[ ]+{_CORR}[ ]+"
                           rf"{_FOUND}")),
    Template("associated_increased", "up", 1,
             rf"{_SUBJ}[ ]+{AUX}(?:associated|correlated|linked)[ ]+with[ ]+{_ADJ}(?:increased"
             rf"|higher|elevated|greater|enhanced)[ ]+{FILL}", symmetric=True),
    Template("associated_decreased", "down", 1,
             rf"{_SUBJ}[ ]+{AUX}(?:associated|correlated|linked)[ ]+with[ ]+{_ADJ}(?:decreased"
             rf"|reduced|lower|diminished)[ ]+{FILL}", symmetric=True),
    # effects
    _active("active_raise", "up", _RAISE_F),
    _active("active_lower", "down", _LOWER_F),
    Template("leads_to", "up", 1, rf"{_SUBJ}[ ]+{AUX}(?:leads?|led|contributes?|contributed)"
             rf"[ ]+to[ ]+{FILL}"),
    Template("protects_against", "down", 1,
             rf"{_SUBJ}[ ]+{AUX}(?:protects?|protected)[ ]+against[ ]+{FILL}"),
    _passive("passive_raise", "up", _RAISE_P),
    _passive("passive_lower", "down", _LOWER_P),
    Template("induced_compound", "up", 1,
             rf"{ABBREV}(?:-|[ ]+)(?:induced|evoked|triggered|caused|elicited)[ ]+{FILL}"),
    Template("induced_by", "up", 2,
             rf"{ABBREV}[ ]+(?:induced|caused|triggered|evoked|elicited)[ ]+by[ ]+{FILL}",
             post=AGENT_POST),
    Template("induced_increase", "up", 1,
             rf"(?:-|[ ]+)(?:induced|mediated|evoked|triggered|caused|driven|elicited)[ ]+"
             rf"{_RAISE_N}[ ]+(?:of|in)[ ]+{FILL}"),
    Template("induced_decrease", "down", 1,
             rf"(?:-|[ ]+)(?:induced|mediated|evoked|triggered|caused|driven|elicited)[ ]+"
             rf"{_LOWER_N}[ ]+(?:of|in)[ ]+{FILL}"),
    Template("resulted_in_higher", "up", 1,
             rf"{_SUBJ}[ ]+{AUX}(?:resulted[ ]+in|led[ ]+to)[ ]+{_ADJ}(?:increased|higher"
             rf"|elevated|enhanced)[ ]+{FILL}"),
    Template("resulted_in_lower", "down", 1,
             rf"{_SUBJ}[ ]+{AUX}(?:resulted[ ]+in|led[ ]+to)[ ]+{_ADJ}(?:decreased|reduced"
             rf"|lower|diminished|attenuated)[ ]+{FILL}"),
    Template("treated_showed_higher", "up", 1,
             rf"{_TREATED}{_ADJ}(?:increased|higher|elevated|enhanced)[ ]+{FILL}"),
    Template("treated_showed_lower", "down", 1,
             rf"{_TREATED}{_ADJ}(?:decreased|reduced|lower|diminished|attenuated)[ ]+{FILL}"),
    Template("resulted_in_increase", "up", 1,
             rf"{_SUBJ}[ ]+{AUX}(?:resulted[ ]+in|led[ ]+to|caused|induced|produced|elicited)"
             rf"[ ]+{_ADJ}{_RAISE_N}[ ]+(?:of|in)[ ]+{FILL}"),
    Template("resulted_in_decrease", "down", 1,
             rf"{_SUBJ}[ ]+{AUX}(?:resulted[ ]+in|led[ ]+to|caused|induced|produced|elicited)"
             rf"[ ]+{_ADJ}{_LOWER_N}[ ]+(?:of|in)[ ]+{FILL}"),
    # a role stated as a noun: "X, a potent inhibitor of Y", "the Y inhibitor X", "X is a
    # risk factor for Y"
    Template("inhibitor_of", "down", 1,
             rf"{ABBREV}[ ]*,[ ]+(?:an?|the)[ ]+{_ROLE_ADJ}{_INHIBITOR}[ ]+of[ ]+{FILL}"),
    Template("activator_of", "up", 1,
             rf"{ABBREV}[ ]*,[ ]+(?:an?|the)[ ]+{_ROLE_ADJ}{_ACTIVATOR}[ ]+of[ ]+{FILL}"),
    Template("named_inhibitor", "down", 2,
             rf"{ABBREV}[ ]+{_ROLE_ADJ}{_INHIBITOR}[ ]*,?[ ]+", pre=NAME_PRE, post=NAME_POST),
    Template("risk_factor", "up", 1,
             rf"{_SUBJ}[ ]+{AUX}(?:is|are|was|were|has been|have been|remains|represents"
             rf"|constitutes)[ ]+(?:an?|the)[ ]+{_ROLE_ADJ}risk[ ]+factors?[ ]+(?:for|of)[ ]+"
             rf"{FILL}"),
    # correlations stated after the pair: "X and Y were (not) correlated"
    Template("and_not_correlated", "deny_assoc", 1, rf"{ABBREV}[ ]+and[ ]+", symmetric=True,
             post=rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+(?:were|was|are|is)[ ]+not[ ]+{NEG_ADV}"
                  rf"(?:correlated|associated|related){_PAIR_END}"),
    Template("and_correlated_positive", "up", 1, rf"{ABBREV}[ ]+and[ ]+", symmetric=True,
             post=rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+(?:were|was|are|is)[ ]+{AUX}positively[ ]+"
                  rf"(?:correlated|associated){_PAIR_END}"),
    Template("and_correlated_negative", "down", 1, rf"{ABBREV}[ ]+and[ ]+", symmetric=True,
             post=rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+(?:were|was|are|is)[ ]+{AUX}(?:negatively"
                  rf"|inversely)[ ]+(?:correlated|associated){_PAIR_END}"),
    # denials stated as a state of the object or a missing effect of the subject
    Template("deny_unaffected", "deny_any", 2,
             rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+(?:is|are|was|were|remained|remains)[ ]+"
             rf"(?:(?:largely|completely|entirely|also)[ ]+)?(?:unaffected|unaltered|unchanged)"
             rf"[ ]+by[ ]+{FILL}", post=AGENT_POST),
    Template("deny_without", "deny_any", 1,
             rf"{_SUBJ}[ ]+{AUX}(?:{_RAISE_F}|{_LOWER_F})[ ]+(?:[^ ,;:]+[ ]+){{1,5}}without[ ]+"
             rf"(?:significantly[ ]+)?{_GERUND}[ ]+{FILL}"),
    Template("deny_no_change_in", "deny_any", 2,
             rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+(?:(?:was|were)[ ]+)?(?:(?:observed|found|detected"
             rf"|seen)[ ]+)?(?:after|following|upon)[ ]+(?:the[ ]+)?(?:(?:administration"
             rf"|application|addition) of[ ]+|treatment with[ ]+)?", post=AGENT_POST,
             pre=rf"(?:.*[^a-z-])?no[ ]+(?:(?:significant|measurable|detectable|apparent"
                 rf"|obvious)[ ]+)?(?:changes?|differences?|alterations?)[ ]+(?:in|of)[ ]+"
                 rf"(?:the[ ]+)?(?:{OBJ_NOUN}[ ]+of[ ]+)?"),
    Template("deny_no_effect_of", "deny_any", 1, rf"{_SUBJ}[ ]+(?:on|upon)[ ]+{FILL}",
             pre=r"(?:.*[^a-z-])?no[ ]+(?:(?:significant|measurable|detectable|appreciable"
                 r"|apparent|obvious)[ ]+)?(?:effects?|influence|impact)[ ]+of[ ]+(?:the[ ]+)?"),
    # an unsigned association (only a denial contradicts it)
    Template("association_between", "assoc", 1, _AND, symmetric=True,
             pre=_pair_pre(rf"\ban?[ ]+{_BETWEEN_PRE}(?:significant|strong|close|direct"
                           rf"|clear)[ ]+{_CORR}[ ]+{_FOUND}")),
    Template("associated", "assoc", 1,
             rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+{AUX}(?:associated|correlated|linked)[ ]+"
             rf"(?:with|to)[ ]+{FILL}", symmetric=True),
)  # fmt: skip
#: A word each group of templates' ``mid`` holds (a denial's negation, a passive's "by", a
#: correlation's verb, a role noun): one cheap partial match a row, then the group's full
#: matches only where it holds. Pure speed — :func:`template_matches` applies them too, so the
#: gold measurement counts any read a gate would drop.
GATES: dict[str, str] = {
    **dict.fromkeys(
        ("deny_effect", "deny_raise", "deny_lower", "deny_passive", "deny_no_effect",
         "deny_association", "deny_association_no", "deny_unaffected", "deny_without"),
        r"(?:\bnot?\b|n't|cannot|\bfail|unable|without|unaffected|unaltered|unchanged)"),
    **dict.fromkeys(
        ("correlated_positive", "correlated_negative", "associated_increased",
         "associated_decreased", "associated"), r"(?:associat|correlat|linked)"),
    **dict.fromkeys(("passive_raise", "passive_lower", "induced_by"), r"\bby\b"),
    **dict.fromkeys(("inhibitor_of", "activator_of", "named_inhibitor"),
                    r"(?:inhibitor|antagonist|blocker|suppressor|activator|agonist|inducer"
                    r"|enhancer|stimulator|potentiator)"),
    "risk_factor": r"\brisk\b",
}  # fmt: skip
TEMPLATES = tuple(replace(t, gate=GATES.get(t.name)) for t in TEMPLATES)
BY_NAME = {t.name: t for t in TEMPLATES}
_FLAGS = re.ASCII


def normalize(text: str) -> str:
    """Lower-cased, every run of whitespace one space (what the templates are written on)."""
    return re.sub(r"\s+", " ", text.lower(), flags=_FLAGS)


@dataclass(frozen=True, slots=True)
class Claim:
    """What :func:`read_claim` read: the template, its polarity, the subject ("a" or "b": which
    of the two spans passed) and whether the claim is symmetric."""

    template: str
    polarity: Polarity
    subject: Literal["a", "b"]
    symmetric: bool


_COMPILED: dict[str, re.Pattern[str]] = {}


def _full(pattern: str, text: str) -> bool:
    rx = _COMPILED.get(pattern)
    if rx is None:
        rx = _COMPILED[pattern] = re.compile(pattern, _FLAGS)
    return rx.fullmatch(text) is not None


def _search(pattern: str, text: str) -> bool:
    rx = _COMPILED.get(pattern)
    if rx is None:
        rx = _COMPILED[pattern] = re.compile(pattern, _FLAGS)
    return rx.search(text) is not None


def pieces(sentence: str, first: Span, second: Span) -> tuple[str, str, str] | None:
    """(pre, mid, post) of ``sentence`` around two spans (offsets into the sentence, ``first``
    before ``second``), normalized; None when the spans overlap or fall outside."""
    (s1, e1), (s2, e2) = first, second
    if not (0 <= s1 < e1 <= s2 < e2 <= len(sentence)):
        return None
    return normalize(sentence[:s1]), normalize(sentence[e1:s2]), normalize(sentence[e2:])


#: How every template's ``mid`` begins: an optional bracketed abbreviation, then a hyphen or a
#: space and a word that can open a template (an auxiliary or adverb of :data:`AUX`, a cue
#: verb, a subject or measure noun, "not", "and"…). Anchored, so RE2 reads only the first
#: word: with :data:`CUE`, it halves the rows the templates are tried on.
STARTER = (
    r"^(?:[ ]*\([^()]*\))?(?:[ ]*,[ ]+(?:which|an?|the)\b|(?:-|[ ]+)(?:[a-z]+ly\b"
    r"|[a-z]+-dependently|treated|exposed|fed|injected|after|following|observed|found|detected"
    r"|seen|"
    + f"{SUBJ_NOUN[3:-1]}|{OBJ_NOUN[3:-1]}|"
    + "|".join(sorted({_stem(w) for w in (*RAISE, *LOWER, *AFFECT)}))
    + "|has|have|had|is|are|was|were|be|can|could|will|would|did|does|do|also|further|both"
    + "|then|thereby|therefore|thus|in turn|not|appear|seem|tend|to|induced|evoked|triggered"
    + "|caused|elicited|mediated|driven|lead|led|contribut|protect|result|produc|associat"
    + "|correlat|linked|positively|negatively|inversely|show|exert|exhibit|display|didn't"
    + "|doesn't|don't|couldn't|cannot|fail|and|on|upon|remain|inhibit|antagonist"
    + "|block|suppress|activat|agonist|induc|enhanc|stimulat|potentiat|selective|specific"
    + "|potent|novel|known|irreversible|reversible|competitive|non-?competitive|natural"
    + "|endogenous|powerful|strong|putative|small-molecule|oral|brain-penetrant))"
)


def worth_reading(mid: str) -> bool:
    """The cheap cuts (:data:`MAX_MID`, :data:`CUE`) a row passes before the templates are
    tried (the same tests :func:`cue_sql` and :func:`worth_reading_sql` write)."""
    rx = _COMPILED.get(CUE)
    if rx is None:
        rx = _COMPILED[CUE] = re.compile(CUE, _FLAGS)
    st = _COMPILED.get(STARTER)
    if st is None:
        st = _COMPILED[STARTER] = re.compile(STARTER, _FLAGS)
    return len(mid) <= MAX_MID and rx.search(mid) is not None and st.match(mid) is not None


def cue_sql(mid: str) -> str:
    """SQL: ``mid`` (normalized) holds a :data:`CUE` and begins as a template can
    (:data:`STARTER`) — the cheap first cut of :func:`worth_reading`."""
    # the anchored STARTER first: RE2 reads a row's first word only
    return f"(regexp_matches({mid}, {_q(STARTER)}) AND regexp_matches({mid}, {_q(CUE)}))"


#: Where the text between the mentions begins with "and" ("X and Y were correlated", "between
#: X and Y"): only the templates whose ``mid`` is that (:func:`_opens_with_and`) can read it,
#: and they can read nothing else.
AND_START = r"^(?:[ ]*\([^()]*\))?[ ]+and[ ]"


def _opens_with_and(t: Template) -> bool:
    """Whether ``t``'s ``mid`` is "[(abbrev)] and …" (the pair is coordinated)."""
    return t.mid.startswith(rf"{ABBREV}[ ]+and[ ]+")


def worth_reading_sql(mid: str, templates: tuple[Template, ...] = TEMPLATES) -> str:
    """SQL of :func:`worth_reading` on the ``mid`` SQL expression, and a ``mid`` some template
    of ``templates`` matches whole: the view cuts the text before and after the mentions (long
    strings) only for the rows that pass. Pure speed: a row it drops is read by no template.
    (One regex per template, OR-ed: an alternation of all of them is far slower in RE2; split
    on :data:`AND_START`, so a row is tried on the templates that can read it only.)"""
    coord = [t for t in templates if _opens_with_and(t)]
    other = [t for t in templates if not _opens_with_and(t)]

    def any_of(ts: list[Template]) -> str:
        """The full matches of ``ts``, each group of one gate behind one partial match."""
        groups: dict[str | None, list[Template]] = {}
        for t in ts:
            groups.setdefault(t.gate, []).append(t)
        out = []
        for gate, members in groups.items():
            full = " OR ".join(f"regexp_full_match({mid}, {_q(t.mid)})" for t in members)
            out.append(f"({full})" if gate is None else
                       f"(regexp_matches({mid}, {_q(gate)}) AND ({full}))")  # fmt: skip
        return " OR ".join(out) or "false"

    starts = f"regexp_matches({mid}, {_q(AND_START)})"
    return (
        f"(length({mid}) <= {MAX_MID} AND CASE WHEN {starts} THEN ({any_of(coord)}) "
        f"ELSE ({any_of(other)}) END)"
    )


def question_sql(pre: str) -> str:
    """SQL: the sentence asks or plans rather than states (:data:`PRE_QUESTION` on ``pre``)."""
    return f"regexp_full_match({pre}, {_q(PRE_QUESTION)})"


def template_matches(t: Template, pre: str, mid: str, post: str) -> bool:
    """Whether ``t`` reads the pieces (the same tests :func:`template_sql` writes in SQL)."""
    if t.pre is not None:
        if not _full(t.pre, pre):
            return False
    elif _full(PRE_BLOCK, pre) and not (_full(PRE_MEASURE, pre) or _full(PRE_AGENT, pre)):
        return False
    if _full(PRE_QUESTION, pre):
        return False
    if t.gate is not None and not _search(t.gate, mid):
        return False
    return _full(t.mid, mid) and _full(t.post, post)


def read_claim(
    sentence: str, a: Span, b: Span, templates: tuple[Template, ...] = TEMPLATES
) -> Claim | None:
    """The claim ``sentence`` states between the mentions at spans ``a`` and ``b`` (offsets
    into the sentence, either order), or None when no template reads it."""
    first, second = (a, b) if a[0] <= b[0] else (b, a)
    cut = pieces(sentence, first, second)
    if cut is None or not worth_reading(cut[1]):
        return None
    for t in templates:
        if template_matches(t, *cut):
            first_is_a = first is a
            subject_is_a = first_is_a if t.subject == 1 else not first_is_a
            return Claim(t.name, t.polarity, "a" if subject_is_a else "b", t.symmetric)
    return None


def _q(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def norm_sql(expr: str) -> str:
    """SQL of :func:`normalize`. The regex runs only where a tab, newline or double space is
    (rare in abstracts): over every candidate pair of a snapshot it is the costly part."""
    low = f"lower({expr})"
    odd = " OR ".join(f"contains({low}, {c})" for c in ("'  '", "chr(9)", "chr(10)", "chr(13)"))
    return f"(CASE WHEN {odd} THEN regexp_replace({low}, '\\s+', ' ', 'g') ELSE {low} END)"


def pieces_sql(sentence: str, s1: str, e1: str, s2: str, e2: str) -> tuple[str, str, str]:
    """SQL expressions of (pre, mid, post) as :func:`pieces` cuts them; ``s1``…``e2`` are SQL
    expressions of 0-based offsets into the sentence, the first span before the second."""
    return (
        norm_sql(f"substr({sentence}, 1, {s1})"),
        norm_sql(f"substr({sentence}, ({e1}) + 1, ({s2}) - ({e1}))"),
        norm_sql(f"substr({sentence}, ({e2}) + 1)"),
    )


def blocked_sql(pre: str) -> str:
    """SQL: ``pre`` keeps the first mention from being a free subject/object
    (:data:`PRE_BLOCK`, unless :data:`PRE_MEASURE` or :data:`PRE_AGENT`)."""
    return (
        f"(regexp_full_match({pre}, {_q(PRE_BLOCK)}) "
        f"AND NOT regexp_full_match({pre}, {_q(PRE_MEASURE)}) "
        f"AND NOT regexp_full_match({pre}, {_q(PRE_AGENT)}))"
    )


def template_sql(
    pre: str,
    mid: str,
    post: str,
    templates: tuple[Template, ...] = TEMPLATES,
    blocked: str | None = None,
) -> str:
    """An SQL CASE giving the name of the first template of ``templates`` reading the pieces
    (SQL expressions, e.g. column names), NULL when none does. The question check of
    :func:`template_matches` is not in it: filter on ``NOT question_sql(pre)`` where it is
    not NULL (once a row, not once a template). Each condition tests ``mid`` first: DuckDB
    evaluates the rest of a conjunction only on the rows that pass, and a template's ``mid``
    rejects nearly every row cheaply. ``blocked``: a column holding :func:`blocked_sql` of
    ``pre``, computed once a row (the CASE would repeat its three regexes per template)."""
    block = blocked or blocked_sql(pre)
    whens = []
    for t in templates:
        pre_ok = f"regexp_full_match({pre}, {_q(t.pre)})" if t.pre is not None else f"NOT {block}"
        gate = f"regexp_matches({mid}, {_q(t.gate)}) AND " if t.gate is not None else ""
        whens.append(
            f"WHEN {gate}regexp_full_match({mid}, {_q(t.mid)}) "
            f"AND regexp_full_match({post}, {_q(t.post)}) AND {pre_ok} THEN {_q(t.name)}"
        )
    return f"CASE {' '.join(whens)} END" if whens else "NULL"


def templates_values_sql(templates: tuple[Template, ...] = TEMPLATES) -> str:
    """A VALUES list ``(template, polarity, subject, symmetric)`` of ``templates``."""
    rows = ", ".join(
        f"({_q(t.name)}, {_q(t.polarity)}, {t.subject}, {str(t.symmetric).upper()})"
        for t in templates
    )
    return f"(VALUES {rows}) AS tpl(template, polarity, subject_pos, is_symmetric)"


#: A variant marker at the end of a mention ("APOE4", "apoE ε4", "APOE-e2"): the allele is
#: part of what the claim is about, so claims about APOE4 and APOE2 are not one pair.
VARIANT = r"(?:ε|epsilon|e|\*)[ -]?([0-9]+)$"


def variant(mention: str) -> str:
    """The variant marker of a mention's text ('' when none): see :data:`VARIANT`."""
    m = re.search(VARIANT, mention.lower(), _FLAGS)
    return m.group(1) if m else ""


__all__ = [
    "AFFIRM", "CONTRADICTS", "CUE", "DENY", "GATES", "MAX_MID", "STARTER", "TEMPLATES", "VARIANT",
    "Claim", "Template", "blocked_sql", "cue_sql", "norm_sql",
    "normalize", "pieces", "pieces_sql", "question_sql", "read_claim", "template_matches",
    "template_sql", "templates_values_sql", "variant", "worth_reading", "worth_reading_sql",
]  # fmt: skip
