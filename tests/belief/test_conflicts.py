"""Conflicts, both sides cited: the claim reader on planted sentences that
must and must not be read, the same reading in SQL and Python, and a real warehouse written
through the snapshot writer — documents and their mentions — with planted conflicts of both
kinds and pairs that must not be listed (one direction only, a subject inside a phrase, two
alleles, two measures, a proposal, one paper on both sides, a pair across a sentence end)."""

from __future__ import annotations

import csv
import json
import re
from dataclasses import replace

import duckdb
import pytest

from bench import conflicts_sample
from kgbuild.belief.claims_read import read_claim, variant, worth_reading
from kgbuild.belief.claims_read_sql import (
    pieces_sql,
    question_sql,
    template_sql,
    templates_values_sql,
    worth_reading_sql,
)
from kgbuild.belief.conflict_report import fetch_conflicts
from kgbuild.belief.conflicts import contested_triples as contested
from kgbuild.belief.conflicts import define_conflict_views
from kgbuild.belief.snapshot_claims import DEFAULT_FILTERS
from kgbuild.reader import conflicts_cli
from kgbuild.reader.conflict_list import list_conflicts
from kgbuild.records import Document, Entity, Evidence, Mention, SnapshotCounts, Triple
from kgbuild.store import catalog
from kgbuild.store.snapshots import Warehouse


