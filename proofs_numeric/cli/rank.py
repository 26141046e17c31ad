"""``rank``: the certified exact rank of the user's matrix, with the float64 numerical rank beside it."""
from __future__ import annotations

import argparse
import io
import json
import sys

import numpy as np

from proofs_numeric.cli.common import READING
from proofs_numeric.cli.inputs import (
    LIMITS,
    SEED_MAX,
    UsageError,
    add_deprecated_seed,
    check_range,
    resolve_deprecated_seed,
)
from proofs_numeric.core.float_hints import describe_hint
from proofs_numeric.core.float_hints import numerical_rank as hint_rank
from proofs_numeric.output import marked
from theorems.exact.certified_rank import certified_rank
from theorems.exact.reader import READER_LIMITS, matrix_from, read_matrix

__all__ = ["add_parsers", "cmd_rank", "float_hint", "rank_document"]


#: what `rank --seed` set before each random choice had its own flag
OLD_SEED = ("seed of the random primes", ("--prime-seed",))


def cmd_rank(args) -> int:
    check_range("--upper", args.upper, 0, 2 ** 62, "a rank is at least 0")
    resolve_deprecated_seed(args, "rank", *OLD_SEED)
    check_range("--prime-seed", args.prime_seed, 0, SEED_MAX, "seeds are 0 <= seed < 2^63")
    if args.rtol is not None and not (0 < args.rtol < 1):
        raise UsageError(f"--rtol {args.rtol} must lie in (0, 1)")
    check_range("--max-entries", args.max_entries, 1, 2 ** 62, "entries")
    limit = args.max_entries or LIMITS["RANK_MAX_ENTRIES"]
    M = read_stdin_matrix(limit) if args.matrix == "-" else read_matrix(args.matrix, "MATRIX", max_entries=limit)
    how = M.how
    try:
        r = certified_rank(M.kernel(), upper_bound=args.upper, exact=args.exact, seed=args.prime_seed)
    except ValueError as e:  # BadInput included
        raise UsageError(str(e)) from None
    num = float_hint(M, args.rtol)
    if args.json:
        print(json.dumps(rank_document(args, how, r, num), indent=1))
    else:
        print(f"shape {r.shape[0]} x {r.shape[1]}: {r}")
        print(f"  input: {how}")
        for note in r.notes:
            print(f"  {note}")
        print(f"  {r.seconds:.3f} s; primes {r.primes}")
        if "skipped" not in num or M.is_float_data:
            print("  the exact rank above is the rank of exactly these numbers as read (certified).")
            print(f"  {describe_hint(num)}")
            if "skipped" not in num and num["rank"]:
                print("  the numerical rank answers a different question: the rank of the data up to rounding "
                      "errors of that relative size (e.g. the rank a float product had before rounding).")
    return 0


#: the .npy magic bytes
_NPY_MAGIC = b"\x93NUMPY"


def read_stdin_matrix(max_entries: int):
    """``rank -``: the matrix from standard input, JSON text or a .npy stream, read by the same exact reader (with the
    same limits) as a file: ``... | collapse-verify rank -``."""
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError("MATRIX is -, but the standard input is a terminal: pipe a matrix in (JSON or .npy), e.g. "
                         "`echo '[[1,2],[2,4]]' | collapse-verify rank -`")
    cap = max(READER_LIMITS["JSON_MAX_BYTES"][0], 16 * max_entries + 65536)  # 16 bytes: the widest exact dtype
    data = sys.stdin.buffer.read(cap + 1)
    if len(data) > cap:
        raise UsageError(f"the standard input holds more than {cap} bytes: more than a matrix of {max_entries} entries "
                         "(--max-entries) can take")
    if not data.strip():
        raise UsageError("MATRIX is -, but the standard input is empty: pipe a matrix in (JSON or .npy)")
    if data.startswith(_NPY_MAGIC):
        try:
            arr = np.lib.format.read_array(io.BytesIO(data), allow_pickle=False)
        except (ValueError, OSError, EOFError) as e:
            raise UsageError(f"MATRIX (standard input): not a readable .npy stream ({e})") from None
        return matrix_from(arr, "MATRIX", ".npy from the standard input", max_entries)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError("MATRIX (standard input) is neither a .npy stream nor UTF-8 JSON text") from None
    if not text.lstrip().startswith("["):
        raise UsageError("MATRIX (standard input) is not JSON (a list of rows such as [[1, 2], [2, 4]]) nor a .npy "
                         "stream")
    M = read_matrix(text, "MATRIX", max_entries=max_entries)
    M.how = M.how.replace("JSON text", "JSON from the standard input", 1)
    return M


