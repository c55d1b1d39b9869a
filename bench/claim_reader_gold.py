"""The claim reader of the conflicts view (:mod:`kgbuild.belief.claims_read`) against BioRED gold.

BioRED (Luo et al. 2022; ``/work/shared/data/biored``, Train and Dev only) annotates every
entity mention of 500 abstracts with offsets and IDs, and every related pair of the abstract
with a type: Positive_Correlation, Negative_Correlation, Association, Bind, … So for every
sentence holding a mention of both members of a gold pair, we know the sign the curators give
the pair, and can ask: when the reader reads a sign in that sentence, is it the curators' sign?

    .venv/bin/python bench/claim_reader_gold.py [--split Dev|Train|both] [--show N]
    # the LLM reader (kgbuild/belief/claims_llm.py), measured the same way
    .venv/bin/python bench/claim_reader_gold.py --reader llm --llm-base-url URL --llm-model M

Unit: a (pair, sentence) — the pair's mentions in one sentence (from the splitter of
:mod:`kgbuild.extract.sentences`, title its own sentence), every mention of one member against
every mention of the other; the sentence's reading is the set of polarities the reader gives
those mention pairs. Figures, per split:

- coverage: (pair, sentence) units and distinct pairs with a signed reading (up/down), of all
  units/pairs of gold-related pairs;
- sign precision: signed readings on Positive/Negative_Correlation pairs that match the gold
  sign (up on Positive, down on Negative; a unit read both ways counts as wrong), with a
  Wilson 95% interval (:func:`kgbuild.audit.score.wilson`); signed readings on Association
  and other pairs are counted apart (the curators gave no sign: neither right nor wrong);
- unrelated: readings on pairs of co-occurring entities the curators relate in no way (BioRED
  annotates every related pair of an abstract, so a claim read there is suspect);
- denials: how often a denial template fires on a gold-related pair (a denial of a pair the
  curators say is related is suspicious) and on an unrelated one.

The patterns are the strings the SQL view runs (``read_claim`` uses them with Python ``re``).
Templates were tuned on Train only; Dev is the held-out figure. ``--reader llm`` asks the LLM
reader about the pairs ``kgbuild conflicts --reader llm`` would ask (the cue cut; ``template``
is then ``llm``), its answers cached in the warehouse's ``llm_cache.sqlite``, and adds what
the reading cost (calls, cached, unparseable, USD) per split. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from kgbuild.audit.score import wilson
from kgbuild.belief.claims_llm import Question, read_claims
from kgbuild.belief.claims_read import Claim, pieces, read_claim, worth_reading
from kgbuild.belief.claims_templates import AFFIRM, DENY, Span
from kgbuild.extract.sentences import sentence_spans
from kgbuild.llm.client import LLMClient
from kgbuild.settings import warehouse_path

SIGN = {"Positive_Correlation": "up", "Negative_Correlation": "down"}


@dataclass
class Doc:
    """One BioRED abstract: text (title + " " + abstract), mentions, gold relations."""

    pmid: str
    title: str
    text: str = ""
    mentions: list[tuple[int, int, frozenset[str]]] = field(default_factory=list)
    relations: dict[frozenset[str], str] = field(default_factory=dict)


def load(path: Path) -> list[Doc]:
    """The documents of a BioRED PubTator file (mention IDs split on , and ;)."""
    docs: list[Doc] = []
    cur: Doc | None = None
    for line in path.read_text("utf-8").splitlines():
        if "|t|" in line[:20]:
            pmid, _, title = line.split("|", 2)
            cur = Doc(pmid, title)
            docs.append(cur)
        elif "|a|" in line[:20] and cur is not None:
            cur.text = cur.title + " " + line.split("|", 2)[2]
        elif line.strip() and cur is not None:
            f = line.split("\t")
            if len(f) >= 6 and f[1].isdigit():
                ids = frozenset(i.strip() for i in f[5].replace(";", ",").split(",") if i.strip())
                cur.mentions.append((int(f[1]), int(f[2]), ids - {"-"}))
            elif len(f) >= 4:
                cur.relations[frozenset((f[2], f[3]))] = f[1]
    return docs


@dataclass
class Unit:
    """A pair's mentions in one sentence and what the reader read there."""

    pmid: str
    pair: frozenset[str]
    gold: str | None  # the relation type, None: unrelated
    sentence: str
    readings: dict[str, str]  # polarity -> template (first seen)


