"""Does a negation or hedge cue govern the relation between the two endpoints of a claim?

NegEx (Chapman et al. 2001) and ConText (Harkema et al. 2009) give a cue a window of words and
stop it at termination terms; that finds what a cue *reaches*, not what it *governs*. In a
co-mention sentence most negations govern something else: a group ("individuals *with no*
dementia", "participants *without* diabetes"), a third concept ("the effect of APOE on AD was
*unaffected by* age"), or another pair of a list. REACH (clulab/reach) found the
same: "did not" anywhere in a sentence does not mark its relations negated. Without a trained
parser here (scispaCy's models cannot be installed; the only ``en_core_web_sm`` wheels on PyPI
are third-party re-uploads), the test is a small grammar of the constructions in which a cue
negates or hedges the link between two noun phrases A (the left endpoint) and B (the right):

- ``verb`` cues (not, did not, failed to; may, might, is thought to) negate or hedge the verb
  after them: A is the subject (:func:`.arguments.subject`) and B in the verb's complement
  (:func:`.arguments.complement`): "A did not increase B", "A may inhibit B";
  after both, only a relational predicate over "A and B" ("A and B were not correlated") or a
  relational subject ("the association between A and B was not significant")
  (:func:`.arguments.after`);
- ``np`` cues (no, lack of, absence of; potential, putative) negate or hedge a relational noun
  (association, effect, difference…): "A had no effect on B", "no association between A and
  B", "lack of effect of A on B" (:func:`.arguments.relational_np`); "no dementia" names a
  group, not a relation;
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

After a blind judge's reading of the DALK build, neither a negation nor a hedge reaches an
endpoint that only modifies a third head noun (:func:`.phrases.modifier`: "the NMDA receptor
antagonist ketamine", "the GluN2A domain", "AD signature cortical thickness", "the
ADNI cohorts", "P2RY12(+) microglia"); a negation does not reach an object nested in a third
noun's phrase ("the aggregation of C mutants at B"), a population ("only in B neurons"), an
unnamed agent ("can be eliminated without affecting B"), nor a separation ("A is not released
from B": it stays bound); a hedged clause must put the pair's relation in question, not a third
concept's predicate over a presupposed phrase ("whether C could alleviate A in B", "whether C
moderates the association of A with B", "the exact role of A in B") (:func:`.hedge.proposition`).

The word classes of :mod:`.lexicon` are the grammar's lexicon, by form; they were tuned on
self-judged development samples of the DALK co-occurrence build, whose blind measure is
``bench/epistemic_sample.py`` / ``bench/epistemic_score.py``.

The package, by idea: :mod:`.lexicon` (the word classes), :mod:`.words` (a sentence's tokens
and a cue's hit), :mod:`.phrases` (what a noun phrase is: free, a modifier, a population, a
list item), :mod:`.arguments` (a verb's subject and complement, a relational noun's
arguments), :mod:`.negation` and :mod:`.hedge` (the rules of each kind of cue) and
:mod:`.governs` (the decision for one cue and one pair, what callers use).
"""
