"""Every entry point under attack: exit 0 or 2, never a traceback, never a hang, never a write
outside the output path, never code from a name.

The in-process fuzz drives ``main(argv)`` for every subcommand with Hypothesis-drawn argument
lists that mix valid values with hostile ones (huge literals, deep nesting, every dtype as
``.npy``, directories, truncated files, bad output paths, limits and one past them, names that
try to become code). ``verify`` and ``real-model`` are only driven up to argument validation
(each draw carries at least one invalid argument): a full run takes 30 s. The subprocess part
(marked ``slow``) runs the real console script, interpreter start included.
"""
from __future__ import annotations

import ast
import contextlib
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import theorems
from proofs_numeric.cli import main
from proofs_numeric.cli.common import report_import_errors
from property_tests.documents import document
from property_tests.strategies import (
    check_argv,
    depth_argv,
    rank_argv,
    real_model_argv,
    scaffold_names,
    show_argv,
    verify_argv,
)

#: a call that takes longer than this is a hang (speed limits belong in `make bench`); generous, because a
#: 2-core machine running other jobs beside the tests can be several times slower than a quiet one
_HANG_S = 120
#: refusals must come within this wall time, interpreter start included: about 1 s on a quiet machine (3.5 s for
#: `depth --layers 70`, which runs the float64 trajectory before refusing), so 30 s catches a refusal that computes
#: or hangs without failing on a loaded 2-core machine
_REFUSAL_S = 30.0

_FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                       HealthCheck.function_scoped_fixture])


class _Hang(Exception):
    pass


@contextlib.contextmanager
def _guard(seconds=_HANG_S):
    def boom(*_):
        raise _Hang(f"no answer within {seconds} s")
    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _snapshot(root: Path) -> dict:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in root.rglob("*") if p.is_file()}


