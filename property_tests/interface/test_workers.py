"""How many xdist workers a run gets when it does not say (``property_tests.conftest.default_workers``): a run of
whole folders (``pytest``, ``pytest property_tests``, ``make stress``) one per core, a focused run one process."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from property_tests import conftest
from property_tests.conftest import WORKERS_ENV, default_workers, note_worker_load, worker_balance_lines


def _config(*args, **options):
    opt = {"keyword": "", "capture": "fd", "maxfail": 0, "usepdb": False, "trace": False, "lf": False,
           "collectonly": False, "setupshow": False, "setupplan": False, "setuponly": False, "showfixtures": False,
           "show_fixtures_per_test": False, "pyargs": False, **options}
    return SimpleNamespace(args=list(args), option=SimpleNamespace(**opt))


@pytest.mark.parametrize("args", [(), ("property_tests",), ("property_tests", "theorems"), ("property_tests/paper",),
                                  ("/home/me/my.python.things/collapse-verify/property_tests",)])
def test_workers_a_run_of_whole_folders_gets_one_per_core(args):
    assert default_workers(_config(*args), env={}, cores=2) == 2
    assert default_workers(_config(*args), env={}, cores=8) == 8


@pytest.mark.parametrize("config", [
    _config("property_tests/paper/test_rank_neutrality.py"),
    _config("property_tests/paper/test_rank_neutrality.py::test_rank_neutrality_corrected_statement"),
    _config("property_tests", keyword="rank_neutrality"),
    _config("property_tests", capture="no"),
    _config("property_tests", maxfail=1),
    _config("property_tests", usepdb=True),
    _config("property_tests", trace=True),
    _config("property_tests", lf=True),
    _config("property_tests", collectonly=True),
    _config("property_tests", setupshow=True),
    _config("property_tests", setupplan=True),
    _config("property_tests", showfixtures=True),
    _config("property_tests.paper.test_rank_neutrality", pyargs=True),
], ids=["file", "test-id", "-k", "-s", "-x", "--pdb", "--trace", "--lf", "--co", "--setup-show", "--setup-plan",
        "--fixtures", "--pyargs-module"])
def test_workers_a_focused_run_is_one_process(config):
    assert default_workers(config, env={}, cores=8) == 0


def test_workers_one_core_a_worker_and_the_environment():
    assert default_workers(_config("property_tests"), env={}, cores=1) == 0
    assert default_workers(_config("property_tests"), env={"PYTEST_XDIST_WORKER": "gw0"}, cores=8) == 0
    assert default_workers(_config("property_tests"), env={WORKERS_ENV: "0"}, cores=8) == 0
    assert default_workers(_config("property_tests"), env={WORKERS_ENV: " 3 "}, cores=1) == 3
    assert default_workers(_config("property_tests"), env={WORKERS_ENV: ""}, cores=2) == 2  # empty: unset
    # a focused run stays in one process whatever the variable says (--pdb, -s and -x keep their meaning)
    assert default_workers(_config("property_tests/x.py", usepdb=True), env={WORKERS_ENV: "3"}, cores=8) == 0


@pytest.mark.parametrize("value", ["many", "-1", "2.5", "\u00b2", "\u0663", "1000"])
def test_workers_a_bad_number_is_one_line_naming_the_variable(value):
    with pytest.raises(pytest.UsageError, match=WORKERS_ENV):
        default_workers(_config("property_tests"), env={WORKERS_ENV: value}, cores=8)


def _report(worker, when, start, stop):
    return SimpleNamespace(node=SimpleNamespace(gateway=SimpleNamespace(id=worker)), when=when, start=start,
                           stop=stop, duration=stop - start)


def test_workers_balance_sums_busy_time_and_says_who_stood_idle(monkeypatch):
    load = {}
    monkeypatch.setattr(conftest, "WORKER_LOAD", load)
    for rep in [_report("gw0", "setup", 100.0, 160.0), _report("gw0", "call", 160.0, 170.0),
                _report("gw0", "teardown", 170.0, 170.5), _report("gw1", "call", 101.0, 131.0),
                SimpleNamespace(when="call", duration=99.0, start=0.0, stop=99.0)]:  # no worker (no xdist): not counted
        note_worker_load(rep)
    assert load["gw0"][:2] == [70.5, 1] and load["gw1"][:2] == [30.0, 1] and len(load) == 2
    assert not load["gw0"][4] and not load["gw1"][4]
    assert worker_balance_lines(load) == [
        "gw0: busy 70 s, 1 tests, last test ended at 70 s",
        "gw1: busy 30 s, 1 tests, last test ended at 31 s",
        "wall time of the tests 70 s; workers idle after their last test: 40 s in all"]
    assert worker_balance_lines({}) == []


def test_workers_a_crashed_worker_is_marked_and_its_crash_report_counts_no_time(monkeypatch):
    """xdist reports a crashed worker with a real TestReport of when "???" and start = stop = 0 (epoch): counting it
    would date every time from 1970."""
    load = {}
    monkeypatch.setattr(conftest, "WORKER_LOAD", load)
    crash = pytest.TestReport("t.py::test_dies", ("t.py", 1, "test_dies"), {}, "failed", "worker crashed", "???")
    assert (crash.start, crash.stop) == (0, 0)
    crash.node = SimpleNamespace(gateway=SimpleNamespace(id="gw0"))
    for rep in [_report("gw0", "call", 1000.0, 1010.0), crash, _report("gw2", "call", 1011.0, 1031.0),
                _report("gw1", "call", 1000.0, 1031.0)]:
        note_worker_load(rep)
    assert worker_balance_lines(load) == [
        "gw0: busy 10 s, 1 tests, last test ended at 10 s (then crashed)",
        "gw1: busy 31 s, 1 tests, last test ended at 31 s",
        "gw2: busy 20 s, 1 tests, last test ended at 31 s",
        "wall time of the tests 31 s; workers idle after their last test: 0 s in all"]
    only_crash = {}
    monkeypatch.setattr(conftest, "WORKER_LOAD", only_crash)
    note_worker_load(crash)
    assert worker_balance_lines(only_crash) == ["gw0: crashed before it ran a test"]
