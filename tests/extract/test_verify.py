"""The optional LLM verification pass end to end against loopback servers:
verdicts land on evidence rows, one call per abstract with claims, answers come from the cache,
malformed answers and failed calls leave "" with a counted reason, and builds without the pass
send nothing and keep "". The replay server (which cannot answer this prompt) still finishes."""

import json
import re

import pytest

from kgbuild.errors import InputError
from kgbuild.extract.verify import parse_verdicts
from kgbuild.llm.client import LLMSettings
from kgbuild.pipeline.build import build_kg
from kgbuild.pipeline.options import ExtractionOptions
from kgbuild.pipeline.spec import BuildSpec
from kgbuild.store.snapshots import Warehouse
from tests.conftest import FIXTURES
from tests.support.replay_llm_server import ReplayLLM, serve_llm
from tests.support.scripted_llm_server import ScriptedLLM, serve

CORPUS = FIXTURES / "llm" / "corpus"
RECORDINGS = FIXTURES / "llm" / "recordings"
REPLAY = ReplayLLM(RECORDINGS)
_FACT = re.compile(r"^(\d+)\. \[\d+\] (.*)$", re.M)


def schema_name(body) -> str:
    return ((body.get("response_format") or {}).get("json_schema") or {}).get("name") or ""


def model(verify):
    """Generative answers from the DALK-style recordings; verify answers from ``verify(facts)``
    (fact number → its "head | relation | tail" line)."""

    def answer(body):
        if schema_name(body) != "verify":
            return REPLAY.answer(body)
        facts = {int(n): line for n, line in _FACT.findall(body["messages"][1]["content"])}
        return verify(facts)

    return answer


def no_for_downregulates(facts):
    """A scripted verifier: "no" for the one fact stored as downregulates, "yes" otherwise."""
    verdicts = [
        {"fact": n, "verdict": "no" if "| downregulates |" in line else "yes"}
        for n, line in facts.items()
    ]
    return json.dumps({"verdicts": verdicts})


def build(url, wh, kg="t", verify=True, extractor="generative", **kw):
    s = LLMSettings(model="m", base_url=url, api_key="k", backoff_s=0.01, **kw)
    opts = ExtractionOptions(extractor, s, verify_claims=verify)
    return build_kg(CORPUS, kg=kg, extractor=opts, warehouse=wh)


def rows(wh, sql, params=None):
    return Warehouse(wh).query(sql, params or [])


def verify_requests(llm):
    return [r for r in llm.requests if schema_name(r["body"]) == "verify"]


def evidence(wh, report):
    """(pmid, relation as written, verified) of the head snapshot of ``report``'s build."""
    sid = report.head.snapshot_id
    return rows(wh, "SELECT pmid, relation_raw, verified FROM evidence_at(?) "
                "WHERE method <> 'reader' ORDER BY 1, 2", [sid])  # fmt: skip


def extracted_triples(wh, report):
    """The LLM's own triples (the sentence reader's readings, method ``reader``, apart)."""
    sid = report.head.snapshot_id
    return rows(wh, "SELECT count(DISTINCT triple_id) FROM evidence_at(?) "
                "WHERE method <> 'reader'", [sid])[0][0]  # fmt: skip


def verified(wh, report):
    sid = report.head.snapshot_id
    return {r[0] for r in rows(wh, "SELECT verified FROM evidence_at(?) WHERE method <> 'reader'",
                               [sid])}  # fmt: skip


def test_verdicts_set_one_call_per_abstract_with_claims_and_a_second_build_is_cached(tmp_path):
    llm = ScriptedLLM(default=("answer", model(no_for_downregulates)))
    with serve(llm) as url:
        report = build(url, tmp_path / "wh")
        asked = verify_requests(llm)
        # 2001 and 2003 keep claims; 2002 keeps none and is sent no verification call
        assert sorted(_pmids(asked)) == ["2001", "2003"]
        assert evidence(tmp_path / "wh", report) == [
            ("2001", "downregulates", "no"),
            ("2001", "interacts", "yes"),
            ("2001", "is a risk factor for", "yes"),
            ("2001", "regulates", "yes"),
            ("2001", "treats", "yes"),
            ("2003", "binds", "yes"),
            ("2003", "palliates", "yes"),
        ]
        calls = rows(tmp_path / "wh", "SELECT pmid, prompt_version, outcome, prompt_tokens "
                     "FROM llm_calls WHERE method = 'verify' ORDER BY 1")  # fmt: skip
        assert [(c[0], c[1].split("@")[0], c[2]) for c in calls] == [
            ("2001", "verify/v1", "ok"), ("2003", "verify/v1", "ok")]  # fmt: skip
        # the pass is paid for like every call: in the build's usage and the snapshot counts
        assert report.llm_usage["calls"] == 5 and report.unverified == {}
        assert report.head.counts.llm_calls == 5
        assert report.llm_usage["prompt_tokens"] >= sum(c[3] for c in calls) > 0
        status = dict(rows(tmp_path / "wh", "SELECT pmid, reason FROM extraction_status"))
        assert status["2001"] == "ok; verified: 4 yes, 1 no" and status["2002"] == "ok"
        # another KG in the same warehouse: every answer, the verdicts too, from the cache
        before = len(llm.requests)
        again = build(url, tmp_path / "wh", kg="t2")
    assert len(llm.requests) == before and again.llm_usage["calls"] == 0
    assert again.llm_usage["cache_hits"] == 5
    assert evidence(tmp_path / "wh", again) == evidence(tmp_path / "wh", report)


