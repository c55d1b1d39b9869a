"""The ingestion ID checks measured against curated gold.

Why: :func:`kgbuild.resolve.mislinked.unlink_slice` takes an annotator's ID away from a
mention, or changes it, when a rule says the ID is wrong. In a build of BioCreative V CDR or
BioRED — every mention linked by expert curators — each removal or change is a false one
unless the curator erred, so their share of the curated mentions is the checks' false-removal
rate. This module runs *the same function the build runs* (batch by batch, with the ortholog
tally carried along as the build state carries it: :mod:`kgbuild.pipeline.year`) on gold
files read by the project's own gold reader (:func:`kgbuild.evaluate.gold.read_gold_corpus`),
and counts per corpus, vocabulary, entity type and rule what happened to each curated ID:

- **removed** — the mention lost its ID (``mislinked_id``, ``vocabulary_mismatch``);
- **relinked** — a rule gave it another ID (``relinked_id``: a Greek-letter isoform, a long
  form); the ortholog step (``ortholog_id``: a mouse gene ID becomes its human ortholog) is
  counted apart as ``ortholog``: it changes the species by design, not because the ID is wrong;
- **suspect** — the ID stays but the vocabulary check could not confirm it (``suspect_id``).

``false_removal_share`` = (removed + relinked) / curated mentions.

**Held out.** Two checks read the curated forms BC5CDR and BioRED hold (``data/
reference_forms.tsv``: rule 8, and the names of MeSH IDs no vocabulary names). Measured on
those same files they cannot fail, so each figure is also given with the measured files' own
forms taken out of the reference (``held_out``): what a new corpus meets.

:func:`mislink_fixture` runs the checks on ``tests/fixtures/idcheck/mislinks.tsv``: short
hand-written abstracts, each with one known mislink the checks must still catch (remove or
relink). Both functions return plain JSON-able dicts (``kgbuild eval judgments`` and the bench
print them).
"""

from __future__ import annotations

import csv
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from kgbuild.errors import InputError
from kgbuild.evaluate.gold import EVAL_YEAR, entity_class, read_gold_corpus
from kgbuild.names import norm
from kgbuild.pipeline.batches import BATCH_RECORDS
from kgbuild.records import Document, Mention, Problem
from kgbuild.resolve import mislinked
from kgbuild.resolve.orthologs import PROBLEM_KIND as ORTHOLOG_KIND
from kgbuild.resolve.orthologs import tally_forms
from kgbuild.resolve.vocab import FORMS_TSV, Reference, curated_forms, reference
from kgbuild.resolve.vocabularies import names_of, vocabulary_of
from kgbuild.schema import data_dir
from kgbuild.sources.local import YearSlice

#: The fixture of known mislinks (relative to the project root).
FIXTURE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "idcheck" / "mislinks.tsv"
_SPAN = re.compile(r"^(\d+)-(\d+) ")
_RULE = re.compile(r"\((?:vocabulary_mismatch|suspect_id): (\w+)")


def read_corpus(paths: Sequence[Path], limit: int | None = None) -> list[tuple[Document, list]]:
    """(document, its mentions) of gold files, in file order; a PMID seen in an earlier file is
    skipped (as the build skips a duplicate); ``limit``: the first N documents of each file."""
    out, seen = [], set()
    for path in paths:
        gold = read_gold_corpus(Path(path))
        for doc in gold.documents[:limit] if limit else gold.documents:
            if doc.pmid not in seen:
                seen.add(doc.pmid)
                out.append((doc, gold.mentions.get(doc.pmid, [])))
    return out


def run_checks(
    docs: Sequence[tuple[Document, list[Mention]]], ref: Reference | None = None
) -> tuple[list[Mention], list[Mention], list[Problem]]:
    """(mentions in, mentions out, problems) of :func:`~kgbuild.resolve.mislinked.unlink_slice`
    run as the build runs it: batches of :data:`BATCH_RECORDS` documents, the ortholog tally
    of earlier batches carried to the next (``KGState.observe_gene_forms``)."""
    before, after, problems = [], [], []
    tally: dict[str, Counter[str]] = {}
    for i in range(0, len(docs), BATCH_RECORDS):
        batch = docs[i : i + BATCH_RECORDS]
        ms = [m for _, mentions in batch for m in mentions]
        ys = YearSlice(EVAL_YEAR, [], [d for d, _ in batch], ms)
        out = mislinked.unlink_slice(ys, ref=ref, gene_forms=tally)
        tally_forms(out.mentions, tally)
        before += ms
        after += out.mentions
        problems += out.problems
    return before, after, problems


