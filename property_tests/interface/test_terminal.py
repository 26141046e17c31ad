"""Issue 58, the terminal: a closed pipe is a normal end, an ASCII terminal gets ASCII, LaTeX is never cut inside a
command or a group, tables fit the width, the counts are repeated at the end, checkpoints are told apart.

The pipe and encoding tests run the command in a real process (``proofs_numeric.cli.console`` prepares the real
streams once, in ``main``)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proofs_numeric.cli import main

# the console layer and the TeX wrapper are imported in the tests that use them, so that the process-level tests
# of this module also run (and fail) on a tree without them: how each defect was shown red before its fix

ROOT = Path(__file__).resolve().parents[2]
_TIMEOUT = 60  # a loaded 2-core CI: generous

#: quick commands that print several lines (a second or two each)
_PRINTING = [
    ["show", "DC.bert-config"],
    ["check", "RRO.rowspace-remark", "--X", "[[1,0],[0,0]]", "--Delta", "[[-1,1],[0,0]]"],
    ["check", "RRO.rowspace-remark", "--X", "[[1,0],[0,0]]", "--Delta", "[[-1,1],[0,0]]", "--json"],
    ["check", "--list"],
    ["rank", "[[1,2,3],[2,4,6],[1,0,1]]"],
    ["check", "--help"],
]


def _cmd(*argv) -> list[str]:
    return [sys.executable, "-m", "proofs_numeric", *argv]


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("COLLAPSE_VERIFY_TRACEBACK", "PYTHONIOENCODING")}
    return {**env, **extra}


# ------------------------------------------------------------------------------------------ pipes

@pytest.mark.parametrize("argv", _PRINTING, ids=lambda a: " ".join(a)[:40])
def test_terminal_a_closed_pipe_is_a_normal_end(argv):
    """`collapse-verify ... | head -1` whose reader has gone before the first line: exit 0, nothing on stderr (it was
    exit 1, `internal error ... BrokenPipeError`, or rich's silent exit 1)."""
    r, w = os.pipe()
    os.close(r)  # the reader has gone: every write of the command meets a closed pipe
    try:
        p = subprocess.run(_cmd(*argv), stdout=w, stderr=subprocess.PIPE, text=True, timeout=_TIMEOUT, cwd=ROOT,
                           env=_env())
    finally:
        os.close(w)
    assert p.returncode == 0, (argv, p.stderr[-800:])
    assert p.stderr == "", p.stderr[-800:]


def test_terminal_head_reads_the_first_lines_and_the_command_ends_quietly(tmp_path):
    """The shell's own pipe (`| head -2`): the first lines arrive, the command exits 0 and says nothing."""
    err = tmp_path / "err.txt"
    cmd = (" ".join(f"'{a}'" for a in _cmd("check", "--list")) + f" 2>'{err}' | head -2; "
           "echo \"rc=${PIPESTATUS[0]}\"")
    p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=_TIMEOUT, cwd=ROOT, env=_env())
    lines = p.stdout.splitlines()
    assert lines[0].startswith(tuple("0123456789")) and "checkable" in lines[0]
    assert lines[-1] == "rc=0", p.stdout
    assert err.read_text() == ""


def test_terminal_closed_pipe_is_found_under_another_exception():
    from proofs_numeric.cli import console as C
    try:
        try:
            raise BrokenPipeError
        except BrokenPipeError:
            raise RuntimeError("while writing") from None
    except RuntimeError as e:
        assert C.is_closed_pipe(e)
    assert not C.is_closed_pipe(ValueError("x"))


# ------------------------------------------------------------------------------------------ encodings