#: A reader: the claims of many (sentence, mention span, mention span), None where none.
Reader = Callable[[list[tuple[str, Span, Span]]], list[Claim | None]]


def regex_reader(items: list[tuple[str, Span, Span]]) -> list[Claim | None]:
    """The template reader (what the ``conflicts`` view runs)."""
    return [read_claim(s, a, b) for s, a, b in items]


def llm_reader(client: LLMClient, stats: dict[str, Any]) -> Reader:
    """The LLM reader (:mod:`kgbuild.belief.claims_llm`), asked only what ``kgbuild conflicts
    --reader llm`` asks: pairs whose text between passes the cue cut (:func:`worth_reading`,
    the test :func:`~kgbuild.belief.claims_read_sql.cue_sql` writes); its cost summed into
    ``stats``."""

    def read(items: list[tuple[str, Span, Span]]) -> list[Claim | None]:
        asked = [i for i, (s, a, b) in enumerate(items) if _candidate(s, a, b)]
        claims, st = read_claims(client, [Question(*items[i]) for i in asked])
        for k, v in st.to_dict().items():
            stats[k] = None if v is None else stats.get(k, 0) + v
        out: list[Claim | None] = [None] * len(items)
        for i, c in zip(asked, claims, strict=True):
            out[i] = c
        return out

    return read


def _candidate(sentence: str, a: Span, b: Span) -> bool:
    """The cheap cut of the conflicts path: the text between the two mentions passes
    :func:`worth_reading` (at most MAX_MID characters, a cue word, a starter)."""
    first, second = sorted((a, b))
    cut = pieces(sentence, first, second)
    return cut is not None and worth_reading(cut[1])


def units(docs: list[Doc], reader: Reader = regex_reader) -> list[Unit]:
    """Every (pair of IDs, sentence) with a mention of both, and the reader's readings (each
    pair of mention spans of a sentence read once)."""
    found: list[tuple[Doc, int, frozenset[str], tuple[str, Span, Span]]] = []
    for d in docs:
        spans = sentence_spans(d.text, [(s, e) for s, e, _ in d.mentions], [len(d.title)])
        for s0, s1 in spans:
            inside = [(s, e, ids) for s, e, ids in d.mentions if s >= s0 and e <= s1 and ids]
            for (a0, a1, ia), (b0, b1, ib) in itertools.combinations(inside, 2):
                item = (d.text[s0:s1], (a0 - s0, a1 - s0), (b0 - s0, b1 - s0))
                for x, y in itertools.product(ia, ib):
                    if x != y:
                        found.append((d, s0, frozenset((x, y)), item))
    items = list(dict.fromkeys(f[3] for f in found))
    read = dict(zip(items, reader(items), strict=True))
    by_unit: dict[tuple[str, int, frozenset[str]], Unit] = {}
    for d, s0, pair, item in found:
        u = by_unit.get((d.pmid, s0, pair))
        if u is None:
            u = by_unit[d.pmid, s0, pair] = Unit(d.pmid, pair, d.relations.get(pair), item[0], {})
        c = read[item]
        if c is not None:
            u.readings.setdefault(c.polarity, c.template)
    return list(by_unit.values())


def _rate(k: int, n: int) -> dict[str, Any]:
    return {"k": k, "n": n, "share": round(k / n, 4) if n else None, "wilson95": wilson(k, n)}


