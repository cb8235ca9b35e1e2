# evalkit: `make report` runs every notebook into HTML reports; `make test` runs the test suite.
# Both create .venv when it is missing and install the pinned package set into it.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
DATA   ?= sample
OUT    ?= reports
PIP    := $(BIN)/python -m pip install --disable-pip-version-check -q -c constraints.txt
# The editable install puts the project folder on sys.path (setuptools' compat mode) rather
# than a finder consulted after it: from a clone's parent folder, where the clone's own folder
# may be named evalkit, import evalkit still finds the package, not an empty namespace.
EDITABLE := --config-settings editable_mode=compat

.PHONY: setup setup-test spark-setup report test calibration mutation docs notebooks benchmark lock clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# evalkit's modules are byte-compiled and its kernels compiled into numba's cache
# (evalkit/_compile.py) once here, not by every notebook kernel and test worker that starts
# next (an editable install is not byte-compiled by pip).
$(VENV)/.run-installed: $(BIN)/python pyproject.toml constraints.txt
	$(PIP) $(EDITABLE) -e .
	$(BIN)/python -m compileall -q evalkit
	$(BIN)/python -m evalkit._compile
	touch $@

# ranx, which the tests compare evalkit with, compiles its numba functions into the same cache
# here (tests/compile_references.py) instead of in every test process that calls it. pytest
# rewrites the assertions of each test module as it imports it, in every test worker (about
# 9 s of CPU each); a collection here writes the rewritten modules to tests/__pycache__ once,
# also where PYTHONDONTWRITEBYTECODE is set, and the workers read them (pytest rewrites a
# module again only once it has changed).
$(VENV)/.test-installed: $(VENV)/.run-installed
	$(PIP) $(EDITABLE) -e '.[test]'
	$(BIN)/python tests/compile_references.py
	-env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -q -n 0 -p no:cacheprovider \
	  --collect-only >/dev/null
	touch $@

setup: $(VENV)/.run-installed

setup-test: $(VENV)/.test-installed

## evalkit.spark and the at-scale report on Spark: the spark extra (Java 17+ needed), and an
## archive of the JVM classes Spark loads, recorded now so that every session starts sooner.
spark-setup: setup
	$(PIP) $(EDITABLE) -e '.[spark]'
	$(BIN)/python -m evalkit.spark

## Run every notebook on DATA (default: the embedded sample) into HTML reports under OUT.
## Your own split and systems: TRAIN=... TEST=... RECS="name=file other=file2" BASELINES="EASE"
## (BASELINES=none for no baseline), PREDICTIONS="name=file", ITEMS=file, PARAMS="-p K 20";
## the at-scale page runs on Spark unless SPARK=0.
report: setup
	$(BIN)/python -m evalkit report --data $(DATA) --out $(OUT) $(if $(filter 0,$(SPARK)),,--spark) \
	  $(if $(TRAIN),--train $(TRAIN)) $(if $(TEST),--test $(TEST)) $(if $(ITEMS),--items $(ITEMS)) \
	  $(foreach r,$(RECS),--recs $(r)) $(foreach r,$(PREDICTIONS),--predictions $(r)) \
	  $(if $(BASELINES),--baselines $(filter-out none,$(BASELINES))) $(PARAMS)

## Lint (ruff: pyflakes, import order, line length), then run the whole test suite: unit and
## property tests, strict nbval, papermill and browser checks.
test: setup-test
	$(BIN)/python -m ruff check .
	$(BIN)/python -m pytest

## The large calibration simulations (tests/test_calibration.py): the coverage of every
## interval evalkit reports and the level and power of its tests, over 400 to 4,000 simulated
## data sets each (about 3.5 minutes).
calibration: setup-test
	$(BIN)/python -m pytest -m calibration -p no:cacheprovider tests/test_calibration.py

## Mutation testing of the decision functions ([tool.mutmut] in pyproject.toml: the modules,
## the tests that run against each mutant, what is not mutated): each mutant is one small wrong
## edit, run against the tests that reach it; a survivor is a change no test notices. A rerun
## tests only what changed since (mutmut's cache in mutants/). The share detected and every
## survivor with its reason (benchmarks/results/mutation-explained.txt) are written to
## benchmarks/results/mutation-survivors.txt; fails below 90% or on a survivor without a
## reason. benchmarks/README.md has the last result.
mutation: setup-test
	$(BIN)/mutmut run --max-children 2
	$(BIN)/python benchmarks/mutation_survivors.py

## The documentation site into docs/_build/html (open docs/_build/html/index.html): Sphinx,
## warnings as errors; then a check that no page loads anything from another host.
docs: setup
	$(PIP) $(EDITABLE) -e '.[docs]'
	$(BIN)/python -m sphinx -b html -W --keep-going -q docs docs/_build/html
	$(BIN)/python docs/check_offline.py docs/_build/html
	$(BIN)/python docs/check_browser.py docs/_build/html

## Time the metric engine against ranx, trec_eval and pandas (SCALE=small|medium|full).
benchmark: setup-test
	$(BIN)/python benchmarks/run.py --scale $(or $(SCALE),full)

## Re-resolve the pinned versions in constraints.txt from pyproject.toml.
lock: $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test]'
	$(BIN)/python -m pip freeze --exclude-editable | grep -v '^-e' > constraints.txt

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis docs/_build docs/generated

## Re-execute the notebooks in place (their outputs are the nbval regression baseline).
notebooks: setup-test
	cd notebooks && ../$(BIN)/jupyter nbconvert --to notebook --execute --inplace *.ipynb
	$(BIN)/python -c "from evalkit.report import tidy_notebooks; tidy_notebooks('notebooks')"
