"""Issue 58, defect 1: what `collapse-verify new` writes passes the project's lint (`make lint` runs ruff first, and
`.ci/run` runs `make lint` first), for names of every length and script; and `new --remove` undoes `new`, removing
exactly what it wrote and refusing anything else.

The lint runs on the generated files in a temporary copy, never in the user's tree."""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from proofs_numeric.cli import main
from proofs_numeric.ledger import scaffold as S

ROOT = Path(__file__).resolve().parents[2]
RUFF = Path(sys.executable).with_name("ruff")
MYPY = Path(sys.executable).with_name("mypy")
_TIMEOUT = 300  # mypy on a loaded 2-core machine

#: a name: an ASCII word (so it makes a module name) and then text of any script, up to the longest name accepted
_NAMES = st.builds(lambda head, tail: (head + " " + tail)[:S.MAX_NAME_CHARS],
                   st.from_regex(r"[A-Za-z][A-Za-z0-9 ]{0,58}", fullmatch=True),
                   st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")),
                           max_size=S.MAX_NAME_CHARS))


def _rendered(name: str):
    try:
        return S.render(name)
    except S.ScaffoldError:
        return None


def _ruff(folder: Path) -> subprocess.CompletedProcess:
    """The project's ruff, with the project's configuration, on ``folder`` (a copy holding pyproject.toml)."""
    return subprocess.run([str(RUFF), "check", "--no-cache", "."], cwd=folder, capture_output=True, text=True,
                          timeout=_TIMEOUT)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(names=st.lists(_NAMES, min_size=1, max_size=6))
def test_new_writes_files_that_pass_the_projects_ruff(tmp_path_factory, names):
    """`new "LayerNorm sphere"` wrote a test file whose first line was 138 characters (E501 > 120): every name of
    every length and script now gives files ruff accepts under the project's own configuration."""
    rendered = {}
    for name in names:
        r = _rendered(name)
        if r is not None:
            rendered.setdefault(r[0], (name, r[1]))
    assume(rendered)
    copy = tmp_path_factory.mktemp("lint")
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    for _, files in rendered.values():
        for rel, text in files.items():
            if rel.endswith(".py"):
                (copy / rel).parent.mkdir(parents=True, exist_ok=True)
                (copy / rel).write_text(text, encoding="utf-8")
    p = _ruff(copy)
    assert p.returncode == 0, (sorted(n for n, _ in rendered.values()), p.stdout[-3000:])


@pytest.mark.parametrize("name", [
    "LayerNorm sphere",  # the book's own example
    "LN keeps rank, n > d — ∀ X ∈ ℝ^{n×d} «meeting H1»",
    "x" + "y" * 59,  # the longest module name
    "Rank " + "球面的秩" * 28,  # 117 characters of double width: the title is split over lines
    "Rank 'quoted' \"twice\" \\ " + "∀" * 80 + "\\",
])
def test_new_the_known_names_pass_ruff(tmp_path, name):
    _, files = S.render(name)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    for rel, text in files.items():
        if rel.endswith(".py"):
            (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / rel).write_text(text, encoding="utf-8")
    p = _ruff(tmp_path)
    assert p.returncode == 0, p.stdout[-3000:]
    module = tmp_path / next(r for r in files if r.startswith("theorems/"))
    assert S.title_of(module) == " ".join(name.split())  # the split title reads back whole


def _copy_project(dest: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


def _digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts and ".mypy_cache" not in p.parts
            and ".ruff_cache" not in p.parts}


def _lint_commands() -> str:
    """The ruff command of `make lint`, read from the Makefile (so the test runs what CI runs)."""
    text = (ROOT / "Makefile").read_text()
    block = text[text.index("\nlint:"):]
    line = next(x.strip() for x in block.splitlines()[1:] if "ruff check" in x)
    return line.replace("$(BIN)/", "")


