"""The results store (issue 35): a result is computed once and read back exactly when its name, its parameters,
the source that decides verdicts and the library versions are what they were; ``verify`` (every command) computes
what it reports and stores it; the book's pages say when what they read was computed."""
from __future__ import annotations

import pickle
from pathlib import Path

import pytest
import sympy

from proofs_numeric.ledger import report
from theorems.framework import memo as M
from theorems.framework import step_outcome


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv(M.CACHE_ENV, str(tmp_path / "store"))
    return tmp_path / "store"


class _Counter:
    def __init__(self, value):
        self.value, self.calls = value, 0

    def __call__(self):
        self.calls += 1
        return self.value


def test_memo_computes_once_and_reads_back_what_it_stored(store):
    f = _Counter({"rank": 3, "values": [1, 2]})
    assert M.memo("t-one", {"n": 1}, f) == {"rank": 3, "values": [1, 2]}
    assert M.provenance("t-one")["reused"] is False and M.provenance("t-one")["stored"] is True
    assert M.memo("t-one", {"n": 1}, f) == {"rank": 3, "values": [1, 2]}
    assert f.calls == 1
    p = M.provenance("t-one")
    assert p["reused"] is True and p["read_count"] == 1 and p["computed_count"] == 1
    assert p["last_read"]["computed"] and "seconds" in p["last_read"]


def test_memo_a_changed_parameter_or_library_is_recomputed(store, monkeypatch):
    f = _Counter(7)
    M.memo("t-key", {"n": 1}, f)
    M.memo("t-key", {"n": 2}, f)  # another parameter
    assert f.calls == 2
    monkeypatch.setattr(M, "library_versions", lambda extra=(): {"numpy": "0.0"})  # another numpy
    M.memo("t-key", {"n": 1}, f)
    assert f.calls == 3
    M.memo("t-key", {"n": 1}, f)
    assert f.calls == 3


def test_memo_the_key_covers_the_source_and_an_edit_while_running_stores_nothing(store, monkeypatch):
    """Another source gives another key (another process reads nothing of this one's); a deciding file edited
    after this process first used the store: the value is computed and nothing is read or stored (the process
    runs the code it imported, not the edited one)."""
    f = _Counter(3)
    M.memo("t-src", {}, f)
    key = M.memo_key("t-src", {})
    monkeypatch.setattr(M, "source_digest", lambda *a, **k: "0" * 64)
    assert M.memo_key("t-src", {}) != key
    assert M.memo("t-src", {}, f) == 3 and f.calls == 2
    p = M.provenance("t-src")
    assert p["reused"] is False and p["stored"] is False
    assert len(list(store.glob("t-src-*.pickle"))) == 1


def test_memo_an_unusable_folder_computes(tmp_path, monkeypatch):
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv(M.CACHE_ENV, str(tmp_path / "a-file" / "store"))  # cannot be created
    f = _Counter(4)
    assert M.memo("t-unusable", {}, f) == 4 and M.memo("t-unusable", {}, f) == 4 and f.calls == 2


def test_memo_an_installed_package_keeps_no_store(monkeypatch):
    """Without pyproject.toml beside the package (an installed, not a checked-out, suite) nothing is kept by
    default: the store would land in site-packages."""
    monkeypatch.delenv(M.CACHE_ENV, raising=False)
    monkeypatch.setattr(M, "REPO_ROOT", Path("/nonexistent-checkout"))
    assert M.cache_dir() is None


def test_memo_a_corrupt_or_foreign_entry_is_recomputed(store):
    f = _Counter(5)
    M.memo("t-bad", {}, f)
    (entry,) = store.glob("t-bad-*.pickle")
    entry.write_bytes(b"not a pickle")
    assert M.memo("t-bad", {}, f) == 5 and f.calls == 2
    entry.write_bytes(pickle.dumps({"key": "someone else's", "value": 99, "provenance": {}}))
    assert M.memo("t-bad", {}, f) == 5 and f.calls == 3


def test_memo_computing_fresh_computes_and_stores(store):
    f = _Counter(1)
    M.memo("t-fresh", {}, f)
    with M.computing_fresh():
        f.value = 2
        assert M.memo("t-fresh", {}, f) == 2  # computed, not read
    assert f.calls == 2
    assert M.memo("t-fresh", {}, f) == 2 and f.calls == 2  # what the fresh run stored