def _pmids(requests):
    """The PMID of each verification request, read back from the sentence it quotes."""
    first = {"Telmisartan treats": "2001", "Donepezil": "2003", "Poor sleep": "2002"}
    out = []
    for r in requests:
        text = r["body"]["messages"][1]["content"]
        out += [pmid for cue, pmid in first.items() if f"[1] {cue}" in text]
    return out


def test_without_the_pass_no_call_is_sent_and_rows_stay_empty(tmp_path):
    llm = ScriptedLLM(default=("answer", model(no_for_downregulates)))
    with serve(llm) as url:
        plain = build(url, tmp_path / "wh", verify=False)
        verified_ = build(url, tmp_path / "wh", kg="t2")
    assert len(verify_requests(llm)) == 2  # both from the second build
    snap = plain.head.snapshot_id
    assert verified(tmp_path / "wh", plain) == {""} and plain.unverified == {}
    sql = "SELECT count(*) FROM llm_calls_at(?) WHERE method = 'verify'"
    assert rows(tmp_path / "wh", sql, [snap]) == [(0,)]
    assert verified(tmp_path / "wh", verified_) == {"yes", "no"}
    # the pass is part of the build config: its snapshots are others, with other content
    assert plain.head.content_hash != verified_.head.content_hash
    manifest = Warehouse(tmp_path / "wh").manifest(verified_.head.snapshot_id)
    assert manifest["config"]["extraction"]["verify"].startswith("verify/v1@")
    assert "verify" not in Warehouse(tmp_path / "wh").manifest(snap)["config"]["extraction"]


@pytest.mark.parametrize(
    ("answer", "reasons"),
    [
        ("I looked at the facts and they seem fine.", {"answer not readable": 7}),
        ('{"verdicts": [{"fact": "one", "verdict": 1}, {"fact": 99, "verdict": "yes"}]}',
         {"no verdict for the fact": 7}),
        ('{"verdicts": [{"fact": 1, "verdict": "maybe"}, {"fact": 2, "verdict": ["yes"]}]}',
         {"unreadable verdict": 4, "no verdict for the fact": 3}),
    ],
)  # fmt: skip
def test_a_malformed_answer_leaves_rows_undecided_with_a_counted_reason(tmp_path, answer, reasons):
    llm = ScriptedLLM(default=("answer", model(lambda facts: answer)))
    with serve(llm) as url:
        report = build(url, tmp_path / "wh")
    assert verified(tmp_path / "wh", report) == {""}
    assert report.unverified == reasons
    st = rows(tmp_path / "wh", "SELECT status, reason FROM extraction_status WHERE pmid='2003'")
    first = next(iter(reasons))
    assert st == [("done", f"ok; verified: 0 yes, 0 no, 2 undecided ({first})")]


def test_a_partly_readable_answer_keeps_the_verdicts_it_gives(tmp_path):
    # prose around the JSON, a verdict as a boolean, a number as text, one fact missing
    answer = 'Sure! {"verdicts": [{"fact": "1", "verdict": true}, {"fact": 2, "verdict": "No."}]}'
    llm = ScriptedLLM(default=("answer", model(lambda facts: answer)))
    with serve(llm) as url:
        report = build(url, tmp_path / "wh")
    got = rows(tmp_path / "wh", "SELECT pmid, verified, count(*) FROM evidence_at(?) "
               "WHERE method <> 'reader' GROUP BY 1, 2 ORDER BY 1, 2",
               [report.head.snapshot_id])  # fmt: skip
    assert got == [("2001", "", 3), ("2001", "no", 1), ("2001", "yes", 1),
                   ("2003", "no", 1), ("2003", "yes", 1)]  # fmt: skip
    assert report.unverified == {"no verdict for the fact": 3}


