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
import json
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

from proofs_numeric.cli import main

#: a call that takes longer than this is a hang (speed limits belong in `make bench`)
_HANG_S = 30
#: refusals must come within this wall time, interpreter start included (the issue's bound)
_REFUSAL_S = 5.0

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
    np.save(d / "obj.npy", np.array([[1, 2]], dtype=object), allow_pickle=True)
    (d / "trunc.npy").write_bytes((d / "f64.npy").read_bytes()[:90])
    (d / "text.npy").write_text("not numpy at all")
    (d / "dir.npy").mkdir()
    (d / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (d / "ok.json").write_text("[[1, 2], [3, 4]]")
    (d / "bin.json").write_bytes(b"\xff\xfe\x00garbage")
    os.mkfifo(d / "fifo.npy")  # reading it would block forever
    return d


def _hostile_matrix_texts():
    return st.sampled_from([
        "[[0,2,-2],[1,1,-2],[2,0,-2]]", "[[1, 2], [2, 4]]", '[["1/2", "0.25", 3], [1, 0, -1]]',
        "[[0.1, 0.3], [0.3, 0.9]]", "[[1e1000000, 1], [1, 1]]", "[[1e-1000000, 1], [1, 2]]",
        "[[1e4000, 0, 1], [0, 1, 2]]", "[[1E+999999999999, 1]]", "[[" + "9" * 12_000 + ", 1], [1, 2]]",
        "[[" + "9" * 5_000 + ", 1], [1, 2]]", '[["' + "1" * 20_000 + '/3", 1]]', "[[NaN, 1], [1, 1]]",
        "[[Infinity, 1], [1, 1]]", "[[1, 2], [3]]", "[]", "[[]]", "[[[1]]]", '{"a": 1}', "[[true, 1], [1, 0]]",
        "[[1, 2], [3, 4]", "[" * 5000 + "]" * 5000, "[[null, 1]]", '[["abc", 1]]', '[["1/0", 1]]', "", "   ",
        "[[1, 2, 3], [5, 5, 5]]", "nope", "nope.npy", "missing/dir/x.json", "/dev/null", "/", ".",
        "\x00", "[[1,2],[3,4]]\x00", "/dev/zero", "/dev/stdin", "/dev/urandom", "/proc/kmsg", "/proc/self/status", '[["0x10", 1]]', '[["1_000", 1]]', "[[-0.0, 0.0], [0, 1]]",
    ])


def _matrix_args(files):
    named = st.sampled_from(sorted(p.name for p in files.iterdir())).map(lambda n: str(files / n))
    return st.one_of(_hostile_matrix_texts(), named,
                     st.lists(st.lists(st.one_of(st.integers(-10 ** 30, 10 ** 30),
                                                 st.fractions(max_denominator=10 ** 6).map(str),
                                                 st.floats(allow_nan=False, allow_infinity=False)),
                                       min_size=2, max_size=2), min_size=1, max_size=3).map(json.dumps),
                     st.text(max_size=30))


@st.composite
def _out_paths(draw, outdir: Path):
    return draw(st.sampled_from([str(outdir / "out.json"), str(outdir / "[/b]out.json"),  # rich markup in a path
                                 str(outdir / "missing" / "out.json"), str(outdir),
                                 "/dev/full", "/proc/version", "", str(outdir / "out.json") + "\x00x"]))


# ------------------------------------------------------------------------------------- in-process fuzz

@st.composite
def check_argv(draw, files):
    theorem = draw(st.sampled_from(["rank-neutrality", "rank-neutrality", "residual-obstruction", "rank-contraction",
                                    "head-channel", "recovery-ambiguity", "nope", ""]))
    argv = ["check", theorem]
    if theorem in ("head-channel", "recovery-ambiguity") and draw(st.booleans()):
        argv += ["--W-O", draw(_matrix_args(files))]
    elif draw(st.integers(0, 9)):
        argv += ["--X", draw(_matrix_args(files))]
    for opt in ("--gamma", "--beta"):
        if draw(st.booleans()):
            argv += [opt, draw(st.sampled_from(["", "[1, 1, 1]", "[1, 2]", "[[1]]", "[1e1000000, 1, 1]",
                                                '["1/2", 0, 1]', str(files / "vec3.npy"), str(files / "cube.npy"),
                                                str(files / "dir.npy"), "[0, 0, 0]"]))]
    for opt, vals in (("--heads", ["1", "2", "3", "0", "-1", "x", "99999999999"]),
                      ("--n", ["1", "512", "0", "-5", "x"]),
                      ("--weights", [str(files / "ok.json"), str(files / "dir.npy"), str(files / "fifo.npy"),
                                     "missing.npz", "", "/dev/zero"]),
                      ("--norm", ["layernorm", "rmsnorm", "batchnorm", ""]),
                      ("--seed", ["0", "1", "-1", "x"]),
                      ("--dps", ["30", "50", "0", "-1", "x"])):
        if draw(st.integers(0, 3)) == 0:
            argv += [opt, draw(st.sampled_from(vals))]
    if draw(st.booleans()):
        argv += ["--max-entries", draw(st.sampled_from(["1", "4", "0", "-1", "x", "99999999999999999999"]))]
    if draw(st.booleans()):
        argv.append("--json")
    return argv


@st.composite
def show_argv(draw):
    claim = draw(st.one_of(st.sampled_from(["RN.matrix-rank", "RA.bert-figures", "RN.mian", "", "[/b]", "*",
                                            "RN.main\x00", "../../etc/passwd", "x" * 10_000]),
                           st.text(max_size=20)))
    argv = ["show", claim]
    if draw(st.booleans()):
        argv.append("--json")
    if draw(st.booleans()):
        argv += ["--dps", draw(st.sampled_from(["15", "30", "0", "-1", "x"]))]
    return argv


@st.composite
def rank_argv(draw, files):
    argv = ["rank", draw(_matrix_args(files))]
    if draw(st.booleans()):
        argv += ["--upper", draw(st.sampled_from(["0", "1", "2", "-1", "10**9", "1.5", "99999999999999999999"]))]
    if draw(st.booleans()):
        argv += ["--exact", draw(st.sampled_from(["auto", "always", "never", "sometimes", ""]))]
    if draw(st.booleans()):
        argv += ["--seed", draw(st.sampled_from(["0", "1", "-1", str(2 ** 63), str(2 ** 64), "x"]))]
    if draw(st.booleans()):
        argv += ["--rtol", draw(st.sampled_from(["1e-12", "0", "-1", "2", "nan", "inf", "x"]))]
    if draw(st.booleans()):
        argv += ["--max-entries", draw(st.sampled_from(["1", "100", "0", "x"]))]
    if draw(st.booleans()):
        argv.append("--json")
    return argv


@st.composite
def depth_argv(draw, outdir):
    small = {"--n": ["1", "2", "4", "0", "-3", "1000000", "x"], "--d": ["2", "3", "1", "0", "-1", "100000"],
             "--heads": ["1", "2", "0", "-1", "17", "1000"], "--d-k": ["1", "2", "0", "65", "-1"],
             "--layers": ["1", "2", "0", "-1", "70", "201", "1000000000"],
             "--dps": ["30", "40", "29", "0", "-5", "10001", "4400", "99999999999"],
             "--seed": ["0", "3", "-1", str(2 ** 63), str(2 ** 64), "1e3"],
             "--regime": ["pure_attention", "attention_skip", "full_block", "attention_mlp", "nope", ""]}
    argv = ["depth"]
    chosen = draw(st.dictionaries(st.sampled_from(sorted(small)), st.just(None), max_size=5))
    for k in chosen:
        argv += [k, draw(st.sampled_from(small[k]))]
    # a valid run must stay small: cheap defaults unless the draw set them
    if "--layers" not in chosen:
        argv += ["--layers", "2"]
    if "--dps" not in chosen:
        argv += ["--dps", "30"]
    if "--regime" not in chosen:
        argv += ["--regime", "pure_attention"]
    if draw(st.booleans()):
        argv += ["--json", draw(_out_paths(outdir))]
    return argv


@st.composite
def verify_argv(draw, outdir):
    """Always at least one invalid argument: verify never starts its 30 s computation here."""
    kind = draw(st.sampled_from(["dps", "json", "claims"]))
    argv = ["verify", "--quick"]
    if kind == "dps":
        argv += ["--dps", draw(st.sampled_from(["14", "0", "-1", "5001", "4400000", "99999999999"]))]
    elif kind == "json":
        argv += ["--json", draw(st.sampled_from([str(outdir / "missing" / "l.json"), str(outdir), "/dev/full",
                                                 "/proc/version", ""]))]
    else:
        argv += ["--claims", draw(st.sampled_from(["NOPE.*", "", "[", "\x00"]))]
    if draw(st.booleans()):
        argv.append("--store")  # --store with an invalid argument: refused before anything is written
    return argv


@st.composite
def real_model_argv(draw, outdir):
    """Always at least one invalid argument (the model run is 30 s)."""
    kind = draw(st.sampled_from(["empty", "many", "long", "json"]))
    if kind == "empty":
        return ["real-model", "--text", draw(st.sampled_from(["", "   ", "\n"]))]
    if kind == "many":
        return ["real-model"] + ["--text", "hi"] * draw(st.integers(17, 40))
    if kind == "long":
        return ["real-model", "--text", "a " * 60_000]
    return ["real-model", "--text", "hello", "--json", draw(st.sampled_from([str(outdir / "no" / "x.json"),
                                                                             str(outdir), "/dev/full", ""]))]


_NAMES = st.one_of(
    st.sampled_from(["x' + str(__import__('os')) + '", 'x" + str(__import__("os")) + "', '"""; import os; """',
                     "'''", "class", "def", "lambda", "import", "match", "_", "__init__", "claims",
                     "../../etc/passwd", "a/b", "..", ".", "", " ", "x" * 500, "Ünïcödé idea", "日本語", "ok name",
                     "two\nlines", "tab\there", "\u202eevil", "{slug}", "{title}", "}{", "$(rm -rf /)",
                     "`id`", "```{code-cell}\nimport os\n```", "1abc", "test_x", "ok name 2"]),
    st.text(max_size=60))


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
    _fuzz(data.draw(check_argv(files)), workdir)
    assert _snapshot(files).keys() >= {"ok.json"}


@settings(_FUZZ, max_examples=min(_FUZZ.max_examples, 40))
@given(data=st.data())
def test_hostile_input_show(workdir, data):
    """`show` with hostile claim ids: the record, or exit 2 naming close matches; never a traceback or a write."""
    _fuzz(data.draw(show_argv()), workdir)


@settings(_FUZZ)
@given(data=st.data())
def test_hostile_input_rank(files, workdir, data):
    _fuzz(data.draw(rank_argv(files)), workdir)


@settings(_FUZZ)
@given(data=st.data())
def test_hostile_input_depth(workdir, data):
    _fuzz(data.draw(depth_argv(workdir)), workdir, allowed={"out.json", "[/b]out.json"})


@settings(_FUZZ)
@given(data=st.data())
def test_hostile_input_verify_refused_before_computing(workdir, data):
    argv = data.draw(verify_argv(workdir))
    t0 = time.perf_counter()
    code, _, err = _fuzz(argv, workdir)
    assert code == 2 and time.perf_counter() - t0 < _REFUSAL_S, (argv, err)


@settings(_FUZZ)
@given(data=st.data())
def test_hostile_input_real_model_refused_before_computing(workdir, data):
    argv = data.draw(real_model_argv(workdir))
    code, _, err = _fuzz(argv, workdir)
    assert code == 2, (argv, err)


def _outside(base: Path) -> dict:
    return {k: v for k, v in _snapshot(base).items() if not k.startswith("roots" + os.sep)}


@settings(_FUZZ)
@given(name=_NAMES, twice=st.booleans())
def test_hostile_input_new_never_writes_code_from_a_name(project, name, twice):
    base, _ = project
    root = _make_root(Path(tempfile.mkdtemp(dir=base / "roots")))
    outside = _outside(base)
    fresh = _snapshot(root)
    for argv in [["new", name, "--root", str(root)]] + ([["new", name, "--root", str(root), "--force"]] if twice else []):
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
                                 "range", "any", "max", "rank"}, calls
    shutil.rmtree(root)


