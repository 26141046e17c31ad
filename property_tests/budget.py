"""The tests' time budget: what each test may cost, and who went over (printed at the end of ``make test``, never
failing a run: a timed test would be flaky on a loaded machine).

``property_tests/budgets.toml`` gives seconds on a quiet 2-core machine: a default for an ordinary test, one for a
test marked ``slow``, ``book`` or ``browser``, one for a session or module fixture, and named exceptions (a test id,
a test function without its parameters, or a test file). A test's cost is its setup + call + teardown minus the
session and module fixtures it happened to set up first: those are counted once, under their own name
(``fixture NAME``), so a fixture's cost does not land on whichever test the scheduler ran first.

At the end of the session the controller prints the tests and fixtures over budget, each budget multiplied by the
load factor (the 1-minute load average at the start over the CPU count, at least 1), the unmarked tests over the
ordinary budget (mark them ``slow`` or give them a budget with a reason), and the seconds spent per marker.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import tomllib

BUDGET_FILE = Path(__file__).with_name("budgets.toml")
#: the markers whose tests plain ``pytest`` deselects (pyproject.toml's addopts) and ``make test`` selects
EXPENSIVE_MARKERS = ("slow", "book", "browser")
#: fixture scopes counted under their own name (a function fixture is part of its test)
SHARED_SCOPES = ("session", "package", "module", "class")
#: how many over-budget lines are printed (the rest are counted)
SHOWN = 25
#: the ``@GROUP`` pytest-xdist's ``--dist loadgroup`` appends to the id of a test in an ``xdist_group``
_GROUP_SUFFIX = re.compile(r"@[^@\[\]/:]+$")


def test_id(nodeid: str) -> str:
    """The test's id as pytest names it when no xdist group is in play (``a.py::t@readme`` -> ``a.py::t``)."""
    return _GROUP_SUFFIX.sub("", nodeid)


@dataclass(frozen=True)
class Budgets:
    test: float
    slow: float
    fixture: float
    total: float | None
    tests: dict[str, float] = field(default_factory=dict)
    fixtures: dict[str, float] = field(default_factory=dict)

    def for_test(self, nodeid: str, expensive: bool) -> float:
        """A test id's budget: its own entry, else its function's (the id without ``[params]``), else its file's,
        else the default for its kind."""
        base = nodeid.split("[", 1)[0]
        for key in (nodeid, base, base.split("::", 1)[0]):
            if key in self.tests:
                return self.tests[key]
        return self.slow if expensive else self.test

    def for_fixture(self, name: str) -> float:
        return self.fixtures.get(name, self.fixture)


