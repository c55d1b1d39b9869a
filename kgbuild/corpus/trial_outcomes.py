"""What a sentence reports of an intervention tried in people: a benefit, no benefit, or neither.

Why: "Did solanezumab slow cognitive decline in phase 3?" and "Does Ginkgo biloba prevent
Alzheimer's disease?" are among a newcomer's first questions, and the extracted facts cannot
answer them. A ``treats`` fact is made from "Ginkgo is used to treat dementia" as readily as from
a trial; a failed trial ("failed to meet their primary endpoints") states no relation between
two annotated entities at all, so the extractor (trained on BioRED's relations, Luo et al. 2022)
makes nothing of it. The abstracts do say it, in a small closed language of trial reports
(CONSORT's outcome wording: Schulz et al. 2010): "failed to show significant clinical
benefit", "did not slow decline", "no significant difference from placebo", against "slowed
cognitive decline", "significantly improved", "met its primary endpoint".

A sentence is read only in a human study: the sentence, or its abstract, names a trial, a
placebo, a phase, randomisation or patients/participants. Animal and cell studies report
benefits in the same words ("improved cognition in APP/PS1 mice") and say nothing of people.
The rule's precision and recall were measured against sentences judged blind
(``data/judged/trial_outcomes``; :mod:`kgbuild.evaluate.trial_outcomes`).
"""

from __future__ import annotations

import re
from typing import Any

from kgbuild.corpus.marks import MAX_SENTENCE, disjoint_spans, excerpt
from kgbuild.extract.sentences import sentence_spans

#: A trial, or people studied (the sentence's or its abstract's words).
HUMAN_STUDY = re.compile(
    r"\b(?:trials?|phase\s*(?:i{1,3}|[123])\b|placebo|randomi[sz]ed|double[- ]blind|"
    r"patients|participants|subjects with|volunteers|cohort|meta-analys[ie]s|"
    r"people|individuals|older adults|elderly)",
    re.IGNORECASE,
)
#: Animal or cell studies: a sentence naming them reports nothing of people.
NON_HUMAN = re.compile(
    r"\b(?:mice|mouse|rats?|murine|transgenic|in vitro|in vivo|cells?|cultured|rodents?|"
    r"drosophila|zebrafish|c\. elegans|primates?|monkeys?|dogs?|animals?|cattle|steers|"
    r"heifers|pigs|sheep|cows)\b",
    re.IGNORECASE,
)
#: An aim, a design or a question, not a result: "OBJECTIVE: to determine whether X slows…".
NOT_A_RESULT = re.compile(
    r"^\s*(?:objectives?|aims?|purpose|background|methods?|design|introduction)\s*:|"
    r"\b(?:whether|we\s+(?:aimed|aim|sought|investigate[sd]?|evaluated?|examined?|tested|"
    r"hypothesi[sz]ed)|to\s+(?:determine|assess|evaluate|examine|test|investigate))\b",
    re.IGNORECASE,
)
#: A clinical outcome: a trial's result is about cognition, function, symptoms or the disease.
CLINICAL_OUTCOME = re.compile(
    r"\b(?:cogniti\w*|decline|dementia|memory|function(?:al|ing)?|progression|ADAS\S*|MMSE|"
    r"CDR\S*|clinical\w*|effica\w*|endpoints?|end\s+points?|benefits?|beneficial|"
    r"symptoms?|risk|incidence|Alzheimer\S*|AD|MCI|behaviou?r\w*|outcomes?|trials?)\b",
    re.IGNORECASE,
)
#: No benefit: a failed endpoint, a denied effect, no difference from placebo, a halted trial.
NO_BENEFIT = re.compile(
    r"\b(?:fail(?:ed|s|ure)?\s+(?:to\s+|in\s+|of\s+)?(?:\w+\s+){0,3}?"
    r"(?:meet|show|demonstrate|slow|improve|reduce|prevent|achieve|reach|halt|benefit|"
    r"significan|efficac|clinical|trial|phase)|"
    r"did\s+not\s+(?:\w+\s+){0,2}?(?:slow|improve|reduce|prevent|delay|differ|change|"
    r"show|demonstrate|meet|affect|benefit|alter|decrease|lower|halt|modify)|"
    r"(?:was|were|is|are|has\s+been|have\s+been)\s+not\s+(?:effective|efficacious|superior|"
    r"associated\s+with\s+(?:a\s+)?(?:slower|reduced|lower|improve))|"
    r"no\s+(?:significant\s+|clinically\s+(?:meaningful|relevant|significant)\s+|"
    r"statistically\s+significant\s+|overall\s+|consistent\s+|clear\s+|detectable\s+)?"
    r"(?:clinical\s+)?(?:benefit|efficacy|effect|improvement|difference|slowing|"
    r"reduction|protection|protective\s+effect)|"
    r"(?:lack|absence)\s+of\s+(?:\w+\s+)?(?:efficacy|benefit|effect)|"
    r"(?:not|no\s+more)\s+(?:significantly\s+)?(?:better|different)\s+than\s+placebo|"
    r"negative\s+(?:results?|trials?|outcomes?|findings)|"
    r"(?:halted|terminated|discontinued|stopped)\s+(?:\w+\s+){0,3}?(?:futility|lack\s+of)|"
    r"futility|unsuccessful|ineffective)",
    re.IGNORECASE,
)
#: A benefit: slowed, improved, reduced decline or risk, a met endpoint.
BENEFIT = re.compile(
    r"\b(?:(?:significantly\s+|modestly\s+|markedly\s+)?"
    r"(?:slowed|slows|improved|improves|delayed|delays|reduced|reduces|lowered|lowers|"
    r"attenuated|attenuates|prevented|prevents|halted|stabili[sz]ed)\s+"
    r"(?:the\s+)?(?:\w+\s+){0,3}?(?:decline|cognition|cognitive|function|progression|"
    r"deterioration|scores?|symptoms|risk|incidence|impairment|memory|ADAS|MMSE|CDR)|"
    r"(?:less|slower)\s+(?:\w+\s+){0,3}?(?:decline|progression|deterioration)|"
    r"(?:lower|reduced|decreased)\s+(?:\w+\s+){0,2}?(?:risk|incidence|odds|hazard)|"
    r"met\s+(?:its|the|their|both)\s+(?:\w+\s+)?(?:primary\s+)?(?:end\s*points?|outcomes?)|"
    r"(?:was|were)\s+(?:effective|efficacious|superior\s+to\s+placebo)|"
    r"(?:significant|clinically\s+(?:meaningful|relevant))\s+(?:clinical\s+)?"
    r"(?:benefit|improvement|efficacy|slowing)|"
    r"beneficial\s+(?:cognitive\s+|clinical\s+)?effects?)",
    re.IGNORECASE,
)


