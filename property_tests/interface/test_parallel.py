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


def test_parallel_premise_counts_reach_the_controller(tmp_path):
    r = _pytest(["-n", "2", "property_tests/paper/test_rank_neutrality.py", "-k", "not_vacuous"],
                {"HYPOTHESIS_PROFILE": "dev"}, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    line = next(ln for ln in r.stdout.splitlines()
                if ln.startswith("test_rank_neutrality_corrected_statement_is_not_vacuous"))
    assert "drawn=25" in line and "met H1-H4=" in line


def test_parallel_loadgroup_keeps_a_group_on_one_worker(tmp_path):
    """`make test` runs `pytest -n 2 --dist loadgroup`: the tests of one xdist_group (the session's quick ledger
    and its readers, the book build among them) share one worker and so one session fixture (pytest 9.2 with
    pytest-xdist 3.8 split them)."""
    probe = tmp_path / "test_group_probe.py"
    log = tmp_path / "workers.txt"
    body = f"    open({str(log)!r}, 'a').write(os.environ['PYTEST_XDIST_WORKER'] + '\\n')\n"
    probe.write_text("import os\nimport pytest\npytestmark = pytest.mark.xdist_group('probe')\n"
                     + "".join(f"def test_{k}():\n{body}" for k in range(6)))
    r = _pytest(["-n", "2", "--dist", "loadgroup", "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"),
                 "--confcutdir", str(ROOT / "property_tests"), "-p", "property_tests.conftest", str(probe)],
                {"HYPOTHESIS_PROFILE": "dev"}, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    workers = log.read_text().split()
    assert len(workers) == 6 and len(set(workers)) == 1, workers
