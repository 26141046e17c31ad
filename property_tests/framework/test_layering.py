"""The house's arrows point down: the exact layer stands alone, and no two files import each other in a ring.

The import graph is built from the source (AST), not from ``sys.modules``: every ``import`` and ``from ... import``
statement at any depth (inside functions, ``if`` blocks, ``try``), plus the string argument of
``importlib.import_module("...")``. Each import is resolved to the most specific file of the project it names
(``from theorems import claims`` -> ``theorems/framework/``, ``from . import x`` -> the sibling module ``x`` when there
is one, else the package's ``__init__.py``); importing a submodule adds no edge to its parent packages.
"""
from __future__ import annotations

import ast
import functools
import importlib
from pathlib import Path

import pytest

from proofs_numeric.ledger import registry
from proofs_numeric.witnesses import evidence

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("theorems", "proofs_numeric", "property_tests", "benchmarks")

#: one worker runs this module's tests, so one builds the import graph (:func:`graph`)
pytestmark = pytest.mark.xdist_group("layering")


def _files() -> dict[str, Path]:
    """dotted module name -> file, for every .py file of the project's packages."""
    out = {}
    for pkg in PACKAGES:
        for p in sorted((ROOT / pkg).rglob("*.py")):
            if "_build" in p.parts:
                continue
            parts = list(p.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = p
    return out


FILES = _files()


def _module_of(path: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    is_pkg = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_pkg else parts), is_pkg


def _resolve(name: str) -> str | None:
    """The most specific project module a dotted name refers to (None outside the project)."""
    parts = name.split(".")
    while parts:
        cand = ".".join(parts)
        if cand in FILES:
            return cand
        parts = parts[:-1]
    return None


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The absolute module name of ``from <node.module> import ...`` (relative imports resolved in ``package``)."""
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(path: Path) -> set[str]:
    """Every project module the file imports, at any depth (see the module docstring)."""
    mod, is_pkg = _module_of(path)
    package = mod if is_pkg else mod.rpartition(".")[0]
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base_name = _absolute(node, package)
            for a in node.names:  # `from pkg import sub` names the submodule when there is one
                names.add(f"{base_name}.{a.name}" if f"{base_name}.{a.name}" in FILES else base_name)
        elif (isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))
              and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            names.add(node.args[0].value)
    out = {r for r in map(_resolve, names) if r is not None}
    out.discard(mod)
    return out


@functools.lru_cache(maxsize=None)
def graph() -> dict[str, set[str]]:
    """The project's import graph (module -> the project modules it imports), built on first use, not at collection:
    every xdist worker collects this module, and parsing every file took 2.4 s (2026-12-04). The module's tests are
    one xdist group (``pytestmark``), so one worker builds it. Callers must not change the sets."""
    return {mod: imports_of(p) for mod, p in FILES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one file (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_layering_the_graph_sees_imports_at_any_depth():
    """The parser finds what it must: a function-level import, a relative one, and the top floor's two layers."""
    assert "theorems.framework" in graph()["theorems.formal.evidence"]
    assert "proofs_numeric.witnesses.dong_collapse" in graph()["proofs_numeric.witnesses.evidence"]
    assert {"theorems.framework", "proofs_numeric.witnesses.real_model"} <= graph()["proofs_numeric.ledger.model_check"]
    assert "theorems.exact.layernorm" in graph()["theorems.paper.rank_neutrality"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_layering_theorems_never_import_proofs_numeric():
    """No file of the exact layer imports the numeric layer, at any depth, by statement or by importlib."""
    bad = {m: sorted(d for d in deps if d.startswith("proofs_numeric")) for m, deps in graph().items()
           if m.startswith("theorems")}
    assert {m: d for m, d in bad.items() if d} == {}


@pytest.mark.parametrize("path", sorted(p for p in (ROOT / "theorems").rglob("*") if p.is_file()
                                        and "_build" not in p.parts and p.suffix in (".py", ".v", ".json", "")),
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_layering_theorems_never_name_proofs_numeric(path):
    """Nor does any of its files name it: no dotted string ``proofs_numeric.``, no path ``proofs_numeric/``."""
    text = path.read_text(errors="replace")
    assert "proofs_numeric." not in text and "proofs_numeric/" not in text and '"proofs_numeric"' not in text


def _room(mod: str) -> str:
    """The room of a module of ``theorems``: framework, exact, paper, conjectures, formal, facade or root."""
    parts = mod.split(".")
    if len(parts) == 1:
        return "root"
    if parts[1] in ("framework", "exact", "paper", "conjectures", "formal"):
        return parts[1]
    return "facade"


#: what each room of ``theorems`` may import (rooms of the same package; the formal runner is stdlib-only)
ALLOWED_ROOMS = {
    "framework": {"framework"},
    "exact": {"exact"},
    "paper": {"exact", "framework"},
    "conjectures": {"facade", "exact", "conjectures"},
    "facade": {"exact", "framework"},
    "formal": {"framework", "formal", "root"},
    "root": {"framework", "formal", "paper", "conjectures", "exact"},
}


#: run by ``make formal`` as ``python3 theorems/formal/__init__.py`` (no venv): they import only each other
STDLIB_ONLY = ("theorems.formal", "theorems.formal.runner", "theorems.formal.lemmas")


def room_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a ``theorems`` module that its room does not allow, and every import between two
    ``paper`` modules (siblings on one floor: what two of them share is a kernel and belongs in ``exact/``)."""
    out = []
    for mod, deps in sorted(graph.items()):
        if not mod.startswith("theorems"):
            continue
        room = _room(mod)
        for dep in sorted(d for d in deps if d.startswith("theorems")):
            droom = _room(dep)
            if droom not in ALLOWED_ROOMS[room]:
                out.append(f"{mod} ({room}) imports {dep} ({droom})")
    for mod in STDLIB_ONLY:  # the Coq runner and its lemma table run without the venv: only each other
        extra = sorted(d for d in graph.get(mod, ()) if d.startswith("theorems") and d not in STDLIB_ONLY)
        if extra:
            out.append(f"{mod} (the Coq runner or its table, stdlib only) imports {extra}")
    return out


def test_layering_every_room_imports_only_what_it_may():
    """framework/ imports nothing of the project; exact/ imports exact/ only (no claim, no framework); paper/
    stands on exact/ and framework/ and never on a sibling; conjectures/ on the façades, exact/ and each other."""
    assert room_violations(graph()) == []


def test_layering_a_planted_sideways_import_between_paper_modules_is_found(tmp_path):
    """The rule can fail: a paper module importing another paper module (and the framework importing a kernel)."""
    planted = dict(graph())
    planted["theorems.paper.recovery_ambiguity"] = graph()["theorems.paper.recovery_ambiguity"] | {
        "theorems.paper.head_channel"}
    planted["theorems.framework.verdict"] = graph()["theorems.framework.verdict"] | {"theorems.exact.linalg"}
    assert room_violations(planted) == [
        "theorems.framework.verdict (framework) imports theorems.exact.linalg (exact)",
        "theorems.paper.recovery_ambiguity (paper) imports theorems.paper.head_channel (paper)"]
    # and the parser sees a planted import in a real file
    f = tmp_path / "x.py"
    f.write_text("def f():\n    from .head_channel import PROOF_STEPS\n")
    tree = ast.parse(f.read_text())
    assert any(isinstance(n, ast.ImportFrom) and n.module == "head_channel" for n in ast.walk(tree))


def test_layering_the_formal_runner_and_table_import_only_each_other():
    """The runner (theorems.formal.runner) and the lemma table (theorems.formal.lemmas) run without the venv
    (make formal): a planted import of the framework by either is found; the real graph has them import only each
    other (the package re-exports both)."""
    g = graph()
    assert "theorems.formal.lemmas" in g["theorems.formal.runner"]
    assert {"theorems.formal.lemmas", "theorems.formal.runner"} <= g["theorems.formal"]
    planted = dict(g)
    planted["theorems.formal.runner"] = g["theorems.formal.runner"] | {"theorems.framework"}
    assert room_violations(planted) == ["theorems.formal.runner (the Coq runner or its table, stdlib only) imports "
                                        "['theorems.framework']"]


def floors(graph: dict[str, set[str]], prefix: str = "theorems") -> dict[str, int]:
    """The floor of each module: 0 for one that imports no project module, else 1 + the highest floor it imports."""
    memo: dict[str, int] = {}

    def floor(m: str) -> int:
        if m not in memo:
            memo[m] = 0
            deps = [d for d in graph.get(m, ()) if d.startswith(prefix) and d != m]
            memo[m] = 1 + max(map(floor, deps)) if deps else 0
        return memo[m]
    return {m: floor(m) for m in graph if m.startswith(prefix)}


#: the numeric layer's rooms, top to bottom: each may import its own room and the rooms below it, never one above
#: (``__main__`` and ``cli`` are the top floor; ``output`` and the package itself are core: the one write rule and
#: the layer's registration of what decides verdicts)
NUMERIC_ORDER = ("cli", "ledger", "witnesses", "model", "core")


def numeric_room(mod: str) -> str:
    """The room of a ``proofs_numeric`` module."""
    parts = mod.split(".")
    if len(parts) == 1 or parts[1] in ("output",):
        return "core"
    if parts[1] == "__main__":
        return "cli"
    return parts[1]


def numeric_room_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a ``proofs_numeric`` module that points up (or sideways into a room that is not its own and
    not below it), in :data:`NUMERIC_ORDER`."""
    out = []
    rank = {r: i for i, r in enumerate(NUMERIC_ORDER)}
    for mod, deps in sorted(graph.items()):
        if not mod.startswith("proofs_numeric"):
            continue
        room = numeric_room(mod)
        for dep in sorted(d for d in deps if d.startswith("proofs_numeric")):
            droom = numeric_room(dep)
            if rank[droom] < rank[room]:
                out.append(f"{mod} ({room}) imports {dep} ({droom})")
    return out


def test_layering_the_numeric_layer_has_its_rooms():
    """Every module of ``proofs_numeric`` is in one of the named rooms (a new top-level module must be placed)."""
    rooms = {numeric_room(m) for m in FILES if m.startswith("proofs_numeric")}
    assert rooms <= set(NUMERIC_ORDER), sorted(rooms - set(NUMERIC_ORDER))


def test_layering_the_numeric_layer_imports_only_down():
    """cli > ledger > witnesses > model > core: no arrow of the numeric layer points up."""
    assert numeric_room_violations(graph()) == []


def test_layering_a_planted_upward_numeric_import_is_found():
    """The rule can fail: the model stack importing a witness, the core importing the ledger, the ledger the cli."""
    planted = dict(graph())
    planted["proofs_numeric.model.sites"] = graph()["proofs_numeric.model.sites"] | {
        "proofs_numeric.witnesses.rank_contraction"}
    planted["proofs_numeric.output"] = graph()["proofs_numeric.output"] | {"proofs_numeric.ledger.load"}
    planted["proofs_numeric.ledger.scaffold"] = graph()["proofs_numeric.ledger.scaffold"] | {
        "proofs_numeric.cli.inputs"}
    assert numeric_room_violations(planted) == [
        "proofs_numeric.ledger.scaffold (ledger) imports proofs_numeric.cli.inputs (cli)",
        "proofs_numeric.model.sites (model) imports proofs_numeric.witnesses.rank_contraction (witnesses)",
        "proofs_numeric.output (core) imports proofs_numeric.ledger.load (ledger)"]


def numeric_floors() -> dict[str, int]:
    """The floor of each numeric module within the numeric layer (the note draws them)."""
    return floors(graph(), "proofs_numeric")


def test_layering_no_cycle_between_files():
    assert _cycles(graph()) == []


def test_layering_every_attached_numeric_check_names_a_registered_reading():
    """An EVIDENCE key that names no claim or reading would silently attach nothing."""

    known = {(c.id, r.key) for c in registry() for r in c.all_readings()}
    assert sorted(evidence.attached_readings() - known) == []


def private_names_used_across_modules() -> list[str]:
    """``from project.module import _name`` and ``alias._name`` where ``alias`` is a project module imported here."""
    out = []
    for mod, path in FILES.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        is_pkg = path.name == "__init__.py"
        package = mod if is_pkg else mod.rpartition(".")[0]
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if _resolve(a.name) == a.name and a.asname:
                        aliases[a.asname] = a.name
            elif isinstance(node, ast.ImportFrom):
                base_name = _absolute(node, package)
                if _resolve(base_name) is None:
                    continue
                for a in node.names:
                    full = f"{base_name}.{a.name}"
                    if full in FILES:
                        aliases[a.asname or a.name] = full
                    elif a.name.startswith("_") and not a.name.startswith("__"):
                        out.append(f"{mod}: from {base_name} import {a.name}")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                out.append(f"{mod}: {node.value.id}.{node.attr} ({aliases[node.value.id]})")
    return sorted(set(out))


#: the one deliberate exception: the verdict model's mutant tests call its private Evidence factory to show that
#: it refuses unknown kinds and scopes (making it public would invite evidence built without a typed constructor)
ALLOWED_PRIVATE = {"property_tests.framework.test_claims_mutants: E._ev (theorems.framework.evidence)",
                   # the generic form's rule, boundary by boundary (mutation-resistant tests of private predicates)
                   "property_tests.framework.test_generic: V._decisive_failure (theorems.framework.verdict)",
                   "property_tests.framework.test_generic: V._set_aside (theorems.framework.verdict)",
                   # the p-adic certificate's mutant tests check its private lifting step (as those of the verdict)
                   "property_tests.exact.test_certified_rank_mutants: P._inverse_mod_power (theorems.exact.padic_rank)",
                   # and its private residues mod q (the fast np.remainder of the inverse mod q), over the exact range
                   "property_tests.exact.test_certified_rank_mutants: P._residues (theorems.exact.padic_rank)",
                   # and the largest magnitude that sizes its modulus, read without a temporary
                   "property_tests.exact.test_certified_rank_mutants: P._absmax (theorems.exact.padic_rank)",
                   # an interrupted lifting (a block that fails while another runs) and the pool's count of work in
                   # flight, which park_blas_workers reads: no public call interrupts a lifting deterministically
                   "property_tests.exact.test_certified_rank_mutants: P._lift (theorems.exact.padic_rank)",
                   "property_tests.exact.test_certified_rank_mutants: P._lift_block (theorems.exact.padic_rank)",
                   "property_tests.exact.test_certified_rank_mutants: R._INFLIGHT (theorems.exact.blas_runtime)",
                   "property_tests.exact.test_certified_rank_mutants: R._ended (theorems.exact.blas_runtime)",
                   # the real OpenBLAS's (get, set) as the runtime found them through threadpoolctl: the tests of
                   # threadpoolctl's one-owner rule set the count another thread then sees
                   "property_tests.exact.test_certified_rank_mutants: R._openblas (theorems.exact.blas_runtime)",
                   # the lifting's in-place steps (issue 59): the lifting's actual digits and partial sums, recorded
                   # through its kernels, and the once-per-process kernels reset to test the exactness gate
                   "property_tests.exact.test_lift_kernels: P._lift (theorems.exact.padic_rank)",
                   "property_tests.exact.test_lift_kernels: P._lift_block (theorems.exact.padic_rank)",
                   "property_tests.exact.test_lift_kernels: R._KERNELS (theorems.exact.blas_runtime)",
                   # the resume test wraps the private record consumer to interrupt a run in the middle of a write
                   "property_tests.interface.test_model_check: MC._consume (proofs_numeric.ledger.model_check)"}


def test_layering_nothing_private_is_imported_across_modules():
    """A name shared between modules is public: no ``from m import _x``, no ``m._x`` (monkeypatched seams by
    string name in tests are not imports)."""
    assert [u for u in private_names_used_across_modules() if u not in ALLOWED_PRIVATE] == []


#: every theorem of the paper under one name in all four places
SLUGS = ("rank_neutrality", "residual_obstruction", "mlp_role", "head_channel", "recovery_ambiguity",
         "rank_contraction", "symmetries", "dong_collapse", "real_model", "related_work", "dong_explainer")


@pytest.mark.parametrize("slug", SLUGS)
def test_layering_one_name_per_theorem_in_four_places(slug):
    """theorems/paper/<slug>.py, proofs_numeric/witnesses/<slug>.py (or the theorem module's docstring says why there is
    none), a property_tests/**/test_<slug>.py and book/chapters/<slug>.md."""
    theorem = ROOT / "theorems" / "paper" / f"{slug}.py"
    assert theorem.is_file()
    assert (ROOT / "proofs_numeric" / "witnesses" / f"{slug}.py").is_file() or "No numeric module:" in (
        ast.get_docstring(ast.parse(theorem.read_text())) or "")
    assert list((ROOT / "property_tests").rglob(f"test_{slug}.py"))
    assert (ROOT / "book" / "chapters" / f"{slug}.md").is_file()
    assert f"chapters/{slug}" in (ROOT / "book" / "_toc.yml").read_text()


@pytest.mark.parametrize("slug", SLUGS)
def test_layering_numeric_modules_are_in_the_evidence_registry(slug):
    """Each numeric module of a slug is collected by the evidence registry (an EVIDENCE table, possibly empty); a slug
    whose theorem module says "No numeric module:" has none, and no module of that name is collected."""
    if not (ROOT / "proofs_numeric" / "witnesses" / f"{slug}.py").is_file():
        doc = ast.get_docstring(ast.parse((ROOT / "theorems" / "paper" / f"{slug}.py").read_text())) or ""
        assert "No numeric module:" in doc
        assert all(m.__name__.rpartition(".")[2] != slug for m in evidence.NUMERIC_MODULES)
        return
    mod = importlib.import_module(f"proofs_numeric.witnesses.{slug}")
    assert isinstance(getattr(mod, "EVIDENCE", None), dict)
    assert mod in evidence.NUMERIC_MODULES
