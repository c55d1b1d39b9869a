"""Markdown tables of evaluation reports and comparisons (what the CLI prints and the report
folder keeps beside each JSON)."""

from __future__ import annotations

from typing import Any

MEASURE_NAMES = {
    "pair": "entity pair",
    "pair+type": "pair + relation type",
    "pair+novelty": "pair + novelty",
    "all": "pair + type + novelty",
}


def _fmt(s: dict[str, Any] | None, key: str) -> str:
    if not s or key not in s:
        return "–"
    ci = s.get(f"{key}_ci")
    return f"{s[key]:.3f} [{ci[0]:.3f}–{ci[1]:.3f}]" if ci else f"{s[key]:.3f}"


def _plain(s: dict[str, Any] | None, key: str) -> str:
    return f"{s[key]:.3f}" if s and key in s else "–"


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def _prf(s: dict[str, Any] | None) -> list[str]:
    return [_fmt(s, "precision"), _fmt(s, "recall"), _fmt(s, "f1")]


def _prf_cells(s: dict[str, Any]) -> list[str]:
    counts = [s.get("tp", ""), s.get("n_predicted", ""), s.get("n_gold", "")]
    return [*_prf(s), *(str(c) for c in counts)]


def render(report: dict[str, Any]) -> str:
    return (render_re if report["kind"] == "re" else render_ner)(report)


def _boot(r: dict[str, Any]) -> str:
    b = r["bootstrap"]
    return (
        f"P/R/F1 micro-averaged, [95% bootstrap interval over documents: {b['resamples']:,} "
        f"resamples, seed {b['seed']}]"
    )


def render_re(r: dict[str, Any]) -> str:
    g, ex = r["gold"], r["extractor"]
    what = ex["chosen"]
    if ex["extraction"].get("mode"):
        what += f" ({ex['extraction']['mode']})"
    if "llm" in ex:
        what += f", model {ex['llm']['model']}"
    cdr = g["scheme"] == "cdr"
    lines = [
        f"# Relation extraction: {what} on {g['file']}",
        "",
        f"run `{r['run_id']}` · gold {g['file']} ({g['format']}, digest {g['digest']}"
        + (f", first {g['limit']} documents" if g["limit"] is not None else "")
        + f"): {g['documents']:,} documents, {g['relations']:,} relations, scheme {g['scheme']}"
        + ("" if cdr else f" · novelty assumed for every prediction: {r['novelty_assumed']}"),
        "",
        _boot(r) + ".",
        "",
        "## Measures" + ("" if cdr else " (BioCreative VIII BioRED track)"),
        "",
    ]
    ceil = r["ceilings"]
    rows = []
    for m, s in r["measures"].items():
        name = "CID" if cdr else MEASURE_NAMES.get(m, m)
        own = ceil.get(ex["chosen"], {}).get(m, {})
        rows.append(
            [name, *_prf_cells(s), f"{ceil['mapping'][m]['f1']:.3f}", f"{own.get('f1', 0):.3f}"]
        )
    lines += _table(
        ["measure", "P", "R", "F1", "tp", "predicted", "gold", "mapping ceiling F1",
         f"{ex['chosen']} candidates ceiling F1"], rows)  # fmt: skip
    if not cdr:
        lines += ["", "## Per relation type (pair + type)", ""]
        lines += _table(
            ["type", "P", "R", "F1", "tp", "predicted", "gold"],
            [[t, *_prf_cells(s)] for t, s in r["per_type"].items()],
        )
    lines += ["", "## Per entity-kind pair (entity pair)", ""]
    lines += _table(
        ["kinds", "P", "R", "F1", "tp", "predicted", "gold"],
        [[k, *_prf_cells(s)] for k, s in r["per_kinds"].items()],
    )
    lines += ["", "## Ceilings (best recall / F1 with perfect precision)", ""]
    measures = list(r["measures"])
    head = ["ceiling"] + [f"{'CID' if cdr else m} R / F1" for m in measures]
    crow = []
    for name in ("mapping", "cooccurrence", "pairwise", "generative"):
        label = (
            "mapping (entity kinds + relation table)"
            if name == "mapping"
            else f"{name} candidate pairs"
        )
        crow.append(
            [label]
            + [f"{ceil[name][m]['recall']:.3f} / {ceil[name][m]['f1']:.3f}" for m in measures]
        )
    lines += _table(head, crow)
    if ceil["losses"]:
        lines += ["", "What the mapping cannot reach (gold relations):", ""]
        lines += _table(["reason", "gold relations"], [[k, v] for k, v in ceil["losses"].items()])
    p, b = r["predictions"], r["build"]
    aside = ", ".join(f"{k} {v}" for k, v in p["outside_scheme"].items()) or "none"
    lines += [
        "",
        "## Predictions and build",
        "",
        f"- {p['triples']:,} (document, triple) claims → {p['pairs_scored']:,} pairs scored; "
        "set aside: "
        f"{p['outside_gold_entities']:,} with an endpoint outside the gold entities, "
        f"claims the scheme has no type for (by relation; a kind pair it does not annotate "
        f"counts here too): {aside}",
        f"- documents: {_counts(b['documents'])}; extraction: {_counts(b['extraction'])}; "
        f"rejected claims: {b['rejected_claims']:,}",
    ]
    if b["llm_requests"]:
        lines.append(
            f"- LLM requests: {b['llm_requests']:,} ({_counts(b['llm_outcomes'])}); tokens "
            f"{b['prompt_tokens']:,} prompt + {b['completion_tokens']:,} completion; "
            f"cost ${b['cost_usd']:.4f}"
        )
    if g["problems"]:
        lines.append(f"- gold file problems: {_counts(g['problems'])}")
    return "\n".join(lines) + "\n"