def test_memo_computing_fresh_computes_each_key_once_per_block_and_hands_out_copies(store):
    """Inside one computing_fresh block (one verify run) a key already computed there is not computed again: the
    caller gets a fresh copy of what the block computed (mutating one copy changes no other), never a value of the
    store written before the block; a new block computes again. (Planted: no reuse, or the same object handed out:
    red.)"""
    f = _Counter({"rank": 3, "values": [1, 2]})
    M.memo("t-run", {"n": 1}, f)  # stored before the run
    with M.computing_fresh():
        f.value = {"rank": 4, "values": [5]}
        first = M.memo("t-run", {"n": 1}, f)
        first["values"].append(99)
        second = M.memo("t-run", {"n": 1}, f)
        assert f.calls == 2 and second == {"rank": 4, "values": [5]} and second is not first
        assert M.provenance("t-run")["reused"] is False  # computed by this run
        assert M.memo("t-run", {"n": 2}, f) and f.calls == 3  # another key: computed
    with M.computing_fresh():
        M.memo("t-run", {"n": 1}, f)
    assert f.calls == 4


class _NotRebuilt:
    """Pickles, but its pickle cannot be loaded (what a store read recovers from by computing again)."""

    def __init__(self, v):
        if v == "bad":
            raise ValueError("cannot rebuild")
        self.v = v

    def __reduce__(self):
        return (_NotRebuilt, ("bad",))


def test_memo_a_value_not_rebuilt_is_computed_again_within_a_block(store):
    """The reuse within a computing_fresh block recovers as a store read does: a stored value whose pickle cannot be
    loaded is computed again, not raised (planted: no fallback: red)."""
    f = _Counter(None)
    f.value = _NotRebuilt(1)
    with M.computing_fresh():
        M.memo("t-odd", {}, f)
        assert isinstance(M.memo("t-odd", {}, f), _NotRebuilt) and f.calls == 2


def _sqrt_square_check(sym):
    def check():
        return sympy.simplify(sympy.sqrt(sym ** 2) - sym) == 0
    return check


def test_memo_proof_steps_over_symbols_with_other_assumptions_are_two_steps(store):
    """A proof step's key names the values its check closes over with their assumptions: sqrt(x^2) = x fails for a
    plain symbol and holds for a positive one, whether both are asked in one verify run, in two, or read back from
    the store (planted: the key built with repr, which prints x for both: red)."""
    plain = ("\\sqrt{x^2} = x", "w", "identity", _sqrt_square_check(sympy.Symbol("x")))
    positive = ("\\sqrt{x^2} = x", "w", "identity", _sqrt_square_check(sympy.Symbol("x", positive=True)))
    with M.computing_fresh():
        assert (step_outcome(plain), step_outcome(positive)) == (False, True)
    assert (step_outcome(plain), step_outcome(positive)) == (False, True)


def test_memo_off_keeps_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv(M.CACHE_ENV, "off")
    f = _Counter(1)
    M.memo("t-off", {}, f)
    M.memo("t-off", {}, f)
    assert f.calls == 2 and M.cache_dir() is None


def test_memo_the_command_line_computes_what_it_reports(store, monkeypatch):
    """`collapse-verify ...` runs inside computing_fresh: a stored value is not what a command reports."""
    from proofs_numeric import cli
    f = _Counter(1)
    M.memo("t-cli", {}, f)

    def fake(args):
        f.value = 2
        return 0 if M.memo("t-cli", {}, f) == 2 else 1
    monkeypatch.setattr(cli.verify, "cmd_verify", fake)
    assert cli.main(["verify"]) == 0 and f.calls == 2
    assert M.memo("t-cli", {}, f) == 2 and f.calls == 2  # outside a command: what the command stored


_CALLS = []


def _step_check():
    _CALLS.append(1)
    return True


def test_memo_a_proof_step_is_checked_once_per_source_and_the_page_says_so(store):
    _CALLS.clear()
    step = ("x=x", "a trivial step", "identity", _step_check)
    assert step_outcome(step) is True and step_outcome(step) is True
    assert len(_CALLS) == 1
    other = ("x=x", "the same formula, other words", "identity", _step_check)
    assert step_outcome(other) is True and len(_CALLS) == 2  # its words are part of the key
    md = report.proof_steps_markdown([step])
    assert "checked: holds" in md and "1 of these 1 outcomes were read from the results store" in md
    with M.computing_fresh():
        md = report.proof_steps_markdown([step])
    assert "Every check above was run while this page was built" in md and len(_CALLS) == 3


