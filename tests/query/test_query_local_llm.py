"""The LLM answer path on a real local model: SmolLM2-135M-Instruct served by llama.cpp's
OpenAI-compatible server on 127.0.0.1 (nonsense answers: robustness, not content). Every ADQA
question must end with a parsed choice or be counted wrong — never dropped, never a crash."""

import pytest

from kgbuild.evaluate.adqa import read_questions
from kgbuild.evaluate.adqa_run import evaluate
from kgbuild.llm.client import LLMClient, LLMSettings
from kgbuild.query.engine import QueryEngine
from tests.evaluate.test_query_adqa import FILES
from tests.llm.test_local_llm import smollm2  # noqa: F401  (the module-scoped server fixture)
from tests.support.query_kg import build_query_kg

pytestmark = pytest.mark.slow  # a real local LLM (llama.cpp)


def test_every_question_gets_a_choice_or_counts_wrong(smollm2, tmp_path):  # noqa: F811
    build_query_kg(tmp_path / "wh")
    engine = QueryEngine(tmp_path / "wh", "latest", embeddings=False)
    questions = [read_questions(f)[0] for f in FILES]  # one per source format
    settings = LLMSettings(model="smollm2", base_url=smollm2, max_tokens=96, concurrency=2,
                           timeout_s=120)  # fmt: skip
    client = LLMClient(settings)
    res = evaluate(engine, questions, k=5, embed="off", client=client)
    subsets = res["subsets"]
    assert sum(s["questions"] for s in subsets.values()) == len(questions) == 4
    for s in subsets.values():
        n, acc, unparsed = s["questions"], s["accuracy"], s["unparsed"]
        correct = round(acc * n / 100)
        assert 0 <= unparsed <= n and correct + unparsed <= n  # unparsed ones count as wrong
        assert s["llm_calls"] >= 2 * n  # entities, (rerank,) answer for every question
    assert client.usage["failed"] == 0 and client.usage["format_fallbacks"] >= 1
    assert res["AVG"] is not None
