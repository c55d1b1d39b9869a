"""The claim templates, in the order they are tried: what the claim reader can read.

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

The order of :data:`TEMPLATES` is part of the reader: the first template that matches decides
(denials first: "did not increase" must not read as "increase"). Each is one regex string
over the pieces (:mod:`kgbuild.belief.claims_grammar`), read the same by Python
(:mod:`kgbuild.belief.claims_read`) and DuckDB (:mod:`kgbuild.belief.claims_read_sql`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from kgbuild.belief.claims_grammar import (
    ABBREV,
    ACTIVATOR,
    ADJ,
    AFFECT,
    AGENT_POST,
    ANY_P,
    AUX,
    BE,
    BETWEEN_PRE,
    CORR,
    FILL,
    FOUND,
    GERUND,
    INHIBITOR,
    LOWER,
    LOWER_F,
    LOWER_N,
    LOWER_P,
    NAME_POST,
    NAME_PRE,
    NEG_ADV,
    NOT,
    OBJ_NOUN,
    OBJ_POST,
    PAIR_END,
    RAISE,
    RAISE_F,
    RAISE_N,
    RAISE_P,
    ROLE_ADJ,
    SUBJ,
    TREATED,
    verb_forms,
)

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


@dataclass(frozen=True, slots=True)
class Template:
    """One construction: ``mid`` (full match of the text between the mentions), the
    ``polarity`` it reads, which mention is the ``subject`` (1: the first in the text), whether
    the claim is ``symmetric`` (a correlation, an association), ``pre`` (a full match the text
    before the first mention must be; None: :data:`~kgbuild.belief.claims_grammar.PRE_BLOCK` must
    not match it, unless :data:`~kgbuild.belief.claims_grammar.PRE_MEASURE` does), ``post`` (a full
    match of the text after the second) and ``gate`` (:data:`GATES`: a word ``mid`` must hold — pure
    speed, tried once for a group of templates before their full matches)."""

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
    return Template(name, polarity, 1, rf"{SUBJ}{_WHICH}[ ]+{AUX}{two}[ ]+{FILL}{LIST}{FILL}")


def _passive(name: str, polarity: Polarity, verbs: str) -> Template:
    return Template(
        name, polarity, 2, rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+{BE}[ ]+{AUX}{verbs}[ ]+by[ ]+{FILL}",
        post=AGENT_POST,
    )  # fmt: skip


def _pair_pre(words: str) -> str:
    """``pre`` ending in "<words> between [the levels of]" (a claim about "X and Y")."""
    return rf"(?:.*[^a-z-])?{words}between[ ]+{FILL}"


_AND = rf"{ABBREV}[ ]+and[ ]+{FILL}"


#: The templates, in the order they are tried (the first that matches decides).
TEMPLATES: tuple[Template, ...] = (
    # denials first: "did not increase" must not read as "increase"
    Template("deny_effect", "deny_any", 1,
             rf"{SUBJ}[ ]+{NOT}[ ]+{NEG_ADV}{verb_forms(*AFFECT, forms='base')}[ ]+{FILL}"),
    Template("deny_raise", "deny_up", 1,
             rf"{SUBJ}[ ]+{NOT}[ ]+{NEG_ADV}{verb_forms(*RAISE, forms='base')}[ ]+{FILL}"),
    Template("deny_lower", "deny_down", 1,
             rf"{SUBJ}[ ]+{NOT}[ ]+{NEG_ADV}{verb_forms(*LOWER, forms='base')}[ ]+{FILL}"),
    Template("deny_passive", "deny_any", 2,
             rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+(?:is|are|was|were)[ ]+not[ ]+{NEG_ADV}"
             rf"{ANY_P}[ ]+by[ ]+{FILL}", post=AGENT_POST),
    Template("deny_no_effect", "deny_any", 1,
             rf"{SUBJ}[ ]+(?:had|has|have|showed|exerted|produced|exhibited)[ ]+no[ ]+"
             r"(?:(?:significant|measurable|detectable|appreciable|apparent|obvious)[ ]+)?"
             rf"(?:effects?|influence|impact|action)[ ]+(?:on|upon)[ ]+{FILL}"),
    Template("deny_association", "deny_assoc", 1,
             rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+(?:(?:is|are|was|were)[ ]+not|(?:did|does|do)"
             rf"[ ]+not[ ]+(?:correlate|associate))[ ]+{NEG_ADV}"
             rf"(?:(?:associated|correlated|linked|related)[ ]+)?(?:with|to)[ ]+{FILL}",
             symmetric=True),
    Template("deny_association_no", "deny_assoc", 1,
             rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+(?:showed|had|has|have|displayed)[ ]+no[ ]+"
             rf"(?:significant[ ]+)?{CORR}[ ]+(?:with|to)[ ]+{FILL}", symmetric=True),
    Template("deny_association_between", "deny_assoc", 1, _AND, symmetric=True,
             pre=_pair_pre(rf"\bno[ ]+(?:(?:significant|statistically significant|clear|direct"
                           rf"|obvious)[ ]+)?{CORR}[ ]+{FOUND}")),
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
             pre=_pair_pre(rf"\ban?[ ]+{BETWEEN_PRE}positive[ ]+{CORR}[ ]+{FOUND}")),
    Template("correlation_negative_between", "down", 1, _AND, symmetric=True,
             pre=_pair_pre(rf"\ban?[ ]+{BETWEEN_PRE}(?:negative|inverse)[ ]+{CORR}[ ]+"
                           rf"{FOUND}")),
    Template("associated_increased", "up", 1,
             rf"{SUBJ}[ ]+{AUX}(?:associated|correlated|linked)[ ]+with[ ]+{ADJ}(?:increased"
             rf"|higher|elevated|greater|enhanced)[ ]+{FILL}", symmetric=True),
    Template("associated_decreased", "down", 1,
             rf"{SUBJ}[ ]+{AUX}(?:associated|correlated|linked)[ ]+with[ ]+{ADJ}(?:decreased"
             rf"|reduced|lower|diminished)[ ]+{FILL}", symmetric=True),
    # effects
    _active("active_raise", "up", RAISE_F),
    _active("active_lower", "down", LOWER_F),
    Template("leads_to", "up", 1, rf"{SUBJ}[ ]+{AUX}(?:leads?|led|contributes?|contributed)"
             rf"[ ]+to[ ]+{FILL}"),
    Template("protects_against", "down", 1,
             rf"{SUBJ}[ ]+{AUX}(?:protects?|protected)[ ]+against[ ]+{FILL}"),
    _passive("passive_raise", "up", RAISE_P),
    _passive("passive_lower", "down", LOWER_P),
    Template("induced_compound", "up", 1,
             rf"{ABBREV}(?:-|[ ]+)(?:induced|evoked|triggered|caused|elicited)[ ]+{FILL}"),
    Template("induced_by", "up", 2,
             rf"{ABBREV}[ ]+(?:induced|caused|triggered|evoked|elicited)[ ]+by[ ]+{FILL}",
             post=AGENT_POST),
    Template("induced_increase", "up", 1,
             rf"(?:-|[ ]+)(?:induced|mediated|evoked|triggered|caused|driven|elicited)[ ]+"
             rf"{RAISE_N}[ ]+(?:of|in)[ ]+{FILL}"),
    Template("induced_decrease", "down", 1,
             rf"(?:-|[ ]+)(?:induced|mediated|evoked|triggered|caused|driven|elicited)[ ]+"
             rf"{LOWER_N}[ ]+(?:of|in)[ ]+{FILL}"),
    Template("resulted_in_higher", "up", 1,
             rf"{SUBJ}[ ]+{AUX}(?:resulted[ ]+in|led[ ]+to)[ ]+{ADJ}(?:increased|higher"
             rf"|elevated|enhanced)[ ]+{FILL}"),
    Template("resulted_in_lower", "down", 1,
             rf"{SUBJ}[ ]+{AUX}(?:resulted[ ]+in|led[ ]+to)[ ]+{ADJ}(?:decreased|reduced"
             rf"|lower|diminished|attenuated)[ ]+{FILL}"),
    Template("treated_showed_higher", "up", 1,
             rf"{TREATED}{ADJ}(?:increased|higher|elevated|enhanced)[ ]+{FILL}"),
    Template("treated_showed_lower", "down", 1,
             rf"{TREATED}{ADJ}(?:decreased|reduced|lower|diminished|attenuated)[ ]+{FILL}"),
    Template("resulted_in_increase", "up", 1,
             rf"{SUBJ}[ ]+{AUX}(?:resulted[ ]+in|led[ ]+to|caused|induced|produced|elicited)"
             rf"[ ]+{ADJ}{RAISE_N}[ ]+(?:of|in)[ ]+{FILL}"),
    Template("resulted_in_decrease", "down", 1,
             rf"{SUBJ}[ ]+{AUX}(?:resulted[ ]+in|led[ ]+to|caused|induced|produced|elicited)"
             rf"[ ]+{ADJ}{LOWER_N}[ ]+(?:of|in)[ ]+{FILL}"),
    # a role stated as a noun: "X, a potent inhibitor of Y", "the Y inhibitor X", "X is a
    # risk factor for Y"
    Template("inhibitor_of", "down", 1,
             rf"{ABBREV}[ ]*,[ ]+(?:an?|the)[ ]+{ROLE_ADJ}{INHIBITOR}[ ]+of[ ]+{FILL}"),
    Template("activator_of", "up", 1,
             rf"{ABBREV}[ ]*,[ ]+(?:an?|the)[ ]+{ROLE_ADJ}{ACTIVATOR}[ ]+of[ ]+{FILL}"),
    Template("named_inhibitor", "down", 2,
             rf"{ABBREV}[ ]+{ROLE_ADJ}{INHIBITOR}[ ]*,?[ ]+", pre=NAME_PRE, post=NAME_POST),
    Template("risk_factor", "up", 1,
             rf"{SUBJ}[ ]+{AUX}(?:is|are|was|were|has been|have been|remains|represents"
             rf"|constitutes)[ ]+(?:an?|the)[ ]+{ROLE_ADJ}risk[ ]+factors?[ ]+(?:for|of)[ ]+"
             rf"{FILL}"),
    # correlations stated after the pair: "X and Y were (not) correlated"
    Template("and_not_correlated", "deny_assoc", 1, rf"{ABBREV}[ ]+and[ ]+", symmetric=True,
             post=rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+(?:were|was|are|is)[ ]+not[ ]+{NEG_ADV}"
                  rf"(?:correlated|associated|related){PAIR_END}"),
    Template("and_correlated_positive", "up", 1, rf"{ABBREV}[ ]+and[ ]+", symmetric=True,
             post=rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+(?:were|was|are|is)[ ]+{AUX}positively[ ]+"
                  rf"(?:correlated|associated){PAIR_END}"),
    Template("and_correlated_negative", "down", 1, rf"{ABBREV}[ ]+and[ ]+", symmetric=True,
             post=rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+(?:were|was|are|is)[ ]+{AUX}(?:negatively"
                  rf"|inversely)[ ]+(?:correlated|associated){PAIR_END}"),
    # denials stated as a state of the object or a missing effect of the subject
    Template("deny_unaffected", "deny_any", 2,
             rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+(?:is|are|was|were|remained|remains)[ ]+"
             rf"(?:(?:largely|completely|entirely|also)[ ]+)?(?:unaffected|unaltered|unchanged)"
             rf"[ ]+by[ ]+{FILL}", post=AGENT_POST),
    Template("deny_without", "deny_any", 1,
             rf"{SUBJ}[ ]+{AUX}(?:{RAISE_F}|{LOWER_F})[ ]+(?:[^ ,;:]+[ ]+){{1,5}}without[ ]+"
             rf"(?:significantly[ ]+)?{GERUND}[ ]+{FILL}"),
    Template("deny_no_change_in", "deny_any", 2,
             rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+(?:(?:was|were)[ ]+)?(?:(?:observed|found|detected"
             rf"|seen)[ ]+)?(?:after|following|upon)[ ]+(?:the[ ]+)?(?:(?:administration"
             rf"|application|addition) of[ ]+|treatment with[ ]+)?", post=AGENT_POST,
             pre=rf"(?:.*[^a-z-])?no[ ]+(?:(?:significant|measurable|detectable|apparent"
                 rf"|obvious)[ ]+)?(?:changes?|differences?|alterations?)[ ]+(?:in|of)[ ]+"
                 rf"(?:the[ ]+)?(?:{OBJ_NOUN}[ ]+of[ ]+)?"),
    Template("deny_no_effect_of", "deny_any", 1, rf"{SUBJ}[ ]+(?:on|upon)[ ]+{FILL}",
             pre=r"(?:.*[^a-z-])?no[ ]+(?:(?:significant|measurable|detectable|appreciable"
                 r"|apparent|obvious)[ ]+)?(?:effects?|influence|impact)[ ]+of[ ]+(?:the[ ]+)?"),
    # an unsigned association (only a denial contradicts it)
    Template("association_between", "assoc", 1, _AND, symmetric=True,
             pre=_pair_pre(rf"\ban?[ ]+{BETWEEN_PRE}(?:significant|strong|close|direct"
                           rf"|clear)[ ]+{CORR}[ ]+{FOUND}")),
    Template("associated", "assoc", 1,
             rf"{ABBREV}(?:[ ]+{OBJ_NOUN})?[ ]+{AUX}(?:associated|correlated|linked)[ ]+"
             rf"(?:with|to)[ ]+{FILL}", symmetric=True),
)  # fmt: skip
#: A word each group of templates' ``mid`` holds (a denial's negation, a passive's "by", a
#: correlation's verb, a role noun): one cheap partial match a row, then the group's full
#: matches only where it holds. Pure speed — :func:`~kgbuild.belief.claims_read.template_matches`
#: applies them too, so the gold measurement counts any read a gate would drop.
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


__all__ = ["AFFIRM", "CONTRADICTS", "DENY", "GATES", "TEMPLATES", "Template"]
