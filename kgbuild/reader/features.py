"""What the reader sees of one sentence and two marked mentions: sparse string features.

The classic relation-extraction feature set (Zhou et al. 2005, "Exploring various knowledge in
relation extraction", ACL; the CID systems of BioCreative V), at sentence scope:

- the words between the mentions (unigrams, bigrams, the whole span when short), the words
  around each mention, their order, kinds and distance;
- the cues of how the sentence holds a claim: hedges, negations, attributions, section labels
  ("METHODS:"), study-aim phrasing, anywhere in the sentence and near the pair;
- what tells a mention from a longer term or a wrong sense (the grounding heads): the word
  right after and before it ("receptor", "maze", "dismutase", "buffered"), its length and shape,
  and how close its text is to the name of the concept its ID says.

Words are lower-cased, digits folded to 0, and cut to a stem of 7 characters, so "inhibited",
"inhibits" and "inhibition" share a feature.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from rapidfuzz import fuzz

_TOKEN = re.compile(r"[A-Za-z]+|\d+|[^\sA-Za-z\d]")
_SECTION = re.compile(r"^\s*([A-Z][A-Z ]{2,30}):")
#: Cue families read anywhere in the sentence (as one feature each) and near the pair.
CUES: dict[str, frozenset[str]] = {
    "hedge": frozenset(
        {
            "may",
            "might",
            "could",
            "possibl",
            "potenti",
            "suggest",
            "hypothe",
            "whether",
            "putativ",
            "likely",
            "propose",
            "appear",
            "seem",
            "candida",
            "speculat",
            "unclear",
            "unknown",
            "if",
        }
    ),
    "neg": frozenset(
        {
            "no",
            "not",
            "neither",
            "nor",
            "without",
            "fail",
            "failed",
            "lack",
            "absence",
            "absent",
            "unaffec",
            "unchang",
            "independ",
            "cannot",
            "none",
        }
    ),
    "attrib": frozenset(
        {
            "previou",
            "reporte",
            "known",
            "establis",
            "recentl",
            "earlier",
            "literat",
            "review",
            "studies",
            "evidenc",
        }
    ),
    "aim": frozenset(
        {
            "aim",
            "aimed",
            "objecti",
            "purpose",
            "investi",
            "examine",
            "explore",
            "evaluat",
            "determin",
            "assess",
            "hypothe",
            "whether",
        }
    ),
    "method": frozenset(
        {
            "using",
            "buffer",
            "assay",
            "stained",
            "incubat",
            "extract",
            "protoco",
            "measure",
            "measured",
            "analyze",
            "analyse",
            "method",
            "methods",
            "perform",
            "perfuse",
            "western",
            "elisa",
            "pcr",
        }
    ),
    "up": frozenset(
        {
            "increas",
            "upregul",
            "induce",
            "induced",
            "induces",
            "inducti",
            "elevate",
            "enhance",
            "promote",
            "activat",
            "stimula",
            "raise",
            "raised",
            "augment",
            "potenti",
            "exacerb",
            "aggrava",
            "worsen",
            "trigger",
            "cause",
            "caused",
            "causes",
        }
    ),
    "down": frozenset(
        {
            "decreas",
            "downreg",
            "reduce",
            "reduced",
            "reduces",
            "reducti",
            "inhibit",
            "suppres",
            "attenua",
            "block",
            "blocked",
            "lower",
            "lowered",
            "diminis",
            "abolish",
            "prevent",
            "amelior",
            "allevia",
            "impair",
            "impaire",
            "antagon",
            "protect",
            "rescue",
            "rescued",
            "reverse",
            "reversed",
        }
    ),
    "treat": frozenset(
        {
            "treatme",
            "treat",
            "treated",
            "therapy",
            "therape",
            "drug",
            "drugs",
            "efficac",
            "improve",
            "clinica",
            "trial",
            "patients",
        }
    ),
    "assoc": frozenset(
        {
            "associa",
            "correla",
            "linked",
            "link",
            "risk",
            "biomark",
            "involve",
            "implica",
            "related",
            "relatio",
            "marker",
            "predict",
        }
    ),
    "bind": frozenset(
        {
            "bind",
            "binds",
            "binding",
            "bound",
            "complex",
            "interac",
            "affinit",
            "ligand",
            "dock",
            "docking",
        }
    ),
}
_STEM = 7


def stem(token: str) -> str:
    t = token.lower()
    if t.isdigit():
        return "0"
    return t[:_STEM]


@dataclass(slots=True)
class Pair:
    """The reader's input: a sentence and two mention spans (A before B), kinds and names."""

    sentence: str
    a_start: int
    a_end: int
    b_start: int
    b_end: int
    a_type: str
    b_type: str
    a_name: str = ""
    b_name: str = ""
    #: The relation verifier's document-level P(related) for the pair; -1 when unscored.
    doc_score: float = -1.0
    #: What the extractor proposed: its family ("classifier", "llm"; "" for none) and relation.
    cand_source: str = ""
    cand_relation: str = ""


def _tokens(text: str) -> list[str]:
    return [stem(t) for t in _TOKEN.findall(text)]


def _cue_hits(tokens: list[str]) -> set[str]:
    return {name for name, words in CUES.items() for t in tokens if t in words}


def _bucket(n: int) -> str:
    for edge in (0, 1, 2, 4, 7, 12, 20):
        if n <= edge:
            return str(edge)
    return "20+"


