r"""The Coq runner: compile, ``About`` / ``Print Assumptions``, the axiom policy (stdlib only).

The runner of the lemma table (:data:`theorems.formal.lemmas.LEMMAS`). It

* states the axiom policy (:data:`ALLOWED_AXIOMS`): a lemma may rest on no axiom, or on
  the three classical axioms MathComp-Analysis itself declares (propositional
  extensionality, dependent functional extensionality, constructive indefinite
  description, i.e. choice) and on nothing else: no axiom of this project, no
  ``Admitted`` proof (Coq lists an ``Admitted`` lemma among the axioms, under the
  lemma's own name), no other library's axiom;
* compiles stale ``.v`` files into ``_build/`` (gitignored), cached by a hash of
  the file's contents, of the ``coqc`` version and of the hashes of the files it requires;
* asks Coq for ``About`` of every lemma and ``Print Assumptions``, in two groups queried in parallel (the lemmas
  of files that load MathComp-Analysis or another classical library, and the others), in one of two modes:

  - *tuple* (``check()``'s default: what ``collapse-verify verify`` asks): one ``Print Assumptions`` of the tuple
    of the group's lemmas. A lemma's assumptions are a subset of its tuple's (the tuple's proof term contains
    each lemma), so a tuple closed under the global context makes each lemma closed, and a tuple resting only on
    allowed axioms makes each lemma rest on *at most* those: every lemma of the group is accepted, its
    ``axioms`` being the tuple's, marked as an upper bound (``FormalResult.axioms_bound``), its reason saying
    what was asked. About 2 s for the classical group's 30 lemmas, against about 55 s of CPU lemma by lemma
    (each ``Print Assumptions`` traverses MathComp-Analysis; measured 2026-12-06). A tuple outside the policy
    (some lemma rests on a forbidden axiom, is ``Admitted``, or an unsafe flag) falls back to the per-lemma
    queries, so the refusal names the lemma;
  - *per lemma* (``per_lemma_axioms=True``: ``make formal``, ``--pin`` and the book's formal page, which list
    each lemma's own axioms): the non-classical group still tries its tuple (closed => each lemma closed,
    exactly); otherwise, and always for the classical group, ``Print Assumptions`` lemma by lemma.

  Each axiom Coq lists is resolved to its full name (``Locate``, since ``Print Assumptions`` prints the shortest
  name that is unambiguous where it runs) and compared with the policy by full name, in both modes. A lemma is
  *accepted* when Coq reports it (or its tuple) "Closed under the global context" or lists only allowed axioms;
  :class:`FormalResult` carries the axioms it rests on (or, in tuple mode, at most rests on).

The forbidden-word scan (:func:`scan_forbidden`) is a second, cruder line: it reads the
``.v`` files with their comments removed and refuses the commands ``Admitted``, ``admit``,
``Axiom(s)``, ``Parameter(s)``, ``Conjecture`` as whole words (so a comment may explain the
policy, and the allowed axioms, declared inside MathComp-Analysis, are not in our sources).
``Print Assumptions`` is what decides.

It imports nothing from the rest of the project (stdlib only; the lemma table :mod:`theorems.formal.lemmas` is its
sibling), so it also runs as a script without a virtualenv: ``python3 theorems/formal/__init__.py``
(``make formal``).

Examples
========
>>> scan_forbidden()  # no Admitted, admit, Axiom, Parameter or Conjecture in any proof's code
[]
>>> axiom_words(())
'no axioms'
>>> axiom_words(ALLOWED_AXIOMS)
'classical: propositional and functional extensionality, choice'
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

if __package__:
    from .lemmas import LEMMAS, LOGICAL_ROOT, PENDING, FormalLemma
else:  # run as a script (python3 theorems/formal/__init__.py puts this folder on sys.path)
    from lemmas import LEMMAS, LOGICAL_ROOT, PENDING, FormalLemma  # type: ignore[no-redef]

__all__ = ["FormalResult", "SOURCE_DIR", "FORBIDDEN_WORDS", "ALLOWED_AXIOMS",
           "AXIOM_WORDS", "axiom_words", "parse_assumptions", "coq_version", "mathcomp_available", "build_dir",
           "check", "clear_check_cache", "compile_sources", "scan_forbidden", "main", "prepare",
           "analysis_available", "NO_ANALYSIS", "NO_MATHCOMP", "NOT_INSTALLED", "results_path", "strip_comments",
           "STATEMENTS_FILE", "statement_of", "statements_path", "load_statements", "write_statements", "pin",
           "run_coqchk", "stored_coqchk", "coqchk_mode", "COQCHK_MODES", "start_check", "cancel_check",
           "compile_cost", "critical_path_order"]

SOURCE_DIR = Path(__file__).resolve().parent
BUILD_SUBDIR = "_build"
COQ_WARNINGS = ("-w", "-notation-overridden,-ambiguous-paths")  # MathComp's import warnings
# Vernacular that adds an assumption or skips a proof; the scan matches them as whole words in the code of the
# .v files (comments removed). "admit" is the tactic, "Admitted" the command.
FORBIDDEN_WORDS = ("Admitted", "admit", "Axiom", "Axioms", "Parameter", "Parameters", "Conjecture")
CLOSED = "Closed under the global context"

#: The axiom policy: the only axioms a lemma may rest on, by full Coq name. They are exactly the three
#: classical axioms MathComp-Analysis 0.6.0 declares (in mathcomp.classical.boolp) and rests on; nothing of this
#: project. Print Assumptions prints them as ``boolp.propositional_extensionality`` etc. (the shortest name
#: unambiguous in the query); the runner resolves every printed name with Locate and compares full names, so an
#: axiom of ours that happens to carry the same short name is refused.
ALLOWED_AXIOMS: tuple[str, ...] = (
    "mathcomp.classical.boolp.propositional_extensionality",
    "mathcomp.classical.boolp.functional_extensionality_dep",
    "mathcomp.classical.boolp.constructive_indefinite_description",
)
#: how the evidence names each allowed axiom
AXIOM_WORDS: dict[str, str] = {
    "mathcomp.classical.boolp.propositional_extensionality": "propositional extensionality",
    "mathcomp.classical.boolp.functional_extensionality_dep": "functional extensionality",
    "mathcomp.classical.boolp.constructive_indefinite_description": "choice",
}
# the headers Print Assumptions uses besides "Axioms:" (each one means the lemma is refused)
_UNSAFE_HEADERS = ("Section Variables:", "Constants/Inductives relying on type-in-type:",
                   "Constants/Inductives relying on unsafe (co)fixpoints:", "Inductives whose positivity is assumed:")
NOT_INSTALLED = "not run: coqc not installed"
NO_MATHCOMP = "not run: MathComp not installed for this coqc (apt-get install libcoq-mathcomp-algebra)"
NO_ANALYSIS = ("not run: MathComp-Analysis not installed for this coqc (apt-get install libcoq-mathcomp-analysis "
               "libcoq-mathcomp-real-closed)")
_MARK = "@@COLLAPSE-VERIFY"  # marker lines printed by the query file around each lemma
# Printed by the query before About, so About and Print Assumptions show MathComp notation (where a source of the
# build folder loads MathComp: every query of this project's proofs; a folder of plain Coq files is asked without the
# MathComp lines, which take about 1 s of every query's coqc to load).
_QUERY_PRELUDE = ("From Coq Require Import NArith.\n"
                  "From mathcomp Require Import all_ssreflect fingroup perm all_algebra.\n"
                  "Import GRing.Theory Num.Theory.\nLocal Open Scope ring_scope.\n")
_PLAIN_PRELUDE = "From Coq Require Import NArith.\n"
_MATHCOMP_RE = re.compile(r"\bFrom\s+mathcomp\b|\bRequire\b[^.]*\bmathcomp\.")



@dataclass(frozen=True)
class FormalResult:
    accepted: bool | None  # True: closed, or resting only on ALLOWED_AXIOMS; False: refused; None: not run
    reason: str            # why (the allowed axioms it rests on; the refused axiom by name; the error; "not run: ...")
    about: str             # Coq's own `About name.` output (the statement as Coq sees it)
    assumptions: str       # Coq's `Print Assumptions name.` output
    seconds: float         # wall time of the check() that produced it (compiles + the queries)
    axioms: tuple[str, ...] = ()  # full Coq names of the axioms the lemma rests on (allowed ones when accepted)
    coqchk: bool | None = None    # the independent kernel re-check of the lemma's module (make formal): True passed,
                                  # False rejected (then accepted is False), None not run for these .vo files
    axioms_bound: bool = False    # True: axioms are those of the tuple the lemma was asked in (check()'s tuple mode),
                                  # an upper bound: the lemma rests on at most these (its own may be fewer, or none)

    @property
    def closed(self) -> bool | None:
        """Coq reports the lemma "Closed under the global context" (accepted and no axiom at all); None when not
        run, or not known: accepted in tuple mode through a tuple that rests on allowed axioms (the lemma itself may
        rest on none; ``make formal`` asks lemma by lemma)."""
        if self.accepted is not True:
            return self.accepted
        return True if not self.axioms else None if self.axioms_bound else False

    @property
    def axiom_words(self) -> str:
        """"no axioms" or "classical: propositional and functional extensionality, choice" (accepted lemmas);
        "at most classical: ..." when the axioms are an upper bound (:attr:`axioms_bound`)."""
        return axiom_words(self.axioms, upper_bound=self.axioms_bound)


# ------------------------------------------------------------------------------------------------
_VERSION_CACHE: dict[str, str | None] = {}
_WHERE_CACHE: dict[str, str] = {}


def _coqc() -> str | None:
    return shutil.which("coqc")


def coq_version() -> str | None:
    """The coqc version (e.g. "8.16.1"), or None when coqc is not on PATH."""
    exe = _coqc()
    if exe is None:
        return None
    if exe not in _VERSION_CACHE:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
        m = re.search(r"version\s+(\S+)", out)
        _VERSION_CACHE[exe] = m.group(1) if m else out.strip() or None
    return _VERSION_CACHE[exe]


def analysis_available() -> bool:
    """Whether MathComp-Analysis (reals, sequences, exp) is where this coqc looks."""
    return mathcomp_available() and any((root / "mathcomp" / "analysis" / "exp.vo").exists()
                                        for root in _contrib_roots())


def _contrib_roots() -> list[Path]:
    exe = _coqc()
    if exe is None:
        return []
    if exe not in _WHERE_CACHE:
        _WHERE_CACHE[exe] = subprocess.run([exe, "-where"], capture_output=True, text=True).stdout.strip()
    where = _WHERE_CACHE[exe]
    roots = [Path(where) / "user-contrib"] if where else []
    return roots + [Path(p) for p in os.environ.get("COQPATH", "").split(os.pathsep) if p]


def mathcomp_available() -> bool:
    """Whether MathComp's algebra library is where this coqc looks (user-contrib or COQPATH)."""
    return any((root / "mathcomp" / "algebra").is_dir() for root in _contrib_roots())