def test_a_failed_verification_call_fails_the_document_and_the_next_build_retries_it(tmp_path):
    llm = ScriptedLLM(default=("answer", model(no_for_downregulates)))
    # the verification calls are the 3rd and 4th requests (after the two 2019 generative ones
    # come 2001's verify call; then 2003's generative and verify): refuse both verify calls
    with serve(llm) as url:
        llm.script = [("answer", model(no_for_downregulates))] * 2 + [("status", 400, None)] + [
            ("answer", model(no_for_downregulates)), ("status", 400, None)]  # fmt: skip
        report = build(url, tmp_path / "wh", max_retries=0)
        st = dict(rows(tmp_path / "wh", "SELECT pmid, status FROM extraction_status"))
        assert st == {"2001": "failed", "2002": "done", "2003": "failed"}
        assert report.unverified == {"call failed": 7}
        assert verified(tmp_path / "wh", report) == {""}
        n = len(llm.requests)
        healed = build(url, tmp_path / "wh")
    # incomplete years are rebuilt: extraction answers come from the cache, only the two
    # verification calls are sent again
    assert len(llm.requests) - n == 2 and healed.llm_usage["cache_hits"] == 3
    assert healed.head.counts.extraction_failed == 0
    assert ("2001", "downregulates", "no") in evidence(tmp_path / "wh", healed)


def test_the_replay_server_cannot_answer_the_pass_and_the_build_still_finishes(tmp_path):
    llm = ReplayLLM(RECORDINGS)
    with serve_llm(llm) as url:
        report = build(url, tmp_path / "wh")
    st = rows(tmp_path / "wh", "SELECT pmid, status FROM extraction_status ORDER BY 1")
    assert st == [("2001", "done"), ("2002", "done"), ("2003", "done")]
    assert verified(tmp_path / "wh", report) == {""}
    assert report.unverified == {"answer not readable": 7}
    assert extracted_triples(tmp_path / "wh", report) == 7 and report.llm_usage["calls"] == 5


def test_the_pass_needs_an_llm_extractor():
    with pytest.raises(InputError, match="needs an LLM extractor"):
        ExtractionOptions("cooccurrence", LLMSettings(), verify_claims=True).make(FIXTURES)


def test_the_option_resolves_from_arguments_and_environment(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert BuildSpec.resolve(source=str(CORPUS)).options().verify_claims is False
    assert BuildSpec.resolve(source=str(CORPUS), verify_claims=True).options().verify_claims
    monkeypatch.setenv("KGBUILD_VERIFY_CLAIMS", "1")
    assert BuildSpec.resolve(source=str(CORPUS)).verify_claims is True


def test_parse_verdicts_reads_json_and_lines_and_never_raises():
    assert parse_verdicts('{"verdicts": [{"fact": 2, "verdict": "no"}]}', 2) == (
        {2: "no"}, {"no verdict for the fact": 1})  # fmt: skip
    verdicts, reasons = parse_verdicts("1: yes\nFact 2 - no\n3: perhaps", 3)
    assert verdicts == {1: "yes", 2: "no"} and reasons == {"no verdict for the fact": 1}
    verdicts, reasons = parse_verdicts('[{"fact": 1, "verdict": "yes"}, '
                                       '{"fact": 1, "verdict": "no"}]', 1)  # fmt: skip
    assert verdicts == {} and reasons == {"conflicting verdicts": 1}
    assert parse_verdicts('{"1": "yes", "2": false, "x": "no"}', 2)[0] == {1: "yes", 2: "no"}
    for junk in ("", "null", "[1, 2]", '{"verdicts": "yes"}', '{"verdicts": [null, 3]}', "{"):
        verdicts, reasons = parse_verdicts(junk, 2)
        assert verdicts == {} and sum(reasons.values()) == 2


def test_the_pass_wraps_the_pairwise_extractor_too(tmp_path):
    llm = ScriptedLLM(default=("answer", model(no_for_downregulates)))
    with serve(llm) as url:
        report = build(url, tmp_path / "wh", extractor="pairwise")
    sid = report.head.snapshot_id
    docs = rows(tmp_path / "wh", "SELECT count(DISTINCT pmid) FROM evidence_at(?)", [sid])
    assert len(verify_requests(llm)) == docs[0][0] > 0
    assert verified(tmp_path / "wh", report) <= {"yes", "no"} and report.unverified == {}