def test_memo_a_failing_step_stays_failing(store):
    step = ("1=2", "a wrong step", "identity", lambda: False)
    assert step_outcome(step, with_source=True) == (False, False)
    assert step_outcome(step, with_source=True) == (False, True)  # read back: still failing
    assert "**fails**" in report.proof_steps_markdown([step])


def test_memo_a_step_that_cannot_be_named_is_checked_every_time_and_said_so(store):
    """A partial, a bound method or a closure over a function: its key could not tell two of them apart."""
    import functools
    calls = []

    def check(v):
        calls.append(v)
        return v

    class Box:
        def __init__(self, v):
            self.v = v

        def check(self):
            calls.append(self.v)
            return self.v

    def closing_over(fn):
        return lambda: fn()
    for make in (lambda v: functools.partial(check, v), lambda v: Box(v).check,
                 lambda v: closing_over(functools.partial(check, v))):
        steps = [("s", "same words", "lemma", make(v)) for v in (True, False)]
        assert [step_outcome(st) for st in steps] == [True, False]
        assert [step_outcome(st, with_source=True) for st in steps] == [(True, False), (False, False)]
    md = report.proof_steps_markdown([("s", "same words", "lemma", functools.partial(check, True))])
    assert "Every check above was run while this page was built" in md


def test_memo_stored_markdown_says_read_or_computed(store):
    M.memo("t-page", {}, _Counter(1))
    assert "computed while this page was built (1 result)" in report.stored_markdown("t-page", "the thing")
    M.memo("t-page", {}, _Counter(1))
    md = report.stored_markdown("t-page", "the thing")
    assert md.startswith("*The thing: 1 of 2 read from the results store") and "from commit" in md


def test_memo_steps_built_in_a_loop_are_told_apart(store):
    """Two lambdas on one line closing over different values (same words) are two entries."""
    def positive(k):
        return lambda: k > 0
    steps = [("n>0", "positive", "lemma", positive(k)) for k in (1, -1)]
    assert [step_outcome(s) for s in steps] == [True, False]
    assert [step_outcome(s) for s in steps] == [True, False]


def test_memo_is_off_for_a_mutant(store, monkeypatch):
    """mutmut switches mutants at run time in one source tree: a stored result would hide a mutant."""
    monkeypatch.setenv("MUTANT_UNDER_TEST", "theorems.exact.certified_rank.x_certified_rank__mutmut_1")
    f = _Counter(1)
    M.memo("t-mutant", {}, f)
    M.memo("t-mutant", {}, f)
    assert f.calls == 2 and M.cache_dir() is None


def test_memo_deciding_files_are_the_sources_in_path_order_without_build_folders(tmp_path):
    """What the key hashes: files with a deciding suffix under the folders, in Path order per folder; never a
    __pycache__ or _build folder (Coq's build output), nor a non-deciding prefix, nor a symlinked folder (a
    symlinked file counts, as with Path.rglob before); and a changed byte of a deciding file changes the digest."""
    files = ["pkg/a.py", "pkg/b-c.py", "pkg/b/z.py", "pkg/b.x/y.py", "pkg/sub/_CoqProject", "pkg/sub/t.v",
             "pkg/__pycache__/a.py", "pkg/_build/t.v", "pkg/sub/_build/deep/u.py", "pkg/notes.md",
             "pkg/skip/me.py", "other/o.py"]
    for f in files:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text(f)
    (tmp_path / "pkg/linked").symlink_to(tmp_path / "other")
    (tmp_path / "pkg/sub/link.py").symlink_to(tmp_path / "other/o.py")
    folders = (("pkg", (".py", ".v", "_CoqProject")),)
    got = [p.relative_to(tmp_path).as_posix() for p in M.deciding_files(tmp_path, folders, ("pkg/skip/",))]
    assert got == ["pkg/a.py", "pkg/b/z.py", "pkg/b-c.py", "pkg/b.x/y.py", "pkg/sub/_CoqProject", "pkg/sub/link.py",
                   "pkg/sub/t.v"]
    before = M.source_digest(tmp_path, folders, ("pkg/skip/",))
    (tmp_path / "pkg/_build/t.v").write_text("changed build output")
    assert M.source_digest(tmp_path, folders, ("pkg/skip/",)) == before
    (tmp_path / "pkg/b/z.py").write_text("changed source")
    assert M.source_digest(tmp_path, folders, ("pkg/skip/",)) != before
