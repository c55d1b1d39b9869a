"""The LLM claim reader (``kgbuild conflicts --reader llm``) on a real local model: SmolLM2-135M
served by llama.cpp's OpenAI-compatible server (tests/llm/test_local_llm.py starts it).

Its answers are nonsense; what is asserted is that the reader survives a real model and its
structured-output dialect: every question ends counted (read, none, unparseable, failed or
skipped — none lost), whatever it reads is one of the options, and the injected sentence never
turns into a claim unless the model happens to give a well-formed answer (which is then counted
as read, like any other — the parse, not the model's obedience, is the guard)."""

from __future__ import annotations

import pytest

from kgbuild.belief.claims_llm import OPTIONS
from kgbuild.llm.cache import ResponseCache
from kgbuild.llm.client import LLMClient, LLMSettings
from kgbuild.reader.conflict_list import list_conflicts
from tests.belief.test_claims_llm import built  # noqa: F401  (the planted warehouse)
from tests.llm.test_local_llm import smollm2  # noqa: F401  (the module-scoped server fixture)

pytestmark = pytest.mark.slow  # a real local LLM (llama.cpp)


def test_a_real_model_ends_every_question_counted(smollm2, built, tmp_path):  # noqa: F811
    wh, sid = built
    settings = LLMSettings(model="smollm2", base_url=smollm2, max_tokens=64, concurrency=2,
                           timeout_s=120)  # fmt: skip
    client = LLMClient(settings, ResponseCache(tmp_path / "cache.sqlite"))
    try:
        report = list_conflicts(wh, sid, client=client)
    finally:
        client.close()
    r = report.reading
    assert r is not None and r["asked"] >= 4  # one per planted sentence at least
    ends = r["read"] + r["none"] + r["unparseable"] + r["failed"] + r["skipped"]
    assert ends == r["asked"], r
    assert r["failed"] == 0, r  # the endpoint answered every call (its dialect was found)
    for c in report.conflicts:
        assert set(c.polarities_a) | set(c.polarities_b) <= set(OPTIONS)
        assert {e.template for e in (*c.evidence_a, *c.evidence_b)} == {"llm"}