def _spans(sentence: str, x: str, y: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """The spans of mention texts ``x`` and ``y`` (first occurrences; ``y`` after ``x`` when
    the same text occurs twice)."""
    i = sentence.index(x)
    j = sentence.index(y, i + len(x)) if y == x else sentence.index(y)
    return (i, i + len(x)), (j, j + len(y))


# (sentence, mention x, mention y, expected (polarity, subject) or None)
READ = [
    ("Alpha significantly reduced the levels of beta in mice.", "Alpha", "beta",
     ("down", "x")),
    ("Alpha increases beta.", "Alpha", "beta", ("up", "x")),
    ("Beta levels were markedly increased by alpha treatment.", "Beta", "alpha", ("up", "y")),
    ("The alpha-induced increase in beta in rats.", "alpha", "beta", ("up", "x")),
    ("Alpha-induced beta in rats.", "Alpha", "beta", ("up", "x")),
    ("Alpha attenuated gamma-induced beta in neurons.", "Alpha", "beta", ("down", "x")),
    ("Alpha reduced IL-1, IL-6 and beta.", "Alpha", "beta", ("down", "x")),
    ("Alpha did not affect beta.", "Alpha", "beta", ("deny_any", "x")),
    ("Alpha had no effect on beta levels.", "Alpha", "beta", ("deny_any", "x")),
    ("Beta was not altered by alpha.", "Beta", "alpha", ("deny_any", "y")),
    ("Alpha did not increase beta.", "Alpha", "beta", ("deny_up", "x")),
    ("No association was found between alpha and beta.", "alpha", "beta", ("deny_assoc", "x")),
    ("Alpha was not associated with beta.", "Alpha", "beta", ("deny_assoc", "x")),
    ("Alpha was positively correlated with beta.", "Alpha", "beta", ("up", "x")),
    ("Alpha is associated with beta.", "Alpha", "beta", ("assoc", "x")),
    # must not be read: the subject is not the mention, the object is not what changes, a
    # group comparison, a question, no direction stated
    ("N-acetyl-cysteine, a scavenger of ROS, inhibited the neurotoxic effect.", "ROS",
     "neurotoxic", None),
    ("Inhibition of alpha reduces beta.", "alpha", "beta", None),
    ("Silencing alpha suppresses beta.", "alpha", "beta", None),
    ("DHA increases Abeta degradation.", "DHA", "Abeta", None),
    ("Alpha increases beta-induced toxicity.", "Alpha", "beta", None),
    ("Atrophy patterns did not differ between Abeta+ and Abeta- groups.", "Abeta", "Abeta",
     None),
    ("Abeta could significantly decrease the ratio of Bcl-2/Bax.", "Abeta", "Bcl-2", None),
    ("We investigated whether alpha reduces beta.", "alpha", "beta", None),
    ("Alpha, which is high in AD, and beta were measured.", "Alpha", "beta", None),
    ("Alpha not only increased beta.", "Alpha", "beta", ("up", "x")),
    ("Alpha reduced gamma, increased delta and beta.", "Alpha", "beta", None),
    # roles stated as nouns, correlations after the pair, denials of a state
    ("Alpha, a potent inhibitor of beta, was given.", "Alpha", "beta", ("down", "x")),
    ("The beta inhibitor alpha improved memory.", "beta", "alpha", ("down", "y")),
    ("Alpha is the strongest genetic risk factor for beta.", "Alpha", "beta", ("up", "x")),
    ("Alpha and beta were not significantly correlated in patients.", "Alpha", "beta",
     ("deny_assoc", "x")),
    ("Alpha and beta were not correlated with gamma.", "Alpha", "beta", None),
    ("Beta levels were unaffected by alpha.", "Beta", "alpha", ("deny_any", "y")),
    ("There was no effect of alpha on beta levels.", "alpha", "beta", ("deny_any", "x")),
    ("Alpha reduced gamma without affecting beta.", "Alpha", "beta", ("deny_any", "x")),
    ("No significant changes in beta levels were observed after alpha treatment.", "beta",
     "alpha", ("deny_any", "y")),
    ("Alpha-treated mice showed reduced beta levels.", "Alpha", "beta", ("down", "x")),
    ("Alpha, which reduces beta, was given.", "Alpha", "beta", ("down", "x")),
    ("Alpha increases beta protein levels.", "Alpha", "beta", ("up", "x")),
    # a preposition and a modifier before the subject; an X-induced head
    ("Small infarcts in patients with full-blown alpha have no impact on beta.", "alpha", "beta",
     None),
    ("Effect of gamma on alpha-induced beta associated with decreased delta.", "beta", "delta",
     None),
    ("We propose that alpha reduces beta.", "alpha", "beta", ("down", "x")),  # cut by the view
]  # fmt: skip


@pytest.mark.parametrize(("sentence", "x", "y", "expected"), READ)
def test_reader_reads_only_stated_claims(sentence, x, y, expected):
    sx, sy = _spans(sentence, x, y)
    claim = read_claim(sentence, sx, sy)
    got = None if claim is None else (claim.polarity, "x" if claim.subject == "a" else "y")
    assert got == expected, claim


def test_cheap_cuts_keep_what_the_templates_read():
    """The cue and starter cuts (speed only) drop no planted sentence a template reads."""
    for sentence, x, y, expected in READ:
        if expected is not None:
            (_, a1), (b0, _) = sorted(_spans(sentence, x, y))
            assert worth_reading(" ".join(sentence[a1:b0].lower().split(" "))), sentence


def test_sql_reads_what_python_reads():
    """The view runs the very same patterns: same template for every planted sentence."""
    con = duckdb.connect()
    con.execute("CREATE TABLE s (i INT, sentence VARCHAR, s1 INT, e1 INT, s2 INT, e2 INT)")
    expected = {}
    for i, (sentence, x, y, _) in enumerate(READ):
        (a0, a1), (b0, b1) = sorted(_spans(sentence, x, y))
        con.execute("INSERT INTO s VALUES (?, ?, ?, ?, ?, ?)", [i, sentence, a0, a1, b0, b1])
        c = read_claim(sentence, (a0, a1), (b0, b1))
        expected[i] = None if c is None else c.template
    pre, mid, post = pieces_sql("sentence", "s1", "e1", "s2", "e2")
    rows = con.execute(
        f"SELECT i, CASE WHEN {worth_reading_sql('mid')} AND NOT {question_sql('pre')} "
        f"THEN {template_sql('pre', 'mid', 'post')} END FROM (SELECT *, {pre} AS pre, "
        f"{mid} AS mid, {post} AS post FROM s)"
    ).fetchall()
    assert dict(rows) == expected
    assert con.execute(f"SELECT count(*) FROM {templates_values_sql()}").fetchone()[0] > 20


def test_variant_marker():
    assert [variant(m) for m in ("APOE4", "apoE ε2", "APOE-e3", "APOE", "BACE")] == [
        "4", "2", "3", "", ""]  # fmt: skip


COUNTS = {"records": 20, "documents": 20, "duplicates": 0, "rejected": 0, "mentions": 0,
          "entities": 7, "nodes": 7, "relations": 3, "triples": 9, "evidence": 9,
          "problems": 0}  # fmt: skip
NAMES = {"A": "alpha", "B": "beta", "C": "gamma", "D": "delta", "E": "epsilon", "F": "apoe",
         "G": "zeta"}  # fmt: skip
#: Mention texts → node ids (whole words, any case); "NAC" is annotated but no KG node.
LEXICON = {"alpha": "A", "beta": "B", "gamma": "C", "delta": "D", "epsilon": "E",
           "apoe4": "F", "apoe2": "F", "zeta": "G", "nac": "MESH:NOT_A_NODE"}  # fmt: skip
# (pmid, year, title, abstract)
DOCS = [
    # A -> B: raises (2012) against lowers (2015, 2016); PMID 3 twice, PMID 15 the other way
    ("1", 2012, "Alpha in neurons.", "Alpha increases beta in neurons. Nothing else."),
    (
        "2",
        2015,
        "A study.",
        "Mice vs. Rats were studied, and in mice, alpha significantly reduced the levels of beta.",
    ),
    (
        "3",
        2016,
        "Two findings.",
        "Beta was inhibited by alpha. In vitro, alpha strongly inhibits beta.",
    ),
    ("15", 2016, "Reverse.", "Beta reduces alpha."),
    # A -> C: an effect (2013) and its denial (2017), the sentence kept whole across "e.g."
    ("4", 2013, "Gamma.", "Alpha increases gamma."),
    (
        "5",
        2017,
        "Cells were compared (treated vs. Controls) for a day.",
        "Alpha did not affect gamma, e.g. Gamma levels were flat. The end.",
    ),
    # C -> D: raises, and sentences that state no claim of gamma on delta
    ("6", 2014, "Delta.", "Gamma increases delta."),
    ("7", 2015, "Delta.", "Inhibition of gamma reduces delta."),
    ("8", 2015, "Delta.", "A scavenger of gamma, NAC, inhibited delta."),
    ("9", 2016, "Delta.", "Gamma increases delta degradation."),
    ("10", 2016, "Delta.", "Delta levels did not differ between gamma carriers and controls."),
    # D - E: an association and its denial (symmetric: listed once)
    ("11", 2012, "Epsilon.", "Delta was associated with epsilon."),
    ("12", 2018, "Epsilon.", "No association was found between delta and epsilon."),
    # F (APOE) -> B: two alleles, not one pair
    ("13", 2014, "Alleles.", "APOE4 increases beta."),
    ("14", 2015, "Alleles.", "APOE2 reduces beta."),
    # A -> E: the "lowers" side is a proposal
    ("16", 2014, "Epsilon.", "Alpha increases epsilon."),
    ("17", 2015, "Epsilon.", "We propose that alpha reduces epsilon."),
    # G -> B: two measures (aggregation, levels), not one pair
    ("18", 2014, "Zeta.", "Zeta increases beta aggregation."),
    ("19", 2015, "Zeta.", "Zeta reduced beta levels."),
    # E -> C: one paper on both sides (two conditions); E -> D across a sentence end
    (
        "20",
        2016,
        "Ages.",
        "Epsilon increases gamma in young mice. Epsilon reduces gamma in old "
        "mice. Epsilon was given. Delta rose.",
    ),
]
TRIPLES = [
    ("up_ab", "A", "upregulates", "B"), ("down_ab", "A", "downregulates", "B"),
    ("co_ab", "B", "co_mentioned", "A"), ("up_ac", "A", "upregulates", "C"),
    ("co_ac", "A", "co_mentioned", "C"), ("assoc_de", "D", "associates", "E"),
    ("co_de", "D", "co_mentioned", "E"), ("up_cd", "C", "upregulates", "D"),
    ("up_ae", "A", "upregulates", "E"),
]  # fmt: skip
#: (triple, PMID): the papers citing each triple (what triples_a / triples_b follow).
CITED = [("up_ab", "1"), ("down_ab", "3"), ("co_ab", "2"), ("up_ac", "4"), ("co_ac", "5"),
         ("assoc_de", "11"), ("co_de", "12"), ("up_cd", "6"), ("up_ae", "16")]  # fmt: skip


def _mentions(
    pmid: str, title: str, abstract: str, lexicon: dict[str, str] = LEXICON
) -> list[Mention]:
    """Every whole-word occurrence of a ``lexicon`` word (word → concept id) in title || ' ' ||
    abstract (the text ``mentions_at`` offsets index)."""
    text = title + " " + abstract
    rx = re.compile(r"\b(" + "|".join(lexicon) + r")\b", re.IGNORECASE)
    return [
        Mention(pmid, m.start(), m.end(), m.group(0), "Gene", "Gene", lexicon[m.group(0).lower()],
                [lexicon[m.group(0).lower()]])
        for m in rx.finditer(text)
    ]  # fmt: skip


def _evidence(tid: str, pmid: str) -> Evidence:
    year = {d[0]: d[1] for d in DOCS}[pmid]
    return Evidence(f"e-{tid}-{pmid}", tid, pmid, year, "s.", 0, 2, 0, 1, 1, 2, "classifier",
                    "test", confidence=0.5, epistemic="asserted")  # fmt: skip


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Warehouse, str]:
    wh = Warehouse(tmp_path_factory.mktemp("conflicts") / "wh")
    w = wh.writer("toy")
    w.add("documents", [Document(p, y, t, a) for p, y, t, a in DOCS])
    w.add("mentions", [m for p, _, t, a in DOCS for m in _mentions(p, t, a)])
    w.add("entities", [Entity(i, n, "Gene", display_name=n.title()) for i, n in NAMES.items()])
    w.add("triples", [Triple(t, h, r, x, r, "classifier") for t, h, r, x in TRIPLES])
    w.add("evidence", [_evidence(t, p) for t, p in CITED])
    info = w.commit(2020, "b", {}, "i", "test", SnapshotCounts.from_dict(COUNTS))
    return wh, info.snapshot_id