def rank_document(args, how: str, r, num: dict) -> dict:
    """The ``rank --json`` document (schema ``proofs_numeric/schemas/rank.schema.json``): the marker, the request
    echoed, ``rank`` (the certified rank, or None when only ``lower`` <= rank <= ``upper`` is known), the certificate's
    fields and the float hint ``numerical`` (for integer data: ``skipped`` with the reason)."""
    request = {"matrix": args.matrix, "upper": args.upper, "exact": args.exact, "prime_seed": args.prime_seed,
               "rtol": args.rtol, "max_entries": args.max_entries}
    return marked("rank", {"request": request, "input": how, "rank": r.value, **r.to_json(), "numerical": num})


def float_hint(M, rtol=None):
    """Float evidence next to the exact rank, for data that are not all integers (float dtype or decimals): the
    float64 SVD's numerical rank at relative tolerance ``rtol`` and the singular-value gap (labelled float, never
    certified), or for integer data a record whose ``skipped`` says why there is none. ``M``: an
    :class:`theorems.exact.reader.ExactMatrix`."""
    if not M.is_float_data:
        return {"arithmetic": "none", "rtol": None, "question": "rank of the data up to relative rounding errors",
                "skipped": "integer data: stored exactly, no rounding to allow for; the exact rank is the answer"}
    F, why = M.float64()
    if F is None:
        n, d = M.shape
        return {"arithmetic": "float64 SVD (float evidence, not certified)",
                "rtol": rtol if rtol is not None else max(n, d) * 2.0 ** -52,
                "question": "rank of the data up to relative rounding errors of size rtol",
                "skipped": "some entries are outside the float64 range"}
    return hint_rank(F, rtol, max_entries=LIMITS["RANK_SVD_MAX_ENTRIES"])


def add_parsers(sub) -> None:
    """Add this module's subcommand(s) to the parser's subparsers."""
    rk = sub.add_parser("rank", help="certified exact rank of your matrix (JSON or .npy)",
                        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=READING)
    rk.add_argument("matrix", metavar="MATRIX", help="JSON list of rows, a .json file, or a .npy file (floats exact); "
                    "- reads JSON or .npy from the standard input")
    rk.add_argument("--max-entries", type=int, metavar="N",
                    help="refuse a matrix with more than N entries (default RANK_MAX_ENTRIES = "
                         f"{LIMITS['RANK_MAX_ENTRIES']})")
    rk.add_argument("--rtol", type=float, metavar="R", help="relative tolerance of the float64 numerical rank shown "
                    "for non-integer data (default max(n, d) * 2^-52, numpy's)")
    rk.add_argument("--upper", type=int, help="a structural upper bound you know (e.g. an inner dimension)")
    rk.add_argument("--exact", choices=["auto", "always", "never"], default="auto",
                    help="fraction-free exact rank when no cheaper certificate closes the interval")
    rk.add_argument("--prime-seed", type=int, metavar="N", help="seed of the random primes (default: fresh entropy; "
                    "the primes used are printed, so any result can be re-checked)")
    add_deprecated_seed(rk, *OLD_SEED)
    rk.add_argument("--json", action="store_true", help="print the result as JSON")
    rk.set_defaults(run=cmd_rank)