def run_main(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with _guard(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _assert_clean(argv, code, out, err):
    assert code in (0, 2), (argv, code, err[-2000:])
    assert "Traceback" not in out + err, (argv, err[-2000:])
    if code == 2:
        assert "error" in (out + err).lower() or "usage" in err.lower(), (argv, err)


# ------------------------------------------------------------------------------------- hostile files

@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Hostile and benign input files, made once; the fuzz checks nothing else in the folder changes."""
    d = tmp_path_factory.mktemp("hostile")
    arrays = {
        "f64": np.random.default_rng(0).normal(size=(3, 4)),
        "f32": np.array([[0.1, 0.2], [0.2, 0.4]], dtype=np.float32),
        "f16": np.array([[65504, 1], [1, 1]], dtype=np.float16),
        "ld": np.array([[1, 1 + np.longdouble(2) ** -60], [1, 1]], dtype=np.longdouble),
        "ldtiny": np.array([[np.longdouble("1e-4000"), 0], [0, 1]]),
        "u64": np.array([[2 ** 62 + 1, 2 ** 62 + 3], [2 ** 63 + 2, 2 ** 63 + 6]], dtype=np.uint64),
        "i8": np.array([[-128, 127], [127, -128]], dtype=np.int8),
        "bool": np.array([[True, False], [False, True]]),
        "be": np.array([[1.5, 2.0], [3.0, 4.0]], dtype=">f8"),
        "nan": np.array([[1.0, np.nan], [0.0, 1.0]]),
        "inf": np.array([[1.0, np.inf], [0.0, 1.0]]),
        "cplx": np.array([[1 + 1j, 0], [0, 1]]),
        "struct": np.zeros((2, 2), dtype=[("a", "f8")]),
        "empty": np.zeros((0, 3)),
        "vec3": np.array([1.0, 2.0, 3.0]),
        "cube": np.zeros((2, 2, 2)),
        "constrow": np.array([[1.0, 2.0, 3.0], [5.0, 5.0, 5.0]]),
        "big": np.zeros((1100, 1000), dtype=np.int8),  # above CHECK_MAX_ENTRIES, fine for rank
    }
    for k, a in arrays.items():
        np.save(d / f"{k}.npy", a)
    rng = np.random.default_rng(1)
    np.savez(d / "w_ok.npz", **{k: rng.normal(size=s) for k, s in (("W_Q", (2, 4, 2)), ("W_K", (2, 4, 2)),
                                                                    ("W_V", (2, 4, 2)), ("W_O", (2, 2, 4)))})
    np.savez(d / "w_uniform.npz", W_Q=np.zeros((1, 3, 3)), W_K=np.zeros((1, 3, 3)), W_V=np.eye(3)[None],
             W_O=2 * np.eye(3)[None])
    np.savez(d / "w_bad.npz", W_Q=np.full((1, 3, 3), np.nan), W_K=np.zeros((1, 3, 3)), W_V=np.zeros((1, 3, 3)),
             W_O=np.zeros((1, 3, 2)))
    np.save(d / "obj.npy", np.array([[1, 2]], dtype=object), allow_pickle=True)
    (d / "trunc.npy").write_bytes((d / "f64.npy").read_bytes()[:90])
    (d / "text.npy").write_text("not numpy at all")
    (d / "dir.npy").mkdir()
    (d / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (d / "ok.json").write_text("[[1, 2], [3, 4]]")
    (d / "bin.json").write_bytes(b"\xff\xfe\x00garbage")
    os.mkfifo(d / "fifo.npy")  # reading it would block forever
    return d


def _make_root(root: Path) -> Path:
    for sub in ("theorems", "property_tests", "book/chapters"):
        (root / sub).mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (root / "book" / "_toc.yml").write_text("format: jb-book\nroot: intro\nparts:\n")
    return root


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A throw-away folder for `new --root` (never the real project): a sentinel file next to
    the roots, and a fresh root per example under roots/."""
    base = tmp_path_factory.mktemp("proj")
    (base / "sentinel.txt").write_text("outside the root")
    (base / "roots").mkdir()
    return base, _make_root(base / "root")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("cwd")


def _fuzz(argv, watched: Path, allowed: set[str] = frozenset()):
    before = _snapshot(watched)
    cwd = os.getcwd()
    os.chdir(watched)
    try:
        code, out, err = run_main(argv)
    finally:
        os.chdir(cwd)
    _assert_clean(argv, code, out, err)
    after = _snapshot(watched)
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert changed <= set(allowed), (argv, changed)
    return code, out, err


@settings(_FUZZ)
@given(data=st.data())
def test_hostile_input_check(files, workdir, data):
    _fuzz(data.draw(check_argv(files=files)), workdir, allowed={"saved.json"})
    assert _snapshot(files).keys() >= {"ok.json"}


def test_hostile_input_check_counterexample_1_interval_det_is_an_int(workdir):
    """Found by the check fuzz (--hypothesis-seed 2026): a 1 x 1 minor whose determinant mpmath returned
    as a plain int made `0 in det` raise TypeError (exit 1); certify.py now takes it as an interval."""
    _fuzz(["check", "residual-obstruction", "--X", "[[0,2400000000000117]]", "--heads", "1", "--dps", "30"], workdir)


@settings(_FUZZ, max_examples=min(_FUZZ.max_examples, 40))
@given(data=st.data())
def test_hostile_input_show(workdir, data):
    """`show` with hostile claim ids: the record, or exit 2 naming close matches; never a traceback or a write."""
    _fuzz(data.draw(show_argv()), workdir)


@settings(_FUZZ)
@given(data=st.data())
def test_hostile_input_rank(files, workdir, data):
    _fuzz(data.draw(rank_argv(files=files)), workdir)


@settings(_FUZZ)
@given(data=st.data())
def test_hostile_input_depth(workdir, data):
    _fuzz(data.draw(depth_argv(outdir=workdir)), workdir, allowed={"out.json", "[/b]out.json"})


@settings(_FUZZ)
@given(data=st.data())
def test_hostile_input_verify_refused_before_computing(workdir, data):
    argv = data.draw(verify_argv(outdir=workdir))
    t0 = time.perf_counter()
    code, _, err = _fuzz(argv, workdir)
    assert code == 2 and time.perf_counter() - t0 < _REFUSAL_S, (argv, err)


@settings(_FUZZ)
@given(data=st.data())
def test_hostile_input_real_model_refused_before_computing(workdir, data):
    argv = data.draw(real_model_argv(outdir=workdir))
    code, _, err = _fuzz(argv, workdir)
    assert code == 2, (argv, err)


def _outside(base: Path) -> dict:
    return {k: v for k, v in _snapshot(base).items() if not k.startswith("roots" + os.sep)}


@settings(_FUZZ)
@given(name=scaffold_names(), twice=st.booleans())
def test_hostile_input_new_never_writes_code_from_a_name(project, name, twice):
    base, _ = project
    root = _make_root(Path(tempfile.mkdtemp(dir=base / "roots")))
    outside = _outside(base)
    fresh = _snapshot(root)
    runs = [["new", name, "--root", str(root)]] + ([["new", name, "--root", str(root), "--force"]] if twice else [])
    for argv in runs:
        code, out, err = run_main(argv)
        _assert_clean(argv, code, out, err)
    assert _outside(base) == outside and (base / "sentinel.txt").read_text() == "outside the root"
    after = _snapshot(root)
    changed = {k for k in set(fresh) | set(after) if fresh.get(k) != after.get(k)}
    for k in changed:
        if k.endswith(".py"):
            src = (root / k).read_text(encoding="utf-8")
            tree = ast.parse(src)  # compiles
            if k.startswith("theorems" + os.sep):
                title = [n.value for n in tree.body if isinstance(n, ast.Assign)
                         and getattr(n.targets[0], "id", None) == "TITLE"]
                assert len(title) == 1 and isinstance(title[0], ast.Constant)
                assert title[0].value == " ".join(name.split())  # the name is data, not code
                calls = {ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
                # only the template's own calls: a name never adds code
                assert calls <= {"conjecture", "Matrix", "Rational", "draw", "all", "len", "set", "X.row",
                                 "range", "any", "max", "rank", "InstanceForm", "user.matrix('X').sympy",
                                 "user.matrix"}, calls
    shutil.rmtree(root)


def test_hostile_input_new_force_never_overwrites_foreign_files(project):
    base, root = project
    (root / "theorems" / "conjectures").mkdir(exist_ok=True)
    (root / "theorems" / "conjectures" / "mine.py").write_text("# hand-written\n")
    code, _, err = run_main(["new", "mine", "--root", str(root), "--force"])
    assert code == 2 and "not generated by" in err
    assert (root / "theorems" / "conjectures" / "mine.py").read_text() == "# hand-written\n"


def test_hostile_input_new_refuses_symlinks_out_of_the_root(tmp_path):
    root = tmp_path / "root"
    (root / "theorems").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "property_tests").symlink_to(outside, target_is_directory=True)
    code, _, err = run_main(["new", "sneaky", "--root", str(root)])
    assert code == 2 and ("outside the project root" in err or "symbolic link" in err), err
    assert list(outside.rglob("*")) == []  # nothing written through the link
    assert list(outside.iterdir()) == []
    assert not (root / "theorems" / "conjectures" / "sneaky.py").exists()  # nothing half-written


def test_hostile_input_failed_module_is_reported_by_verify(monkeypatch, capsys):
    monkeypatch.setattr(theorems, "IMPORT_ERRORS",
                        {"theorems/conjectures/broken_user_idea.py": "NameError: name 'x' is not defined"})
    assert report_import_errors() is True
    assert "theorems/conjectures/broken_user_idea.py failed to import" in capsys.readouterr().err


# ------------------------------------------------------------------------------------- subprocesses

def _cli(*argv, cwd=None, env=None, timeout=_HANG_S):
    exe = Path(sys.executable).with_name("collapse-verify")
    cmd = [str(exe), *argv] if exe.exists() else [sys.executable, "-m", "proofs_numeric", *argv]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd,
                       env={**os.environ, **(env or {})})
    return p.returncode, p.stdout, p.stderr, time.perf_counter() - t0


@pytest.mark.slow
@pytest.mark.parametrize("argv", [
    ["check", "rank-neutrality", "--X", "[[1e1000000, 0, 1], [0, 1, 2]]"],
    ["check", "rank-neutrality", "--X", "[[" + "7" * 20_000 + ", 1], [1, 1]]"],
    ["check", "rank-neutrality", "--X", "[[1, 2, 3], [0, 1, 5]]", "--gamma", ""],
    ["check", "rank-neutrality", "--X", "[[1, 2, 3], [0, 1, 5]]", "--beta", ""],
    ["rank", "[" * 60_000 + "]" * 60_000],  # one argv string is capped at 128 KiB; the file case is below
    ["verify", "--dps", "100000"],
    ["verify", "--json", "/dev/full"],
    ["verify", "--json", "/nonexistent-dir/ledger.json"],
    ["depth", "--layers", "70"],
    ["depth", "--seed", "-1"],
    ["depth", "--d", "1", "--d-k", "1", "--heads", "1"],
    ["depth", "--dps", "1000000"],
    ["real-model", "--json", "/nonexistent-dir/x.json"],
    ["real-model", "--text", ""],
    ["new", "x' + str(__import__('os')) + '", "--root", "/nonexistent-dir"],
])
def test_hostile_input_refused_fast_in_a_real_process(argv, tmp_path):
    code, out, err, secs = _cli(*argv, cwd=tmp_path)
    assert code == 2, (argv, err[-1500:])
    assert "Traceback" not in out + err and "error" in err
    assert secs < _REFUSAL_S, (argv, secs)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_hostile_input_big_npy_refused_by_check_but_ranked(tmp_path):
    p = tmp_path / "big.npy"
    np.save(p, np.zeros((3000, 3000), dtype=np.int8))
    code, _, err, secs = _cli("check", "rank-neutrality", "--X", str(p), cwd=tmp_path)
    assert code == 2 and "above the limit" in err and secs < _REFUSAL_S
    code, out, _, _ = _cli("rank", str(p), "--json", cwd=tmp_path)
    assert code == 0 and document(out, "rank")["upper"] == 0
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    code, _, err, secs = _cli("rank", str(deep), cwd=tmp_path)
    assert code == 2 and "nested too deeply" in err and secs < _REFUSAL_S


@pytest.mark.slow
def test_hostile_input_broken_user_module_does_not_break_other_commands(tmp_path):
    """A copy of the packages with a broken conjecture module: rank and --version still work,
    verify names the module and exits 1."""
    repo = Path(__file__).resolve().parents[2]
    for pkg in ("theorems", "proofs_numeric"):
        shutil.copytree(repo / pkg, tmp_path / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "theorems" / "conjectures" / "broken_idea.py").write_text("raise RuntimeError('user typo')\n")
    env = {"PYTHONPATH": str(tmp_path)}
    run = lambda *a: subprocess.run([sys.executable, "-m", "proofs_numeric", *a], capture_output=True, text=True,
                                    timeout=_HANG_S, cwd=tmp_path, env={**os.environ, **env})
    p = run("--version")
    assert p.returncode == 0 and "broken_idea" in p.stderr and "Traceback" not in p.stderr
    p = run("rank", "[[1, 2], [2, 4]]")
    assert p.returncode == 0 and "rank = 1" in p.stdout
    p = run("verify", "--claims", "DC.ffn*", "--quick")
    assert p.returncode == 1 and "broken_idea.py failed to import" in p.stderr


@pytest.mark.slow
def test_hostile_input_new_in_a_real_process_writes_inert_code(tmp_path):
    root = tmp_path / "root"
    for sub in ("theorems", "property_tests", "book/chapters"):
        (root / sub).mkdir(parents=True)
    name = "x' + str(__import__('os').system('touch pwned')) + '"
    code, out, err, _ = _cli("new", name, "--root", str(root), cwd=tmp_path)
    assert code == 0, err
    mod = next((root / "theorems" / "conjectures").glob("*.py"))
    # import the generated module in a fresh interpreter: it must not run the payload
    p = subprocess.run([sys.executable, "-c", f"import runpy; g = runpy.run_path({str(mod)!r}); print(g['TITLE'])"],
                       capture_output=True, text=True, timeout=_HANG_S, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == name
    assert not (tmp_path / "pwned").exists()
