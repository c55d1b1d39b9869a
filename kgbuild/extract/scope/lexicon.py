"""The scope grammar's lexicon: word classes by form, one frozen set each.

A cue governs the relation between two endpoints only inside the constructions of
:mod:`kgbuild.extract.scope`; these classes are the words those constructions are made of
(auxiliaries, prepositions, relational nouns, group nouns, link verbs…). They are data, not
rules, so a word added to a class changes every rule that reads it: they were tuned on
self-judged development samples of the DALK co-occurrence build and measured blind by
``bench/epistemic_sample.py`` / ``bench/epistemic_score.py``. The termination terms of NegEx
(Chapman et al. 2001) and ConText (Harkema et al. 2009) are the clause breakers here
(:data:`PUNCT`, :data:`CLAUSE_WORDS`); "could be detected" read as an observation follows
BioScope's annotation guidelines (Vincze et al. 2008).
"""

from __future__ import annotations

import re


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
    "suppression stimulation induction overproduction increase decrease progression conversion"
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
#: the endpoint (a blind judge's reading).
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

#: Plural nouns the -s verb test must not take for verbs.
NOUNS_S = _set(
    "plaques tangles deposits aggregates oligomers fibrils species peptides proteins genes "
    "factors markers biomarkers disorders diseases deficits impairments symptoms pathways "
    "receptors functions processes mechanisms changes effects levels"
)
