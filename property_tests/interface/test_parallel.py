"""Scaling out: a shared example database from the environment, premise counts under pytest-xdist."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # subprocesses / the whole ledger: make test runs it

ROOT = Path(__file__).resolve().parents[2]


def _pytest(args, env_extra, tmp_path):
    env = {**os.environ, **env_extra}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_parallel_shared_database_from_environment(tmp_path):
    probe = tmp_path / "test_probe.py"
    probe.write_text("from hypothesis import settings\n"
                     "def test_probe():\n    print('DB=' + str(settings.default.database))\n")
    r = _pytest(["-s", "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"),
                 "--confcutdir", str(ROOT / "property_tests"), "-p", "property_tests.conftest", str(probe)],
                {"HYPOTHESIS_DB_DIR": str(tmp_path / "db"), "HYPOTHESIS_PROFILE": "dev"}, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"DirectoryBasedExampleDatabase(PosixPath('{tmp_path / 'db'}'))" in r.stdout


def test_parallel_ci_profile_is_derandomized_and_ignores_the_database(tmp_path):
    """`make test` must never fail by chance: the ci profile draws the same examples every run."""
    probe = tmp_path / "test_probe.py"
    probe.write_text("from hypothesis import settings\n"
                     "def test_probe():\n    print('DERANDOMIZE=' + str(settings.default.derandomize),"
                     " 'DB=' + str(settings.default.database))\n")
    r = _pytest(["-s", "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"),
                 "--confcutdir", str(ROOT / "property_tests"), "-p", "property_tests.conftest", str(probe)],
                {"HYPOTHESIS_DB_DIR": str(tmp_path / "db"), "HYPOTHESIS_PROFILE": "ci"}, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "DERANDOMIZE=True DB=None" in r.stdout


#: one `pytest -n 2 --dist loadgroup` run serves the two tests below (each run starts a controller and two workers:
#: about 6 s of CPU; until 2026-12 each test started its own, and the counts test ran the real rank-neutrality guard,
#: which imports the suite in both workers: 9 s). Their own group keeps both tests, and so this module's fixture, on one
#: worker of the outer run.
_PROBE_GROUP = pytest.mark.xdist_group("parallel-probe")


@pytest.fixture(scope="module")
def xdist_probe_run(tmp_path_factory):
    """A probe module run on two xdist workers: six tests of one ``xdist_group`` that append their worker's id to a
    log, and a vacuity guard drawn as the suite's are (derandomized ``@given`` inside the test, counting into the
    ``counts`` fixture). Returns (the finished process, the worker ids the grouped tests logged)."""
    tmp_path = tmp_path_factory.mktemp("xdist-probe")
    probe = tmp_path / "test_probe.py"
    log = tmp_path / "workers.txt"
    body = f"    open({str(log)!r}, 'a').write(os.environ['PYTEST_XDIST_WORKER'] + '\\n')\n"
    probe.write_text("import os\nimport pytest\nfrom hypothesis import given, settings, strategies as st\n"
                     + "".join(f"@pytest.mark.xdist_group('probe')\ndef test_{k}():\n{body}" for k in range(6))
                     + "def test_probe_is_not_vacuous(counts):\n"
                       "    @settings(derandomize=True, database=None)\n"
                       "    @given(st.integers(0, 10 ** 6))\n"
                       "    def prop(x):\n"
                       "        counts['drawn'] += 1\n"
                       "        if x % 2:\n"
                       "            counts['met H1-H4'] += 1\n"
                       "    prop()\n")
    r = _pytest(["-n", "2", "--dist", "loadgroup", "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"),
                 "--confcutdir", str(ROOT / "property_tests"), "-p", "property_tests.conftest", str(probe)],
                {"HYPOTHESIS_PROFILE": "dev"}, tmp_path)
    return r, (log.read_text().split() if log.exists() else [])


@_PROBE_GROUP
def test_parallel_premise_counts_reach_the_controller(xdist_probe_run):
    """The counts a test's draws add to the ``counts`` fixture travel from an xdist worker to the controller, which
    prints them: every draw of the profile counted once (dev: 25), the premise's count beside it."""
    r, _ = xdist_probe_run
    assert r.returncode == 0, r.stdout + r.stderr
    assert "gw0: " in r.stdout and "gw1: " in r.stdout, r.stdout  # two workers ran: the counts crossed from one
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("test_probe_is_not_vacuous"))
    assert "drawn=25" in line and "met H1-H4=" in line


@_PROBE_GROUP
def test_parallel_loadgroup_keeps_a_group_on_one_worker(xdist_probe_run):
    """`make test` runs `pytest -n 2 --dist loadgroup`: the tests of one xdist_group (the session's quick ledger
    and its readers, the book build among them) share one worker and so one session fixture (pytest 9.2 with
    pytest-xdist 3.8 split them)."""
    r, workers = xdist_probe_run
    assert r.returncode == 0, r.stdout + r.stderr
    assert len(workers) == 6 and len(set(workers)) == 1, workers