def measure(us: list[Unit]) -> dict[str, Any]:
    """The figures of one split (see the module docstring)."""
    related = [u for u in us if u.gold]
    signed_gold = [u for u in related if u.gold in SIGN]
    signed = [u for u in signed_gold if {"up", "down"} & set(u.readings)]
    right = [u for u in signed if set(u.readings) & {"up", "down"} == {SIGN[u.gold]}]
    pairs_all = {(u.pmid, u.pair) for u in related}
    pairs_read = {(u.pmid, u.pair) for u in related if {"up", "down"} & set(u.readings)}
    other_signed = [u for u in related if u.gold not in SIGN and {"up", "down"} & set(u.readings)]
    unrelated = [u for u in us if not u.gold]
    denial = [u for u in related if set(DENY) & set(u.readings)]
    by_template: dict[str, Counter[str]] = defaultdict(Counter)
    for u in related:
        for pol, t in u.readings.items():
            if pol in ("up", "down"):
                verdict = ("right" if u.gold in SIGN and pol == SIGN[u.gold]
                           else "wrong" if u.gold in SIGN else "unsigned_gold")  # fmt: skip
            else:
                verdict = pol
            by_template[t][verdict] += 1
    for u in unrelated:
        for _pol, t in u.readings.items():
            by_template[t]["unrelated"] += 1
    return {
        "units_related": len(related),
        "units_signed_gold": len(signed_gold),
        "coverage_units_signed": _rate(len(signed), len(signed_gold)),
        "coverage_pairs_signed": _rate(len(pairs_read), len(pairs_all)),
        "sign_precision": _rate(len(right), len(signed)),
        "signed_on_association_or_other": len(other_signed),
        "assoc_read_on_related": sum("assoc" in u.readings for u in related),
        "units_unrelated": len(unrelated),
        "signed_on_unrelated": sum(bool({"up", "down"} & set(u.readings)) for u in unrelated),
        "denial_on_related": _rate(len(denial), len(related)),
        "denial_on_unrelated": _rate(
            sum(bool(set(DENY) & set(u.readings)) for u in unrelated), len(unrelated)
        ),
        "affirm_polarities": list(AFFIRM),
        "by_template": {t: dict(c) for t, c in sorted(by_template.items())},
    }


def show(us: list[Unit], n: int) -> None:
    """Print up to ``n`` wrong signed readings and ``n`` denials on related pairs (for tuning on
    Train)."""
    wrong = [u for u in us if u.gold in SIGN and {"up", "down"} & set(u.readings)
             and set(u.readings) & {"up", "down"} != {SIGN[u.gold]}]  # fmt: skip
    for u in wrong[:n]:
        print(f"WRONG {u.gold} {u.readings} | {u.sentence}")
    for u in [u for u in us if u.gold and set(DENY) & set(u.readings)][:n]:
        print(f"DENY {u.gold} {u.readings} | {u.sentence}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--split", choices=("Dev", "Train", "both"), default="both")
    ap.add_argument("--data", type=Path, default=common.BIORED)
    ap.add_argument("--show", type=int, default=0, help="print N errors (tune on Train only)")
    ap.add_argument("--reader", choices=("regex", "llm"), default="regex",
                    help="the template reader (default) or the LLM reader")  # fmt: skip
    common.add_llm_options(ap)
    ap.add_argument(
        "--warehouse", type=Path, help="whose llm_cache.sqlite caches answers [./warehouse]"
    )
    a = ap.parse_args(argv)
    splits = ("Train", "Dev") if a.split == "both" else (a.split,)
    result: dict[str, Any] = {}
    reader, client, cost = regex_reader, None, {}
    if a.reader == "llm":
        client = common.llm_client(ap, a, warehouse_path(a.warehouse))
    for split in splits:
        if client is not None:
            cost = {}
            reader = llm_reader(client, cost)
        us = units(load(a.data / f"{split}.PubTator"), reader)
        result[split] = measure(us)
        r = result[split]
        print(f"{split}: sign precision {r['sign_precision']}, units read "
              f"{r['coverage_units_signed']}, pairs read {r['coverage_pairs_signed']}, "
              f"denials on related {r['denial_on_related']}")  # fmt: skip
        print(json.dumps(r["by_template"]))
        if client is not None:
            r["reading"] = {"reader": "llm", "model": client.settings.model, **cost}
            print(f"{split}: LLM reading {r['reading']}")
        if a.show:
            show(us, a.show)
    line = {
        s: {k: v for k, v in r.items() if k not in ("by_template", "affirm_polarities")}
        for s, r in result.items()
    }
    print(json.dumps(line))
    if client is not None:
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
