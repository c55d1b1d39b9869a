"""Every setting knows the layer it came from; a file never decides where a secret
goes; a ``kgbuild.toml`` inside the build's source is data, not configuration
(kgbuild/settings.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kgbuild.pipeline.spec import BuildSpec
from kgbuild.settings import load_settings
from kgbuild.sources import pubmed
from tests.support.eutils_server import FakeNCBI, serve

NCBI_KEY = "ncbi-test-key-for-ncbi-only"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An isolated working folder, domain folder and environment."""
    for name in list(os.environ):
        if name.startswith(("KGBUILD_", "OPENAI_", "NCBI_")):
            monkeypatch.delenv(name)
    (tmp_path / "domains").mkdir()
    (tmp_path / "domains" / "d.toml").write_text('kg = "from-domain"\n')
    monkeypatch.setenv("KGBUILD_DOMAINS", str(tmp_path / "domains"))
    folder = tmp_path / "work"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def test_each_setting_knows_its_layer(work, monkeypatch):
    (work / "kgbuild.toml").write_text(
        '[kgbuild]\nwarehouse = "w"\n[llm]\nbase_url = "http://t/v1"\n'
    )
    monkeypatch.setenv("KGBUILD_YEARS", "2011")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    s = load_settings(query="q", domain="d")
    expected = {"query": "argument", "years": "environment", "warehouse": "kgbuild.toml",
                "llm_base_url": "kgbuild.toml", "kg": "domain",
                "chunk_size": "default"}  # fmt: skip
    assert {name: s.layer(name) for name in expected} == expected
    assert not s.key_allowed("llm_base_url") and s.key_allowed("eutils_url")
    assert s.file_endpoints() == ("llm_base_url",)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://e/v1")
    assert load_settings().key_allowed("llm_base_url")  # the environment's endpoint
    assert load_settings(llm_base_url="http://t/v1").key_allowed("llm_base_url")  # an argument


@pytest.mark.parametrize("where", ["argument", "environment", "the file itself", "a parent"])
def test_a_kgbuild_toml_inside_the_source_is_not_read(work, monkeypatch, where):
    toml = work / "kgbuild.toml"
    own = 'source = "."\n' if where == "the file itself" else ""
    toml.write_text(f'[kgbuild]\nwarehouse = "/x"\n{own}[llm]\nbase_url = "http://t/v1"\n')
    args = {}
    if where == "argument":
        args = {"source": "."}
    elif where == "environment":
        monkeypatch.setenv("KGBUILD_SOURCE", str(work))
    elif where == "a parent":
        args = {"source": str(work.parent)}
    s = load_settings(**args)
    assert (s.warehouse, s.llm_base_url) == ("warehouse", None)
    assert s.notices() == (
        f"kgbuild.toml ({toml}) ignored: it is inside --source "
        f"{args.get('source') or os.environ.get('KGBUILD_SOURCE') or '.'}, and a file in a "
        "corpus is data, not configuration",
    )


def test_a_broken_kgbuild_toml_inside_the_source_is_not_even_parsed(work):
    (work / "kgbuild.toml").write_text("this is = = not toml\n")
    assert load_settings(source=".").warehouse == "warehouse"
    other = work.parent / "corpus"
    other.mkdir()
    (work / "kgbuild.toml").write_text('[kgbuild]\nwarehouse = "w"\n')
    assert load_settings(source=str(other)).warehouse == "w"  # outside the source: read


def test_the_notice_names_a_file_that_moves_an_endpoint_or_the_warehouse(work, monkeypatch):
    toml = work / "kgbuild.toml"
    toml.write_text('[kgbuild]\nkg = "k"\n[llm]\nmodel = "m"\n')
    assert load_settings().notices() == ()  # nothing that says where things go
    toml.write_text('[kgbuild]\nwarehouse = "w"\neutils_url = "http://t/"\n')
    assert load_settings().notices() == (
        f"kgbuild.toml ({toml}): sets eutils_url, warehouse; NCBI_API_KEY will not be sent to "
        "a file-configured endpoint",
    )
    monkeypatch.setenv("KGBUILD_EUTILS_URL", "http://e/")  # the environment's wins: not named
    assert load_settings().notices() == (f"kgbuild.toml ({toml}): sets warehouse",)
    spec = BuildSpec.resolve(source=str(work))
    assert spec.notices == (
        f"kgbuild.toml ({toml}) ignored: it is inside --source {work}, and a file in a corpus "
        "is data, not configuration",
    )


def test_the_ncbi_key_goes_only_to_an_eutils_url_the_user_chose(work, monkeypatch):
    monkeypatch.setenv("NCBI_API_KEY", NCBI_KEY)
    sent = {}
    for layer in ("kgbuild.toml", "environment"):
        with serve(FakeNCBI()) as fake:
            if layer == "kgbuild.toml":
                (work / "kgbuild.toml").write_text(f'[kgbuild]\neutils_url = "{fake.eutils_url}"\n')
            else:
                monkeypatch.setenv("KGBUILD_EUTILS_URL", fake.eutils_url)
            spec = BuildSpec.resolve(
                source="pubmed", query="ad", years="2015", warehouse=f"wh-{layer}"
            )
            pubmed.search(spec.corpus().eutils, "ad", 2015)
        (call,) = fake.calls("esearch.fcgi")
        sent[layer] = call["fields"].get("api_key")
    assert sent == {"kgbuild.toml": None, "environment": NCBI_KEY}