@pytest.mark.slow
def test_new_then_make_lint_passes_and_remove_restores_the_tree(tmp_path):
    """The issue's reproduction in a real process, in a copy of the project: `new "LayerNorm sphere"` then
    `make lint`'s ruff command (E501 before) and mypy on the generated module; then `new --remove` leaves the copy
    exactly as it was."""
    copy = _copy_project(tmp_path / "proj")
    before = _digest(copy)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    run = lambda *a: subprocess.run([sys.executable, "-m", "proofs_numeric", *a], cwd=copy, capture_output=True,  # noqa: E731
                                    text=True, timeout=_TIMEOUT, env=env)
    p = run("new", "LayerNorm sphere")
    assert p.returncode == 0, p.stderr
    ruff_args = _lint_commands().split()
    assert ruff_args[:2] == ["ruff", "check"]
    lint = subprocess.run([str(RUFF), *ruff_args[1:], "--no-cache"], cwd=copy, capture_output=True, text=True,
                          timeout=_TIMEOUT)
    assert lint.returncode == 0, lint.stdout[-3000:]
    types = subprocess.run([str(MYPY), "--no-incremental", "theorems/conjectures/layernorm_sphere.py"], cwd=copy,
                           capture_output=True, text=True, timeout=_TIMEOUT)
    assert types.returncode == 0, types.stdout[-3000:]
    p = run("new", "--remove", "LayerNorm sphere")
    assert p.returncode == 0, p.stderr
    assert _digest(copy) == before
    for word in ("theorems/conjectures/layernorm_sphere.py", "property_tests/user/test_layernorm_sphere.py",
                 "book/chapters/layernorm_sphere.md", "_toc.yml"):
        assert word in p.stdout


# ------------------------------------------------------------------------------------------ new --remove

def _project(tmp_path) -> Path:
    root = tmp_path / "proj"
    for sub in ("theorems", "property_tests", "book/chapters"):
        (root / sub).mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (root / "book" / "_toc.yml").write_text("format: jb-book\nroot: index\nparts:\n  - caption: Theorems\n"
                                            "    chapters:\n      - file: a\n")
    return root


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("how", ["title", "module", "claim"])
def test_new_remove_undoes_new_exactly(tmp_path, capsys, how):
    root = _project(tmp_path)
    (root / "book" / "chapters" / "a.md").write_text("mine")
    before = _files(root)
    assert main(["new", "Rank when n > d", "--root", str(root)]) == 0
    assert main(["new", "Other idea", "--root", str(root)]) == 0
    with_other = _files(root)
    assert main(["new", "Third", "--root", str(root)]) == 0
    capsys.readouterr()
    name = {"title": "Third", "module": "third", "claim": "USER.third"}[how]
    assert main(["new", "--remove", name, "--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert "removed" in out and "third.py" in out
    assert _files(root) == with_other  # exactly what `new "Third"` added, and its _toc.yml entry
    for name in ("Rank when n > d", "Other idea"):
        assert main(["new", "--remove", name, "--root", str(root)]) == 0
    after = _files(root)
    assert after == before, set(after) ^ set(before)


def test_new_remove_refuses_a_file_new_did_not_write_and_removes_nothing(tmp_path, capsys):
    root = _project(tmp_path)
    assert main(["new", "Mine", "--root", str(root)]) == 0
    chapter = root / "book" / "chapters" / "mine.md"
    chapter.write_text("my own chapter, written by hand\n")
    before = _files(root)
    capsys.readouterr()
    assert main(["new", "--remove", "Mine", "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert "book/chapters/mine.md" in err and "not generated" in err and "nothing removed" in err
    assert _files(root) == before


def test_new_remove_refuses_another_conjectures_module(tmp_path, capsys):
    root = _project(tmp_path)
    assert main(["new", "Rank when n>d", "--root", str(root)]) == 0
    before = _files(root)
    capsys.readouterr()
    assert main(["new", "--remove", "Rank when n > d", "--root", str(root)]) == 2  # same module, another title
    assert "'Rank when n>d'" in capsys.readouterr().err
    assert _files(root) == before
    assert main(["new", "--remove", "Never made", "--root", str(root)]) == 2
    assert "nothing of 'Never made' to remove" in capsys.readouterr().err


def test_new_remove_backs_up_an_edited_module_and_its_counterexample(tmp_path, capsys):
    root = _project(tmp_path)
    assert main(["new", "Mine", "--root", str(root)]) == 0
    mod = root / "theorems" / "conjectures" / "mine.py"
    edited = mod.read_text().replace("return rank(X) >= 1", "return rank(X) >= 2")
    mod.write_text(edited)
    ce = root / "theorems" / "counterexamples" / "USER.mine.json"
    ce.parent.mkdir(parents=True)
    ce.write_text('{"claim": "USER.mine", "instance": {}}')
    capsys.readouterr()
    assert main(["new", "--remove", "Mine", "--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert not mod.exists() and not ce.exists()
    backups = {p.name: p for p in (root / ".collapse-verify" / "backups").rglob("*") if p.is_file()}
    assert backups["mine.py.bak"].read_text() == edited and "USER.mine.json.bak" in backups
    assert "backed up" in out
    assert not re.search(r"chapters/mine\b", (root / "book" / "_toc.yml").read_text())
