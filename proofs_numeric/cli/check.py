"""``check``: a theorem's hypotheses and conclusion on the user's own input."""
from __future__ import annotations

import argparse
import json

from theorems.exact.input import BadInput

from .common import READING
from .inputs import LIMITS, UsageError, read_matrix, read_vector

__all__ = ["add_parsers", "cmd_check", "CHECK_THEOREMS"]


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


def cmd_check(args) -> int:
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


def add_parsers(sub) -> None:
    """Add this module's subcommand(s) to the parser's subparsers."""
    c = sub.add_parser("check", help="check a theorem's hypotheses and conclusion on your own input",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_CHECK_EPILOG + "\n\n" + READING)
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
    c.set_defaults(run=cmd_check)