def _rules(problems: Iterable[Problem]) -> dict[tuple[str, int, int], list[str]]:
    """(pmid, start, end) → the rules that acted on the mention there, in order."""
    out: dict[tuple[str, int, int], list[str]] = defaultdict(list)
    for p in problems:
        span = _SPAN.match(p.detail)
        if not span:
            continue
        key = (p.pmid, int(span.group(1)), int(span.group(2)))
        if p.kind in (mislinked.PROBLEM_KIND, mislinked.RELINK_KIND):
            out[key].append(mislinked.rule_of(p.detail))
        elif p.kind == ORTHOLOG_KIND:
            out[key].append("ortholog")
        elif p.kind in (mislinked.VOCABULARY_KIND, mislinked.SUSPECT_KIND):
            how = _RULE.search(p.detail)
            prefix = "vocabulary" if p.kind == mislinked.VOCABULARY_KIND else "suspect"
            out[key].append(f"{prefix}:{how.group(1) if how else 'other'}")
    return out


def outcome(before: Mention, after: Mention, rules: Sequence[str] = ()) -> str:
    """What the checks did to a linked mention: kept | suspect | removed | relinked |
    ortholog (its ID changed by the ortholog step alone)."""
    if after.concept_id is None:
        return "removed"
    if after.concept_id != before.concept_id:
        acted = {r for r in rules if not r.startswith("suspect:")}
        return "ortholog" if acted <= {"ortholog"} else "relinked"
    return "suspect" if after.id_check.endswith(":suspect") else "kept"


def _tally(rows: list[tuple[Mention, Mention, list[str]]], examples: int) -> dict[str, Any]:
    counts: Counter[str] = Counter()
    by_vocab: dict[str, Counter[str]] = defaultdict(Counter)
    by_type: dict[str, Counter[str]] = defaultdict(Counter)
    by_rule: dict[str, Counter[str]] = defaultdict(Counter)
    shown: dict[str, Counter[tuple[str, str, str]]] = defaultdict(Counter)
    for m0, m1, rules in rows:
        what = outcome(m0, m1, rules)
        vocab, kind = vocabulary_of(m0.concept_id or ""), entity_class(m0)
        for c in (counts, by_vocab[vocab], by_type[kind]):
            c["curated"] += 1
            c[what] += 1
        if what == "kept":
            continue
        rule = _rule_for(what, rules)
        by_rule[rule][what] += 1
        found = names_of(m0.concept_id or "")
        name = found[1][0] if found else ""
        shown[what][(m0.text, m0.concept_id or "", name)] += 1
    return {
        **_figures(counts),
        "by_vocabulary": {k: _figures(v) for k, v in sorted(by_vocab.items())},
        "by_type": {k: _figures(v) for k, v in sorted(by_type.items())},
        "by_rule": {k: dict(sorted(v.items())) for k, v in sorted(by_rule.items())},
        "examples": {
            what: [
                {"form": f, "id": cid, "name": n, "mentions": k}
                for (f, cid, n), k in c.most_common(examples)
            ]
            for what, c in sorted(shown.items())
        },
    }


def _rule_for(what: str, rules: list[str]) -> str:
    if what == "ortholog":
        return "ortholog"
    if what == "suspect":
        return next((r for r in rules if r.startswith("suspect:")), "suspect:other")
    acted = [r for r in rules if not r.startswith("suspect:") and r != "ortholog"]
    return acted[-1] if acted else "other"


def _figures(c: Counter[str]) -> dict[str, Any]:
    n = c["curated"]
    false = c["removed"] + c["relinked"]
    return {
        "curated": n,
        "kept": c["kept"],
        "suspect": c["suspect"],
        "removed": c["removed"],
        "relinked": c["relinked"],
        "ortholog": c["ortholog"],
        "false_removal": false,
        "false_removal_share": round(false / n, 5) if n else None,
        "suspect_share": round(c["suspect"] / n, 5) if n else None,
    }