def _mention(prefix: str, sentence: str, s: int, e: int, name: str) -> list[str]:
    text = sentence[s:e]
    before = _tokens(sentence[max(0, s - 40) : s])[-2:]
    after = _tokens(sentence[e : e + 40])[:2]
    out = [
        f"{prefix}n1:{after[0] if after else '$'}",
        f"{prefix}p1:{before[-1] if before else '^'}",
    ]
    if len(after) > 1:
        out.append(f"{prefix}n2:{after[0]}_{after[1]}")
    glued_after = e < len(sentence) and (sentence[e].isalnum() or sentence[e] == "-")
    glued_before = s > 0 and (sentence[s - 1].isalnum() or sentence[s - 1] in "-(")
    out += [
        f"{prefix}glue_after:{glued_after}",
        f"{prefix}glue_before:{sentence[s - 1] if glued_before else '_'}",
    ]
    n = len(text)
    out.append(f"{prefix}len:{min(n, 6) if n < 6 else ('6-10' if n <= 10 else '11+')}")
    shape = "upper" if text.isupper() else "lower" if text.islower() else "mixed"
    out.append(f"{prefix}shape:{shape}{'_digit' if any(c.isdigit() for c in text) else ''}")
    if name:
        score = fuzz.token_set_ratio(text.lower(), name.lower())
        out.append(f"{prefix}name_sim:{int(score // 20)}")
        part = fuzz.partial_ratio(text.lower(), name.lower())
        out.append(f"{prefix}name_part:{int(part // 25)}")
    return out


def rule_features(p: Pair) -> list[str]:
    """What the scoped epistemic rules (:mod:`kgbuild.extract.epistemics`: NegEx/ConText
    scope for the pair) and the relation-word check (:mod:`kgbuild.extract.stated`) say about
    the pair: their verdicts become features the heads weigh, instead of hard rules."""
    from kgbuild.extract.epistemics import classify
    from kgbuild.extract.stated import relation_stated

    a, b = (p.a_start, p.a_end), (p.b_start, p.b_end)
    status, cue = classify(p.sentence, (0, len(p.sentence)), a, b, "associates")
    out = [f"epi:{status}"]
    if cue:
        out.append(f"epi_cue:{status}:{cue.split()[0].lower()}")
    for rel in ("upregulates", "downregulates", "treats", "binds"):
        word = relation_stated(p.sentence, a, b, rel)
        if word and not word.startswith("("):
            out.append(f"rs:{rel}")
    return out


def pair_features(p: Pair) -> list[str]:
    """The sparse features of one pair (strings; the model keeps those seen in training)."""
    s = p.sentence
    between = _tokens(s[p.a_end : p.b_start])
    before = _tokens(s[: p.a_start])
    after = _tokens(s[p.b_end :])
    kinds = f"{p.a_type}>{p.b_type}"
    f = [f"kinds:{kinds}", f"nbw:{_bucket(len(between))}"]
    f += [f"bw:{t}" for t in set(between)]
    f += [f"bw2:{a}_{b}" for a, b in set(itertools.pairwise(between))]
    if len(between) <= 5:
        f.append("bws:" + "_".join(between))
    if between:
        f += [f"bwf:{between[0]}", f"bwl:{between[-1]}", f"ncomma:{min(between.count(','), 3)}"]
        f += [f"kbwf:{kinds}:{between[0]}", f"kbwl:{kinds}:{between[-1]}"]
    f += [f"kbw:{kinds}:{t}" for t in set(between) if any(t in w for w in CUES.values())]
    f += [f"ba:{t}" for t in set(before[-3:])]
    f += [f"ab:{t}" for t in set(after[:3])]
    f += [f"sw:{t}" for t in set(before + between + after)]
    for cue in _cue_hits(before + between + after):
        f.append(f"cue:{cue}")
    for cue in _cue_hits(between):
        f += [f"cue_bw:{cue}", f"kcue_bw:{kinds}:{cue}"]
    for cue in _cue_hits(before[-4:]):
        f.append(f"cue_before:{cue}")
    m = _SECTION.match(s)
    if m:
        f.append(f"section:{m.group(1).strip().lower()}")
    if "by" in between:
        f.append("passive_by")
    if "(" in s[p.a_end : p.b_start] and len(between) <= 3:
        f.append("paren_pair")
    if between and between[0] in {",", "and", "or", "/"} and len(between) <= 2:
        f.append("listed")
    f += _mention("A:", s, p.a_start, p.a_end, p.a_name)
    f += _mention("B:", s, p.b_start, p.b_end, p.b_name)
    f += rule_features(p)
    if p.cand_source:
        f += [f"cand:{p.cand_source}:{p.cand_relation}", f"cand_src:{p.cand_source}"]
    if p.doc_score < 0:
        f.append("doc:none")
    else:
        bucket = min(int(p.doc_score * 10), 9)
        f += [f"doc:{bucket}", f"doc_hi:{p.doc_score >= 0.5}"]
    return f


def mention_features(p: Pair, which: str) -> list[str]:
    """Features of one mention for the grounding head (shared by A and B: "M:")."""
    s = p.sentence
    if which == "A":
        feats = _mention("M:", s, p.a_start, p.a_end, p.a_name)
        kind, text = p.a_type, s[p.a_start : p.a_end]
    else:
        feats = _mention("M:", s, p.b_start, p.b_end, p.b_name)
        kind, text = p.b_type, s[p.b_start : p.b_end]
    feats += [f"M:kind:{kind}", f"M:text:{text.lower()}"]
    feats += [f"M:kn1:{kind}:{x.split(':', 1)[1]}" for x in feats if x.startswith("M:n1:")]
    return feats
