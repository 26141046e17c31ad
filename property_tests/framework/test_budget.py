"""The tests' time budget (property_tests/budget.py, budgets.toml): the file is valid and current, a shared fixture's
seconds are counted once under its own name, and the summary names who is over (planted reports, no timing)."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from property_tests import budget
from property_tests.budget import Account, Budgets, load_factor, over_budget, parse_budgets, summary_lines

ROOT = Path(__file__).resolve().parents[2]
_T = "property_tests/x/test_a.py::test_"


def _report(nodeid, when, duration, props=(), marks=()):
    return SimpleNamespace(nodeid=nodeid, when=when, duration=duration, user_properties=list(props),
                           keywords={m: 1 for m in marks})


def _ran(account, nodeid, setup, call, teardown=0.0, props=(), marks=()):
    for when, d in (("setup", setup), ("call", call), ("teardown", teardown)):
        account.add(_report(nodeid, when, d, props if when != "setup" else (), marks))


def test_budget_file_parses_and_every_entry_names_a_test_that_exists():
    b = budget.load_budgets()
    assert b.test < b.slow and b.total is not None and b.tests and b.fixtures
    assert budget.stale_entries(b, ROOT) == []
    fixtures = {n for n in b.fixtures if any(f"def {n}(" in p.read_text() for p in (ROOT / "property_tests").rglob(
        "*.py"))}
    assert fixtures == set(b.fixtures), "a budgeted fixture no conftest or test module defines"


def test_budget_a_renamed_test_or_a_bad_value_is_reported():
    b = Budgets(test=1, slow=2, fixture=3, total=None,
                tests={"property_tests/framework/test_budget.py::test_budget_no_such_test": 5,
                       "property_tests/no_such_file.py": 5,
                       "property_tests/framework/test_budget.py::test_budget_file_parses_and_every_entry_names_a_"
                       "test_that_exists[case]": 5})
    assert [s.split(":")[0] for s in budget.stale_entries(b, ROOT)] == [
        "property_tests/framework/test_budget.py", "property_tests/no_such_file.py"]
    with pytest.raises(ValueError, match="defaults.test = -1"):
        parse_budgets("[defaults]\ntest = -1\nslow = 1\nfixture = 1\n")
    with pytest.raises(ValueError, match=r"needs \['fixture'\]"):
        parse_budgets("[defaults]\ntest = 1\nslow = 1\n")
    with pytest.raises(ValueError, match="unknown table"):
        parse_budgets("[defaults]\ntest = 1\nslow = 1\nfixture = 1\n[test]\n")


def test_budget_lookup_goes_from_the_test_id_to_its_function_to_its_file():
    b = Budgets(test=1, slow=2, fixture=3, total=None,
                tests={f"{_T}p[1]": 10, f"{_T}p": 20, "property_tests/x/test_a.py": 30})
    assert b.for_test(f"{_T}p[1]", False) == 10
    assert b.for_test(f"{_T}p[2]", False) == 20
    assert b.for_test(f"{_T}q", True) == 30
    assert b.for_test("property_tests/x/test_b.py::test_q", True) == 2
    assert b.for_test("property_tests/x/test_b.py::test_q", False) == 1


def test_budget_a_shared_fixture_is_counted_once_under_its_own_name():
    """The first test to use a session fixture pays for it in its setup: the account moves those seconds to the
    fixture (a fixture set up inside another is taken out once, with the outer one), the second test pays nothing."""
    a = Account()
    ledger = ("fixture_seconds", ("quick_ledger_file", 50.0, 50.0, True))  # set up inside quick_ledger_records
    records = ("fixture_seconds", ("quick_ledger_records", 1.0, 51.0, False))
    _ran(a, f"{_T}first", 51.5, 2.0, props=[ledger, records], marks=("slow",))
    _ran(a, f"{_T}second", 0.1, 2.0, marks=("slow",))
    assert a.tests == {f"{_T}first": pytest.approx(2.5), f"{_T}second": pytest.approx(2.1)}
    assert a.fixtures == {"quick_ledger_file": 50.0, "quick_ledger_records": 1.0}
    b = Budgets(test=1, slow=3, fixture=10, total=100, fixtures={"quick_ledger_file": 40})
    assert [w for *_, w in over_budget(a, b)] == ["fixture quick_ledger_file"]
    assert over_budget(a, b, factor=1.5) == []  # a loaded machine: each budget x 1.5


def test_budget_an_xdist_group_suffix_does_not_hide_a_test_from_its_budget():
    """Under ``--dist loadgroup`` a grouped test's id ends in ``@GROUP``: its budget is still its own entry."""
    a = Account()
    _ran(a, f"{_T}readme@readme", 0.1, 30.0, marks=("slow",))
    _ran(a, f"{_T}p[x@y]@quick-ledger", 0.1, 1.0)
    assert set(a.tests) == {f"{_T}readme", f"{_T}p[x@y]"}
    b = Budgets(test=2, slow=8, fixture=10, total=None, tests={f"{_T}readme": 40})
    assert over_budget(a, b) == []