def strip_comments(text: str) -> str:
    """Coq source with its comments (nested ``(* ... *)``) replaced by spaces, newlines kept (line numbers stay)."""
    out, depth, i = [], 0, 0
    while i < len(text):
        two = text[i:i + 2]
        if two == "(*":
            depth, i = depth + 1, i + 2
            out.append("  ")
        elif two == "*)" and depth:
            depth, i = depth - 1, i + 2
            out.append("  ")
        else:
            out.append(text[i] if depth == 0 or text[i] == "\n" else " ")
            i += 1
    return "".join(out)


def scan_forbidden(source_dir: Path | str | None = None) -> list[tuple[str, int, str]]:
    """(file, line, word) for every forbidden word used as a word in the code of the .v files.

    Comments are removed first (a comment may name the policy or an axiom); the words are matched whole
    (``admit`` the tactic, not ``admits``). Print Assumptions decides acceptance; this scan only fails early.
    """
    hits = []
    pattern = re.compile(r"(?<![\w'.])(" + "|".join(map(re.escape, FORBIDDEN_WORDS)) + r")(?![\w'])")
    for path in sorted(Path(source_dir or SOURCE_DIR).glob("*.v")):
        for lineno, line in enumerate(strip_comments(path.read_text()).splitlines(), 1):
            hits += [(path.name, lineno, m.group(1)) for m in pattern.finditer(line)]
    return hits


def axiom_words(axioms, upper_bound: bool = False) -> str:
    """The evidence's words for the axioms an accepted lemma rests on (``upper_bound``: at most rests on, the axioms
    of the tuple it was asked in).

    >>> axiom_words(["mathcomp.classical.boolp.functional_extensionality_dep"])
    'classical: functional extensionality'
    >>> axiom_words(ALLOWED_AXIOMS, upper_bound=True)
    'at most classical: propositional and functional extensionality, choice'
    """
    names = [AXIOM_WORDS.get(a, a) for a in ALLOWED_AXIOMS if a in axioms] + \
            sorted(a for a in axioms if a not in ALLOWED_AXIOMS)
    if not names:
        return "no axioms"
    if names[:2] == ["propositional extensionality", "functional extensionality"]:
        names[:2] = ["propositional and functional extensionality"]
    return ("at most " if upper_bound else "") + "classical: " + ", ".join(names)


def parse_assumptions(text: str) -> tuple[list[str], list[str]]:
    r"""Coq's ``Print Assumptions`` output -> (axiom names as printed, other problems).

    "Closed under the global context" gives ([], []). Under "Axioms:" each entry starts at column 0 with its
    name (its type follows after " : ", possibly on indented lines). Any other block (section variables,
    type-in-type, unsafe fixpoints, assumed positivity) or any line the parser does not understand is a problem.

    >>> parse_assumptions("Axioms:\nboolp.propositional_extensionality : forall P Q : Prop, P <-> Q -> P = Q\n"
    ...                   "cheat\n  : 1 = 2")
    (['boolp.propositional_extensionality', 'cheat'], [])
    >>> parse_assumptions("Closed under the global context")
    ([], [])
    """
    text = text.strip()
    if text == CLOSED:
        return [], []
    if not text:
        return [], ["Coq printed no assumptions at all"]
    axioms: list[str] = []
    problems: list[str] = []
    block = None
    for line in text.splitlines():
        if not line.strip():
            continue
        if line[0].isspace():  # the continuation of an entry's type
            if block is None:
                problems.append(f"unexpected line {line.strip()!r}")
            continue
        if line.strip() == "Axioms:" or line.strip() in _UNSAFE_HEADERS:
            block = line.strip()
            continue
        name = line.split(" :", 1)[0].strip()
        if block == "Axioms:" and re.fullmatch(r"[\w'.]+", name):
            axioms.append(name)
        elif block in _UNSAFE_HEADERS:
            problems.append(f"{block[:-1].lower()}: {name}")
        else:
            problems.append(f"unexpected line {line.strip()!r}")
    return axioms, problems


def _requires(text: str) -> set[str]:
    """Modules of this project a .v file imports (From CollapseVerify Require [Import] a b ...)."""
    out: set[str] = set()
    for m in re.finditer(rf"From\s+{LOGICAL_ROOT}\s+Require\s+(?:Import\s+|Export\s+)?([^.]*)\.",
                         strip_comments(text)):
        out.update(m.group(1).split())
    return out


def _order(sources: dict[str, str]) -> list[str]:
    """Module names in dependency order (a module after the modules it requires)."""
    done: list[str] = []

    def visit(mod: str, stack: tuple[str, ...]) -> None:
        if mod in done or mod not in sources or mod in stack:
            return
        for dep in sorted(_requires(sources[mod])):
            visit(dep, stack + (mod,))
        done.append(mod)

    for mod in sorted(sources):
        visit(mod, ())
    return done


def _coqc_cmd(*args: str) -> list[str]:
    return [_coqc() or "coqc", "-Q", ".", LOGICAL_ROOT, *COQ_WARNINGS, *args]


def build_dir(source_dir: Path | str | None = None) -> Path:
    """source_dir/_build, or a folder under the temp directory when the sources are read-only
    (an installed package)."""
    src = Path(source_dir or SOURCE_DIR).resolve()
    build = src / BUILD_SUBDIR
    try:
        build.mkdir(exist_ok=True)
        (build / ".writable").touch()
        return build
    except OSError:
        tag = hashlib.sha256(str(src).encode()).hexdigest()[:12]
        build = Path(tempfile.gettempdir()) / f"collapse-verify-formal-{tag}"
        build.mkdir(exist_ok=True)
        return build