def outcome(sentence: str, abstract: str = "") -> str | None:
    """ "no benefit", "benefit", or None: what ``sentence`` reports of a human study on a
    clinical outcome (:data:`CLINICAL_OUTCOME`) — a sentence naming one (:data:`HUMAN_STUDY`), or
    one in an abstract that names one and no animals or cells; never an aim or a design.
    A sentence with both kinds of wording reports no benefit when it names a failure ("failed
    to show the benefit seen in…"), the reading a trial report gives its primary outcome."""
    if NON_HUMAN.search(sentence) or NOT_A_RESULT.search(sentence):
        return None
    if not CLINICAL_OUTCOME.search(sentence):
        return None
    in_people = HUMAN_STUDY.search(sentence) is not None
    if not in_people and (NON_HUMAN.search(abstract) or not HUMAN_STUDY.search(abstract)):
        return None  # an abstract on animals or cells, or one naming no study in people
    if NO_BENEFIT.search(sentence):
        return "no benefit"
    if BENEFIT.search(sentence):
        return "benefit"
    return None


def read_outcomes(rows: list[tuple[Any, ...]]) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """PMID → "benefit" / "no benefit", and the sentences read, from ``rows`` (pmid, year,
    title, abstract, [{k, a, b}] of the intervention's mentions). An abstract with both
    readings counts as no benefit: a trial report leads with its primary outcome, and a
    subgroup's benefit beside a failed endpoint is not the trial's result."""
    by_pmid: dict[str, str] = {}
    shown: list[dict[str, Any]] = []
    for pmid, year, title, abstract, spans in rows:
        text = f"{title or ''} {abstract or ''}"
        marks = [(int(x["a"]), int(x["b"])) for x in spans]
        for s0, s1 in sentence_spans(text, marks, [len(title or "") + 1]):
            inside = [(a - s0, b - s0) for a, b in marks if s0 <= a and b <= s1]
            if not inside or s1 - s0 > MAX_SENTENCE:
                continue
            sent = text[s0:s1]
            said = outcome(sent, text)
            if said is None:
                continue
            if by_pmid.get(str(pmid)) != "no benefit":
                by_pmid[str(pmid)] = said
            reading = "no" if said == "no benefit" else "yes"
            shown.append({"pmid": str(pmid), "year": int(year), "reading": reading,
                          "sentence": excerpt(sent, disjoint_spans(inside[:1]))})  # fmt: skip
    shown.sort(key=lambda x: (-x["year"], x["pmid"]))
    return by_pmid, shown


#: Words of a question that ask about people: a trial's answer, not a mechanism's.
ASKS_PEOPLE = re.compile(
    r"\b(?:people|patients|persons|adults|elderly|individuals|humans?|trials?|clinical(?:ly)?|"
    r"participants|phase\s*(?:i{1,3}|[1-3]))\b",
    re.IGNORECASE,
)
#: Words of a question asking whether an intervention helps (the asked relation may be another).
ASKS_BENEFIT = re.compile(
    r"\b(?:slow\w*|prevent\w*|delay\w*|improv\w*|benefit\w*|help\w*|work|effective|"
    r"efficac\w*|(?:reduc|lower)\w*\s+(?:the\s+)?risk|protect\w*|treat\w*)\b",
    re.IGNORECASE,
)


def asks_trial(question: str, asked: list[str]) -> bool:
    """A yes/no question whether an intervention helps: "does vitamin E slow decline",
    "did solanezumab improve cognition in phase 3"."""
    return "treats" in asked or ASKS_BENEFIT.search(question) is not None