def held_out_reference(paths: Sequence[Path], ref: Reference | None = None) -> Reference:
    """The reference with the curated forms of ``paths`` taken out (their counts subtracted
    from ``data/reference_forms.tsv``, which counts them): what a corpus not in the table
    meets."""
    ref = ref or reference()
    own = curated_forms([Path(p) for p in paths])
    shipped = _shipped_counts()
    forms: dict[str, frozenset[str]] = {}
    for cid, fs in ref.forms.items():
        left = {f for f in fs if shipped.get((cid, f), 0) - own.get(cid, Counter())[f] > 0}
        if left:
            forms[cid] = frozenset(left)
    return Reference(names=ref.names, forms=forms, symbols=ref.symbols)


def _shipped_counts() -> dict[tuple[str, str], int]:
    path = data_dir() / FORMS_TSV
    if not path.exists():
        return {}
    with open(path, encoding="utf-8", newline="") as fh:
        rows = csv.DictReader((ln for ln in fh if not ln.startswith("#")), delimiter="\t")
        return {(r["concept_id"], r["form"]): int(r["count"]) for r in rows}


def measure_id_checks(
    paths: Sequence[Path], limit: int | None = None, examples: int = 10, held_out: bool = True
) -> dict[str, Any]:
    """What the ingestion checks do to the curated IDs of gold ``paths`` (one corpus): counts
    and shares overall, per vocabulary, entity type and rule, the top examples per outcome,
    and (``held_out``) the same figures with the files' own curated forms out of the
    reference. InputError when a file is missing."""
    paths = [Path(p) for p in paths]
    if not paths:
        raise InputError("no curated gold files given")
    docs = read_corpus(paths, limit)
    report = {"files": [p.name for p in paths], "documents": len(docs)}
    report.update(_measure(docs, None, examples))
    if held_out:
        held = _measure(docs, held_out_reference(paths), examples)
        report["held_out"] = {k: held[k] for k in
                              ("curated", "kept", "suspect", "removed", "relinked", "ortholog",
                               "false_removal", "false_removal_share", "suspect_share",
                               "by_vocabulary", "by_rule", "examples")}  # fmt: skip
    return report


def _measure(
    docs: Sequence[tuple[Document, list[Mention]]], ref: Reference | None, examples: int
) -> dict[str, Any]:
    before, after, problems = run_checks(docs, ref)
    rules = _rules(problems)
    rows = [
        (m0, m1, rules.get((m0.pmid, m0.start, m0.end), []))
        for m0, m1 in zip(before, after, strict=True)
        if m0.concept_id
    ]
    return _tally(rows, examples)


# ---- the fixture of known mislinks ----------------------------------------------------------
def read_fixture(path: Path = FIXTURE) -> list[dict[str, str]]:
    """The fixture's cases: ``case``, ``text`` (title and abstract in one), ``mentions``
    (``form|type|ID`` joined by ``;``, each at its first occurrence after the previous one),
    ``target`` (the mislinked form), ``expect`` (removed | relinked:<ID>), ``why``."""
    if not path.is_file():
        raise InputError("no such mislink fixture", path=path)
    with open(path, encoding="utf-8", newline="") as fh:
        lines = (ln for ln in fh if not ln.startswith("#"))
        return list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))


def _fixture_doc(n: int, case: dict[str, str]) -> tuple[Document, list[Mention]]:
    pmid = f"9{n:07d}"
    doc = Document(pmid, EVAL_YEAR, case["text"], "")
    text, at, ms = doc.text, 0, []
    for spec in case["mentions"].split(";"):
        form, kind, cid = spec.split("|")
        start = text.index(form, at)
        ms.append(Mention(pmid, start, start + len(form), form, kind, kind, cid, [cid]))
        at = start + len(form)
    return doc, ms


def mislink_fixture(path: Path = FIXTURE) -> dict[str, Any]:
    """Runs the checks on each fixture case (its own abstract) and says whether the mislinked
    form was caught as expected: ``caught``/``total`` and each case's outcome."""
    cases = []
    for n, case in enumerate(read_fixture(path), start=1):
        doc, ms = _fixture_doc(n, case)
        _, after, _ = run_checks([(doc, ms)])
        got = [m for m0, m in zip(ms, after, strict=True) if norm(m0.text) == norm(case["target"])]
        expect = case["expect"]
        if expect == "removed":
            ok = bool(got) and all(m.concept_id is None for m in got)
        else:
            target = expect.partition(":")[2]
            ok = bool(got) and all(m.concept_id == target for m in got)
        outcome_ids = sorted({m.concept_id or "-" for m in got})
        cases.append({"case": case["case"], "caught": ok, "expect": expect, "got": outcome_ids})
    return {"caught": sum(c["caught"] for c in cases), "total": len(cases), "cases": cases}