@pytest.mark.parametrize("argv", [
    ["show", "RRO.rowspace-remark", "--quick"],
    ["check", "RRO.rowspace-remark", "--X", "[[1,0],[0,0]]", "--Delta", "[[-1,1],[0,0]]"],
    ["show", "DC.bert-config"],
], ids=lambda a: " ".join(a)[:40])
def test_terminal_an_ascii_terminal_gets_ascii_not_a_crash(argv):
    """PYTHONIOENCODING=ascii: it was `internal error ... UnicodeEncodeError: ... '\\xa7'` (show) and nothing at all
    (check). Now every line is printed, in ASCII: § as Sec., curly quotes straight, Greek letters by name."""
    p = subprocess.run(_cmd(*argv), capture_output=True, timeout=_TIMEOUT, cwd=ROOT,
                       env=_env(PYTHONIOENCODING="ascii", COLUMNS="100"))
    out, err = p.stdout.decode("ascii"), p.stderr.decode("ascii")  # raises if a non-ASCII byte got through
    assert p.returncode == 0, err[-800:]
    assert "error" not in err
    assert "Sec. " in out and "§" not in out
    assert "quote: \"" in out
    if argv[1].startswith("RRO"):
        assert "Delta" in out


@given(st.text(max_size=40))
def test_terminal_ascii_spelling_is_ascii_and_keeps_ascii_text(text):
    from proofs_numeric.cli import console as C
    spelled = "".join(C.ascii_spelling(c) for c in text)
    assert spelled.isascii()
    if text.isascii():
        assert spelled == text


def test_terminal_ascii_spelling_of_the_suites_symbols():
    from proofs_numeric.cli import console as C
    spell = lambda s: "".join(C.ascii_spelling(c) for c in s)  # noqa: E731
    assert spell("§4.2") == "Sec. 4.2"
    assert spell("“a” ‘b’") == "\"a\" 'b'"
    assert spell("α β Δ Σ") == "alpha beta Delta Sigma"
    assert spell("x ≤ y ≥ z ≠ w") == "x <= y >= z != w"
    assert spell("d² x₁") == "d^2 x_1"
    assert spell("é") == "e"


# ------------------------------------------------------------------------------------------ LaTeX on a line

_TEX_WORDS = st.sampled_from([r"\operatorname{rank}", r"\operatorname{arank}", r"\mathrm{LN}", r"\Delta", r"\alpha",
                              r"\frac{1}{n}", r"\mathbf 1", r"\text{for every }", "(X)", "=", "+", ",", "X", "\\ ",
                              r"\not\subseteq", r"\Rightarrow", "rank", "of", r"\{x\}", "0"])


def _commands_and_groups_whole(line: str) -> bool:
    """No ``{...}`` group is open at the end of the line, and the line does not end inside a command name that the
    next line continues (checked by the caller by rejoining)."""
    depth, prev = 0, ""
    for ch in line:
        if ch == "{" and prev != "\\":
            depth += 1
        elif ch == "}" and prev != "\\" and depth:
            depth -= 1
        prev = ch if not (ch == "\\" and prev == "\\") else ""
    return depth == 0


@given(words=st.lists(_TEX_WORDS, min_size=1, max_size=30), seps=st.lists(st.sampled_from(["", " "]), min_size=30,
                                                                            max_size=30),
       width=st.integers(20, 90))
def test_terminal_tex_is_never_cut_inside_a_command_or_a_group(words, seps, width):
    """`\\operatorname{ra` / `nk}` was printed: now every line closes its groups, every command name is whole, the
    text is the same once the lines are joined, and a line is wider than the width only to keep one group whole."""
    from proofs_numeric.ledger.render import tex_cuts, wrap_tex
    text = "".join(w + s for w, s in zip(words, seps, strict=False)).strip()
    lines = wrap_tex(text, width, "reading x: ", "    ")
    assert all(_commands_and_groups_whole(x) for x in lines), lines
    joined = "".join(x.strip() for x in lines)
    assert joined.replace(" ", "") == ("reading x: " + text).replace(" ", "")
    names = set(re.findall(r"\\([A-Za-z]+)", text))
    for x in lines:
        assert set(re.findall(r"\\([A-Za-z]+)", x)) <= names, x  # a cut command shows as a name not in the text
    for x in lines:
        if len(x) > width:  # only a word with no place to cut within it
            word = x.strip().split(" ")[-1]
            assert not [c for c in tex_cuts(word) if 0 < c <= width - 4], (x, width)


