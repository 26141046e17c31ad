"""Hostile command lines: every subcommand's argument lists mixing valid and hostile values
(test_hostile_input.py drives them through main(argv); paths name the fixture folders of hostile files and of
outputs)."""
from __future__ import annotations

import json
from pathlib import Path

from hypothesis import strategies as st

from .validation import check_dir, check_int


def hostile_matrix_texts():
    """Matrix arguments as text: valid, huge, deep, NaN, ragged, truncated, device paths..."""
    return _hostile_matrix_texts_()


def matrix_args(*, files):
    """A ``--X`` / ``--W-O`` value: hostile text, a file of ``files``, drawn JSON or drawn text."""
    return _matrix_args_(check_dir("files", files))


def out_paths(*, outdir):
    """An output path: fine, missing folder, a folder, a device, empty, with a NUL byte."""
    return _out_paths_(check_dir("outdir", outdir))


def check_argv(*, files):
    """``check`` argument lists mixing valid and hostile values."""
    return _check_argv_(check_dir("files", files))


def show_argv():
    """``show`` with hostile claim ids."""
    return _show_argv_()


def rank_argv(*, files):
    """``rank`` argument lists mixing valid and hostile values."""
    return _rank_argv_(check_dir("files", files))


def depth_argv(*, outdir):
    """``depth`` argument lists (a valid run stays small: 2 layers, 30 digits unless drawn)."""
    return _depth_argv_(check_dir("outdir", outdir))


def verify_argv(*, outdir):
    """``verify`` argument lists, each with at least one invalid argument."""
    return _verify_argv_(check_dir("outdir", outdir))


def real_model_argv(*, outdir):
    """``real-model`` argument lists, each with at least one invalid argument."""
    return _real_model_argv_(check_dir("outdir", outdir))


def scaffold_names(*, max_size: int = 60):
    """Names for ``collapse-verify new`` that try to become code, paths or markup, and drawn text."""
    check_int("max_size", max_size, min_value=0)
    return st.one_of(_SCAFFOLD_LIST,
                     st.text(max_size=max_size))


def _hostile_matrix_texts_():
    return st.sampled_from([
        "[[0,2,-2],[1,1,-2],[2,0,-2]]", "[[1, 2], [2, 4]]", '[["1/2", "0.25", 3], [1, 0, -1]]',
        "[[0.1, 0.3], [0.3, 0.9]]", "[[1e1000000, 1], [1, 1]]", "[[1e-1000000, 1], [1, 2]]",
        "[[1e4000, 0, 1], [0, 1, 2]]", "[[1E+999999999999, 1]]", "[[" + "9" * 12_000 + ", 1], [1, 2]]",
        "[[" + "9" * 5_000 + ", 1], [1, 2]]", '[["' + "1" * 20_000 + '/3", 1]]', "[[NaN, 1], [1, 1]]",
        "[[Infinity, 1], [1, 1]]", "[[1, 2], [3]]", "[]", "[[]]", "[[[1]]]", '{"a": 1}', "[[true, 1], [1, 0]]",
        "[[1, 2], [3, 4]", "[" * 5000 + "]" * 5000, "[[null, 1]]", '[["abc", 1]]', '[["1/0", 1]]', "", "   ",
        "[[1, 2, 3], [5, 5, 5]]", "nope", "nope.npy", "missing/dir/x.json", "/dev/null", "/", ".",
        "\x00", "[[1,2],[3,4]]\x00", "/dev/zero", "/dev/stdin", "/dev/urandom", "/proc/kmsg", "/proc/self/status",
        '[["0x10", 1]]', '[["1_000", 1]]', "[[-0.0, 0.0], [0, 1]]",
    ])


def _matrix_args_(files):
    named = st.sampled_from(sorted(p.name for p in files.iterdir())).map(lambda n: str(files / n))
    return st.one_of(_hostile_matrix_texts_(), named,
                     st.lists(st.lists(st.one_of(st.integers(-10 ** 30, 10 ** 30),
                                                 st.fractions(max_denominator=10 ** 6).map(str),
                                                 st.floats(allow_nan=False, allow_infinity=False)),
                                       min_size=2, max_size=2), min_size=1, max_size=3).map(json.dumps),
                     st.text(max_size=30))


@st.composite
def _out_paths_(draw, outdir: Path):
    return draw(st.sampled_from([str(outdir / "out.json"), str(outdir / "[/b]out.json"),  # rich markup in a path
                                 str(outdir / "missing" / "out.json"), str(outdir),
                                 "/dev/full", "/proc/version", "", str(outdir / "out.json") + "\x00x"]))


