"""How the command line reads its inputs, and the limits it enforces (one place for both).

Every bad input becomes a :class:`UsageError` naming the problem (exit 2), before any long
computation starts.

How a MATRIX / VEC argument is read: by the one exact reader, :mod:`theorems.exact.reader` (JSON text or file,
``.npy`` of every numeric dtype, ``.npz`` weights), the same for every subcommand.

Limits
======
Each limit below can be changed with the environment variable ``COLLAPSE_VERIFY_<NAME>`` (for
example ``COLLAPSE_VERIFY_CHECK_MAX_ENTRIES=4000000``); some also have a command-line option.
The digit and exponent limits live in :mod:`theorems.exact.input` (re-exported by :mod:`theorems.linalg`) (they also
guard the Python API).
"""
from __future__ import annotations

import sys

from proofs_numeric.output import (  # re-exported: the write rule is proofs_numeric.output
    OUTPUT_MARKER,
    SCAFFOLD_MARKER,
    RecordStream,
    UsageError,
    check_output,
    check_writable,
    marked,
    write_json_output,
    write_output,
    write_text,
    written_kind,
)
from theorems.exact.input import LIMITS as EXACT_LIMITS
from theorems.exact.input import cap_list, env_int
from theorems.exact.reader import READER_LIMITS

__all__ = ["UsageError", "LIMITS", "check_range", "SEED_MAX", "check_writable", "write_text", "limits_text",
           "check_output", "write_output", "write_json_output", "RecordStream", "written_kind", "marked",
           "OUTPUT_MARKER", "SCAFFOLD_MARKER", "cap_list", "add_deprecated_seed", "resolve_deprecated_seed"]

#: name -> (default, what it bounds). Overridable with COLLAPSE_VERIFY_<NAME>.
_LIMIT_DOCS = {
    "CHECK_MAX_ENTRIES": (2 ** 20, "entries of each matrix for `check` (2^20: admits 1024 x 1024, so 1024 x 768)"),
    "CHECK_MAX_HEADS": (4096, "heads of `check --heads`"),
    "CHECK_MAX_N": (2 ** 24, "tokens per sequence of `check --n`"),
    "RANK_MAX_ENTRIES": (2 ** 24, "entries of the matrix for `rank` (2^24: e.g. 4096 x 4096)"),
    "RANK_SVD_MAX_ENTRIES": (2 ** 22, "entries up to which `rank` also shows the float64 numerical rank"),
    "VERIFY_MAX_DPS": (5000, "digits of `verify --dps` (at least 15)"),
    "DEPTH_MAX_DPS": (10000, "digits of `depth --dps` (at least 30)"),
    "DEPTH_MAX_LAYERS": (200, "layers of `depth --layers` (and the float64 range: see below)"),
    "DEPTH_MAX_SIDE": (64, "tokens n, width d and head width d_k of `depth`"),
    "DEPTH_MAX_HEADS": (16, "heads of `depth --heads`"),
    "DEPTH_MAX_WORK": (2_000_000, "estimated work of `depth`: layers*n*d*(n+d+heads*d_k)*(dps/1000)^2 "
                                  "(2e6: about a minute on 2 cores)"),
    "TEXT_MAX_CHARS": (100_000, "characters of one `real-model --text`"),
    "MAX_TEXTS": (16, "number of `real-model --text` options"),
}


def _limits() -> dict[str, int]:
    return {k: env_int(k, v[0]) for k, v in _LIMIT_DOCS.items()}


LIMITS = _limits()


def limits_text() -> str:
    """The limits as lines for ``--help`` and the README."""
    lines = [f"  {k} = {LIMITS[k]}: {_LIMIT_DOCS[k][1]}" for k in _LIMIT_DOCS]
    lines += [f"  {k} = {v}: {d}" for k, (v, d) in {**READER_LIMITS, **EXACT_LIMITS}.items()]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------- arguments

def check_range(opt: str, value, lo: int, hi: int, why: str, limit: str | None = None) -> None:
    """Refuse a numeric argument outside [lo, hi], in the words every subcommand uses (``verify``, ``depth``,
    ``check``, ``rank``, ``show``): ``--dps 0 is outside [15, 5000] (digits; the upper limit is VERIFY_MAX_DPS,
    see --help)``."""
    if value is None:
        return
    if not lo <= value <= hi:
        tail = f"; the upper limit is {limit}, see --help" if limit else ""
        raise UsageError(f"{opt} {value} is outside [{lo}, {hi}] ({why}{tail})")


#: seeds of every subcommand: 0 <= seed < 2^63
SEED_MAX = 2 ** 63 - 1


# --------------------------------------------------------------------------------------------- seeds
#
# Each random choice has its own flag, the same name in every subcommand that makes it:
#   --token-seed     the random token ids (real-model, check --model)
#   --weights-seed   the seeded Gaussian weights (check --heads H without --weights)
#   --instance-seed  the random weights and input of the depth study (depth)
#   --prime-seed     the random primes of the certified ranks (rank, check); the results do not depend on it
# `--seed` meant one of these, or two, depending on the subcommand: it is kept in each as a deprecated alias that
# sets what it set there, and says so on stderr (users' scripts keep working).

def add_deprecated_seed(parser, meaning: str, flags: tuple[str, ...]) -> None:
    """``--seed`` in ``parser``: the deprecated spelling of ``flags`` (which it sets, all of them)."""
    parser.add_argument("--seed", type=int, dest="seed_deprecated", metavar="N",
                        help=f"deprecated: the {meaning}; give {' and '.join(flags)} instead (--seed still works and "
                             "says what it set)")


def resolve_deprecated_seed(args, command: str, meaning: str, flags: tuple[str, ...]) -> None:
    """If the deprecated ``--seed`` was given, set each of ``flags`` from it (a conflicting value is a usage error)
    and print one note on stderr naming the flags it stands for."""
    old = getattr(args, "seed_deprecated", None)
    if old is None:
        return
    check_range("--seed", old, 0, SEED_MAX, "seeds are 0 <= seed < 2^63")
    for flag in flags:
        dest = flag.lstrip("-").replace("-", "_")
        cur = getattr(args, dest, None)
        if cur is not None and cur != old:
            raise UsageError(f"--seed {old} and {flag} {cur} disagree: in `{command}`, --seed is the deprecated "
                             f"spelling of {' and '.join(flags)}; give {flag} alone")
        setattr(args, dest, old)
    print(f"collapse-verify: note: `{command} --seed` is deprecated: it sets the {meaning}, now "
          f"{' '.join(f'{f} {old}' for f in flags)} (it still works)", file=sys.stderr)