def test_terminal_check_and_verify_lines_never_cut_a_command(monkeypatch, capsys):
    """`check` (the per-reading statement) wrapped with textwrap, which cut \\Rightarrow and \\operatorname{rank}."""
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["check", "RRO.rowspace-remark", "--X", "[[1,0],[0,0]]", "--Delta", "[[-1,1],[0,0]]"]) == 0
    out = capsys.readouterr().out
    names = set(re.findall(r"\\([A-Za-z]+)", out))
    assert names <= {"operatorname", "Delta", "not", "subseteq", "Rightarrow", "cap", "ne"}, names
    assert all(_commands_and_groups_whole(x) for x in out.splitlines())


# ------------------------------------------------------------------------------------------ tables and labels

def test_terminal_verify_repeats_the_counts_at_the_end(capsys, monkeypatch):
    """`make verify` printed 2,785 lines with the counts only at the top: they are repeated at the end (the source
    texts not given: with them a line on the quotes follows)."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.delenv("COLLAPSE_VERIFY_SOURCES", raising=False)
    assert main(["verify", "--claims", "DC.*", "--quick"]) == 0
    lines = [x for x in capsys.readouterr().out.splitlines() if x.strip()]
    counts = lines[1]  # the tally, one line per part with claims (here only the paper's)
    assert re.fullmatch(r"the paper \(Cirrincione 2026\), 4 claims: (\d+ [a-z-]+)(, \d+ [a-z-]+)*", counts), counts
    assert lines[-1] == counts and lines[-2].startswith("collapse-verify ledger: 4 claims")


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """Two checkpoints whose folders have the same name (run A's and run B's `ckpt`)."""
    import numpy as np

    from property_tests.interface.test_checkpoints import bert_config, bert_tensors, write_checkpoint
    root = tmp_path_factory.mktemp("runs")
    return [write_checkpoint(root / run / "ckpt", bert_config(), bert_tensors(np.random.default_rng(k)))
            for k, run in enumerate(("runA", "runB"), 1)]


def test_terminal_model_table_fits_the_width_and_tells_checkpoints_apart(two_runs, capsys, monkeypatch):
    """The `check --model` table was 112 columns in an 80-column terminal; two folders named `ckpt` got the same row
    label; the same folder given twice ran twice."""
    a, b = two_runs
    for width in (80, 60):  # a table at 80; at 60 it would cut words: one wrapped line per row
        monkeypatch.setenv("COLUMNS", str(width))
        code = main(["check", "RN.main", "--model", str(a), str(b), str(a) + "/", "--workers", "1",
                     "--network-layers", "0", "--progress", "lines"])
        out, err = capsys.readouterr()
        assert code == 0, err[-800:]
        lines = out.splitlines()
        assert all(len(x) <= width for x in lines), max(lines, key=len)
        rows = [x for x in lines if x.lstrip().startswith("RN.main ")]
        runs = [r for r in rows if "runA/ckpt" in r], [r for r in rows if "runB/ckpt" in r]
        assert runs[0] and len(runs[0]) == len(runs[1]) and len(rows) == 2 * len(runs[0]), rows
        assert "is the same folder as" in err and "runs once" in err
        assert not [x for x in lines if re.search(r"(?<![/\w])ckpt\b", x)], "a bare `ckpt` label"


def test_terminal_short_labels_are_the_shortest_distinguishing_suffix():
    from proofs_numeric.cli import console as C
    assert C.short_labels(["/a/x/ckpt", "/b/x/ckpt", "/b/y"]) == {"/a/x/ckpt": "a/x/ckpt", "/b/x/ckpt": "b/x/ckpt",
                                                                   "/b/y": "y"}
    assert C.short_labels(["ckpt"]) == {"ckpt": "ckpt"}


@pytest.mark.slow
def test_terminal_real_model_fits_80_columns(two_runs):
    p = subprocess.run(_cmd("real-model", "--model", str(two_runs[0]), "--workers", "1"), capture_output=True,
                       text=True, timeout=300, cwd=ROOT, env=_env(COLUMNS="80"))
    assert p.returncode == 0, p.stderr[-800:]
    lines = p.stdout.splitlines()
    assert all(len(x) <= 80 for x in lines), max(lines, key=len)
    assert "H1 holds" in p.stdout or "holds" in p.stdout
