"""The regex pieces the claim templates are made of: cue verbs, fillers, and the cheap cuts.

The claim reader (:mod:`kgbuild.belief.claims_read`) reads a sentence only where the words
between (and around) two mentions fit an explicit template
(:mod:`kgbuild.belief.claims_templates`) — the rule-based indicator-word approach to relation
polarity (verb cues between two named entities, a fixed set of constructions; SemRep-style
indicator rules). This module holds the vocabulary of those templates, as regex strings: the
raise and lower cue verbs and the verbs a denial denies (:data:`RAISE`, :data:`LOWER`,
:data:`AFFECT`, in every form by :func:`verb_forms`), the words allowed between and around
the mentions (:data:`AUX`, :data:`FILL`, :data:`OBJ_POST`…), the checks on the text before
the first mention (:data:`PRE_BLOCK`, :data:`PRE_AGENT`, :data:`PRE_MEASURE`,
:data:`PRE_QUESTION`) and the cheap partial matches tried before any template
(:data:`CUE`, :data:`STARTER`, :data:`AND_START`).

Every piece is written for DuckDB's RE2 (no lookaround, no backreferences) and Python's
``re`` with ``re.ASCII`` alike, so the Python reader and its SQL form read the same strings.
"""

from __future__ import annotations


def verb_forms(*words: str, forms: str = "finite") -> str:
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


RAISE_F, LOWER_F = verb_forms(*RAISE), verb_forms(*LOWER)
RAISE_P, LOWER_P = verb_forms(*RAISE, forms="past"), verb_forms(*LOWER, forms="past")
ANY_B = verb_forms(*RAISE, *LOWER, *AFFECT, forms="base")
ANY_P = verb_forms(*RAISE, *LOWER, *AFFECT, forms="past")
RAISE_N = (
    r"(?:increases?|elevation|up-?regulation|enhancement|rise|overproduction|activation"
    r"|induction)"
)
LOWER_N = r"(?:decreases?|reduction|loss|down-?regulation|inhibition|suppression|decline|depletion)"
BE = r"(?:is|are|was|were|be|been|being|has been|have been|had been|could be|can be|may be)"
NOT = (
    r"(?:(?:did|does|do|could|can|would|was|were|is|are)[ ]+not|didn't|doesn't|don't"
    r"|couldn't|cannot|can not|failed to|fails to|fail to|(?:was|were) not able to"
    r"|(?:was|were|is|are) unable to)"
)
SUBJ = rf"{ABBREV}(?:[ ]+{SUBJ_NOUN})?"
ADJ = (
    r"(?:(?:a|an|significant|marked|dramatic|substantial|dose-dependent|strong|further|great"
    r"|robust|slight|modest|rapid|pronounced|[0-9.]+%|[0-9.]+-fold)[ ]+)*"
)
BETWEEN_PRE = r"(?:[a-z]+ ){0,3}"


#: "X-treated mice showed …": the animals or cells given X, then what they showed.
TREATED = (
    r"-(?:treated|exposed|fed|injected)[ ]+(?:[a-z0-9/-]+[ ]+)?(?:mice|rats|animals|cells"
    r"|neurons|cultures|astrocytes|microglia)[ ]+(?:showed|exhibited|had|displayed"
    r"|demonstrated|presented)[ ]+"
)
GERUND = (
    r"(?:affecting|altering|changing|modifying|influencing|increasing|decreasing|reducing"
    r"|inhibiting|enhancing)"
)
CORR = r"(?:correlation|association|relationship|relation|link)s?"
FOUND = r"(?:(?:was|were|is|are|has been|have been)[ ]+)?(?:(?:found|observed|detected|seen|shown|noted)[ ]+)?"  # noqa: E501

#: Adjectives before a role noun ("a potent and selective inhibitor of").
ROLE_ADJ = (
    r"(?:(?:potent|selective|specific|novel|known|irreversible|reversible|competitive"
    r"|non-?competitive|natural|direct|endogenous|powerful|strong|putative|small-molecule|oral"
    r"|brain-penetrant|major|important|independent|significant|well-known|well-established"
    r"|modifiable|genetic|main|key|primary|established|strongest|greatest|most|and)[ ]+)*"
)
INHIBITOR = r"(?:inhibitors?|antagonists?|blockers?|suppressors?)"
ACTIVATOR = r"(?:activators?|agonists?|inducers?|enhancers?|stimulators?|potentiators?)"
#: ``pre`` of "the Y inhibitor X": Y (the first mention, the target) is a free word ("the",
#: a bracket, a space before it), not glued to another ("anti-Y").
NAME_PRE = r"(?:.*[ (\[])?"
#: ``post`` of a named compound ("the Y inhibitor X"): X is not glued to more ("X-treated").
NAME_POST = r"(?:[ ]*|[ ]*[,.;:()\]].*|[ ]+.*)"
#: How a correlation stated after the pair ends: the clause ends, or a place/manner phrase
#: follows — never "with Z" (then each was compared with Z, not with the other).
PAIR_END = (
    r"(?:[ ]+(?:with|to)[ ]+each[ ]+other)?(?:[ ]*|[ ]*[,.;:(].*|[ ]+(?:in|among|at|after"
    r"|during|when|while|whereas|but|across)\b.*)"
)


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
#: template (:func:`~kgbuild.belief.claims_read.worth_reading` applies it too, so the gold
#: measurement counts any read it would drop).
CUE = (
    "(?:"
    + "|".join(sorted({_stem(w) for w in (*RAISE, *LOWER, *AFFECT)}))
    + "|associat|correlat|linked|relat|lead|led|contribut|protect|evok|elicit|mediat|driv"
    + r"|result|produc|effect|influenc|impact|action|antagonist|agonist|risk"
    + r"|^[ ]*(?:\([^()]*\)[ ]*)?(?:and|on|upon) |observed|found|detected|seen"
    + r"|^[ ]*(?:\([^()]*\)[ ]*)?(?:[a-z]+[ ]+)?(?:after|following|upon) )"
)


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


#: Where the text between the mentions begins with "and" ("X and Y were correlated", "between
#: X and Y"): only the templates whose ``mid`` is that
#: (:func:`~kgbuild.belief.claims_read_sql._opens_with_and`) can read it, and they can read nothing
#: else.
AND_START = r"^(?:[ ]*\([^()]*\))?[ ]+and[ ]"


#: A variant marker at the end of a mention ("APOE4", "apoE ε4", "APOE-e2"): the allele is
#: part of what the claim is about, so claims about APOE4 and APOE2 are not one pair.
VARIANT = r"(?:ε|epsilon|e|\*)[ -]?([0-9]+)$"


__all__ = ["CUE", "MAX_MID", "STARTER", "VARIANT"]