def _by_pair(rows):
    return {(c.kind, c.head_id, c.tail_id): c for c in rows}


def test_mention_offsets_index_title_and_abstract(built):
    wh, sid = built
    with catalog.connect(wh.catalog_path, read_only=True) as con:
        bad = con.execute(
            "SELECT count(*) FROM mentions_at($1) m JOIN documents_at($1) d USING (pmid) "
            "WHERE substr(d.title || ' ' || d.abstract, m.start + 1, m.\"end\" - m.start) "
            "<> m.text",
            {"1": sid},
        ).fetchone()
    assert bad == (0,)


def test_lists_both_kinds_with_sides_sentences_counts_and_year(built):
    wh, sid = built
    report = list_conflicts(wh, sid, limit=10)
    assert report.counts == {"negated": 2, "opposite_direction": 1}
    found = _by_pair(report.conflicts)
    assert set(found) == {("opposite_direction", "A", "B"), ("negated", "A", "C"),
                          ("negated", "D", "E")}  # fmt: skip

    opp = found["opposite_direction", "A", "B"]
    assert (opp.head_name, opp.tail_name, opp.head_variant, opp.tail_measure) == (
        "Alpha", "Beta", "", "")  # fmt: skip
    assert opp.polarities_a == ["up"] and opp.polarities_b == ["down"]
    assert (opp.n_a, opp.n_b, opp.rows_a, opp.rows_b) == (1, 2, 1, 3)  # PMIDs; sentences
    assert (opp.first_year_a, opp.first_year_b, opp.year_appeared) == (2012, 2015, 2015)
    assert [(e.pmid, e.sentence) for e in opp.evidence_a] == [
        ("1", "Alpha increases beta in neurons.")]  # fmt: skip
    # best first: the strongest template, then the newest; one sentence per PMID; not 15
    assert [e.pmid for e in opp.evidence_b] == ["3", "2"]
    assert opp.evidence_b[1].sentence == (
        "Mice vs. Rats were studied, and in mice, alpha significantly reduced the levels of beta."
    )  # the sentence is not cut at "vs."
    assert opp.triples_a == ["up_ab"] and opp.triples_b == ["co_ab", "down_ab"]
    assert {e.template for e in opp.evidence_b} <= {"active_lower", "passive_lower"}

    neg = found["negated", "A", "C"]
    assert neg.polarities_a == ["up"] and neg.polarities_b == ["deny_any"]
    assert [(e.pmid, e.sentence, e.year) for e in neg.evidence_b] == [
        ("5", "Alpha did not affect gamma, e.g. Gamma levels were flat.", 2017)]  # fmt: skip
    assert (neg.n_a, neg.n_b, neg.year_appeared) == (1, 1, 2017)
    assert (neg.triples_a, neg.triples_b) == (["up_ac"], ["co_ac"])

    sym = found["negated", "D", "E"]
    assert sym.polarities_a == ["assoc"] and sym.polarities_b == ["deny_assoc"]
    assert [e.pmid for e in sym.evidence_b] == ["12"] and sym.year_appeared == 2018


