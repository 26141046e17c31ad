"""Bounded from-scratch searches shared by the theorem test modules."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings

#: a from-scratch search may use this many times the profile's max_examples
SEARCH_BUDGET_FACTOR = 4


class _Found(Exception):
    pass


def find_from_scratch(strategy, condition):
    """Search from scratch (no example database) within the active profile's budget.

    Generation only: the first hit is returned unshrunk (``hypothesis.find``
    would shrink it, which costs more than the search). Fails the test when
    the budget is spent without a hit.
    """
    found = []

    @settings(max_examples=SEARCH_BUDGET_FACTOR * settings().max_examples, database=None, deadline=None,
              derandomize=True,  # a search that succeeds must succeed every run: never a flaky test
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(strategy)
    def search(x):
        if condition(x):
            found.append(x)
            raise _Found

    try:
        search()
    except _Found:
        return found[0]
    pytest.fail(f"no instance found within {SEARCH_BUDGET_FACTOR} x {settings().max_examples} examples")