def _checkable_claims() -> dict[str, set]:
    """Every claim `check` can decide on a user's input (a walk of the registry) -> the inputs its readings take."""
    from proofs_numeric.ledger.check import checkable  # lazy: the registry loads every claim
    return {c.claim.id: {k for _, f in c.forms.values() for k in f.inputs()} for c in checkable() if c.checkable}


_CHECK_TARGETS: dict[str, set] = {}
#: valid inputs that fit each other: (X, Delta of X's shape, weights of X's width)
_CHECK_X = [("[[1,0,2,1],[0,1,1,0],[1,1,3,1]]", "[[0,0,1,0],[0,0,0,0],[1,0,0,0]]", "w_ok.npz"),
            ("[[1,0,0],[1,1,0],[1,2,0]]", "[[0,0,1],[0,0,0],[1,0,0]]", "w_uniform.npz"),
            ('[[0.1, 0.3, "1/3"], [1, 3, 0], [0, 0, 0]]', "[[-1,1,0],[0,0,0],[0,0,1]]", "w_uniform.npz"),
            ("f64.npy", "[[1,0,0,0],[0,0,0,0],[0,0,1,0]]", "w_ok.npz"),
            ("bool.npy", "[[0,1],[0,0]]", None), ("u64.npy", "[[1,0],[0,0]]", None), ("ld.npy", "[[0,0],[0,1]]", None),
            ("[[1e200, 0, 0], [0, 0, 0], [0, 0, 0]]", "[[0,0,0],[0,1,0],[0,0,0]]", "w_uniform.npz")]
_CHECK_WO = [("[[1,0,0],[0,1,0],[0,0,1],[1,1,0]]", "2"), ("[[0.1,0.3],[1,3]]", "1"), ("f32.npy", "1"),
             ("[[1,0],[0,1],[1,1],[2,0]]", "2"), ("i8.npy", "2")]


