# The two commands of the README:
#   make demo   set everything up and lint the bundled examples
#   make test   set everything up and run the whole test suite (Python, then the VS Code extension)
# Everything is installed by these targets (into .venv and vscode-client/node_modules); nothing needs
# to be installed by hand. `make test-editors` adds the real-editor tests (code-server in Chromium,
# Neovim), which install Debian packages when they are missing.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test test-python test-vscode test-editors setup setup-test bench lint-code vsix clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

setup: $(BIN)/python
	sh scripts/install-wordnet.sh
	$(BIN)/python -m pip install --quiet -e .

setup-test: $(BIN)/python
	sh tests/editors/install-neovim.sh
	sh tests/install-java.sh
	sh scripts/install-wordnet.sh --required
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python tests/fetch_corpus.py

# The main job (lint every bundled example), then one example of each other check. Exit code 1 means
# "the check found problems" (the examples contain deliberate mistakes), so only 2+ fails the demo.
demo: setup
	$(BIN)/plansight lint examples/ ; test $$? -le 1
	$(BIN)/plansight plan examples/llm-mistakes/plan-wrong-order.plan ; test $$? -le 1
	$(BIN)/plansight grade examples/grading/submissions --reference examples/grading/reference.pddl ; test $$? -le 1
	$(BIN)/plansight ltl examples/ltl ; test $$? -le 1

test: test-python test-vscode

# One worker per core (pytest-xdist): the suite is CPU-bound and its tests are independent.
test-python: setup-test
	$(BIN)/python -m pytest -q -n auto

test-vscode: setup-test
	PYTHON=$(abspath $(BIN)/python) vscode-client/scripts/ci.sh

# The linux-x64 .vsix, by name (not the universal one): it carries Fast Downward, so the planning flows
# (Plan this problem, Repair this plan) run it with the bare system python3, as a Linux user gets it.
EDITOR_VSIX = vscode-client/plansight-linux-x64-$(shell node -p 'require("./vscode-client/package.json").version' 2>/dev/null).vsix

test-editors: setup-test
	test -f $(EDITOR_VSIX) || PYTHON=$(abspath $(BIN)/python) vscode-client/scripts/ci.sh
	vscode-client/test/e2e-browser/run.sh $(EDITOR_VSIX)

# One .vsix per platform (linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64) and the
# universal pure-Python one, reproducibly; `make test` builds and checks only linux-x64 and universal.
vsix: setup
	sh scripts/install-wordnet.sh --required
	cd vscode-client && npm ci --no-audit --no-fund
	PYTHON=$(abspath $(BIN)/python) vscode-client/scripts/bundle-python.sh
	PYTHON=$(abspath $(BIN)/python) vscode-client/scripts/package-vsix.sh

bench: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	$(BIN)/python tests/fetch_corpus.py
	$(BIN)/python benchmarks/run_all.py

lint-code: setup-test
	$(BIN)/python -m pytest -q tests/test_code_quality.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache .mypy_cache
