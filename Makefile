# One entry point for people and CI. Targets create .venv and install what they need, so each
# works on a fresh clone.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Where `make serve` listens (the README's address); tests pick a free port.
DEV_ADDR ?= 127.0.0.1:8000

.PHONY: serve build validate test lint format chromium java promtool shells axe fuzz clean lab lab-drift bench realeval

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test,fleet]'
	touch $@ $(VENV)/.installed

serve: $(VENV)/.installed
	$(BIN)/trainwreck build
	$(BIN)/trainwreck serve --dev-addr $(DEV_ADDR)

build: $(VENV)/.installed
	$(BIN)/trainwreck build

validate: $(VENV)/.installed
	$(BIN)/trainwreck validate

# Browser tests drive Debian's chromium; a test tool's own browser download cannot work here.
chromium:
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium >/dev/null; }

# The fleet tests run Spark in local mode (tests/fleet/), which needs a Java runtime.
java:
	@command -v java >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq default-jre-headless >/dev/null; }

# The Loki rule files are checked with Prometheus's own rule parser, Debian's promtool
# (tests/fleet/test_export_text.py).
promtool:
	@command -v promtool >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends prometheus >/dev/null; }

# The completion tests check each script with its own shell's `-n` (tests/test_cli_help.py).
shells:
	@command -v zsh >/dev/null 2>&1 && command -v fish >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq zsh fish >/dev/null; }

# The accessibility tests inject axe-core into Chromium; npm fetches it into node_modules/
# (git-ignored), without a package.json.
AXE := node_modules/axe-core/axe.min.js
axe: $(AXE)
$(AXE):
	npm install --no-save --no-package-lock --no-audit --no-fund --prefix . axe-core@4

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: $(VENV)/.installed-test chromium java promtool shells $(AXE) lint
	$(BIN)/python -m pytest

# The scale benchmarks (docs/benchmarks.md): many minutes of CPU, and not part of `make test`.
# Lighthouse goes to its own prefix, so that npm does not prune the tests' axe-core.
SIZES ?= 1000 2000
LIGHTHOUSE := .bench-node/node_modules/.bin/lighthouse
$(LIGHTHOUSE):
	npm install --no-save --no-package-lock --no-audit --no-fund --prefix .bench-node lighthouse@12
bench: $(VENV)/.installed-test chromium $(LIGHTHOUSE)
	$(BIN)/python bench/build.py --sizes $(SIZES)
	$(BIN)/python bench/search_browser.py
	LIGHTHOUSE=$(LIGHTHOUSE) $(BIN)/python bench/lighthouse.py

# Coverage-guided fuzzing of the entry loader, the log scanner, `--index` loading, the publish
# step and the exported regular expressions, MINUTES each (docs/security.md).
MINUTES ?= 5
fuzz: $(VENV)/.installed-test
	$(BIN)/python -m pip install -q -e '.[fuzz]'
	$(BIN)/python fuzz/fuzz_loader.py -max_total_time=$$(( $(MINUTES) * 60 ))
	$(BIN)/python fuzz/fuzz_scanner.py -max_total_time=$$(( $(MINUTES) * 60 ))
	$(BIN)/python fuzz/fuzz_index.py -max_total_time=$$(( $(MINUTES) * 60 ))
	$(BIN)/python fuzz/fuzz_publish.py -max_total_time=$$(( $(MINUTES) * 60 ))
	$(BIN)/python fuzz/fuzz_export_regex.py -max_total_time=$$(( $(MINUTES) * 60 ))
	$(BIN)/python fuzz/fuzz_from_log.py -max_total_time=$$(( $(MINUTES) * 60 ))

# The failure lab (docs/lab.md): real PyTorch jobs that fail on purpose, in a throwaway
# virtualenv per release; their logs go to corpus/lab/<release>/ and are committed.
TORCH ?= 2.13.0
# 0.23 no longer prints the fork warning (docs/lab.md, Findings)
TOKENIZERS ?= 0.22.1
LAB_VENV := .lab-venv-$(TORCH)
$(LAB_VENV)/.installed:
	$(PYTHON) -m venv $(LAB_VENV)
	$(LAB_VENV)/bin/python -m pip install -q --upgrade pip
	$(LAB_VENV)/bin/python -m pip install -q torch==$(TORCH) numpy tokenizers==$(TOKENIZERS) py-spy
	$(LAB_VENV)/bin/python -m pip install -q -e .
	touch $@

lab: $(LAB_VENV)/.installed
	$(LAB_VENV)/bin/python lab/run.py --out corpus/lab/$(TORCH) $(SCENARIOS)

# Scenario by scenario, the signatures one release's log matches and the other's does not.
A ?= 2.13.0
B ?= 2.14.1
lab-drift: $(VENV)/.installed
	$(BIN)/python lab/drift.py corpus/lab/$(A) corpus/lab/$(B)

format: $(VENV)/.installed-test
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) site .site-builds .bench-node .pytest_cache .mypy_cache .ruff_cache

# The real-failure benchmark (corpus/real/README.md): the score of both engines on every case,
# written to corpus/real/score.json; tests/realeval/ fails when the engines' results differ.
realeval: $(VENV)/.installed
	$(BIN)/python -m realeval --write