@st.composite
def _check_argv_(draw, files):
    """`check CLAIM` for every checkable claim (also the aliases, --list and bogus names): the inputs the claim takes,
    mostly valid and fitting each other, each sometimes replaced by a hostile value, plus the odd extra flag;
    --save only to the one allowed path (``saved.json``: written once, then refused)."""
    if not _CHECK_TARGETS:
        _CHECK_TARGETS.update(_checkable_claims())
    f = lambda name: str(files / name) if name.endswith((".npy", ".npz")) else name
    hostile = lambda: draw(st.integers(0, 7)) == 0
    kind = draw(st.integers(0, 7))
    claim = draw(st.sampled_from(["rank-neutrality", "residual-obstruction", "rank-contraction", "head-channel",
                                  "recovery-ambiguity"]) if kind == 0 else
                 st.sampled_from(["DC.bert-config", "nope", "", "RN.mian", "[/b]", "RN.main\x00"]) if kind == 1 else
                 st.sampled_from(sorted(_CHECK_TARGETS)))
    if draw(st.integers(0, 29)) == 0:
        return ["check", "--list"] + (["--json"] if draw(st.booleans()) else [])
    alias = {"rank-neutrality": "RN.main", "residual-obstruction": "RRO.main", "rank-contraction": "RC.rank-equals-sum",
             "head-channel": "HC.main", "recovery-ambiguity": "RA.main"}
    takes = _CHECK_TARGETS.get(alias.get(claim, claim), {"X"})
    argv = ["check", claim]
    X, D, W = draw(st.sampled_from(_CHECK_X))
    if "weights" in takes and W is None:
        X, D, W = _CHECK_X[0]
    if "X" in takes or draw(st.integers(0, 9)) == 0:
        argv += ["--X", draw(_matrix_args_(files)) if hostile() else f(X)]
    if "Delta" in takes or draw(st.integers(0, 9)) == 0:
        argv += ["--Delta", draw(_matrix_args_(files)) if hostile() else f(D)]
    if "W_O" in takes or draw(st.integers(0, 9)) == 0:
        WO, H = draw(st.sampled_from(_CHECK_WO))
        argv += ["--W-O", draw(_matrix_args_(files)) if hostile() else f(WO),
                 "--heads", draw(st.sampled_from(["0", "-2", "3", "x", "99999999999"])) if hostile() else H]
    if "weights" in takes or draw(st.integers(0, 9)) == 0:
        if hostile():
            argv += draw(st.sampled_from([["--weights", str(files / "w_bad.npz")],
                                          ["--weights", str(files / "ok.json")],
                                          ["--weights", str(files / "dir.npy")], ["--weights", str(files / "fifo.npy")],
                                          ["--weights", str(files / "f64.npy")], ["--weights", "missing.npz"],
                                          ["--weights", ""], ["--weights", "/dev/zero"], ["--heads", "0"],
                                          ["--heads", "-1"], ["--heads", "2", "--seed", "-1"]]))
        elif draw(st.booleans()) and "--W-O" not in argv:
            argv += ["--heads", draw(st.sampled_from(["1", "2"])), "--seed", draw(st.sampled_from(["0", "7"]))]
        else:
            argv += ["--weights", str(files / (W or "w_ok.npz"))]
    if "n" in takes or draw(st.integers(0, 9)) == 0:
        argv += ["--n", draw(st.sampled_from(["0", "-5", "x", "2" * 30])) if hostile() else
                 draw(st.sampled_from(["1", "2", "3", "512"]))]
    if "gamma" in takes and draw(st.integers(0, 2)) == 0:
        argv += ["--gamma", draw(st.sampled_from(["", "[1, 2]", "[[1]]", "[1e1000000, 1, 1]", str(files / "cube.npy"),
                                                  str(files / "dir.npy")])) if hostile() else
                 draw(st.sampled_from(['["1/2", 0, 1]', "[1, 1, 1]", "[0.5, 2, -1]", str(files / "vec3.npy"),
                                       "[1, 2, 3, 4]", "[0, 0, 0]"]))]
    if "beta" in takes and draw(st.integers(0, 2)) == 0:
        argv += ["--beta", draw(st.sampled_from(["[0, 0, 1]", "[1, 1, 1]", "[0.1, 0, 0, 2]", "", "[1]"]))]
    if claim == "rank-neutrality" and draw(st.booleans()):
        argv += ["--norm", draw(st.sampled_from(["layernorm", "rmsnorm", "rmsnorm", "batchnorm", ""]))]
    for opt, vals in (("--seed", ["0", "1", "-1", str(2 ** 63), "x"]),
                      ("--dps", ["15", "30", "0", "-1", "14", "5001", "100000", "x"]),
                      ("--reading", ["literal", "corrected", "nope", ""]),
                      ("--save", ["saved.json", str(files / "ok.json"), "missing/dir/x.json", str(files), "/dev/full",
                                  ""])):
        if draw(st.integers(0, 11)) == 0 and opt not in argv:
            argv += [opt, draw(st.sampled_from(vals))]
    if draw(st.integers(0, 9)) == 0:
        argv += ["--max-entries", draw(st.sampled_from(["1", "4", "0", "-1", "x", "99999999999999999999"]))]
    if draw(st.booleans()):
        argv.append("--json")
    return argv


@st.composite
def _show_argv_(draw):
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
def _rank_argv_(draw, files):
    argv = ["rank", draw(_matrix_args_(files))]
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
def _depth_argv_(draw, outdir):
    small = {"--n": ["1", "2", "4", "0", "-3", "1000000", "x"], "--d": ["2", "3", "1", "0", "-1", "100000"],
             "--heads": ["1", "2", "0", "-1", "17", "1000"], "--d-k": ["1", "2", "0", "65", "-1"],
             "--layers": ["1", "2", "0", "-1", "70", "201", "1000000000"],
             "--dps": ["30", "40", "29", "0", "-5", "10001", "4400", "99999999999"],
             "--seed": ["0", "3", "-1", str(2 ** 63), str(2 ** 64), "1e3"],
             "--regime": ["pure_attention", "attention_skip", "full_block", "attention_mlp", "attention_ln", "nope",
                           ""]}
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
        argv += ["--json", draw(_out_paths_(outdir))]
    return argv


@st.composite
def _verify_argv_(draw, outdir):
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
def _real_model_argv_(draw, outdir):
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


_SCAFFOLD_LIST = st.sampled_from(["x' + str(__import__('os')) + '", 'x" + str(__import__("os")) + "',
                     '"""; import os; """',
                     "'''", "class", "def", "lambda", "import", "match", "_", "__init__", "claims",
                     "../../etc/passwd", "a/b", "..", ".", "", " ", "x" * 500, "Ünïcödé idea", "日本語", "ok name",
                     "two\nlines", "tab\there", "\u202eevil", "{slug}", "{title}", "}{", "$(rm -rf /)",
                     "`id`", "```{code-cell}\nimport os\n```", "1abc", "test_x", "ok name 2"])