def test_never_listed_and_what_each_switch_lets_through(built):
    wh, sid = built
    with catalog.connect(wh.catalog_path, read_only=True) as con:

        def pairs(**kw) -> set[tuple[str, str, str]]:
            found = fetch_conflicts(con, sid, filters=replace(DEFAULT_FILTERS, **kw))[1]
            return set(_by_pair(found))

        default = pairs()
        # never: C-D (no "lowers" sentence states it), B -> A (one direction only), the two
        # APOE alleles, two measures of beta, the proposal, one paper on both sides, the
        # pair across a sentence end
        for never in (("C", "D"), ("D", "C"), ("B", "A"), ("F", "B"), ("G", "B"), ("A", "E"),
                      ("E", "C"), ("E", "D")):  # fmt: skip
            assert not any(p[1:] == never for p in default)
        assert ("opposite_direction", "F", "B") in pairs(variants=False)
        assert ("opposite_direction", "A", "E") in pairs(skip_hedged=False)
        assert ("opposite_direction", "E", "C") in pairs(cross_paper=False)
        assert not any(p[1:] == ("G", "B") for p in pairs(cross_paper=False, skip_hedged=False))
        no_passive = tuple(n for n in DEFAULT_FILTERS.templates if n != "passive_lower")
        assert ("opposite_direction", "A", "B") in pairs(templates=no_passive)
        no_lower = tuple(n for n in no_passive if n != "active_lower")
        assert ("opposite_direction", "A", "B") not in pairs(templates=no_lower)