@contextlib.contextmanager
def _locked(build: Path):
    """An exclusive lock on the build folder (parallel test workers must not compile the same file twice)."""
    try:
        import fcntl  # lazy: POSIX only (an optional module): elsewhere the build folder is not locked
    except ImportError:  # not POSIX: no lock
        yield
        return
    with open(build / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def compile_sources(source_dir: Path | str | None = None, log=None) -> dict[str, str | None]:
    """Compile stale .v files of source_dir into source_dir/_build; {module: error text or None}.

    A module is stale when the hash of its text, of the coqc version and of the hashes of the modules
    it requires differs from the stamp left by its last successful compile. ``log`` (e.g. ``print``)
    receives one line per module.
    """
    src = Path(source_dir or SOURCE_DIR)
    build = build_dir(src)
    with _locked(build):
        return _compile_sources(src, build, log)


def _jobs() -> int:
    """How many coqc run at once: COLLAPSE_VERIFY_COQ_JOBS, else the core count (at most 4; each coqc that loads
    MathComp-Analysis takes about 0.5 GB)."""
    try:
        return max(1, int(os.environ["COLLAPSE_VERIFY_COQ_JOBS"]))
    except (KeyError, ValueError):
        return max(1, min(4, os.cpu_count() or 1))


class CheckCancelled(Exception):
    """:func:`cancel_check` ended the compile this check was waiting for (nothing is cached from it)."""


#: the coqc processes running now (cancel_check ends them) and the flag that stops a background check
_RUNNING: set = set()
_RUNNING_LOCK = threading.Lock()
_STOP = threading.Event()


def _run_coqc(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """subprocess.run(args, capture_output, text), the process kept in _RUNNING while it runs; CheckCancelled when
    cancel_check asked the compile to stop (before it started, or while it ran: then it is ended)."""
    with _RUNNING_LOCK:
        if _STOP.is_set():
            raise CheckCancelled("the formal check was cancelled")
        proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _RUNNING.add(proc)
    try:
        out, err = proc.communicate()
    finally:
        with _RUNNING_LOCK:
            _RUNNING.discard(proc)
    if _STOP.is_set():
        raise CheckCancelled("the formal check was cancelled")
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def _compile_one(build: Path, mod: str, text: str, digest: str, log) -> str | None:
    (build / f"{mod}.v").write_text(text)
    stamp = build / f"{mod}.stamp"
    stamp.unlink(missing_ok=True)
    t0 = time.perf_counter()
    proc = _run_coqc(_coqc_cmd(f"{mod}.v"), build)
    if log:
        log(f"{' '.join(_coqc_cmd(f'{mod}.v'))}  (in {build}): "
            f"{'ok' if proc.returncode == 0 else 'FAILED'} in {time.perf_counter() - t0:.1f} s")
    if proc.returncode == 0:
        stamp.write_text(digest)
        return None
    return (proc.stderr + proc.stdout).strip() or f"coqc exited with status {proc.returncode}"


def compile_cost(text: str) -> float:
    """A rough cold-compile cost of a .v file, in units of one file that loads MathComp's algebra: a file that loads
    MathComp-Analysis (or its classical library) costs twice as much to load (measured 2026-12-06: about 0.8 s of CPU
    for the algebra, 1.5-2 s with Analysis), and proofs add about one unit per 300 lines."""
    code = strip_comments(text)
    return (2.0 if _ANALYSIS_RE.search(code) else 1.0) + code.count("\n") / 300


def critical_path_order(sources: dict[str, str]) -> list[str]:
    """The modules by the estimated cost of the longest chain each one heads (:func:`compile_cost` of it and of the
    files that require it, transitively), longest first. The compile starts, of the files ready, the first in this
    order: the slow chains ending in MathComp-Analysis files start first and no core idles at the end waiting for
    one of them. A file's chain is longer than that of every file requiring it, so the order is a dependency order.

    >>> critical_path_order({"a": "", "b": "", "c": "From CollapseVerify Require Import b."})
    ['b', 'a', 'c']
    """
    order = _order(sources)
    deps = {m: (_requires(sources[m]) & sources.keys()) - {m} for m in order}
    chain: dict[str, float] = {}
    for mod in reversed(order):  # every file requiring mod comes after it (a cycle of Requires: its chain is cut)
        chain[mod] = compile_cost(sources[mod]) + max((chain.get(m, 0.0) for m in order if mod in deps[m]),
                                                      default=0.0)
    return sorted(order, key=lambda m: (-chain[m], m))


def _compile_sources(src: Path, build: Path, log) -> dict[str, str | None]:
    """Compile what is stale, independent files in parallel (_jobs() at once), each after the files it requires;
    of the files ready to start, the one heading the longest chain of work first (:func:`critical_path_order`)."""
    sources = {p.stem: p.read_text() for p in sorted(src.glob("*.v"))}
    order = critical_path_order(sources)
    digests: dict[str, str] = {}
    deps: dict[str, list[str]] = {}
    for mod in order:
        deps[mod] = sorted((_requires(sources[mod]) & sources.keys()) - {mod})
        h = hashlib.sha256()
        h.update(f"coqc {coq_version()}\n{' '.join(COQ_WARNINGS)}\n".encode())
        h.update(sources[mod].encode())
        for dep in deps[mod]:
            h.update(f"{dep}:{digests.get(dep, '')}".encode())
        digests[mod] = h.hexdigest()
    errors: dict[str, str | None] = {}
    pending = list(order)
    jobs = _jobs()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        running: dict = {}
        while pending or running:
            progress = False
            for mod in list(pending):
                if len(running) >= jobs:
                    break
                if any(d not in errors for d in deps[mod]):  # a required file is not done yet
                    continue
                pending.remove(mod)
                progress = True
                failed = [d for d in deps[mod] if errors.get(d)]
                if failed:
                    errors[mod] = f"not compiled: it requires {', '.join(failed)}, which failed to compile"
                    continue
                stamp, vo = build / f"{mod}.stamp", build / f"{mod}.vo"
                if vo.exists() and stamp.exists() and stamp.read_text() == digests[mod]:
                    errors[mod] = None
                    if log:
                        log(f"coqc {mod}.v: up to date")
                    continue
                running[pool.submit(_compile_one, build, mod, sources[mod], digests[mod], log)] = mod
            if running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    errors[running.pop(future)] = future.result()
            elif not progress:  # nothing runs and nothing can start: a cycle of Requires
                for mod in pending:
                    errors[mod] = "not compiled: its Requires form a cycle"
                pending = []
    return errors


def _declared(text: str, short: str) -> bool:
    return re.search(rf"^\s*(?:Lemma|Theorem|Corollary|Proposition|Fact|Remark)\s+{re.escape(short)}\b",
                     text, re.M) is not None


_ALL = "collapse_verify_all_lemmas"  # the query's tuple of every lemma (one Print Assumptions for all)


def _allowed_candidates() -> list[str]:
    """Every name Print Assumptions could print for an allowed axiom: the suffixes of its full name."""
    out = []
    for full in ALLOWED_AXIOMS:
        parts = full.split(".")
        out += [".".join(parts[i:]) for i in range(len(parts))]
    return out


def query_prelude(texts: dict[str, str], pinned: bool) -> str:
    """What every query of a source folder loads before the lemmas' modules (``texts``: its sources by module;
    ``pinned``: the folder has a statements.txt, or the check is :func:`pin`'s). MathComp, so that About and Print
    Assumptions print MathComp's notation, unless no source loads MathComp and no statement is (being) pinned: then
    Coq's NArith only (each query's coqc starts in about 0.3 s instead of 1 s), where no printed statement is
    compared with anything. One decision per check of a folder, from the sources the check compiles, and part of the
    stored verdicts' key: a lemma prints alike in every query of it, and every pin (this project's, a folder's
    pinned before this choice existed, a first pin) is printed and compared in MathComp's notation."""
    if pinned or any(_MATHCOMP_RE.search(strip_comments(t)) for t in texts.values()):
        return _QUERY_PRELUDE
    return _PLAIN_PRELUDE


def _query_text(modules: list[str], lemmas: list[FormalLemma], per_lemma: bool,
                locate: list[str] | tuple[str, ...] = (), prelude: str = _QUERY_PRELUDE) -> str:
    """About for every lemma; Print Assumptions per lemma, or once for the tuple of all lemmas; then Locate of
    every name in ``locate`` (what each printed axiom name denotes where Print Assumptions ran)."""
    lines = [prelude, f"From {LOGICAL_ROOT} Require {' '.join(modules)}.\n"]
    for lemma in lemmas:
        lines += [f'Goal True. idtac "{_MARK} ABOUT {lemma.name}". Abort.', f"About {lemma.name}."]
        if per_lemma:
            lines += [f'Goal True. idtac "{_MARK} ASSUMPTIONS {lemma.name}". Abort.',
                      f"Print Assumptions {lemma.name}."]
        lines.append(f'Goal True. idtac "{_MARK} END {lemma.name}". Abort.')
    if not per_lemma:
        lines += [f"Definition {_ALL} := ({', '.join('@' + l.name for l in lemmas)}).",
                  f'Goal True. idtac "{_MARK} ASSUMPTIONS {_ALL}". Abort.',
                  f"Print Assumptions {_ALL}.",
                  f'Goal True. idtac "{_MARK} END {_ALL}". Abort.']
    for name in locate:
        lines += [f'Goal True. idtac "{_MARK} LOCATE {name}". Abort.', f"Locate Term {name}.",
                  f'Goal True. idtac "{_MARK} END {name}". Abort.']
    return "\n".join(lines) + "\n"


#: query coqc at once across both groups and their parts (:func:`_query_slots`), by the value of :func:`_jobs`
_SLOTS: dict[int, threading.BoundedSemaphore] = {}
_SLOTS_LOCK = threading.Lock()


def _query_slots() -> threading.BoundedSemaphore:
    """The slots a query's coqc takes while it runs: at most :func:`_jobs` queries at once in this process (the two
    groups run beside each other, and each may split its lemma-by-lemma query into parts)."""
    n = _jobs()
    with _SLOTS_LOCK:
        return _SLOTS.setdefault(n, threading.BoundedSemaphore(n))


def _run_query(build: Path, modules: list[str], lemmas: list[FormalLemma], per_lemma: bool = True,
               locate: list[str] | tuple[str, ...] = (), prelude: str = _QUERY_PRELUDE
               ) -> tuple[dict[str, dict[str, str]], str]:
    """Run one coqc query; ({name: {"ABOUT": text, "ASSUMPTIONS": text, "LOCATE": text}}, error text or "").

    Only blocks that ran to their END marker are returned (the query stops at the first error).
    """
    with tempfile.NamedTemporaryFile("w", suffix=".v", prefix="query_", dir=build, delete=False) as fh:
        fh.write(_query_text(modules, lemmas, per_lemma, locate, prelude))
        qpath = Path(fh.name)
    try:
        with _query_slots():
            proc = _run_coqc(_coqc_cmd(qpath.name), build)
    finally:
        for p in (qpath, qpath.with_suffix(".vo"), qpath.with_suffix(".vos"), qpath.with_suffix(".vok"),
                  qpath.with_suffix(".glob"), build / f".{qpath.stem}.aux"):
            p.unlink(missing_ok=True)
    blocks = re.split(rf"^{re.escape(_MARK)} (ABOUT|ASSUMPTIONS|LOCATE|END) (\S+)\s*$", proc.stdout, flags=re.M)
    # blocks = [pre, kind, name, text, kind, name, text, ...]
    parts: dict[str, dict[str, str]] = {}
    for kind, name, text in zip(blocks[1::3], blocks[2::3], blocks[3::3]):
        parts.setdefault(name, {})[kind] = text.strip()
    found = {name: p for name, p in parts.items() if "END" in p}
    err = "" if proc.returncode == 0 else (proc.stderr.strip() or f"coqc exited with status {proc.returncode}")
    return found, err


#: a per-lemma query of at least twice this many lemmas is split across coqc processes run at once
_PART_MIN = 4


def _run_query_parts(build: Path, modules: list[str], lemmas: list[FormalLemma],
                     locate: list[str] | tuple[str, ...] = (), prelude: str = _QUERY_PRELUDE
                     ) -> tuple[dict[str, dict[str, str]], str]:
    """:func:`_run_query` per lemma, the lemmas dealt round-robin to up to :func:`_jobs` coqc run at once, each with
    the same Requires (so the same printed names; ``locate`` is asked in the first); the blocks merged, the first
    error kept. Print Assumptions walks a lemma's dependencies again for every lemma: about 1.8 s per lemma of a file
    that loads MathComp-Analysis (30 such lemmas: 54 s in one coqc, 2026-12-06), so one process was most of
    `make formal`'s time. A lemma's printed assumptions do not depend on which others share its query."""
    n = min(_jobs(), len(lemmas) // _PART_MIN)
    if n <= 1:
        return _run_query(build, modules, lemmas, per_lemma=True, locate=locate, prelude=prelude)
    parts = [(lemmas[i::n], locate if i == 0 else ()) for i in range(n)]
    with ThreadPoolExecutor(max_workers=n) as pool:
        answers = list(pool.map(lambda p: _run_query(build, modules, p[0], per_lemma=True, locate=p[1],
                                                     prelude=prelude), parts))
    found: dict[str, dict[str, str]] = {}
    for part_found, _ in answers:
        found.update(part_found)
    return found, next((err for _, err in answers if err), "")


def _located(text: str) -> str | None:
    """The full name in Coq's ``Locate Term`` output (its first line: "Constant <full name>")."""
    m = re.match(r"\s*(?:Constant|Inductive|Constructor|Notation)\s+(\S+)", text or "")
    return m.group(1) if m else None


def _describe_axiom(full: str, texts: dict[str, str]) -> str:
    """Why an axiom that is not allowed is there: an Admitted proof or an assumption of this project, or another
    library's axiom."""
    parts = full.split(".")
    if parts[0] == LOGICAL_ROOT and len(parts) >= 3 and parts[1] in texts:
        mod, short = parts[1], parts[-1]
        code = strip_comments(texts[mod])
        decl = re.search(rf"^\s*(?:#\[[^\]]*\]\s*)?(?:Local\s+|Global\s+)?"
                         rf"(?:Lemma|Theorem|Corollary|Proposition|Fact|Remark|Definition|Example)\s+"
                         rf"{re.escape(short)}\b", code, re.M)
        if decl:
            end = re.search(r"\b(Qed|Defined|Admitted|Abort|Save)\s*\.", code[decl.end():])
            if end and end.group(1) == "Admitted":
                return f"{full}, a proof closed with Admitted ({mod}.v)"
        kind = re.search(rf"^\s*(Axioms?|Parameters?|Conjecture|Hypothes[ie]s|Variables?)\b[^.]*?\b"
                         rf"{re.escape(short)}\b", code, re.M)
        if kind:
            return f"{full}, an {kind.group(1).rstrip('s')} of this project ({mod}.v)"
        return f"{full}, an assumption of this project ({mod}.v)"
    return f"{full}, not an allowed axiom (allowed: {', '.join(ALLOWED_AXIOMS)})"


#: the stored verdicts, one file per key (a hash of everything a lemma's verdict depends on: coqc, the sources, the
#: runner), holding one entry per lemma asked so far: a lemma's verdict does not depend on which others were asked with
#: it, so a check of any subset of lemmas already asked (the ledger's LEMMAS after make formal's LEMMAS + PENDING) reads
#: them all from disk; before 2026-12-06 the key named the lemma set, and each set asked Coq again (82 s in make test).
#: Each entry says whether its axioms are an upper bound (asked in tuple mode): such an entry answers a tuple-mode
#: check only; a per-lemma entry answers both (per-lemma precision is more than tuple mode needs)
_RESULTS_PREFIX = "check-results-"
#: how many results files a build folder keeps (the most recently written)
_RESULTS_KEPT = 8
# a file that loads MathComp-Analysis or another classical library: its lemmas are asked one by one
_CLASSICAL_RE = re.compile(r"\bFrom\s+mathcomp\.(?:analysis|classical)\b|\bRequire\b[^.]*\b(?:Classical\w*|"
                           r"FunctionalExtensionality|ProofIrrelevance|ClassicalEpsilon|IndefiniteDescription)\b")


_ANALYSIS_RE = re.compile(r"\bFrom\s+mathcomp\.(?:analysis|classical)\b")


def _classical_modules(texts: dict[str, str], pattern: re.Pattern = _CLASSICAL_RE) -> set[str]:
    """Modules that load a classical library (pattern), directly or through a module of ours they require."""
    direct = {m for m, t in texts.items() if pattern.search(strip_comments(t))}
    out: set[str] = set()
    for m in _order(texts):
        if m in direct or _requires(texts[m]) & out:
            out.add(m)
    return out


def _query_group(build: Path, lemmas: list[FormalLemma], try_tuple: bool, tuple_policy: bool = False,
                 prelude: str = _QUERY_PRELUDE):
    """Ask Coq about one group of lemmas; (found blocks, {"lemma printed-name": full name}, refusals, upper) where
    upper is True when every lemma's assumptions are its tuple's (an upper bound of its own).

    With try_tuple, one Print Assumptions of the tuple of the group first (closed: every lemma is closed, exactly).
    With tuple_policy (check()'s tuple mode), the same query also locates every name an allowed axiom could be
    printed as: when each axiom the tuple lists resolves to an allowed one (full name) and nothing else is listed,
    every lemma is answered with the tuple's assumptions (upper True: a lemma's axioms are a subset of its tuple's).
    Otherwise, or when the tuple is outside the policy, Print Assumptions lemma by lemma with Locate of every name
    an allowed axiom could be printed as, and a second Locate query (same Requires, so the same names) for the
    others: a refusal names the lemma.
    """
    modules = sorted({l.module for l in lemmas})
    failed: dict[str, tuple] = {}
    candidates = _allowed_candidates()
    if try_tuple or tuple_policy:
        found, err = _run_query(build, modules, lemmas, per_lemma=False, locate=candidates if tuple_policy else (),
                                prelude=prelude)
        tuple_text = found.get(_ALL, {}).get("ASSUMPTIONS", "").strip()
        if not err and _ALL in found and all(l.name in found for l in lemmas):
            if tuple_text == CLOSED:
                for l in lemmas:
                    found[l.name]["ASSUMPTIONS"] = CLOSED
                return found, {}, failed, False
            axs, problems = parse_assumptions(tuple_text)
            named = {a: _located(found.get(a, {}).get("LOCATE", "")) for a in axs}
            if tuple_policy and axs and not problems and all(f in ALLOWED_AXIOMS for f in named.values()):
                for l in lemmas:
                    found[l.name]["ASSUMPTIONS"] = tuple_text
                return found, {f"{l.name} {a}": f for l in lemmas for a, f in named.items() if f}, failed, True
    found, err = _run_query_parts(build, modules, lemmas, locate=candidates, prelude=prelude)
    where = {l.name: modules for l in lemmas}
    if err and any(l.name not in found for l in lemmas):  # localise: one query per lemma left
        for l in lemmas:
            if l.name not in found:
                one, one_err = _run_query(build, [l.module], [l], per_lemma=True, locate=candidates, prelude=prelude)
                if l.name in one:
                    found[l.name] = one[l.name]
                    where[l.name] = [l.module]
                    found.update({f"{l.name} {k}": v for k, v in one.items() if "LOCATE" in v})
                else:
                    failed[l.name] = (False, f"Coq could not query {l.name}: {one_err or err}", "", "", (), False)
    located = {name: _located(v.get("LOCATE", "")) for name, v in found.items() if "LOCATE" in v}
    full: dict[str, str | None] = {}
    unknown: dict[tuple[str, ...], set[str]] = {}
    for l in lemmas:
        if l.name in failed:
            continue
        for a in parse_assumptions(found[l.name].get("ASSUMPTIONS", ""))[0]:
            f = located.get(f"{l.name} {a}", located.get(a) if where[l.name] == modules else None)
            if f in ALLOWED_AXIOMS:
                full[f"{l.name} {a}"] = f
            else:
                unknown.setdefault(tuple(where[l.name]), set()).add(a)
    for mods, names in unknown.items():  # name the refused axioms by their full names, where they were printed
        more, _ = _run_query(build, list(mods), [], per_lemma=True, locate=sorted(names), prelude=prelude)
        for l in lemmas:
            if tuple(where[l.name]) == mods:
                for a in names:
                    if a in more:
                        full.setdefault(f"{l.name} {a}", _located(more[a].get("LOCATE", "")))
    return found, full, failed, False


def _results_key(version: str, texts: dict[str, str], prelude: str = _QUERY_PRELUDE) -> str:
    h = hashlib.sha256()
    h.update(f"coqc {version}\n{' '.join(COQ_WARNINGS)}\n{ALLOWED_AXIOMS}\n".encode())
    h.update(f"prelude {prelude}\n".encode())  # what the queries loaded (query_prelude): the printed statements
    for mod, text in sorted(texts.items()):
        h.update(f"{mod}\0{text}\0".encode())
    h.update(Path(__file__).read_bytes())  # the runner itself (parsing, policy)
    return h.hexdigest()


def results_path(build: Path, key: str) -> Path:
    """The file holding the verdicts of the checks keyed ``key`` in the build folder ``build``."""
    return build / f"{_RESULTS_PREFIX}{key[:24]}.json"


_RESULT_FIELDS = ("accepted", "reason", "about", "assumptions", "axioms", "axioms_bound")


def _load_results(build: Path, key: str, per_lemma_axioms: bool = False) -> dict[str, tuple]:
    """The stored verdicts (by lemma name) when nothing they depend on changed (sources, coqc, runner); {} if none.
    With ``per_lemma_axioms``, only the verdicts asked lemma by lemma (an entry whose axioms are its tuple's upper
    bound, or that does not say, is left out: a per-lemma check asks Coq again)."""
    try:
        data = json.loads(results_path(build, key).read_text())
    except (OSError, ValueError):
        return {}
    if data.get("key") != key:
        return {}
    out = {name: (r["accepted"], r["reason"], r["about"], r["assumptions"], tuple(r["axioms"]),
                  bool(r.get("axioms_bound", True))) for name, r in data["results"].items()}
    return {name: r for name, r in out.items() if not (per_lemma_axioms and r[5])}


def _store_results(build: Path, key: str, results: dict[str, tuple]) -> None:
    """Add ``results`` to the verdicts stored under ``key`` (read again just before: two processes asking different
    lemmas at once may lose one's entries, which costs a later check a query, never a wrong verdict). A per-lemma
    entry is never replaced by a tuple-mode one (an upper bound) of the same lemma."""
    old = _load_results(build, key)
    merged = {**old, **{name: r for name, r in results.items() if not (r[5] and name in old and not old[name][5])}}
    data = {"key": key, "results": {name: dict(zip(_RESULT_FIELDS, r)) for name, r in merged.items()}}
    path = results_path(build, key)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # concurrent writers never share a temporary file
    tmp.write_text(json.dumps(data))
    tmp.replace(path)
    try:  # keep the newest few; a file removed under another process's feet only costs it a query
        older = sorted(build.glob(f"{_RESULTS_PREFIX}*.json"), key=lambda f: f.stat().st_mtime, reverse=True)
        for f in older[_RESULTS_KEPT:]:
            f.unlink(missing_ok=True)
    except OSError:
        pass
    try:
        (build / "check-results.json").unlink(missing_ok=True)  # the one shared file of before 2026-12-04
    except OSError:
        pass


#: the reviewed spec of what each accepted lemma states, as Coq prints it (About), in the source folder
STATEMENTS_FILE = "statements.txt"
_PIN_HEAD = "== "  # a pinned statement starts with "== <full Coq name>" on a line of its own
_PIN_PREAMBLE = """\
# The pinned statements: what each registered Coq lemma states, as Coq prints it (the first paragraph of
# `About`, run by theorems/formal/runner.py after `From CollapseVerify Require <modules>`). make formal compares
# Coq's printed statement with the one pinned here (whitespace runs count as one space) and refuses a lemma whose
# statement changed, or that has no pin, until this file is updated on purpose:
#     python3 theorems/formal/__init__.py --pin NAME...   (or --pin alone: every missing or changed statement)
# prints the old and the new statement of each lemma it pins; review the diff before committing it.
# A pin fixes the statement's text, not the definitions it names (rank_neutrality.LN, softmax_real.softmaxR, ...):
# a changed definition shows in the diff of its .v file, not here.
"""


def statement_of(about: str) -> str:
    """The statement in Coq's ``About`` output: its first paragraph (``name :`` and the type), stripped."""
    return about.strip().split("\n\n", 1)[0].strip()


def _same_statement(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def statements_path(source_dir: Path | str | None = None) -> Path:
    """The pinned-statements file of a source folder (``statements.txt`` beside the ``.v`` files)."""
    return Path(source_dir or SOURCE_DIR) / STATEMENTS_FILE


def load_statements(source_dir: Path | str | None = None) -> dict[str, str] | None:
    """{full lemma name: pinned statement} from the source folder's statements.txt; None when there is no such
    file (then statements are not compared: a scratch folder of a test). A malformed file is a ValueError naming
    the line."""
    path = statements_path(source_dir)
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    pins: dict[str, str] = {}
    name: str | None = None
    body: list[str] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.startswith(_PIN_HEAD):
            if name is not None:
                pins[name] = "\n".join(body).strip()
            name, body = line[len(_PIN_HEAD):].strip(), []
            if not name or name in pins:
                raise ValueError(f"{path}:{lineno}: {'a repeated pin ' + name if name else 'a pin without a name'}")
        elif name is None:
            if line.strip() and not line.startswith("#"):
                raise ValueError(f"{path}:{lineno}: text before the first '{_PIN_HEAD}<lemma name>' line")
        else:
            body.append(line)
    if name is not None:
        pins[name] = "\n".join(body).strip()
    return pins


def write_statements(pins: dict[str, str], source_dir: Path | str | None = None) -> Path:
    """Write {full name: statement} (in the given order) to the source folder's statements.txt, atomically."""
    path = statements_path(source_dir)
    parts = [_PIN_PREAMBLE]
    for name, stmt in pins.items():
        parts.append(f"\n{_PIN_HEAD}{name}\n{stmt.strip()}\n")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text("".join(parts))
    tmp.replace(path)
    return path


def _pin_verdict(name: str, about: str, pins: dict[str, str]) -> str | None:
    """Why an accepted lemma is refused by the pin (no pin; a changed statement), or None when it matches."""
    now = statement_of(about)
    if name not in pins:
        return (f"refused: no pinned statement for {name} in {STATEMENTS_FILE}; pin it on purpose "
                f"(python3 theorems/formal/__init__.py --pin {name}). Coq prints:\n{now}")
    if not _same_statement(pins[name], now):
        return (f"refused: the statement of {name} changed; update {STATEMENTS_FILE} on purpose "
                f"(python3 theorems/formal/__init__.py --pin {name}) if the new statement is meant.\n"
                f"pinned:\n{pins[name]}\nCoq now prints:\n{now}")
    return None


#: how coqchk re-checks our modules: "norec" (each of our modules checked, MathComp and the standard library
#: trusted as compiled) or "full" (every dependency checked too); COLLAPSE_VERIFY_COQCHK=full asks for the full check.
#: Measured on the 2-core machine (22 modules, load about 14): -norec 16.5 s wall, the full recursive check over
#: MathComp-Analysis much longer (see book/formal.md), so make formal runs -norec.
COQCHK_MODES = ("norec", "full")
_COQCHK_PREFIX = "coqchk-"


def _coqchk() -> str | None:
    return shutil.which("coqchk")


def coqchk_mode() -> str:
    mode = os.environ.get("COLLAPSE_VERIFY_COQCHK", "norec")
    return mode if mode in COQCHK_MODES else "norec"


def _coqchk_cmd(modules: list[str], mode: str) -> list[str]:
    names = [f"{LOGICAL_ROOT}.{m}" for m in modules]
    rest = [a for n in names for a in ("-norec", n)] if mode == "norec" else names
    return [_coqchk() or "coqchk", "-silent", "-Q", ".", LOGICAL_ROOT, *rest]


def _coqchk_key(build: Path, modules: list[str], mode: str) -> str:
    """A hash of what the verdict depends on: coqchk's mode and the stamps (content digests) of the .vo files."""
    h = hashlib.sha256(f"coqchk {coq_version()} {mode}\n".encode())
    for m in sorted(modules):
        try:
            stamp = (build / f"{m}.stamp").read_text()
            vo = hashlib.sha256((build / f"{m}.vo").read_bytes()).hexdigest()
        except OSError:
            stamp = vo = ""
        h.update(f"{m}\0{stamp}\0{vo}\0".encode())
    return h.hexdigest()


def _coqchk_path(build: Path, key: str) -> Path:
    return build / f"{_COQCHK_PREFIX}{key[:24]}.json"


def stored_coqchk(build: Path, modules: list[str], mode: str | None = None) -> dict | None:
    """The stored coqchk verdict for exactly these .vo files ({"failed": {module: text}, "seconds", "mode"}), or
    None when coqchk has not checked them (verify never runs coqchk: it only reads what make formal stored)."""
    for m in ((mode,) if mode else COQCHK_MODES):
        try:
            data = json.loads(_coqchk_path(build, _coqchk_key(build, modules, m)).read_text())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("failed"), dict):
            return data
    return None


def run_coqchk(source_dir: Path | str | None = None, modules: list[str] | None = None, mode: str | None = None,
               log=None) -> dict:
    """Re-check the compiled modules with coqchk, Coq's independent kernel checker, in one invocation (each
    dependency loaded once); on failure, module by module to name the ones it rejects. Stores and returns
    {"failed": {module: coqchk's words}, "seconds": wall time, "mode": mode}; "failed" is {"*": why} when coqchk
    is not installed."""
    src = Path(source_dir or SOURCE_DIR).resolve()
    build = build_dir(src)
    mode = mode or coqchk_mode()
    modules = sorted(modules if modules is not None else [p.stem for p in src.glob("*.v")])
    if _coqchk() is None:
        return {"failed": {"*": "coqchk not installed (it ships with Debian's coq package)"}, "seconds": 0.0,
                "mode": mode}
    t0 = time.perf_counter()
    proc = subprocess.run(_coqchk_cmd(modules, mode), cwd=build, capture_output=True, text=True)
    failed: dict[str, str] = {}
    if proc.returncode != 0:
        for m in modules:
            one = subprocess.run(_coqchk_cmd([m], "norec"), cwd=build, capture_output=True, text=True)
            if one.returncode != 0:
                failed[m] = (one.stderr + one.stdout).strip()[-2000:] or f"coqchk exited with {one.returncode}"
        if not failed:  # the joint run failed but no module alone does: a dependency (full mode) or the run itself
            failed["*"] = (proc.stderr + proc.stdout).strip()[-2000:] or f"coqchk exited with {proc.returncode}"
    seconds = time.perf_counter() - t0
    data = {"failed": failed, "seconds": round(seconds, 2), "mode": mode, "modules": modules}
    if log:
        log(f"{' '.join(_coqchk_cmd(modules, mode)[:5])} ... ({len(modules)} modules, {mode}): "
            f"{'ok' if not failed else 'REJECTED ' + ', '.join(failed)} in {seconds:.1f} s")
    path = _coqchk_path(build, _coqchk_key(build, modules, mode))
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data))
    tmp.replace(path)
    return data


_CHECK_CACHE: dict[tuple, dict[str, FormalResult]] = {}
#: one check() at a time in this process: a caller waits for a background check (start_check) and reads its cache
_CHECK_LOCK = threading.Lock()
#: the background check's thread, while there is one (start_check, cancel_check)
_BACKGROUND: list[threading.Thread] = []


def clear_check_cache() -> None:
    """Forget this process's check() results (the verdicts kept in _build/ stay, keyed by content)."""
    _CHECK_CACHE.clear()


def check(lemmas: tuple[FormalLemma, ...] | list[FormalLemma] = LEMMAS,
          source_dir: Path | str | None = None, compare_statements: bool = True,
          coqchk: bool = False, per_lemma_axioms: bool = False) -> dict[str, FormalResult]:
    """{lemma name: FormalResult}: compile what is stale, then ask Coq about every lemma.

    The lemmas are asked in two groups, in parallel: those of files that load MathComp-Analysis (or another
    classical library) and the others. For each group one coqc query gives About for every lemma and Print
    Assumptions of the tuple of all of them; when that is closed, every lemma is. In tuple mode (the default: what
    verify asks), a tuple that rests only on allowed axioms (each printed name located to its full name) accepts
    every lemma of its group, with the tuple's axioms as an upper bound of each lemma's
    (:attr:`FormalResult.axioms_bound`; a lemma's assumptions are a subset of its tuple's). With
    ``per_lemma_axioms`` (make formal, --pin, the book's formal page), or when the tuple is outside the policy, a
    second query prints the assumptions lemma by lemma, with Locate of every name an allowed axiom could be printed
    as; a third query (only when something is refused) locates the other names: a refusal names its lemma.
    accepted is True when the lemma is closed or rests only on ALLOWED_AXIOMS (by full name); False on a compile
    error, an unknown lemma, any other axiom (an Admitted proof, an axiom of ours, another library's), an unsafe
    flag, or (compare_statements, and the source folder has a statements.txt) a statement that differs from its pin
    or has none, or a module coqchk rejected; None when coqc is not installed. With ``coqchk`` (make formal), the
    compiled modules of the accepted lemmas are re-checked by coqchk in one run and the verdict stored; without it
    (verify), a stored verdict for the same .vo files is read (a rejection refuses the lemma) and coqchk is never
    run. Cached per process (keyed by the lemmas, the directory, the sources' text, the coqc version and the mode)
    and on disk (a per-lemma verdict answers a tuple-mode check too, never the reverse).
    """
    with _CHECK_LOCK:
        return _check(lemmas, source_dir, compare_statements, coqchk, per_lemma_axioms)


def start_check(lemmas: tuple[FormalLemma, ...] | list[FormalLemma] = LEMMAS,
                source_dir: Path | str | None = None, per_lemma_axioms: bool = False) -> threading.Thread | None:
    """Start :func:`check` of ``lemmas`` in ``source_dir`` (compiling what is stale, then the queries) in a
    background thread and return it (None when coqc or MathComp is not installed, or a background check already
    runs). The ledger starts it first and decides its other claims meanwhile: a later check() of the same lemmas waits
    for it and reads its result (check is cached per process); an error in the background is not kept (that check()
    computes again and meets it). The coqc processes are children of this process: :func:`cancel_check` ends them.
    ``per_lemma_axioms`` as for check() (verify's ledger: tuple mode, the default)."""
    if coq_version() is None or not mathcomp_available() or any(t.is_alive() for t in _BACKGROUND):
        return None
    lemmas = tuple(lemmas)

    def run() -> None:
        try:
            check(lemmas, source_dir, per_lemma_axioms=per_lemma_axioms)
        except Exception:  # noqa: BLE001 -- the foreground check() computes again and reports it
            pass
        finally:  # a cancelled check lowers the stop flag itself, once it has ended (cancel_check may time out first)
            _STOP.clear()

    thread = threading.Thread(target=run, name="formal-check", daemon=True)
    _BACKGROUND[:] = [thread]
    thread.start()
    return thread


def cancel_check(timeout: float = 10.0) -> None:
    """End a background check (:func:`start_check`) that still runs: its coqc processes are ended and it stores
    nothing; waits up to ``timeout`` s for its thread. A no-op when none runs (the ledger calls it when interrupted).
    The stop flag stays up until the thread has ended (the thread lowers it on its way out): lowered after a join
    that timed out, it let a thread still running start new coqc processes (review s5)."""
    thread = _BACKGROUND[0] if _BACKGROUND else None
    if thread is None or not thread.is_alive():
        return
    _STOP.set()
    try:
        with _RUNNING_LOCK:
            procs = list(_RUNNING)
        for proc in procs:
            with contextlib.suppress(OSError):
                proc.kill()
        thread.join(timeout)
    finally:
        if not thread.is_alive():
            _STOP.clear()


def _check(lemmas, source_dir, compare_statements, coqchk, per_lemma_axioms=False) -> dict[str, FormalResult]:
    src = Path(source_dir or SOURCE_DIR).resolve()
    lemmas = tuple(lemmas)
    version = coq_version()
    if version is None:
        return {l.name: FormalResult(None, NOT_INSTALLED, "", "", 0.0) for l in lemmas}
    if not mathcomp_available():
        return {l.name: FormalResult(None, NO_MATHCOMP, "", "", 0.0) for l in lemmas}
    texts = {p.stem: p.read_text() for p in sorted(src.glob("*.v"))}
    pins = load_statements(src) if compare_statements else None
    key = (str(src), version, analysis_available(), lemmas, tuple(sorted(texts.items())), coqchk, per_lemma_axioms,
           None if pins is None else tuple(sorted(pins.items())))
    if key in _CHECK_CACHE:
        return _CHECK_CACHE[key]
    t0 = time.perf_counter()
    errors = compile_sources(src)
    # name -> (accepted, reason, about, assumptions, axioms, axioms_bound)
    results: dict[str, tuple[bool | None, str, str, str, tuple[str, ...], bool]] = {}
    to_query: list[FormalLemma] = []
    needs_analysis = set() if analysis_available() else _classical_modules(texts, _ANALYSIS_RE)
    for l in {l.name: l for l in lemmas}.values():  # a lemma may support several claims: query it once
        mod = l.module
        if mod in needs_analysis:
            results[l.name] = (None, NO_ANALYSIS, "", "", (), False)
        elif mod not in texts:
            results[l.name] = (False, f"no file {l.file} in {src}", "", "", (), False)
        elif errors.get(mod):
            results[l.name] = (False, f"{l.file} does not compile:\n{errors[mod]}", "", "", (), False)
        elif not l.name.startswith(f"{LOGICAL_ROOT}.{mod}.") or not _declared(texts[mod], l.short):
            results[l.name] = (False, f"no lemma {l.short} declared in {l.file} (name {l.name})", "", "", (),
                               False)
        else:
            to_query.append(l)
    if to_query:
        build = build_dir(src)
        prelude = query_prelude(texts, pinned=not compare_statements or (src / STATEMENTS_FILE).is_file())
        cache_key = _results_key(version, texts, prelude)
        stored = _load_results(build, cache_key, per_lemma_axioms)
        results.update({l.name: stored[l.name] for l in to_query if l.name in stored})
        to_ask = [l for l in to_query if l.name not in stored]
        if to_ask:
            # two groups, queried in parallel: lemmas of files that load MathComp-Analysis (or any classical
            # library), whose tuple is never closed, and the others. Tuple mode: each group through one Print
            # Assumptions of its tuple (within the policy: every lemma accepted, the tuple's axioms an upper bound).
            # Per lemma: the classical group lemma by lemma, the others first through their tuple (closed or not)
            classical = _classical_modules(texts)
            groups = [[l for l in to_ask if l.module not in classical],
                      [l for l in to_ask if l.module in classical]]
            asked = [(i, g) for i, g in enumerate(groups) if g]
            with ThreadPoolExecutor(max_workers=2) as pool:
                answers = list(pool.map(lambda ig: _query_group(build, ig[1], try_tuple=ig[0] == 0,
                                                                tuple_policy=not per_lemma_axioms,
                                                                prelude=prelude), asked))
            found: dict[str, dict[str, str]] = {}
            full: dict[str, str | None] = {}
            upper: dict[str, str] = {}  # lemma -> the tuple it was asked in (its axioms are the tuple's)
            for (i, group), (group_found, group_full, failed, group_upper) in zip(asked, answers, strict=True):
                found.update(group_found)
                full.update(group_full)
                results.update(failed)
                if group_upper:
                    what = ("of files that load MathComp-Analysis (or another classical library)" if i else
                            "of files that load no classical library")
                    upper.update({l.name: f"the tuple of the {len(group)} lemmas {what}" for l in group})
            for l in to_query:
                if l.name in results:
                    continue
                about, assumptions = found[l.name].get("ABOUT", ""), found[l.name].get("ASSUMPTIONS", "")
                axs, problems = parse_assumptions(assumptions)
                names = tuple(dict.fromkeys(full.get(f"{l.name} {a}") or a for a in axs))
                bad = [a for a in names if a not in ALLOWED_AXIOMS]
                if not axs and not problems:
                    results[l.name] = (True, CLOSED, about, assumptions, (), False)
                elif bad or problems:
                    why = [_describe_axiom(a, texts) for a in bad] + problems
                    results[l.name] = (False, "refused: it rests on " + "; ".join(why) + "\nCoq reports:\n"
                                       + assumptions, about, assumptions, names, l.name in upper)
                elif l.name in upper:  # the tuple's axioms, all allowed: this lemma rests on at most them
                    ordered = tuple(a for a in ALLOWED_AXIOMS if a in names)
                    results[l.name] = (True, f"accepted: it rests on at most the allowed axioms "
                                             f"({axiom_words(ordered)}): {', '.join(ordered)}; asked for "
                                             f"{upper[l.name]} together (a lemma rests on a subset of its tuple's "
                                             "axioms); `make formal` lists each lemma's own",
                                       about, assumptions, ordered, True)
                else:
                    ordered = tuple(a for a in ALLOWED_AXIOMS if a in names)
                    results[l.name] = (True, f"accepted: it rests on the allowed axioms ({axiom_words(ordered)}): "
                                             + ", ".join(ordered), about, assumptions, ordered, False)
            if all(not r[1].startswith("Coq could not query") for r in results.values()):
                _store_results(build, cache_key, {l.name: results[l.name] for l in to_ask})
    seconds = time.perf_counter() - t0
    if pins is not None:  # a lemma the policy accepts must state what its pin says (not part of the stored verdicts)
        for name, (accepted, _reason, about, assumptions, axioms, bound) in list(results.items()):
            pin_why = _pin_verdict(name, about, pins) if accepted else None
            if pin_why:
                results[name] = (False, pin_why, about, assumptions, axioms, bound)
    checked: dict[str, bool | None] = {}
    mods = sorted({l.module for l in lemmas if results.get(l.name, (None,))[0]})
    if mods:  # the independent re-check of the accepted lemmas' modules
        build = build_dir(src)
        verdict = stored_coqchk(build, mods, coqchk_mode() if coqchk else None)
        if verdict is None and coqchk:  # not yet checked for these very .vo files
            verdict = run_coqchk(src, mods)
        if verdict is not None:
            failed = verdict["failed"]
            for name, (accepted, _why, about, assumptions, axioms, bound) in list(results.items()):
                mod = name.split(".")[1] if name.count(".") >= 2 else ""
                if not accepted or mod not in mods:
                    continue
                bad = failed.get(mod) or failed.get("*")
                checked[name] = not bad
                if bad:
                    results[name] = (False, f"refused: coqchk (the independent kernel check, {verdict['mode']}) "
                                            f"rejects {mod}.vo:\n{bad}", about, assumptions, axioms, bound)
    out = {name: FormalResult(accepted, reason, about, assumptions, seconds, axioms, checked.get(name), bound)
           for name, (accepted, reason, about, assumptions, axioms, bound) in results.items()}
    out = {l.name: out[l.name] for l in lemmas}
    _CHECK_CACHE[key] = out
    return out


def pin(names: list[str] | tuple[str, ...] = (), lemmas: tuple[FormalLemma, ...] | list[FormalLemma] | None = None,
        source_dir: Path | str | None = None, log=print) -> int:
    """Pin, on purpose, the statement Coq prints for the named lemmas (all: every missing or changed one) in the
    source folder's statements.txt, printing the old and the new statement of each; only lemmas the axiom policy
    accepts are pinned. Pins of lemmas no longer registered are dropped (and said). Returns how many changed."""
    lemmas = tuple(LEMMAS + PENDING if lemmas is None else lemmas)
    unknown = sorted(set(names) - {l.name for l in lemmas})
    if unknown:
        raise ValueError(f"--pin: not a registered lemma: {', '.join(unknown)}")
    old = load_statements(source_dir) or {}
    results = check(lemmas, source_dir, compare_statements=False, per_lemma_axioms=True)
    new: dict[str, str] = {}
    changed = 0
    for name in dict.fromkeys(l.name for l in lemmas):
        r, was = results[name], old.get(name)
        now = statement_of(r.about) if r.accepted else None
        if (not names or name in names) and now is not None and (was is None or not _same_statement(was, now)):
            log(f"pin {name}\n  old: {was if was is not None else '(none)'}\n  new: {now}".replace("\n", "\n      "))
            new[name], changed = now, changed + 1
        elif was is not None:
            new[name] = was
        elif name in names:
            log(f"not pinned: {name} is not accepted: {r.reason.splitlines()[0] if r.reason else 'not checked'}")
    for name in sorted(set(old) - set(new)):
        log(f"dropped the pin of {name}: no longer registered")
        changed += 1
    if changed:
        write_statements(new, source_dir)
    return changed


def prepare() -> int:
    """What ``make verify`` runs beside the virtualenv's set-up (``--prepare``): compile what is stale and ask Coq
    what verify's ledger asks (:func:`check` of :data:`LEMMAS` in tuple mode, no coqchk), storing the verdicts in
    ``_build/`` keyed by content, so that a fresh clone's ledger reads them instead of waiting for coqc. It decides
    nothing itself: verify still applies the policy and the pins to what it reads (a stored verdict is keyed by the
    sources' text and the coqc version, so an edited file is compiled and asked again). Always exits 0, also when a
    file does not compile (named in its line) or a lemma is refused: each is verify's verdict to print, and verify
    runs after it either way."""
    version = coq_version()
    if version is None or not mathcomp_available():
        print(f"formal --prepare: {NOT_INSTALLED if version is None else NO_MATHCOMP}: nothing to prepare")
        return 0
    t0 = time.perf_counter()
    errors = {m: e for m, e in compile_sources().items() if e}
    results = check(LEMMAS)
    ok = sum(bool(r.accepted) for r in results.values())
    print(f"formal --prepare: Coq {version}: {len(results)} lemmas compiled and asked as verify asks "
          f"({ok} accepted; verify prints the verdicts) in {time.perf_counter() - t0:.1f} s"
          + (f"; {len(errors)} file(s) do not compile: {', '.join(sorted(errors))}" if errors else ""))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Print one line per lemma; exit 1 unless every lemma is accepted and no forbidden word appears.

    ``--pin [NAME ...]`` first pins the statements (see :func:`pin`), then checks as usual."""
    argv = list(argv or [])
    status = 0
    if argv == ["--prepare"]:
        return prepare()
    if argv and argv[0] == "--pin":
        if not mathcomp_available():
            print("formal: --pin needs coqc and MathComp")
            return 1
        try:
            n = pin(argv[1:])
        except ValueError as exc:
            print(f"formal: {exc}")
            return 2
        print(f"formal: {n} pinned statement(s) written to {statements_path()}" if n else "formal: every pin agrees")
    elif argv:
        print(f"formal: unknown arguments {' '.join(argv)} (give --pin [NAME ...], --prepare or nothing)")
        return 2
    for file, line, word in scan_forbidden():
        print(f"FORBIDDEN {word!r} at {file}:{line}")
        status = 1
    version = coq_version()
    if version is None:
        print(f"formal: {NOT_INSTALLED} (Debian/Ubuntu: apt-get install coq libcoq-mathcomp-algebra)")
        return status
    if not mathcomp_available():
        print(f"formal: {NO_MATHCOMP}")
        return 1
    t0 = time.perf_counter()
    compile_sources(log=print)
    results = check(LEMMAS + PENDING, coqchk=True, per_lemma_axioms=True)  # each lemma's own axioms
    for lemma in LEMMAS:
        r = results[lemma.name]
        mark = "closed" if r.closed else "accepted" if r.accepted else "NOT RUN" if r.accepted is None else "REFUSED"
        where = lemma.claim + (f" [{lemma.reading}]" if lemma.reading else "")
        tail = f"  ({r.axiom_words})" if r.accepted and r.axioms else ""
        print(f"{mark:9} {lemma.scope:8} {where:40} {lemma.name}{tail}")
        if r.accepted is None:
            print("    " + r.reason)
        elif not r.accepted:
            print("    " + r.reason.replace("\n", "\n    "))
            status = 1
    if PENDING:
        print("proved, awaiting a reading to attach to (not evidence):")
    for lemma in PENDING:
        r = results[lemma.name]
        mark = "closed" if r.closed else "accepted" if r.accepted else "NOT RUN" if r.accepted is None else "REFUSED"
        where = lemma.claim + (f" [{lemma.reading}]" if lemma.reading else "")  # as for LEMMAS (a headline: None)
        print(f"{mark:9} {lemma.scope:8} {where:40} {lemma.name}")
        if r.accepted is False:
            print("    " + r.reason.replace("\n", "\n    "))
            status = 1
    # the modules coqchk re-checked, as check() chose them (of LEMMAS and PENDING: the stored verdict's key)
    mods = sorted({l.module for l in LEMMAS + PENDING if results[l.name].coqchk is not None})
    results = {name: r for name, r in results.items() if any(l.name == name for l in LEMMAS)}
    n_ok = sum(bool(r.accepted) for r in results.values())
    n_closed = sum(bool(r.closed) for r in results.values())
    verdict = stored_coqchk(build_dir(), mods, coqchk_mode()) if mods else None
    if verdict is not None:
        trusted = ", dependencies trusted as compiled" if verdict["mode"] == "norec" else ""
        print(f"formal: coqchk ({verdict['mode']}{trusted}) re-checked {len(mods)} modules in one run: "
              + (f"all pass ({verdict['seconds']} s)" if not verdict["failed"] else
                 f"REJECTED {', '.join(sorted(verdict['failed']))}"))
    print(f"formal: Coq {version}: {n_ok}/{len(results)} lemmas ({len(LEMMAS)} claim attachments) accepted, "
          f"{n_closed} of them closed under the global context, {n_ok - n_closed} on the allowed classical axioms "
          f"only (each statement as pinned in {STATEMENTS_FILE}"
          + (", each module re-checked by coqchk" if verdict is not None and not verdict["failed"] else "")
          + f"; {time.perf_counter() - t0:.1f} s)")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
