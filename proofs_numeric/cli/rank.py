"""``rank``: the certified exact rank of the user's matrix, with the float64 numerical rank beside it."""
from __future__ import annotations

import argparse
import json

from .common import READING
from .inputs import LIMITS, UsageError, read_matrix

__all__ = ["add_parsers", "cmd_rank", "numerical_rank"]


def cmd_rank(args) -> int:
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
    num = numerical_rank(M, args.rtol)
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
            print("  the exact rank above is the rank of exactly these numbers as read (certified).")
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


def numerical_rank(M, rtol):
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


def add_parsers(sub) -> None:
    """Add this module's subcommand(s) to the parser's subparsers."""
    rk = sub.add_parser("rank", help="certified exact rank of your matrix (JSON or .npy)",
                        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=READING)
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
    rk.set_defaults(run=cmd_rank)