def test_kind_limit_and_cli_report(built):
    wh, sid = built
    only = list_conflicts(wh, sid, kind="negated", limit=5)
    assert {c.kind for c in only.conflicts} == {"negated"}
    assert only.counts == {"negated": 2, "opposite_direction": 1}
    assert len(list_conflicts(wh, sid, limit=1).conflicts) == 1
    d = only.to_dict()
    assert {e["pmid"] for c in d["conflicts"] for e in c["evidence_b"]} == {"5", "12"}
    json.dumps(d)  # --json prints it
    with conflicts_cli.out.capture() as cap:
        conflicts_cli.print_report(list_conflicts(wh, sid, limit=10))
    text = cap.get()
    assert "2 negated, 1 opposite-direction" in text
    assert "Alpha — Beta" in text and "lowers (down)" in text


def test_macro_view_contested_triples_and_belief(built):
    wh, sid = built
    with catalog.connect(wh.catalog_path, read_only=True) as con:
        define_conflict_views(con, "CREATE OR REPLACE TEMP")
        rows = con.execute(
            "SELECT kind, head_id, tail_id, year_appeared FROM conflicts_at(?) ORDER BY 1, 2",
            [sid],
        ).fetchall()
        assert rows == [("negated", "A", "C", 2017), ("negated", "D", "E", 2018),
                        ("opposite_direction", "A", "B", 2015)]  # fmt: skip
        assert con.execute("SELECT count(*) FROM conflicts").fetchone() == (3,)
        assert contested(con, sid) == {"up_ab", "down_ab", "co_ab", "up_ac", "co_ac",
                                       "assoc_de", "co_de"}  # fmt: skip
        # what the lead's index reads
        got = con.execute(
            "SELECT DISTINCT kind FROM (SELECT unnest(triples_a || triples_b) AS triple_id, "
            "kind FROM conflicts_at(?))",
            [sid],
        ).fetchall()
        assert sorted(got) == [("negated",), ("opposite_direction",)]


def test_sheet_hides_the_key_and_scores(built, tmp_path):
    wh, sid = built
    conflicts = list_conflicts(wh, sid).conflicts
    drawn = conflicts_sample.sample(conflicts, 50, seed=7)
    assert len(drawn) == 3 and drawn == conflicts_sample.sample(conflicts, 50, seed=7)
    sheet, key = tmp_path / "judge" / "sheet.csv", tmp_path / "key" / "key.json"
    conflicts_sample.write_sheet(drawn, {"snapshot": sid}, sheet, key)
    with pytest.raises(SystemExit):  # the key beside the sheet would be read by the judge
        conflicts_sample.write_sheet(drawn, {}, sheet, tmp_path / "judge" / "key.json")

    text = sheet.read_text("utf-8") + sheet.with_suffix(".md").read_text("utf-8")
    for hidden in ("negated", "opposite", "upregulates", "downregulates", "associates",
                   "co_mentioned", "Correlation", "0.5", "asserted", "denied", "deny_",
                   "active_", "passive_", "polarit", "up_ab"):  # fmt: skip
        assert hidden not in text
    with sheet.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == conflicts_sample.COLUMNS
    assert {r["pair"] for r in rows} == {"Alpha — Beta", "Alpha — Gamma", "Delta — Epsilon"}
    assert any("[PMID 5] Alpha did not affect gamma, e.g. Gamma levels were flat."
               in r["side_1"] + r["side_2"] for r in rows)  # fmt: skip
    items = json.loads(key.read_text("utf-8"))["items"]
    assert {it["kind"] for it in items} == {"negated", "opposite_direction"}

    for r, verdict in zip(rows, ("disagree", "unclear", "disagree"), strict=True):
        r["verdict"] = verdict
    with sheet.open("w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=conflicts_sample.COLUMNS)
        w.writeheader()
        w.writerows(rows)
    s = conflicts_sample.score(sheet, key)
    assert (s["n_disagree"], s["n_judged"], s["n_unclear"]) == (2, 3, 1)
    assert s["wilson95"][0] < 2 / 3 < s["wilson95"][1]