def test_hostile_input_new_force_never_overwrites_foreign_files(project):
    base, root = project
    (root / "theorems" / "mine.py").write_text("# hand-written\n")
    code, _, err = run_main(["new", "mine", "--root", str(root), "--force"])
    assert code == 2 and "not generated by" in err
    assert (root / "theorems" / "mine.py").read_text() == "# hand-written\n"


def test_hostile_input_new_refuses_symlinks_out_of_the_root(tmp_path):
    root = tmp_path / "root"
    (root / "theorems").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "property_tests").symlink_to(outside, target_is_directory=True)
    code, _, err = run_main(["new", "sneaky", "--root", str(root)])
    assert code == 2 and "outside the project root" in err
    assert list(outside.iterdir()) == []
    assert not (root / "theorems" / "sneaky.py").exists()  # nothing half-written


def test_hostile_input_failed_module_is_reported_by_verify(monkeypatch, capsys):
    import theorems
    from proofs_numeric import cli
    monkeypatch.setattr(theorems, "IMPORT_ERRORS", {"broken_user_idea": "NameError: name 'x' is not defined"})
    assert cli.report_import_errors() is True
    assert "theorems/broken_user_idea.py failed to import" in capsys.readouterr().err


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
    assert code == 0 and json.loads(out)["upper"] == 0
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    code, _, err, secs = _cli("rank", str(deep), cwd=tmp_path)
    assert code == 2 and "nested too deeply" in err and secs < _REFUSAL_S


@pytest.mark.slow
def test_hostile_input_broken_user_module_does_not_break_other_commands(tmp_path):
    """A copy of the packages with a broken conjecture module: rank and --version still work,
    verify names the module and exits 1."""
    repo = Path(__file__).resolve().parents[1]
    for pkg in ("theorems", "proofs_numeric"):
        shutil.copytree(repo / pkg, tmp_path / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "theorems" / "broken_idea.py").write_text("raise RuntimeError('user typo')\n")
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
    mod = next((root / "theorems").glob("*.py"))
    # import the generated module in a fresh interpreter: it must not run the payload
    p = subprocess.run([sys.executable, "-c", f"import runpy; g = runpy.run_path({str(mod)!r}); print(g['TITLE'])"],
                       capture_output=True, text=True, timeout=_HANG_S, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == name
    assert not (tmp_path / "pwned").exists()
