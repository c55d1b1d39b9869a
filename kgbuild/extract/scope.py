"""Does a negation or hedge cue govern the relation between the two endpoints of a claim?

NegEx (Chapman et al. 2001) and ConText (Harkema et al. 2009) give a cue a window of words and
stop it at termination terms; that finds what a cue *reaches*, not what it *governs*. In a
co-mention sentence most negations govern something else: a group ("individuals *with no*
dementia", "participants *without* diabetes"), a third concept ("the effect of APOE on AD was
*unaffected by* age"), or another pair of a list. REACH (clulab/reach issue 608) found the
same: "did not" anywhere in a sentence does not mark its relations negated. Without a trained
parser here (scispaCy's models cannot be installed; the only ``en_core_web_sm`` wheels on PyPI
are third-party re-uploads), the test is a small grammar of the constructions in which a cue
negates or hedges the link between two noun phrases A (the left endpoint) and B (the right):

- ``verb`` cues (not, did not, failed to; may, might, is thought to) negate or hedge the verb
  after them: A is the subject (:func:`subject`) and B in the verb's complement
  (:func:`complement`): "A did not increase B", "A may inhibit B";
  after both, only a relational predicate over "A and B" ("A and B were not correlated") or a
  relational subject ("the association between A and B was not significant") (:func:`after`);
- ``np`` cues (no, lack of, absence of; potential, putative) negate or hedge a relational noun
  (association, effect, difference…): "A had no effect on B", "no association between A and
  B", "lack of effect of A on B" (:func:`relational_np`); "no dementia" names a group, not a
  relation;
- ``pred`` cues (independent of, unaffected, unrelated, unchanged) count only as the predicate
  of A with B their object ("A was independent of B"), never as an adjunct ("A increased the
  risk of B independent of C" negates nothing between A and B);
- ``prep`` (without) counts only before a verb: "A reduced C without affecting B";
- ``contrast`` (but not, ", not") negates the phrase after it against the one before it: "A
  increased C but not B" negates A–B, not C–B; "A, but not C, induced B" negates C–B;
- ``coord`` (neither, nor): "neither A nor C affected B";
- ``clause`` cues (whether, suggest that, we hypothesize) hedge the clause after them and
  ``aim`` cues (to investigate, we examined) the relation named in it ("to examine the effect
  of A on B"), both endpoints inside; ``post`` cues (remains unclear, was investigated) hedge a
  relational subject before them ("the role of A in B remains unclear").

A "differ" relation (no difference, did not differ) compares groups: when both endpoints are the
groups compared ("X did not differ between A and B") nothing between them is negated. Inside a
hedged clause the pair must be parties to one relation: not two items of a list ("whether A or
B participates"), not the population or model the clause is about ("in AD patients", "APP/PS1
transgenic mice"), not two coordinated predicates. "could" conjectures only after a hedge or
before a conjecturing verb ("could be a target"); "A could reverse B" reports what A did.
An endpoint written as the first part of a hyphenated modifier ("Abeta-induced toxicity") is
never the subject, nor (for a negation) the object.

After a blind judge's reading of the DALK build (issue 39 follow-up), neither a negation nor a
hedge reaches an endpoint that only modifies a third head noun (:func:`modifier`: "the NMDA
receptor antagonist ketamine", "the GluN2A domain", "AD signature cortical thickness", "the
ADNI cohorts", "P2RY12(+) microglia"); a negation does not reach an object nested in a third
noun's phrase ("the aggregation of C mutants at B"), a population ("only in B neurons"), an
unnamed agent ("can be eliminated without affecting B"), nor a separation ("A is not released
from B": it stays bound); a hedged clause must put the pair's relation in question, not a third
concept's predicate over a presupposed phrase ("whether C could alleviate A in B", "whether C
moderates the association of A with B", "the exact role of A in B") (:func:`_proposition`).

The word classes below are the grammar's lexicon, by form; they were tuned on self-judged
development samples of the DALK co-occurrence build (issue 39), whose blind measure is
``bench/epistemic_sample.py`` / ``bench/epistemic_score.py``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


#: Auxiliaries and modals: the verb group before a cue ("has not", "could not").
AUX = _set(
    "is are was were be been being am do does did has have had can could may might will would "
    "shall should must"
)
#: Prepositions; a noun phrase after one is an adjunct or an argument of the noun before it.
PREP = _set(
    "of for in on with by to from at among between against into within than versus vs via "
    "through across after before during following under over toward towards upon without "
    "compared"
)
#: Head nouns through which a phrase "X of A" / "X with A" still speaks of A ("levels of A did
#: not change", "treatment with A did not reduce B").
TRANSPARENT = _set(
    "level levels concentration concentrations expression overexpression treatment treatments "
    "administration supplementation deletion knockout knockdown loss deficiency inhibition "
    "activation presence exposure infusion injection application addition amount amounts "
    "activity silencing blockade depletion mutation mutations variant variants polymorphism "
    "polymorphisms genotype intake use accumulation deposition aggregation production "
    "secretion release phosphorylation content burden infection upregulation downregulation "
    "ablation absence lack combination therapy reduction removal lowering elevation "
    "suppression stimulation induction overproduction increase decrease"
)
#: Heads through which "X in A" speaks of A ("a decrease in A was not associated with B").
CHANGE_IN = _set("decrease decreases increase increases reduction elevation change changes decline")
#: Nouns naming a relation between two things (the object of "no", "lack of", "potential").
RELATIONAL = _set(
    "association associations correlation correlations relationship relationships relation "
    "relations link links linkage effect effects influence impact interaction interactions "
    "role contribution difference differences change changes alteration alterations increase "
    "increases decrease decreases reduction improvement benefit benefits protection binding "
    "colocalization co-localization overlap connection dependence involvement modulation "
    "regulation response differ association"
)
#: Relations that compare groups: both endpoints among the groups is no negation of a link.
DIFFER = _set("difference differences differ differed different change changes")
#: Nouns of the people or animals a group is made of ("AD patients", "mice with B").
GROUP_NOUNS = _set(
    "patients patient participants participant subjects subject individuals persons people "
    "cases controls mice rats animals carriers cohort cohorts group groups population women "
    "men adults children elderly volunteers donors brains cells neurons astrocytes microglia"
)
#: Heads an endpoint only modifies: "the NMDA receptor *antagonist* ketamine", "the BACE
#: *inhibitor* verubecestat", "the GluN2A *domain*", "AD *signature* cortical thickness", "the
#: ADNI *cohorts*": a cue over the phrase is about the drug, the part or the cohort, not about
#: the endpoint (blind judge, issue 39 follow-up).
ROLE_HEADS = _set(
    "antibody antibodies vaccine vaccines domain domains motif motifs residue residues mutant "
    "mutants signature cohort cohorts initiative consortium registry database biobank"
)
#: Drug classes named by their target: the endpoint only modifies them when a drug's name
#: follows ("the BACE inhibitor verubecestat"); "ACE inhibitors may protect against AD" names
#: the class by its target, and what is said of it is said of the target.
DRUG_CLASS = _set(
    "inhibitor inhibitors antagonist antagonists agonist agonists blocker blockers modulator "
    "modulators activator activators chelator chelators precursor precursors"
)
#: Verbs of separation: "A is not released from B" says A stays bound to B.
SEPARATION = _set(
    "released dissociated detached displaced liberated dislodged separated removed freed"
)
#: Words that open a list of examples: "proteins including A, C, D" — A is an item of the list
#: whose head ("proteins") is the phrase's head.
EXAMPLES = _set("including include includes e.g. i.e. namely")
#: Prepositions inside a noun phrase that presupposes its parts ("A in B", "A after B").
NP_PREP = _set("in of after from at among within during such as")
#: Modifiers that presuppose the relation their noun names: "the *exact* role of A in B"
#: (that A has a role in B is taken for granted; only the details are asked about).
PRESUPPOSING = _set("exact precise detailed specific underlying")
#: Nouns that make a sentence about a method, not a relation ("a useful tool for B studies").
TOOLS = _set("tool tools model models assay assays method methods technique probe platform")
#: Words before the groups a difference is between.
GROUPS = _set("between among across compared versus vs than")
#: Predicates that state a link between coordinated endpoints ("A and B were not correlated").
LINK_VERBS = _set(
    "associated correlated related linked associate correlate relate link interact interacted "
    "colocalize colocalized co-localized bind bound connected unrelated independent"
)
#: Predicates that deny a relational subject itself ("the association between A and B was not
#: significant / was not observed / was absent"), not its relation to a third thing.
NULL_PREDICATES = _set(
    "significant observed detected found seen present evident apparent confirmed replicated "
    "reproduced demonstrated established consistent robust absent statistically"
)
#: Extra words a hedge's relational noun may be (the potential *target* of B).
HEDGE_NOUNS = _set(
    "mechanism mechanisms target targets biomarker biomarkers marker markers candidate "
    "candidates agent agents treatment therapy strategy factor factors cause causes how "
    "whether"
)
#: Modifiers between a cue and its noun ("no *significant* effect").
MODIFIER = _set(
    "significant statistically clear consistent detectable measurable obvious apparent major "
    "direct any additional appreciable substantial marked evident discernible overt noticeable "
    "independent an a the such causal therapeutic novel new important"
)
#: Words that join two endpoints of one relational phrase ("between A and B", "of A on B").
LINKERS = _set("and or with on to in for of versus vs / - and/or nor")
#: Common verbs in -s/-es or irregular past forms the -ed rule misses.
VERBS = _set(
    "show shows showed shown found find finds led lead leads seem seems appear appears remain "
    "remains increases decreases reduces induces causes inhibits promotes binds affects "
    "regulates enhances activates blocks prevents protects impairs improves correlates "
    "interacts contributes plays exhibits displays demonstrates indicates suggests reveals "
    "exerts produces mediates attenuates alters modulates triggers drives underlies made took "
    "gave lacks contains requires involves depends exacerbates accelerates aggravates "
    "ameliorates rescues restores reverses stimulates suppresses facilitates participates "
    "represents serves acts results occurs targets"
)
#: Base forms: a phrase after one is its object ("drugs that *modify* A"); as often nouns or
#: adjectives ("reverse peptide") as verbs, so they mark only what comes after them.
BASE_VERBS = _set(
    "modify affect reduce induce inhibit promote bind regulate enhance activate prevent protect "
    "impair improve alter modulate mediate attenuate suppress stimulate facilitate exacerbate "
    "ameliorate rescue restore reverse contribute play exhibit display produce express target "
    "aggravate"
)
#: Verbs a determiner negation follows when it negates the verb's relation ("A had no effect").
HAVE = _set(
    "had has have having showed show shows exerted exert exerts produced caused induced "
    "exhibited displayed revealed demonstrated found observed was were is are there to"
)
#: Words that start a new subject: "A lacks C and *it* does not show B" is not about A.
PRONOUNS = _set("it they we he she this these which who its their")
DETERMINERS = _set("a an the this these that those its their our his her both each")
#: Clause punctuation and subordinators: nothing is governed across them (besides the
#: termination terms of the cue table).
PUNCT = frozenset({";", ":", ".", "?", "!"})
CLAUSE_WORDS = _set(
    "that who whom whose where when because since whether if unless until thus therefore hence "
    "thereby unlike"
)
#: Words before "could" that make it a conjecture ("these results suggest that A could …").
CONJECTURE = re.compile(r"\b(suggest\w*|whether|if|possib\w+|hypothes\w+|propos\w+|"
                        r"speculat\w+|conceivabl\w+|may|might|likely)\b")  # fmt: skip
#: Verbs after "could" that conjecture ("A could be a target", "could contribute to"); after
#: any other verb "could" reports an ability shown ("A could reverse B": A reversed B).
CONJECTURE_VERBS = _set(
    "be have play serve contribute represent provide explain account help lead offer underlie "
    "potentially possibly partly partially also"
)
#: "could be detected / observed" is an observation, not a conjecture (BioScope's guidelines).
OBSERVE = _set(
    "detected observed seen found measured confirmed identified demonstrated shown visualized "
    "reproduced replicated isolated obtained achieved studied used applied recorded"
)
#: "possible / probable AD" is a diagnostic category (NINCDS-ADRDA), not a hedge.
DIAGNOSES = _set("ad alzheimer alzheimer's dementia dlb mci vad ftd pd cjd caa")
#: Most words allowed between a cue and the endpoint it governs.
NEG_REACH = 8
HEDGE_REACH = 15
Span = tuple[int, int]  # token indices [lo, hi)


@dataclass(frozen=True, slots=True)
class Words:
    """A sentence's tokens, lower-case (``w``) and as written (``raw``), the indices inside
    brackets (``paren``: "amyloid-beta (Abeta)" is one phrase) and the breakers: punctuation
    and the termination terms (``brk``)."""

    w: tuple[str, ...]
    raw: tuple[str, ...]
    paren: frozenset[int]
    brk: frozenset[int]
    group: tuple[int, ...]  # the bracket group of each token (0: outside brackets)

    def verbish(self, k: int) -> bool:
        """A finite verb or participle, by form: an auxiliary, a listed verb, or an -ed word
        (not hyphenated; not after a determiner, preposition or clause start: "aged mice")."""
        w = self.w[k]
        if w in AUX or w in VERBS:
            return True
        if len(w) > 4 and w.endswith("ed") and "-" not in w and w.isalpha():
            prev = self.w[k - 1] if k > 0 else "."
            return not (prev in DETERMINERS or prev in PREP or k == 0 or k - 1 in self.brk)
        return False

    def stop(self, k: int, comma: bool = True) -> bool:
        return k in self.brk or (comma and self.w[k] == ",")

    def plain(self, lo: int, hi: int) -> list[int]:
        """Indices in [lo, hi) outside brackets, the brackets themselves left out."""
        return [k for k in range(lo, hi) if k not in self.paren and self.w[k] not in "()[]"]


def words_of(words: list[str], raw: list[str], terminators: set[int]) -> Words:
    paren, depth, groups, group = set(), 0, 0, []
    for k, w in enumerate(words):
        if w in ("(", "["):
            depth += 1
            groups += depth == 1
        elif w in (")", "]"):
            depth = max(0, depth - 1)
        elif depth:
            paren.add(k)
        group.append(groups if k in paren else 0)
    brk = {k for k, w in enumerate(words) if w in PUNCT or w in CLAUSE_WORDS} | terminators
    return Words(tuple(words), tuple(raw), frozenset(paren), frozenset(brk - paren), tuple(group))


def _adverb(w: str) -> bool:
    return w.endswith("ly") or w in ("also", "still", "even", "further", "yet", "then")


def verb_start(s: Words, i: int, extra: frozenset[str] = frozenset()) -> int:
    """Where the verb group holding the cue at ``i`` begins (back over auxiliaries, adverbs
    and ``extra``: "A was *found to have* no effect on B")."""
    while (
        i > 0
        and (i - 1) not in s.paren
        and (s.w[i - 1] in AUX or _adverb(s.w[i - 1]) or s.w[i - 1] in extra)
    ):
        i -= 1
    return i


def left_free(s: Words, a: Span) -> bool:
    """A heads its phrase: it is not the object of a verb nor of a preposition (but "levels of
    A", "treatment with A" speak of A, as far as their own phrase is free)."""
    k, steps = a[0] - 1, 0
    while k >= 0 and steps < 8:
        if k in s.paren or s.w[k] in "()[]":
            k -= 1
            continue
        w = s.w[k]
        if s.stop(k):
            return not (w == "," and _listed(s, k))
        if s.verbish(k) or w in BASE_VERBS or (len(w) > 5 and w.endswith("ing") and w.isalpha()):
            return False  # the object of a verb or of a participle ("strains lacking A")
        if w in PREP:
            prev = s.plain(max(0, k - 3), k)
            head = s.w[prev[-1]] if prev else ""
            if not (w in ("of", "with", "to") and head in TRANSPARENT) and not (
                w == "in" and head in CHANGE_IN
            ):
                return False
            k = prev[-1]  # "(the) treatment with A": go on left of the head
        k, steps = k - 1, steps + 1
    return True


def _listed(s: Words, k: int) -> bool:
    """The comma at ``k`` separates items of a list of examples ("client proteins including
    C, D, A"): a list-opening word before it, only list items between."""
    for x in range(k - 1, max(-1, k - 16), -1):
        if x in s.paren or s.w[x] in "()[]":
            continue
        if s.w[x] in EXAMPLES:
            return True
        if s.stop(x, comma=False) or s.verbish(x) or s.w[x] in PREP - {"of"}:
            return False
    return False


def modifier(s: Words, e: Span) -> bool:
    """The endpoint only modifies a third head noun after it ("the NMDA receptor antagonist
    ketamine", "BACE inhibitor", "the GluN2A domain", "AD signature cortical thickness", the
    "Alzheimer's Disease Neuroimaging Initiative cohorts") or marks a cell type ("P2RY12(+)
    microglia"): what a cue says of the phrase is not said of the endpoint."""
    if e[1] + 1 < len(s.w) and s.w[e[1]] == "(" and s.w[e[1] + 1] in "+-":
        cells = s.plain(e[1], min(len(s.w), e[1] + 8))[:3]
        return any(s.w[k] in GROUP_NOUNS for k in cells)  # "P2RY12(+) parenchymal microglia"
    after = s.plain(e[1], min(len(s.w), e[1] + 6))
    if (
        e[1] - e[0] == 1
        and re.fullmatch(r"[a-z-]{4,}(?:ic|ive|ous)", s.raw[e[0]])
        and after
        and s.w[after[0]].isalpha()
        and not (
            s.w[after[0]] in PREP | LINKERS | AUX | CLAUSE_WORDS | GROUP_NOUNS
            or s.verbish(after[0])
        )
    ):  # ("diabetic mice" names a group: the group rules decide)
        return True  # "the neurotoxic protein B", "neurotoxic B peptides": an adjective
    for n, k in enumerate(after[:3]):
        w = s.w[k]
        if w in ROLE_HEADS:
            return True
        if w in DRUG_CLASS:
            name = s.raw[after[n + 1]] if n + 1 < len(after) else ""
            return name[:1].isalnum() and not (
                name.lower() in LINKERS | PREP | AUX | CLAUSE_WORDS or s.verbish(after[n + 1])
            )
        if s.stop(k) or s.verbish(k) or w in PREP or w in LINKERS or not w[:1].isalnum():
            return False
    return False


def population(s: Words, e: Span) -> bool:
    """The endpoint only sets the scene: a population or model ("in B carriers")."""
    return _population(s, e)


def subject(s: Words, a: Span, start: int) -> bool:
    """A is the subject of the verb group beginning at ``start``: it heads its phrase and only
    its own modifiers ("levels in CSF", an abbreviation in brackets) stand between."""
    if a[1] > start:
        return False
    gap = s.plain(a[1], start)
    if len(gap) > 6 or any(
        s.stop(k)
        or s.verbish(k)
        or s.w[k] in PRONOUNS
        or s.w[k] in RELATIONAL
        or _caused(s, k)
        or (s.w[k].endswith("ing") and len(s.w[k]) > 5)
        for k in gap
    ):  # a pronoun starts another subject; "A-induced *increase* of C", "A variant-induced
        # neurodegeneration" are not about A
        return False
    if any(s.w[k] in PREP and s.w[k] not in ("in", "of", "at", "within", "from") for k in gap):
        return False
    return left_free(s, a)


def _suspended(s: Words, e: Span) -> bool:
    """ "A- and C fibrinogen burden": A is the first part of a suspended compound; but "A-
    versus C-treated patients" names a group compared, A its treatment."""
    if not (len(s.w[e[1] - 1]) > 1 and s.w[e[1] - 1].endswith("-")):
        return False
    return not any("-" in w and w.endswith("ed") for w in s.w[e[1] : e[1] + 3])


def _caused_next(s: Words, e: Span) -> bool:
    """The word after the endpoint is a hyphenated participle or a suffix after a bracket
    ("B exposure-induced C", "(B)-dependent C"): B modifies what follows."""
    nxt = s.plain(e[1], min(len(s.w), e[1] + 6))[:1]
    return bool(nxt) and (_caused(s, nxt[0]) or (s.w[nxt[0]][:1] == "-" and
                                                 s.w[nxt[0]][1:].isalpha()))  # fmt: skip


def _caused(s: Words, k: int) -> bool:
    """A hyphenated participle ("variant-induced", "Abeta-mediated"): what follows is caused
    by the word before it."""
    w = s.w[k]
    return "-" in w and w.endswith("ed") and len(w.rsplit("-", 1)[-1]) > 3


def complement(s: Words, j: int, b: Span, reach: int, hedge: bool = False) -> bool:
    """B lies in the complement of the verb right after ``j`` (after adverbs; "to" + verb too):
    near, in the same clause, and — for a negation — before any second verb ("A did not
    affect neurons *treated* with B" does not negate A–B)."""
    if b[0] < j:
        return False
    gap = s.plain(j, b[0])
    if len(gap) > reach or any(s.stop(k) for k in gap):
        return False
    if hedge:  # "responsible for this decrease in B patients": B names who
        return not any(s.w[k] in TOOLS for k in gap) and not _population(s, b)
    if len(gap) >= 2 and s.w[gap[-1]] == "of" and s.w[gap[-2]] in ("model", "models"):
        return False  # "in a mouse model of B" names the model, not B
    words = [k for k in gap if not _adverb(s.w[k])]
    last = [k for k in gap if s.w[k] not in DETERMINERS]
    verb = {s.w[j - 1], s.w[words[0]] if words else ""}  # "did not differ", "not different"
    if verb & {"differ", "differed", "different"} and not (
        last and s.w[last[-1]] in GROUPS | {"and", "or", "in", "among"}
    ):
        return False  # "X did not differ between A+ and A- *B* groups": B is not compared
    if _group(s, b) and len(words) > 2 and {s.w[k] for k in gap[-3:]} & {"in", "among", "with"}:
        return False  # "A did not predict dementia *in B participants*": B names who
    if (_population(s, b) and len(words) > 2) or _nested(s, gap):
        return False  # "… a response only in B hippocampal neurons"; "C mutants at B"
    if s.w[j - 1] in SEPARATION or (words and s.w[words[0]] in SEPARATION):
        return False  # "A is not released from B": A stays bound to B
    rest = words[1:]
    rest = [k for n, k in enumerate(rest) if not (n and s.w[rest[n - 1]] == "to")]
    return not any(s.verbish(k) and s.w[k] not in ("been", "be") for k in rest)


def _group(s: Words, e: Span) -> bool:
    """The endpoint names a group of people or animals ("B patients", "patients with (mild)
    B")."""
    after = s.w[e[1]] if e[1] < len(s.w) else ""
    before = s.plain(max(0, e[0] - 4), e[0])
    with_ = [n for n, k in enumerate(before) if s.w[k] == "with"]
    return after in GROUP_NOUNS or bool(
        with_
        and with_[-1] > 0
        and s.w[before[with_[-1] - 1]] in GROUP_NOUNS
        and not any(s.stop(k) or s.verbish(k) or s.w[k] in PREP for k in before[with_[-1] + 1 :])
    )


def _nested(s: Words, gap: list[int]) -> bool:
    """B sits in a prepositional phrase of a third noun inside the verb's object: "did not
    suppress the aggregation of C mutants *at* B" (two prepositions, the last one's head
    neither transparent nor relational)."""
    preps = [n for n, k in enumerate(gap) if s.w[k] in PREP]
    if len(preps) < 2 or preps[-1] == 0 or s.w[gap[preps[-1]]] == "of":
        return False  # "the rate of B" speaks of B
    head = s.w[gap[preps[-1] - 1]]
    return head not in TRANSPARENT | RELATIONAL | CHANGE_IN and head not in PREP


def _argument(s: Words, k: int, a: Span) -> bool:
    """A is an argument of the relational noun at ``k``: "the effect *of* (chronic) A"."""
    gap = s.plain(k + 1, a[0])
    return (
        bool(gap)
        and s.w[gap[0]] in PREP
        and len(gap) <= 3
        and not any(s.stop(x) or s.verbish(x) for x in gap)
    )


def _population(s: Words, e: Span) -> bool:
    """The endpoint names the population or model a statement is about, not a party to it:
    "in AD patients", "in prodromal Alzheimer subjects", "a mouse model of AD", "SH-SY5Y
    neuroblastoma cells"."""
    before = [s.w[k] for k in s.plain(max(0, e[0] - 3), e[0])]
    after = [s.w[k] for k in s.plain(e[1], min(len(s.w), e[1] + 12))][:4]
    if before[-2:] in (["model", "of"], ["models", "of"]) or (_group(s, e) and "with" in before):
        return True  # "a mouse model of B", "individuals with B"
    if before[-2:] in (["presence", "of"], ["absence", "of"]):
        return True  # "in the presence of B": a condition of the experiment
    head = set(itertools.takewhile(lambda w: w not in PREP and w.isalnum()
                                   and not w.endswith("ing"), after))  # fmt: skip
    if head & {"transgenic", "model", "mice", "mouse", "rats", "rat"}:
        return True  # "B transgenic mice", "B (B) mice"
    where = {"in", "among", "from", "with", "of"} & set(before)
    return bool(where) and bool(head & (GROUP_NOUNS | {"transgenic", "model"}))


def _paired(s: Words, a: Span, b: Span) -> bool:
    """Inside a hedged clause, A and B are parties to one relation: near each other, not two
    items of a list, not in two coordinated predicates ("reduced A and rescued B"), and B not
    the population the clause is about."""
    gap = s.plain(a[1], b[0])
    if not gap or len(gap) > 10 or _coordinated(s, a, b) or _population(s, b):
        return False  # (no gap: one phrase, "Val(8)GLP-1")
    if _population(s, a) and not left_free(s, a):
        return False  # "the sex differences between APP/PS1 mice in the pathogenesis of B"
    people = GROUP_NOUNS - {"cells", "neurons", "astrocytes", "microglia", "brains"}
    if any(s.w[k] in people and s.w[gap[n - 1]] in ("in", "among") for n, k in
           enumerate(gap) if n):  # fmt: skip
        return False  # "whether C is associated with A in patients undergoing D for B"
    if any(s.w[k] in TOOLS for k in gap):
        return False  # "A may be a useful tool for B studies" hedges A's use, not A–B
    return not any(
        s.w[k] in ("and", "or", "nor")
        and n + 1 < len(gap)
        and (s.verbish(gap[n + 1]) or s.w[gap[n + 1]] in BASE_VERBS)
        for n, k in enumerate(gap)
    )


def _coordinated(s: Words, a: Span, b: Span) -> bool:
    """A and B are items of one list ("whether A or B participates", "the effects of curcumin,
    A and B on …"): a hedge over the list hedges each item's relation to something else, not a
    relation between them — unless a link verb follows ("whether A and B interact") or a
    relational noun heads the pair ("the association between A and B")."""
    gap = s.plain(a[1], b[0])
    if not gap or any(s.verbish(k) or s.stop(k, comma=False) for k in gap):
        return False
    marks = ("and", "or", "nor", ",", "/")
    if not (
        s.w[gap[0]] in marks  # "A, C and B", "A/C/B"
        or (s.w[gap[-1]] in marks and not any(s.w[k] in PREP for k in gap))  # "A levels and B"
        or (  # "A metabolism and abnormal B phosphorylation"
            len(gap) <= 4
            and any(s.w[k] in ("and", "or") for k in gap)
            and not any(s.w[k] in PREP for k in gap)
        )
        or "as well as" in " ".join(s.w[k] for k in gap)  # "A as well as B"
        or (s.w[gap[-1]] in marks and "," in {s.w[k] for k in gap})  # "A with L, C and B"
        or any(  # "A oligomers, C fibrils, and B-induced damage"
            s.w[gap[n]] in ("and", "or") and s.w[gap[n - 1]] == ","
            for n in range(max(1, len(gap) - 3), len(gap))
        )
    ):
        return False
    before = s.plain(max(0, a[0] - 2), a[0])
    if any(s.w[k] in ("between", "among") for k in before):
        return False
    nxt = [k for k in s.plain(b[1], min(len(s.w), b[1] + 4)) if not _adverb(s.w[k])]
    return not any(s.w[k] in LINK_VERBS - {"independent", "unrelated"} for k in nxt)


def _linked(s: Words, a: Span, b: Span, reach: int = 6) -> bool:
    """A and B are parts of one phrase: few words between, one of them a linker, no verb."""
    gap = s.plain(a[1], b[0])
    return (
        0 < len(gap) <= reach
        and not any(s.stop(k) or s.verbish(k) for k in gap)
        and any(s.w[k] in LINKERS for k in gap)
    )


def relational_np(s: Words, j: int, a: Span | None, b: Span, nouns: frozenset[str]) -> bool:
    """The cue ending at ``j`` is followed by a relational noun whose arguments are A and B:
    "[no] significant association between A and B" (``a`` given), "[had no] effect on B"
    (``a`` None: the subject is checked by the caller)."""
    k = j
    while k < len(s.w) and k < j + 4 and (s.w[k] in MODIFIER or s.w[k] in ("evidence", "of",
                                                                             "for")):  # fmt: skip
        k += 1
    if k >= len(s.w) or s.w[k] not in nouns or k + 1 >= len(s.w) or s.w[k + 1] not in PREP:
        return False
    first = a or b
    if first[0] <= k or len(s.plain(k + 1, first[0])) > (4 if a is None else 3):
        return False
    if any(s.stop(x) or s.verbish(x) for x in s.plain(k + 1, first[0])):
        return False
    if a is None:
        return True
    if not _linked(s, a, b) or _coordinated(s, a, b) or _population(s, b):
        return False
    if s.w[k] not in DIFFER:
        return True
    # "no difference in A between B and C": A is what was measured, B a group compared; "no
    # change in A and B", "no difference between A and B" (the groups) negate nothing between
    return not {s.w[x] for x in range(k + 1, a[0])} & GROUPS and bool(
        {s.w[x] for x in range(a[1], b[0])} & GROUPS
    )


def after(s: Words, a: Span, b: Span, i: int, j: int, hedge: bool = False) -> bool:
    """The cue at [i, j) follows both endpoints and governs the link between them: "A and B
    were not correlated" (a link verb over coordinated endpoints) or "the association between
    A and B was not significant" (a relational subject)."""
    between = s.plain(b[1], i)
    if len(between) > 4 or any(s.stop(k) or (s.verbish(k) and s.w[k] not in AUX)
                               for k in between):  # fmt: skip
        return False
    gap = s.plain(a[1], b[0])
    verb = next((k for k in range(j, min(j + 3, len(s.w))) if not _adverb(s.w[k])), None)
    said = {s.w[k] for k in range(i, j)} | ({s.w[verb]} if verb is not None else set())
    if (
        0 < len(gap) <= 4
        and s.w[gap[0]] in ("and", "or", ",", "/")
        and not any(s.w[k] in PREP or s.verbish(k) for k in gap)
    ):
        # "A and (plasma) B were not correlated" — not "… were not correlated with C"
        obj = s.w[j - 1] in PREP or (  # "independent of C", "correlated with C"
            verb is not None and verb + 1 < len(s.w) and s.w[verb + 1] in PREP
        )
        if said & LINK_VERBS and not (obj and s.w[verb + 2 : verb + 3] != ["each"]):
            return True
    if hedge or not said & NULL_PREDICATES:
        return False  # "the effect of A on B was unaffected by C" is about C
    head = [k for k in s.plain(max(0, a[0] - 4), a[0])]
    noun = next((k for k in head if s.w[k] in RELATIONAL and s.w[k] not in DIFFER), None)
    return (
        noun is not None
        and not any(s.stop(k) or s.verbish(k) for k in head if k > noun)
        and _linked(s, a, b, reach=4)
        and left_free(s, (noun, noun + 1))
    )


@dataclass(frozen=True, slots=True)
class Hit:
    kind: str  # negation | hedge
    scope: str
    i: int
    j: int


def _negation(s: Words, h: Hit, a: Span, b: Span, frees: tuple[bool, bool]) -> bool:
    if not all(frees):  # "did not reduce *B*-stimulated elevation of C" denies C, not B
        return False
    if any(_caused_next(s, e) or _suspended(s, e) for e in (a, b)):
        return False  # "prevented B exposure-induced neurotoxicity", "B)-induced": B modifies
    free = True
    mid = a[1] <= h.i and h.j <= b[0]
    before = h.j <= a[0]
    w = s.w[h.i]
    if h.scope == "verb":
        if w == "not" and (h.i == 0 or s.w[h.i - 1] not in AUX):
            return False  # "patients not receiving A": a group, not a verb's negation
        if w == "not" and s.w[h.i - 1] in ("may", "might"):
            return False  # "A may not cure B": a hedge, read as one
        if w == "unable" and verb_start(s, h.i) == h.i:
            return False  # "C oligomers unable to trigger B": describes C, no verb of A's
        if mid:
            start = verb_start(s, h.i)
            return free and subject(s, a, start) and complement(s, h.j, b, NEG_REACH)
        return h.i >= b[1] and after(s, a, b, h.i, h.j)
    if h.scope == "np":
        if mid:
            start = verb_start(s, h.i, HAVE)
            return (start < h.i and s.w[h.i - 1] in HAVE and free and subject(s, a, start)
                    and relational_np(s, h.j, None, b, RELATIONAL))  # fmt: skip
        return before and relational_np(s, h.j, a, b, RELATIONAL)
    if h.scope == "pred":
        if mid:
            start = verb_start(s, h.i, frozenset({"remained", "remain", "remains"}))
            if (start == h.i and w not in AUX) or not (free and subject(s, a, start)):
                return False
            gap = s.plain(h.j, b[0])
            return len(gap) <= 4 and not any(s.stop(k) or s.verbish(k) for k in gap)
        return h.i >= b[1] and after(s, a, b, h.i, h.j)
    if h.scope == "prep":  # without + V-ing
        nxt = s.plain(h.j, h.j + 2)
        if not (mid and nxt and s.w[nxt[0]].endswith("ing")):
            return False
        # A is the subject of the clause's verb: "A reduced C without affecting B"
        verb = next((k for k in s.plain(a[1], h.i) if s.verbish(k)), None)
        if not free or verb is None or not subject(s, a, verb_start(s, verb)):
            return False
        if _passive(s, verb):
            return False  # "A can be eliminated without affecting B": the agent is unnamed
        return not any(s.stop(k) for k in s.plain(a[1], h.i)) and complement(s, nxt[0], b, 7)
    if h.scope == "contrast":
        if mid:
            return all(frees) and _contrast(s, h, a, b)
        # "A, but not B, induced C": the contrasted phrase (here a) closed by a comma, then the
        # verb whose complement holds C (here b)
        if not (before and free and _heads(s, h.j, a)):
            return False
        close = next((k for k in range(a[1], b[0]) if s.w[k] == ","), None)
        if close is None or any(s.stop(k, comma=False) for k in s.plain(a[1], close)):
            return False
        verb = next((k for k in s.plain(close + 1, b[0]) if not _adverb(s.w[k])), None)
        return (
            verb is not None
            and s.verbish(verb)
            and not _by_participle(s, verb)
            and complement(s, verb, b, NEG_REACH)
        )
    if h.scope == "coord":
        if mid and w == "neither":
            return free and subject(s, a, verb_start(s, h.i)) and complement(s, h.j, b, 10)
        # "neither A nor C affected B", "neither C nor A affected B": A in a conjunct, B after
        # the conjunction's verb (a participle "assayed by" inside a conjunct is not it)
        if not before or len(s.plain(h.j, a[0])) > 3 or not free:
            return False
        span = s.plain(a[1], b[0])
        verb = next((k for k in span if s.verbish(k) and not _by_participle(s, k)), None)
        if verb is None or any(s.stop(k) for k in span):
            return False
        rest = s.plain(a[1], verb)
        if (w == "neither" and "nor" not in {s.w[k] for k in rest}) or s.w[verb - 1] == "nor":
            return False  # "neither A nor *increases* in B": a noun, not the verb
        return complement(s, verb_start(s, verb), b, NEG_REACH)
    return False


def _passive(s: Words, k: int) -> bool:
    """The verb group starting at ``k`` is passive: a form of "be" then a participle."""
    group = [x for x in s.plain(k, min(len(s.w), k + 5)) if not _adverb(s.w[x])]
    bes = [n for n, x in enumerate(group) if s.w[x] in ("be", "been", "being", "is", "are",
                                                          "was", "were")]  # fmt: skip
    return (
        bool(bes)
        and bes[0] + 1 < len(group)
        and (s.w[group[bes[0] + 1]].endswith("ed") or s.w[group[bes[0] + 1]] in OBSERVE)
    )


def _by_participle(s: Words, k: int) -> bool:
    """A past participle modifying a noun ("TBARS *assayed by* …"), not a clause's verb."""
    return 0 < k < len(s.w) - 1 and s.w[k + 1] == "by" and s.w[k - 1] not in AUX


def _contrast(s: Words, h: Hit, a: Span, b: Span) -> bool:
    """ "A increased C but not B": A, the subject of the clause's verb, against B, named at the
    head of the contrasted phrase (the rest of a list after it too: "but not with B, C, or
    D"); "A, but not B, induced C" (the phrase followed by the verb) is read at B–C."""
    tail = s.plain(h.j, b[0])
    if len(tail) > 10 or any(s.stop(k, comma=False) or s.verbish(k) for k in tail):
        return False
    if not _heads(s, h.j, b) and not (tail and s.w[tail[-1]] in ("or", "and", "nor")):
        return False
    end = next((k for k in range(b[1], len(s.w)) if s.stop(k, comma=False)), len(s.w))
    if any(s.verbish(k) for k in s.plain(b[1], end)):
        return False
    if b[1] < len(s.w) and a[1] < len(s.w) and s.w[b[1]] == s.w[a[1]]:
        return False  # "A over-expression …, but not B over-expression": B stands for A
    verb = next((k for k in s.plain(a[1], h.i) if s.verbish(k)), None)
    return verb is not None and subject(s, a, verb_start(s, verb))


def _heads(s: Words, j: int, e: Span) -> bool:
    """The endpoint heads the contrasted phrase that starts at ``j``: only prepositions and
    determiners before it ("but not *in aged* AD mice" contrasts the age, not AD)."""
    return all(s.w[k] in PREP or s.w[k] in DETERMINERS for k in s.plain(j, e[0]))


def _conjecture(s: Words, h: Hit) -> bool:
    """ "could" conjectures (BioScope) unless it reports an ability shown: "A could reverse B",
    "A could be detected" (Vincze et al. 2008 annotate the first kind only)."""
    nxt = s.w[h.j] if h.j < len(s.w) else ""
    if nxt == "be" and h.j + 1 < len(s.w) and s.w[h.j + 1] in OBSERVE:
        return False
    return nxt in CONJECTURE_VERBS or bool(CONJECTURE.search(" ".join(s.w[: h.i])))


def _hedge(s: Words, h: Hit, a: Span, b: Span, frees: tuple[bool, bool]) -> bool:
    free = frees[0]
    mid = a[1] <= h.i and h.j <= b[0]
    before = h.j <= a[0]
    w = s.w[h.i]
    if h.scope == "verb":
        if w == "could" and not _conjecture(s, h):
            return False
        if w == "may" and s.raw[h.i] == "May" and h.i > 0:
            return False  # the month
        if mid:
            start = verb_start(s, h.i, frozenset({"a", "an", "the", "be", "to", "as"}))
            return free and subject(s, a, start) and complement(s, h.j, b, HEDGE_REACH, hedge=True)
        return h.i >= b[1] and after(s, a, b, h.i, h.j, hedge=True)
    if h.scope == "np":
        if (
            w in ("possible", "probable")
            and h.j < len(s.w)
            and (s.w[h.j].split("-")[0] in DIAGNOSES or s.raw[h.j][:1].isupper())
        ):
            return False
        if mid:
            start = verb_start(s, h.i, frozenset({"a", "an", "the", "as", "represent",
                                                  "represents", "serve", "serves"}))  # fmt: skip
            gap = s.plain(h.j, b[0])  # "a potential drug for C inhibiting B": B is not in it
            return (
                start < h.i
                and free
                and subject(s, a, start)
                and complement(s, h.j, b, 8, hedge=True)
                and not any(s.w[k].endswith("ing") and len(s.w[k]) > 5 for k in gap)
            )
        return before and relational_np(s, h.j, a, b, RELATIONAL | HEDGE_NOUNS)
    if h.scope in ("clause", "aim"):
        if not before or not free:
            return False  # "whether these A-related proteins …": A modifies a third noun
        stop_comma = h.scope == "aim"
        span = range(h.j + (h.j < len(s.w) and s.w[h.j] == "that"), b[1])
        if any(s.stop(k, comma=stop_comma) or s.w[k] in ("which", "whereas", "while", "but")
               for k in span if k not in s.paren):  # fmt: skip
            return False
        if not _paired(s, a, b):
            return False
        if h.scope == "aim":  # "to examine the effect of A on B": A an argument of the noun
            nouns = [k for k in s.plain(h.j, a[0]) if s.w[k] in RELATIONAL]
            return (
                bool(nouns)
                and _linked(s, a, b, reach=8)  # "the effect of A on B"; the aim ends at a verb
                and "as" not in {s.w[k] for k in s.plain(a[1], b[0])}  # "A as a determinant of"
                and frees[0]
                and _argument(s, nouns[-1], a)
                and not _presupposed(s, nouns[-1])
            )
        return _proposition(s, span.start, a, b)
    if h.scope == "post":
        if h.i < b[1] or not _paired(s, a, b):
            return False
        head = s.plain(max(0, a[0] - 5), a[0])
        if not any(s.w[k] in RELATIONAL | {"how", "whether"} for k in head):
            return False  # "the role of A in B remains unclear"; not "the mechanism by which"
        if any(s.w[k] in RELATIONAL and _presupposed(s, k) for k in head):
            return False  # "the exact role of A in B remains unclear": the role is granted
        span = s.plain(a[0], h.i)
        return not any(s.stop(k) for k in span) and _linked(s, a, b, reach=6)
    return False


def _participle(s: Words, k: int) -> bool:
    """A past participle heading a reduced relative ("those *observed* in", "a drug *used*
    for"): an -ed word followed by a preposition."""
    w = s.w[k]
    return (
        len(w) > 4 and w.endswith("ed") and w.isalpha() and k + 1 < len(s.w)
        and s.w[k + 1] in PREP
    )  # fmt: skip


def _presupposed(s: Words, k: int) -> bool:
    """The relational noun at ``k`` is qualified as known, its details asked about: "the
    *exact* role of A in B", "the *precise* mechanism"."""
    return any(s.w[x] in PRESUPPOSING for x in s.plain(max(0, k - 2), k))


#: Plural nouns the -s verb test must not take for verbs.
NOUNS_S = _set(
    "plaques tangles deposits aggregates oligomers fibrils species peptides proteins genes "
    "factors markers biomarkers disorders diseases deficits impairments symptoms pathways "
    "receptors functions processes mechanisms changes effects levels"
)


def _verb_s(w: str) -> bool:
    """A verb in -s the lexicon misses ("represses", "potentiates"), by form."""
    return re.fullmatch(r"[a-z]{3,}[a-hj-rtv-z]s", w) is not None and w not in (
        NOUNS_S | TRANSPARENT | RELATIONAL | GROUP_NOUNS | ROLE_HEADS
    )


def _gap_verb(s: Words, gap: list[int], n: int) -> bool:
    """The ``n``-th word between A and B predicates something: a verb by form or lexicon,
    a link verb ("A correlate with B"), a verb in -s before a preposition ("A corresponds
    to B"), a gerund after a preposition ("A by inducing B")."""
    k = gap[n]
    w = s.w[k]
    return (
        s.verbish(k)
        or w in BASE_VERBS | LINK_VERBS
        or (n == 0 and _verb_s(w) and len(gap) > 1 and s.w[gap[1]] in PREP)
        or (w.endswith("ing") and len(w) > 5 and s.w[k - 1] in PREP)
    )


def _proposition(s: Words, start: int, a: Span, b: Span) -> bool:
    """A hedged clause starting at ``start`` ("whether …", "suggest that …") puts the pair's
    relation in question, not only a phrase naming both (blind judge, issue 39 follow-up):

    - a verb between A and B is the clause's first verb, A in its subject (not in a third
      concept's modifier: "whether drug C, used for A, might improve B"; "C was the cause of
      A induced by B"; "processes observed in A may contribute to B");
    - A and B both in the clause's subject ("the hypothesis that A susceptibility of B may
      originate in C", "the benefits and C effects of B are associated with D"): only a
      relational noun over them ("whether the effect of A on B is …") or a link verb after
      them ("whether A and B interact") puts their relation in question;
    - A and B one short noun phrase after a third concept's verb ("whether C could alleviate
      A in B", "the neurotoxic protein B", "A after B"): presupposed, unless a relational
      noun heads it; "C may influence A through the modulation of B" relates them;
    - "whether C moderates the association of A with B": the association is presupposed.
    """
    gap = s.plain(a[1], b[0])
    verb = next((k for n, k in enumerate(gap) if _gap_verb(s, gap, n)), None)
    body = s.plain(start, a[0])
    heads = [k for k in body[-4:] if s.w[k] in RELATIONAL and _argument(s, k, a)]
    if heads and any((s.verbish(k) and s.w[k] not in ("is", "are", "was", "were"))
                     or _verb_s(s.w[k]) for k in body if k < heads[-1]):  # fmt: skip
        return False
    if verb is not None:
        if any((s.verbish(k) and not (n and s.w[body[n - 1]] == "there")) or _participle(s, k)
               for n, k in enumerate(body)):  # fmt: skip
            return False
        span = s.plain(a[1], verb)  # "A, C and D can enhance B": a list of subjects
        listed = any(s.w[k] in ("and", "or") for k in span)
        return not any(s.stop(k, comma=not listed) for k in span)
    content = [k for k in gap if not _adverb(s.w[k])]
    if len(content) == 1 and _verb_s(s.w[content[0]]):
        return True  # "A represses B"
    nxt = [k for k in s.plain(b[1], min(len(s.w), b[1] + 6)) if not _adverb(s.w[k])]
    linked = bool(heads) or any(s.w[k] in LINK_VERBS for k in nxt[:4])
    if not any(s.verbish(k) for k in body):
        return linked  # both in the subject
    if len(gap) > 4 or any(
        (s.w[k] in PREP and s.w[k] not in NP_PREP) or s.w[k] in RELATIONAL
        or (s.w[k].endswith("ing") and len(s.w[k]) > 5) or s.w[k] in BASE_VERBS | VERBS
        for k in gap
    ):  # fmt: skip
        return True  # "A … through the modulation of B", "A leading to B", "A via B"
    return linked


RULES: dict[str, Callable[[Words, Hit, Span, Span, tuple[bool, bool]], bool]] = {
    "negation": _negation,
    "hedge": _hedge,
}


def governs(
    s: Words, h: Hit, head: Span, tail: Span, bound: tuple[bool, bool] = (False, False)
) -> bool:
    """The cue ``h`` negates or hedges the relation between the two endpoint phrases (token
    spans, either order; overlapping endpoints are never related by a cue). ``bound``: the
    head, the tail is the first part of a hyphenated modifier ("Abeta-induced toxicity"), so
    it cannot be a subject. An endpoint in a bracketed aside ("(except for B)") is outside the
    reach of a cue outside it."""
    (a, a_bound), (b, b_bound) = sorted(zip((head, tail), bound, strict=True))
    if a[1] > b[0]:
        return False
    for e in (a, b):
        group = s.group[e[0]]
        if group and s.group.count(group) > 3 and s.group[h.i] != group:
            return False
        if modifier(s, e):
            return False
    return RULES[h.kind](s, h, a, b, (not a_bound, not b_bound))