def test_budget_summary_names_the_over_budget_and_the_unmarked_slow_tests():
    a = Account()
    _ran(a, f"{_T}fast", 0.1, 0.5)
    _ran(a, f"{_T}unmarked_slow", 0.1, 9.0)
    _ran(a, f"{_T}marked", 0.1, 9.0, marks=("slow",))
    _ran(a, f"{_T}book", 0.1, 30.0, marks=("book",))
    b = Budgets(test=2, slow=8, fixture=10, total=60, tests={f"{_T}book": 40})
    lines = summary_lines(a, b, factor=1.0, wall=70.0)
    assert lines[0].startswith("seconds spent (all workers): book 30 s (1 tests), unmarked 10 s (2 tests), slow 9 s")
    assert lines[1] == "wall time 70 s: OVER the session's budget 60 s"
    assert lines[2].startswith("2 over their budget")
    assert [ln.split()[-1] for ln in lines[3:5]] == [f"{_T}unmarked_slow", f"{_T}marked"]  # worst overrun first
    assert lines[5].startswith("1 unmarked tests (run by plain pytest) over 2.0 s") and lines[6].endswith(
        f"{_T}unmarked_slow")
    assert summary_lines(a, b, factor=5.0, wall=70.0)[1:3] == [
        "wall time 70 s: within the session's budget 300 s",
        "no test or fixture over its budget x 5.0 (load factor) (property_tests/budgets.toml)"]


def test_budget_load_factor():
    assert load_factor((4.0, 1, 1), 2) == 2.0
    assert load_factor((1.0, 1, 1), 2) == 1.0
    assert load_factor(None, 2) == 1.0 and load_factor((4.0, 1, 1), None) == 1.0


def test_budget_the_fixture_hook_times_shared_fixtures_only_and_excludes_the_inner_ones():
    """The hook (a hookwrapper) on stand-in fixture definitions: an inner session fixture set up inside an outer one
    is marked nested and its seconds are not the outer one's own; a function fixture is not recorded."""
    item = SimpleNamespace(user_properties=[])
    req = SimpleNamespace(_pyfuncitem=item)

    def run(name, scope, inner=None):
        gen = budget.pytest_fixture_setup(SimpleNamespace(argname=name, scope=scope), req)
        next(gen)
        if inner:
            inner()
        with pytest.raises(StopIteration):
            gen.send(None)

    run("outer", "session", inner=lambda: run("inner", "module", inner=lambda: run("f", "function")))
    (k1, (n1, own1, total1, nested1)), (k2, (n2, own2, total2, nested2)) = item.user_properties
    assert (k1, n1, nested1, k2, n2, nested2) == ("fixture_seconds", "inner", True, "fixture_seconds", "outer", False)
    assert own2 == pytest.approx(total2 - total1) and own1 == total1 <= total2