def _seconds(value, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValueError(f"{BUDGET_FILE.name}: {where} = {value!r} is not a positive number of seconds")
    return float(value)


def parse_budgets(text: str) -> Budgets:
    """The budgets of a ``budgets.toml`` text; a ValueError names a bad entry."""
    data = tomllib.loads(text)
    unknown = set(data) - {"defaults", "tests", "fixtures"}
    if unknown:
        raise ValueError(f"{BUDGET_FILE.name}: unknown table(s) {sorted(unknown)} (defaults, tests, fixtures)")
    d = data.get("defaults", {})
    missing = {"test", "slow", "fixture"} - set(d)
    if missing:
        raise ValueError(f"{BUDGET_FILE.name}: [defaults] needs {sorted(missing)}")
    return Budgets(test=_seconds(d["test"], "defaults.test"), slow=_seconds(d["slow"], "defaults.slow"),
                   fixture=_seconds(d["fixture"], "defaults.fixture"),
                   total=_seconds(d["total"], "defaults.total") if "total" in d else None,
                   tests={k: _seconds(v, k) for k, v in data.get("tests", {}).items()},
                   fixtures={k: _seconds(v, k) for k, v in data.get("fixtures", {}).items()})


def load_budgets(path: Path = BUDGET_FILE) -> Budgets:
    return parse_budgets(path.read_text())


def stale_entries(budgets: Budgets, root: Path) -> list[str]:
    """Entries naming no test file, or a test function its file does not define (a renamed test keeps no budget)."""
    out = []
    for key in budgets.tests:
        path, _, func = key.split("[", 1)[0].partition("::")
        file = root / path
        if not file.is_file():
            out.append(f"{key}: no file {path}")
        elif func and not re.search(rf"^\s*(async\s+)?def {re.escape(func.split('::')[-1])}\(", file.read_text(),
                                    re.M):
            out.append(f"{key}: {path} defines no {func}")
    return out


# ------------------------------------------------------------------------------ measuring (in each worker)

#: start times of the shared fixtures being set up, innermost last, with the seconds of fixtures set up inside them
_STACK: list[list[float]] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    """Times each session/module/class fixture's own setup (fixtures it sets up inside itself excluded) and puts it
    on the test that triggered it, as a user property the report carries to the controller under pytest-xdist."""
    if fixturedef.scope not in SHARED_SCOPES:
        yield
        return
    _STACK.append([time.perf_counter(), 0.0])
    try:
        yield
    finally:
        start, inner = _STACK.pop()
        took = time.perf_counter() - start
        if _STACK:
            _STACK[-1][1] += took
        item = getattr(request, "_pyfuncitem", None)
        if item is not None:
            item.user_properties.append(("fixture_seconds", (fixturedef.argname, took - inner, took, bool(_STACK))))


# ------------------------------------------------------------------------------ the account (in the controller)

@dataclass
class Account:
    """What the session spent: per test its seconds (shared fixtures taken out) and whether it is marked expensive,
    per shared fixture its seconds (a fixture set up in several workers counts each time)."""
    tests: dict[str, float] = field(default_factory=dict)
    expensive: dict[str, tuple[str, ...]] = field(default_factory=dict)
    fixtures: dict[str, float] = field(default_factory=dict)

    def add(self, report) -> None:
        """One phase's report: its seconds go to the test; the teardown report, which carries every fixture entry
        the test's setup and call made, moves each shared fixture's seconds from the test to the fixture."""
        if report.when not in ("setup", "call", "teardown"):
            return
        nodeid = test_id(report.nodeid)
        spent = self.tests.get(nodeid, 0.0) + report.duration
        if report.when == "teardown":
            for key, value in report.user_properties:
                if key == "fixture_seconds":
                    name, own, total, nested = value
                    self.fixtures[name] = self.fixtures.get(name, 0.0) + own
                    if not nested:  # a fixture set up inside another is in that one's total already
                        spent -= total
        self.tests[nodeid] = max(spent, 0.0)
        self.expensive[nodeid] = tuple(m for m in EXPENSIVE_MARKERS if m in getattr(report, "keywords", {}))


def over_budget(account: Account, budgets: Budgets, factor: float = 1.0) -> list[tuple[float, float, str]]:
    """(seconds, budget x factor, what) for every test and fixture over its budget, the worst overrun first."""
    out = []
    for nodeid, spent in account.tests.items():
        b = budgets.for_test(nodeid, bool(account.expensive.get(nodeid))) * factor
        if spent > b:
            out.append((spent, b, nodeid))
    for name, spent in account.fixtures.items():
        b = budgets.for_fixture(name) * factor
        if spent > b:
            out.append((spent, b, f"fixture {name}"))
    return sorted(out, key=lambda r: r[0] / r[1], reverse=True)


def unmarked_over(account: Account, budgets: Budgets, factor: float = 1.0) -> list[tuple[float, str]]:
    """Tests without an expensive marker and without a budget of their own that took more than the ordinary budget:
    plain ``pytest`` (the inner loop) runs them."""
    return sorted(((s, n) for n, s in account.tests.items()
                   if not account.expensive.get(n) and s > budgets.test * factor
                   and budgets.for_test(n, False) == budgets.test), reverse=True)


def load_factor(load: tuple[float, float, float] | None, cpus: int | None) -> float:
    """How much slower than quiet a run may be: the 1-minute load average over the CPU count, at least 1."""
    if not load or not cpus:
        return 1.0
    return max(1.0, load[0] / cpus)


def summary_lines(account: Account, budgets: Budgets, factor: float, wall: float | None) -> list[str]:
    """The block ``make test`` prints: seconds per kind of test, the session against its total, then who is over."""
    lines = []
    kinds: dict[str, list[float]] = {}
    for nodeid, spent in account.tests.items():
        kind = "+".join(account.expensive.get(nodeid) or ()) or "unmarked"
        kinds.setdefault(kind, []).append(spent)
    fixtures = sum(account.fixtures.values())
    lines.append("seconds spent (all workers): " + ", ".join(
        f"{kind} {sum(v):.0f} s ({len(v)} tests)" for kind, v in sorted(kinds.items(), key=lambda kv: -sum(kv[1])))
        + f", shared fixtures {fixtures:.0f} s")
    if wall is not None and budgets.total is not None:
        verdict = "within" if wall <= budgets.total * factor else "OVER"
        lines.append(f"wall time {wall:.0f} s: {verdict} the session's budget {budgets.total * factor:.0f} s")
    over = over_budget(account, budgets, factor)
    head = f"budget x {factor:.1f} (load factor)" if factor > 1 else "budget"
    lines.append(f"{len(over)} over their {head} (property_tests/budgets.toml; seconds taken / budget):"
                 if over else f"no test or fixture over its {head} (property_tests/budgets.toml)")
    lines += [f"  {s:7.1f} / {b:5.1f}  {what}" for s, b, what in over[:SHOWN]]
    if len(over) > SHOWN:
        lines.append(f"  ... and {len(over) - SHOWN} more")
    loose = unmarked_over(account, budgets, factor)
    if loose:
        lines.append(f"{len(loose)} unmarked tests (run by plain pytest) over {budgets.test * factor:.1f} s: mark "
                     "them slow, make them faster, or give each a budget and its reason in budgets.toml:")
        lines += [f"  {s:7.1f}  {n}" for s, n in loose[:SHOWN]]
    return lines
