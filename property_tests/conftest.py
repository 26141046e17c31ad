"""Hypothesis profiles, precision hygiene and vacuity accounting.

Profiles (pick one with ``HYPOTHESIS_PROFILE``):

``dev``       default: quick inner loop (25 examples per property, fresh random draws)
``ci``        what ``make test`` uses (100 examples, no deadline, **derandomized**: the same draws
              in every run, so CI never fails by chance; no example database, which Hypothesis
              refuses together with ``derandomize``)
``thorough``  long stress runs (2000 examples, no deadline): ``make stress``

``HYPOTHESIS_DB_DIR=/shared/dir`` points ``dev`` and ``thorough`` at a shared example database
(several machines, or several CI jobs); see book/reference/testing.md.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

import mpmath
import pytest
from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

from property_tests import budget
from property_tests.machine import load_average, write_machine_section

#: a shared example database (e.g. a directory on a network file system) for runs on several
#: machines: every failure any machine finds is replayed first by all of them. Hypothesis's
#: directory database is safe for concurrent writers (one file per example).
_DB_DIR = os.environ.get("HYPOTHESIS_DB_DIR")
_db = {"database": DirectoryBasedExampleDatabase(_DB_DIR)} if _DB_DIR else {}
settings.register_profile("dev", max_examples=25, deadline=None, **_db)
settings.register_profile("ci", max_examples=100, deadline=None, print_blob=True, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=2000, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow], **_db)
PROFILES = ("dev", "ci", "thorough")

#: the results store (theorems.framework.memo) of this test session: a fresh folder, shared by the xdist workers and
#: the processes the tests start (they inherit the variable), so a test never reads what an earlier session or a
#: user's `make verify` stored; `COLLAPSE_VERIFY_CACHE` set by the caller is kept
_CACHE_ENV = "COLLAPSE_VERIFY_CACHE"
_OWN_STORE = None
if _CACHE_ENV not in os.environ:
    _OWN_STORE = os.environ[_CACHE_ENV] = tempfile.mkdtemp(prefix="collapse-verify-test-store-")

#: the hash seed of the processes this session starts (xdist workers, and what they start), unless the caller set
#: one: string hashing, so set and dict-of-set orders, are the same in every run, and a worker's own ledger is a
#: second ledger under another seed than the session's quick ledger (PYTHONHASHSEED=1) for the hash-seed test
#: (framework/test_claims.py). This process itself keeps the seed it started with.
WORKER_HASH_SEED = "2"
os.environ.setdefault("PYTHONHASHSEED", WORKER_HASH_SEED)


def profile_from_env(env=os.environ) -> str:
    """The profile ``HYPOTHESIS_PROFILE`` names (``dev`` when unset); anything else is one line naming the three."""
    if "HYPOTHESIS_PROFILE" not in env:
        return "dev"
    name = env["HYPOTHESIS_PROFILE"]
    if name not in PROFILES:
        raise pytest.UsageError(f"HYPOTHESIS_PROFILE={name!r} is not a profile of this suite: choose dev, ci or "
                                "thorough (unset means dev; names are lower case)")
    return name


#: ``COLLAPSE_VERIFY_TEST_WORKERS=N``: the xdist workers of a whole-suite run (0: one process); unset: one per core
WORKERS_ENV = "COLLAPSE_VERIFY_TEST_WORKERS"


#: options whose output or meaning needs one process (xdist does not pass it back, or refuses them)
_ONE_PROCESS_FLAGS = ("usepdb", "trace", "lf", "collectonly", "setupshow", "setupplan", "setuponly", "showfixtures",
                      "show_fixtures_per_test")


def _names_a_test_file(arg: str, pyargs: bool) -> bool:
    """A test file or test id (``path/test_x.py``, ``...::test_y``; with ``--pyargs`` a dotted ``...test_x``)."""
    path = arg.split("::", 1)[0]
    if "::" in arg or Path(path).suffix == ".py":
        return True
    return pyargs and path.rsplit(".", 1)[-1].startswith("test")


def default_workers(config, env=os.environ, cores: int | None = None) -> int:
    """How many pytest-xdist workers a run gets when it does not say (``-n``): one per core for a run of whole folders
    (``pytest``, ``pytest property_tests``: the users' first command, ``make stress``; ``WORKERS_ENV`` chooses another
    number); 0 (one process) for a focused run, where starting workers costs more than it saves and ``-s``, ``-x``,
    ``--pdb``, ``--lf`` and ``--setup-show`` keep their meaning: a test file or test id, ``-k``, ``-s``, ``-x``,
    ``--pdb``, ``--trace``, ``--lf``, ``--co``, ``--setup-show/-plan/-only``, ``--fixtures``; also inside a worker and
    on one core."""
    if "PYTEST_XDIST_WORKER" in env:
        return 0
    opt = config.option
    focused = (any(_names_a_test_file(str(a), bool(getattr(opt, "pyargs", False))) for a in config.args)
               or getattr(opt, "keyword", "") or getattr(opt, "capture", "") == "no" or getattr(opt, "maxfail", 0) == 1
               or any(getattr(opt, flag, False) for flag in _ONE_PROCESS_FLAGS))
    if focused:
        return 0
    value = env.get(WORKERS_ENV, "").strip()
    if value:
        if not re.fullmatch(r"[0-9]{1,3}", value):
            raise pytest.UsageError(f"{WORKERS_ENV}={env[WORKERS_ENV]!r} is not a number of workers from 0 to 999 "
                                    "(0: one process)")
        return int(value)
    n = os.cpu_count() if cores is None else cores
    return 0 if not n or n < 2 else n


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own (also tryfirst): a conftest's hooks are called first
def pytest_cmdline_main(config):
    """A whole-suite run without ``-n`` runs on :func:`default_workers` xdist workers (``--dist loadgroup``)."""
    if not config.pluginmanager.hasplugin("xdist") or config.option.numprocesses is not None:
        return
    n = default_workers(config)
    config.option.numprocesses = n
    if n and config.option.dist == "no":
        config.option.dist = "loadgroup"


def pytest_report_header(config):
    n = getattr(config.option, "numprocesses", None)
    if n and "PYTEST_XDIST_WORKER" not in os.environ:
        return (f"collapse-verify: {n} xdist workers (--dist {config.option.dist}); -n 0 or {WORKERS_ENV}=0 runs in "
                "one process")
    return None


def pytest_configure(config):
    # here, not at import: a UsageError raised while pytest configures is its one-line "ERROR: ...", not a traceback
    settings.load_profile(profile_from_env())
    # a plugin, not a conftest hook: a conftest's pytest_fixture_setup is not called for session fixtures (their node
    # is the session, above this folder)
    if not config.pluginmanager.is_registered(budget):
        config.pluginmanager.register(budget, "collapse-verify-budget")


def pytest_unconfigure(config):
    if _OWN_STORE is not None and "PYTEST_XDIST_WORKER" not in os.environ:
        shutil.rmtree(_OWN_STORE, ignore_errors=True)

#: test name -> Counter of how many drawn instances met each premise
VACUITY: dict[str, Counter] = {}


@pytest.fixture(autouse=True)
def _no_store_for_patching_tests(request):
    """A test that patches code (monkeypatch) gets no results store: the store's key sees files, not code patched in
    memory (a test that wants one sets COLLAPSE_VERIFY_CACHE itself, as test_memo does)."""
    if "monkeypatch" in request.fixturenames:
        request.getfixturevalue("monkeypatch").setenv(_CACHE_ENV, "off")


@pytest.fixture(scope="session")
def quick_ledger_file(tmp_path_factory):
    """``collapse-verify verify --quick --json`` run once in a fresh process (``PYTHONHASHSEED=1``): the ledger the
    book's test build reads (its key matches: dps 50, quick, every claim), one side of the hash-seed test, and the
    verdicts the ledger tests and ``show``'s test read (:func:`quick_ledger`). Tests using it carry
    ``xdist_group(quick_runs.LEDGER_GROUP)``, so one worker computes it."""
    from property_tests.paper.quick_runs import verify_quick_in_fresh_process  # lazy: it imports the whole suite
    return verify_quick_in_fresh_process(tmp_path_factory.mktemp("quick-ledger") / "ledger.json", "1")


@pytest.fixture(scope="session")
def worker_quick_ledger(tmp_path_factory):
    """``verify --quick --json`` run in this process (the command line's ``main``, which computes every value itself),
    after whatever tests this worker ran before: (the ledger's path, every claim's result). The hash-seed test's
    second ledger when this process's hash seed is known and is not 1; the results ``show``'s test renders."""
    from property_tests.paper.quick_runs import verify_quick_in_this_process
    return verify_quick_in_this_process(tmp_path_factory.mktemp("worker-ledger") / "ledger.json")


@pytest.fixture(scope="session")
def quick_ledger_records(quick_ledger_file):
    """The session's quick ledger as written (JSON), each claim's record by claim id."""
    import json
    return {c["id"]: c for c in json.loads(quick_ledger_file.read_text())["claims"]}


@pytest.fixture(scope="session")
def quick_ledger(quick_ledger_records):
    """Every claim's result in the session's quick ledger, read back (``ClaimResult.from_json``, which assesses each
    reading's verdict again from its evidence), by claim id."""
    from property_tests.paper.quick_runs import ledger_results
    return ledger_results(quick_ledger_records)


@pytest.fixture(autouse=True)
def reset_mp_globals():
    """No test may leak a changed mpmath precision into another (mpmath's conftest does this)."""
    mp_prec, iv_prec = mpmath.mp.prec, mpmath.iv.prec
    yield
    mpmath.mp.prec, mpmath.iv.prec = mp_prec, iv_prec


@pytest.fixture
def counts(request):
    """A Counter reported at the end of the session (how many draws met the premise)."""
    c = Counter()
    yield c
    # travels with the test report, so the counts reach the controller under pytest-xdist too
    request.node.user_properties.append(("vacuity", dict(c)))


#: xdist worker id -> [busy seconds, tests run, earliest start, latest stop, crashed] (the controller's view; {}
#: without xdist)
WORKER_LOAD: dict[str, list] = {}


def note_worker_load(report) -> None:
    node = getattr(report, "node", None)  # pytest-xdist sets it on the reports the controller receives
    gateway = getattr(node, "gateway", None)
    if gateway is None:
        return
    load = WORKER_LOAD.setdefault(gateway.id, [0.0, 0, float("inf"), 0.0, False])
    if report.when not in ("setup", "call", "teardown") or not getattr(report, "start", 0):
        load[4] = True  # xdist's report of a crashed worker (when "???", no start or stop): no time to count
        return
    load[0] += report.duration
    load[1] += report.when == "call"
    load[2] = min(load[2], report.start)
    load[3] = max(load[3], report.stop)


def worker_balance_lines(load: dict[str, list]) -> list[str]:
    """One line per xdist worker: busy seconds (setup + call + teardown, session fixtures included), tests, and when
    it ran its last test, counted from the first test any worker started (a worker that crashed is marked, and its
    replacement is a worker of its own); the last line adds up how long the workers that did not crash stood idle
    after their last test (what moving tests between workers could save at most)."""
    ran = {wid: v for wid, v in load.items() if v[1] or v[0]}
    t0 = min((v[2] for v in ran.values()), default=0.0)
    end = max((v[3] for v in ran.values()), default=0.0)
    lines = []
    for wid, (busy, tests, _, stop, crashed) in sorted(load.items()):
        if wid not in ran:
            lines.append(f"{wid}: crashed before it ran a test")
            continue
        lines.append(f"{wid}: busy {busy:.0f} s, {tests} tests, last test ended at {stop - t0:.0f} s"
                     + (" (then crashed)" if crashed else ""))
    if ran:
        idle = sum(end - v[3] for v in ran.values() if not v[4])
        lines.append(f"wall time of the tests {end - t0:.0f} s; workers idle after their last test: {idle:.0f} s "
                     "in all")
    return lines


#: what each test and shared fixture cost (the controller's view, or the one process's): property_tests/budget.py
ACCOUNT = budget.Account()
_SESSION_START = time.monotonic()


def pytest_runtest_logreport(report):
    note_worker_load(report)
    ACCOUNT.add(report)
    if report.when == "teardown":
        for key, value in report.user_properties:
            if key == "vacuity":
                VACUITY.setdefault(report.nodeid.split("::")[-1], Counter()).update(value)


#: what a column of the per-regime table counts (printed under the table's name)
_COLUMN_MEANING = {
    "drawn": "drawn: draws in the regime",
    "H1-H4": "H1-H4: draws meeting all four hypotheses",
    "conclusion": "conclusion: of the draws meeting H1-H4, those where the paper's conclusion "
                  "arank LN(X) = arank X held",
}


#: the load average when pytest imported this conftest (the run's start; in `make test`, right after the venv's
#: set-up and the Coq build), for the machine line
_LOAD_AT_START = load_average()


def pytest_terminal_summary(terminalreporter, config):
    tr = terminalreporter
    write_machine_section(tr, config, _LOAD_AT_START)
    balance = worker_balance_lines(WORKER_LOAD)
    if balance:
        tr.section("xdist workers (busy time and when each ended)")
        for line in balance:
            tr.write_line(line)
    if ACCOUNT.tests and "PYTEST_XDIST_WORKER" not in os.environ:
        tr.section("time budget (property_tests/budgets.toml: seconds on a quiet 2-core machine)")
        try:
            budgets = budget.load_budgets()
        except (OSError, ValueError) as e:
            tr.write_line(f"no budget read: {e}")
        else:
            factor = budget.load_factor(_LOAD_AT_START, os.cpu_count())
            whole = config.args_source == pytest.Config.ArgsSource.TESTPATHS  # no paths given: the whole suite
            wall = time.monotonic() - _SESSION_START if whole else None
            for line in budget.summary_lines(ACCOUNT, budgets, factor, wall):
                tr.write_line(line)
    if not VACUITY:
        return
    tr.section(f"Hypothesis draws meeting each premise (profile {settings._current_profile})")
    for name, c in sorted(VACUITY.items()):
        table = {k: v for k, v in c.items() if "|" in k}
        rest = {k: v for k, v in c.items() if "|" not in k}
        if rest:
            tr.write_line(f"{name}: " + ", ".join(f"{k}={v}" for k, v in sorted(rest.items())))
        if table:  # per regime (rows, zero counts shown) and per premise (columns)
            cols = list(dict.fromkeys(k.split("|", 1)[1] for k in table))
            tr.write_line(f"{name}:")
            legend = [_COLUMN_MEANING[c] for c in cols if c in _COLUMN_MEANING]
            if legend:
                tr.write_line("  (" + "; ".join(legend) + ")")
            tr.write_line("  " + "regime".ljust(8) + "".join(col.rjust(12) for col in cols))
            for regime in [r for r in ("n<d", "n=d", "n>d") if any(k.startswith(r + "|") for k in table)]:
                tr.write_line("  " + regime.ljust(8) + "".join(str(table.get(f"{regime}|{col}", 0)).rjust(12)
                                                               for col in cols))
