"""One settings order, tested per setting: arguments > environment > kgbuild.toml > domain file
> defaults (kgbuild/settings.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kgbuild.errors import ConfigError
from kgbuild.settings import Settings, load_settings

# (field, environment variable, kgbuild.toml snippet template, domain-file snippet template,
#  four distinct values: argument, environment, toml, domain). A None template = that layer
#  cannot set the field (secrets never come from files; the domain file holds only domain keys).
CASES = [
    ("kg", "KGBUILD_KG", "[kgbuild]\nkg = {!r}", "kg = {!r}", ["a1", "e1", "t1", "d1"]),
    ("years", "KGBUILD_YEARS", "[kgbuild]\nyears = {!r}", "years = {!r}",
     ["2011", "2012", "2013", "2014"]),
    ("query", "KGBUILD_QUERY", "[kgbuild]\nquery = {!r}", "[source]\nquery = {!r}",
     ["qa", "qe", "qt", "qd"]),
    ("annotator", "KGBUILD_ANNOTATOR", "[kgbuild]\nannotator = {!r}",
     "[source]\nannotator = {!r}", ["pubtator", "scispacy", "pubtator-api", "file"]),
    ("scispacy_model", "KGBUILD_SCISPACY_MODEL", "[kgbuild]\nscispacy_model = {!r}",
     "[source]\nscispacy_model = {!r}", ["m_a", "m_e", "m_t", "m_d"]),
    ("extractor", "KGBUILD_EXTRACTOR", "[kgbuild]\nextractor = {!r}",
     "[extraction]\nextractor = {!r}", ["generative", "pairwise", "cooccurrence", "auto2"]),
    ("pairwise_mode", "KGBUILD_PAIRWISE_MODE", "[kgbuild]\npairwise_mode = {!r}",
     "[extraction]\npairwise_mode = {!r}", ["per-pair", "batched", "x-toml", "x-domain"]),
    ("llm_model", "KGBUILD_LLM_MODEL", "[llm]\nmodel = {!r}", "[extraction]\nmodel = {!r}",
     ["m-arg", "m-env", "m-toml", "m-domain"]),
    ("llm_base_url", "OPENAI_BASE_URL", "[llm]\nbase_url = {!r}", None,
     ["http://a/v1", "http://e/v1", "http://t/v1", None]),
    ("llm_concurrency", "KGBUILD_LLM_CONCURRENCY", "[llm]\nconcurrency = {}", None,
     [3, 4, 5, None]),
    ("llm_timeout", "KGBUILD_LLM_TIMEOUT", "[llm]\ntimeout_s = {}", None, [1.5, 2.5, 3.5, None]),
    ("llm_max_tokens", "KGBUILD_LLM_MAX_TOKENS", "[llm]\nmax_tokens = {}", None,
     [100, 200, 300, None]),
    ("llm_max_retries", "KGBUILD_LLM_MAX_RETRIES", "[llm]\nmax_retries = {}", None,
     [1, 2, 3, None]),
    ("chunk_size", "KGBUILD_CHUNK_SIZE", "[kgbuild]\nchunk_size = {}", None, [10, 20, 30, None]),
    ("embed_model", "KGBUILD_EMBED_MODEL", "[kgbuild]\nembed_model = {!r}", None,
     ["none", "e-model", "t-model", None]),
    ("max_doc_chars", "KGBUILD_MAX_DOC_CHARS", "[kgbuild]\nmax_doc_chars = {}", None,
     [1000, 2000, 3000, None]),
    ("warehouse", "KGBUILD_WAREHOUSE", "[kgbuild]\nwarehouse = {!r}", None,
     ["wa", "we", "wt", None]),
    ("eutils_url", "KGBUILD_EUTILS_URL", "[kgbuild]\neutils_url = {!r}", None,
     ["http://a/", "http://e/", "http://t/", None]),
    ("pubtator_url", "KGBUILD_PUBTATOR_URL", "[kgbuild]\npubtator_url = {!r}", None,
     ["http://a/", "http://e/", "http://t/", None]),
    ("ncbi_email", "NCBI_EMAIL", "[kgbuild]\nncbi_email = {!r}", None,
     ["a@x.org", "e@x.org", "t@x.org", None]),
]  # fmt: skip


@pytest.fixture
def layers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """An isolated working folder, domain folder and environment."""
    for name in list(__import__("os").environ):
        if name.startswith("KGBUILD_") or name in {
            "OPENAI_BASE_URL",
            "OPENAI_API_KEY",
            "NCBI_API_KEY",
            "NCBI_EMAIL",
        }:
            monkeypatch.delenv(name)
    domains = tmp_path / "domains"
    domains.mkdir()
    monkeypatch.setenv("KGBUILD_DOMAINS", str(domains))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _value(settings: Settings, field: str):
    return getattr(settings, field)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_each_setting_resolves_arguments_env_toml_domain_default(case, layers, monkeypatch):
    field, env_name, toml_tpl, domain_tpl, (v_arg, v_env, v_toml, v_dom) = case
    default = Settings.model_fields[field].default
    assert _value(load_settings(), field) == default

    domain_args = {}
    if domain_tpl is not None:
        (layers / "domains" / "d.toml").write_text(domain_tpl.format(v_dom) + "\n")
        domain_args = {"domain": "d"}
        assert _value(load_settings(**domain_args), field) == v_dom  # domain > default
    (layers / "kgbuild.toml").write_text(toml_tpl.format(v_toml) + "\n")
    assert _value(load_settings(**domain_args), field) == v_toml  # toml > domain
    monkeypatch.setenv(env_name, str(v_env))
    assert _value(load_settings(**domain_args), field) == v_env  # environment > toml
    assert _value(load_settings(**domain_args, **{field: v_arg}), field) == v_arg  # args win
    # None means "not given": the next layer shows through.
    assert _value(load_settings(**domain_args, **{field: None}), field) == v_env


def test_the_domain_is_itself_chosen_in_order(layers, monkeypatch):
    for name in ("a", "e", "t"):
        (layers / "domains" / f"{name}.toml").write_text(f'kg = "kg_{name}"\n')
    (layers / "kgbuild.toml").write_text('[kgbuild]\ndomain = "t"\n')
    assert load_settings().kg == "kg_t"
    monkeypatch.setenv("KGBUILD_DOMAIN", "e")
    assert load_settings().kg == "kg_e"
    assert load_settings(domain="a").kg == "kg_a"


def test_secrets_come_from_the_environment_only_and_never_show(layers, monkeypatch):
    (layers / "kgbuild.toml").write_text(
        '[kgbuild]\nopenai_api_key = "sk-from-file"\n[llm]\napi_key = "sk-from-llm"\n'
    )
    assert load_settings().openai_api_key is None
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-env")
    monkeypatch.setenv("NCBI_API_KEY", "ncbi-secret")
    s = load_settings()
    assert s.openai_api_key.get_secret_value() == "sk-secret-env"
    assert s.ncbi_api_key.get_secret_value() == "ncbi-secret"
    shown = repr(s) + str(s.public()) + s.model_dump_json()
    assert "sk-secret-env" not in shown and "ncbi-secret" not in shown
    assert "openai_api_key" not in s.public()


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        ({"chunk_size": 0}, {}, "setting chunk_size: must be at least 1"),
        ({}, {"KGBUILD_MAX_DOC_CHARS": "-5"}, "setting max_doc_chars: must be at least 1"),
        ({}, {"KGBUILD_LLM_CONCURRENCY": "many"}, "setting llm_concurrency"),
        ({"kg": "../etc"}, {}, "kg"),
    ],
)
def test_a_bad_value_is_one_config_error_naming_the_setting(
    layers, monkeypatch, args, env, message
):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    with pytest.raises(ConfigError) as err:
        load_settings(**args)
    assert message in str(err.value)


def test_unknown_argument_is_refused(layers):
    with pytest.raises(TypeError, match="unknown settings"):
        load_settings(no_such_setting=1)


def test_no_module_reads_the_environment_on_its_own():
    """Settings come through kgbuild.settings (which reads via kgbuild.config.env); the only
    other touch is the serve command handing its resolved options to the uvicorn worker process."""
    root = Path(__file__).resolve().parents[2]
    allowed = {Path("kgbuild/config.py"), Path("kgbuild/serve/cli.py")}
    offenders = []
    for path in sorted((root / "kgbuild").rglob("*.py")) + sorted((root / "flows").rglob("*.py")):
        rel = path.relative_to(root)
        text = path.read_text(encoding="utf-8")
        code = re.sub(r'"""[\s\S]*?"""', "", text)  # docstrings may mention getenv
        if re.search(r"os\.environ|getenv\(|environ\.get", code) and rel not in allowed:
            offenders.append(str(rel))
    assert offenders == []


def test_paths_may_be_given_as_path_objects(layers):
    s = load_settings(warehouse=layers / "wh", source=layers / "corpus")
    assert s.warehouse_dir == layers / "wh" and s.source == str(layers / "corpus")
