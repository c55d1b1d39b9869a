"""Benchmark: entity resolution and triple dedupe at scale, on synthetic data.

1M triples over 100k distinct node strings, the way LLM endpoints look after grounding left them
free: most are surface forms of known concepts in some spelling (case, punctuation, Greek
letters, plurals, head nouns, "long (SHORT)" parentheticals, abbreviations, typos) that IDs and
string rules settle; ``--novel`` (default 20%) are names no rule settles, which go to the
embedding steps (nearest concept form, then clustering with each other). The whole path runs
through the library (``resolve_slice``: resolve, canonicalize relations, re-key, merge), in a
fresh interpreter, with a fresh embedding cache (the MiniLM model embeds every name once).

Prints the resolution methods and merge figures and ends with one JSON line: triples,
node_strings, wall_s, peak_rss_mb (+ the breakdown).

    .venv/bin/python bench/resolve_scale.py [--triples 1000000] [--strings 100000] [--novel 0.2]
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from kgbuild.extract.base import ExtractionResult
from kgbuild.records import Entity, Evidence, Triple, stable_id
from kgbuild.resolve.embed import Embedder
from kgbuild.resolve.entities import AliasIndex, Resolver
from kgbuild.resolve.merge import resolve_slice

SYLLABLES = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"] + ["th", "ch", "st", "tr", "ph"]
HEADS = {"Gene": ["kinase", "receptor", "factor", "protein"],
         "Disease": ["disease", "syndrome", "disorder", "deficiency"],
         "Compound": ["acid", "amine", "ol", "ine"]}  # fmt: skip
PREDICATES = [
    "associated with", "is associated with", "increases", "inhibits", "binds to", "regulates",
    "treats", "causes", "interacts with", "reduces", "activates", "is a", "found in",
    "expressed in", "modulates", "is a risk factor for", "upregulates", "downregulates",
    "involved in", "affects", "has symptom", "protects against", "co-occurs with", "binds",
    "correlates with", "part of", "leads to", "promotes", "attenuates", "is a biomarker of",
]  # fmt: skip


def word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))


def make_concepts(rng: random.Random, n: int) -> list[tuple[str, str, str, str]]:
    """(id, kind, name, abbreviation) per concept."""
    out = []
    for i in range(n):
        kind = rng.choices(["Gene", "Disease", "Compound"], [4, 3, 3])[0]
        name = f"{word(rng)} {word(rng)} {rng.choice(HEADS[kind])}"
        abbrev = "".join(w[0] for w in name.split()).upper() + str(i % 97)
        out.append((f"C:{i}", kind, name, abbrev))
    return out


def spelling(rng: random.Random, name: str, abbrev: str) -> tuple[str, str]:
    """A surface form an LLM might write for a known concept, and the rule that settles it."""
    kind = rng.choices(["case", "paren", "plural", "head", "abbrev", "typo"], [5, 2, 2, 1, 2, 1])[0]
    if kind == "case":
        return rng.choice([name.upper(), name.title(), name.replace(" ", "-")]), "alias"
    if kind == "paren":
        return f"{name} ({abbrev})", "alias"
    if kind == "plural":
        return name + "s", "alias"
    if kind == "head":
        return f"{name} levels", "alias"
    if kind == "abbrev":
        return abbrev, "abbreviation"
    i = rng.randrange(2, len(name) - 2)
    return name[:i] + name[i + 1 :], "fuzzy"  # one character dropped


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--triples", type=int, default=1_000_000)
    ap.add_argument("--strings", type=int, default=100_000)
    ap.add_argument("--novel", type=float, default=0.2)
    ap.add_argument("--concepts", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    t_gen = time.perf_counter()
    concepts = make_concepts(rng, args.concepts)
    aliases = AliasIndex()
    resolver = Resolver(aliases)
    for cid, kind, name, abbrev in concepts:
        aliases.add(name, cid, kind, rng.randint(3, 50))
        resolver.observe_abbreviations([(abbrev.lower(), name)])
    names: dict[str, str] = {}
    expected: Counter[str] = Counter()
    n_novel = int(args.strings * args.novel)
    while len(names) < args.strings - n_novel:
        cid, kind, name, abbrev = rng.choice(concepts)
        form, rule = spelling(rng, name, abbrev)
        key = f"free:{form.lower()}"
        if key not in names:
            names[key] = form
            expected[rule] += 1
    while len(names) < args.strings:  # novel phrases: half come with a plural twin
        base = f"{word(rng)} {word(rng)} {word(rng)}"
        for form in (base, base + "s") if rng.random() < 0.5 else (base,):
            names.setdefault(f"free:{form}", form)
    ids = list(names)
    result = ExtractionResult()
    result.free_nodes = [Entity(i, names[i], "", [names[i]], 2020) for i in ids]
    for n in range(args.triples):
        h, t = rng.sample(ids, 2)
        rel = rng.choice(PREDICATES)
        tid = stable_id(h, rel, t)
        result.triples.append(Triple(tid, h, rel, t, rel, "generative"))
        result.evidence.append(
            Evidence(stable_id(tid, n), tid, str(n % 50_000), 2020, "", 0, 0, -1, -1, -1, -1,
                     "generative", "bench", None, None, rel, names[h], names[t], 0.7)
        )  # fmt: skip
    gen_s = time.perf_counter() - t_gen
    print(f"generated {len(ids):,} node strings ({n_novel:,} novel), {args.triples:,} triples, "
          f"{args.concepts:,} concepts in {gen_s:.1f}s")  # fmt: skip
    print(f"known-concept strings by the rule meant to settle them: {dict(expected)}")

    with tempfile.TemporaryDirectory() as tmp:
        resolver.use_embedder(Embedder(cache_path=Path(tmp) / "embeddings.sqlite"))
        kinds = {cid: kind for cid, kind, _, _ in concepts}
        wall, out = common.timed(resolve_slice, result, resolver, kinds.get, 2020)
        embedded = resolver.summary().get("names_embedded", 0)
    methods = Counter(r.method for r in out.resolutions)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"resolved in {wall:.1f}s: {dict(methods)}; {embedded:,} names embedded")
    print(f"{args.triples:,} triples → {len(out.triples):,} after re-keying and merge; "
          f"{len(out.evidence):,} evidence rows; {len(out.rejections):,} self-loops")  # fmt: skip
    common.emit({
        "triples": args.triples, "node_strings": len(ids), "novel_strings": n_novel,
        "concepts": args.concepts, "wall_s": round(wall, 2), "peak_rss_mb": round(peak, 1),
        "generate_s": round(gen_s, 2), "resolution_methods": dict(methods),
        "names_embedded": embedded, "triples_after_merge": len(out.triples),
        "evidence_rows": len(out.evidence), "self_loop_rejections": len(out.rejections),
    })  # fmt: skip


if __name__ == "__main__":
    main()