def _counts(d: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v:,}" for k, v in d.items()) or "none"


def render_ner(r: dict[str, Any]) -> str:
    g = r["gold"]
    lines = [
        f"# NER on {g['file']}",
        "",
        f"run `{r['run_id']}` · gold {g['file']} ({g['format']}, digest {g['digest']}"
        + (f", first {g['limit']} documents" if g["limit"] is not None else "")
        + f"): {g['documents']:,} documents; gold mentions {_counts(g['mentions'])}",
        "",
        _boot(r) + "; strict = same span and type, overlap = a shared character and the type.",
        "",
    ]
    rows = []
    for row in r["rows"]:
        if "note" in row:
            rows.append([row["model"], row["type"], row["n_gold"], "–", *(["–"] * 6), row["note"]])
            continue
        st, ov = row["strict"], row["overlap"]
        cells = [row["model"], row["type"], row["n_gold"], row["n_predicted"]]
        rows.append([*cells, *_prf(st), *_prf(ov), ""])
    lines += _table(
        ["model", "type", "gold", "predicted", "strict P", "strict R", "strict F1",
         "overlap P", "overlap R", "overlap F1", "note"], rows)  # fmt: skip
    models = [
        f"{m['model']} ({m['annotator']}, labels {', '.join(m['labels']) or 'none'}, "
        f"abbreviations {'on' if m['abbreviations'] else 'off'})"
        for m in r["models"]
    ]
    lines += ["", "Models: " + "; ".join(models)]
    return "\n".join(lines) + "\n"


def render_compare(c: dict[str, Any]) -> str:
    lines = [
        f"# Compare {c['a']} (A) with {c['b']} (B)",
        "",
        "A − B F1 with a paired bootstrap 95% interval (same documents, same resamples)"
        if c["same_documents"]
        else "Different gold documents: no paired difference.",
        "",
    ]
    rows = []
    for row in c["rows"]:
        diff = row.get("difference")
        d = (
            f"{diff['f1_difference']:+.3f} [{diff['ci'][0]:+.3f}, {diff['ci'][1]:+.3f}]"
            if diff
            else ""
        )
        a, b = row["a"], row["b"]
        cells = [_plain(a, "precision"), _plain(a, "recall"), _fmt(a, "f1")]
        cells += [_plain(b, "precision"), _plain(b, "recall"), _fmt(b, "f1")]
        rows.append([row["row"], *cells, d])
    lines += _table(["row", "A P", "A R", "A F1", "B P", "B R", "B F1", "A − B F1"], rows)
    return "\n".join(lines) + "\n"
