# The two commands of the README:
#   make demo   set everything up and lint the bundled examples
#   make test   set everything up and run the whole test suite
# Everything is installed into .venv by these targets; nothing needs to be installed by hand.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test setup setup-test bench lint-code clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

setup: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .

setup-test: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python tests/fetch_corpus.py

demo: setup
	$(BIN)/plansight lint examples/ ; test $$? -le 1

test: setup-test
	$(BIN)/python -m pytest -q

bench: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	$(BIN)/python benchmarks/run_all.py

lint-code: setup-test
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q tests/test_code_quality.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache .mypy_cache
