r"""Certified exact rank at BERT scale.

:func:`certified_rank` returns a :class:`CertifiedRank` with ``lower`` and ``upper`` bounds on the
rank over :math:`\mathbb Q` of a rational matrix, or of a float matrix whose entries are taken as
the exact dyadic rationals they store. ``lower == upper`` means the rank is certified; otherwise
the interval is reported as it is, never rounded.

Certificates
============
full rank, float input (Rump's method)
    For the leading k x k block B (k = min(n, d), tall orientation), R = inv(B) in float64, then a
    rigorous bound on :math:`\|I-RB\|_\infty` from the floating-point error of the products
    (:math:`|fl(RB)-RB|\le\gamma_k|R||B|`, :math:`\gamma_k=ku/(1-ku)`, all other roundings bounded
    the same way). A bound below 1 proves B, hence the matrix, non-singular. One LU and two
    products: cheaper than the SVD of ``numpy.linalg.matrix_rank``.
lower bound (any input)
    rank modulo random primes in [2^30, 2^31) of the exactly scaled integer matrix (a minor that
    vanishes over Z vanishes mod p, so rank mod p <= rank over Q), or a non-singular r x r minor
    mod p at pivots found by float elimination. Floats are converted to residues with
    vectorised numpy (mantissa mod p times a table of 2^e mod p), never entry by entry.
upper bound
    a structural bound the caller supplies (``upper_bound=``); else, for integer (or exactly
    scaled) entries below 2^40, the p-adic bordering certificate of :mod:`theorems.exact.padic_rank`
    (every (r+1)-minor bordering the non-singular r x r minor is proved zero: it is 0 mod p^K and
    below p^K by Hadamard's bound; the lifting runs in exact float64 BLAS); else a kernel certificate (kernel
    vectors found modulo a 62-bit prime, lifted by rational reconstruction, and verified exactly
    over Z: it succeeds when the kernel has small entries); else, when the matrix is small enough
    (``exact="auto"``), FLINT's fraction-free exact rank on the tall orientation; otherwise
    min(n, d) and the record says the upper bound is uncertified.

Examples
========
>>> import numpy as np
>>> r = certified_rank(np.random.default_rng(0).normal(size=(60, 90)))
>>> (r.lower, r.upper, r.method)
(60, 60, 'rump-full-rank')
>>> r = certified_rank([[1, 2], [2, 4]])
>>> (r.lower, r.upper, r.certified)
(1, 1, True)
"""
from __future__ import annotations

import math
import threading
import time
from concurrent.futures import wait
from dataclasses import asdict, dataclass, field
from fractions import Fraction

import flint
import numpy as np

from .blas_runtime import single_threaded_blas
from .input import BadInput, classify_array, exact_entries, exact_rows
from .padic_rank import (  # rump_residual_bound lives there (the p-adic certificate uses it too), re-exported
    MAX_ENTRY_BITS,
    absmax,
    blas_is_exact,
    gram_pivots,
    gram_pivots_beside,
    modp_pivots,
    padic_rank_certificate,
    pivots_beside_pay,
    rump_residual_bound,
    whole_below,
)

__all__ = ["certified_rank", "rank_certificate", "MatrixSource", "CertifiedRank", "PRIMES", "validate_primes",
           "MAX_USER_PRIME", "random_primes", "dyadic_scale", "rump_full_rank", "residues_mod_p", "kernel_certificate",
           "rump_residual_bound"]

#: fixed primes below 2^31 (products of residues fit in int64), for callers that want determinism
PRIMES = (2147483629, 2147483587, 2147483579)


def random_primes(k: int, rng: np.random.Generator, lo: int = 2 ** 30, hi: int = 2 ** 31) -> list[int]:
    """k distinct random primes in [lo, hi): an adversary cannot build a matrix singular mod them."""
    out: list[int] = []
    while len(out) < k:
        c = int(rng.integers(lo, hi)) | 1
        if c < hi and c not in out and flint.fmpz(c).is_prime():
            out.append(c)
    return out


#: exact fraction-free rank is attempted when n * d is at most this (``exact="auto"``)
EXACT_AUTO_MAX_ENTRIES = 200_000
#: ... and when no exactly scaled entry has more bits than this (fraction-free elimination on a 40 x 40
#: matrix of 13,000-bit entries takes about 45 s here; ``exact="always"`` still runs it)
EXACT_AUTO_MAX_ENTRY_BITS = 1024
#: the kernel certificate and the automatic exact rank are skipped when the exactly scaled integer
#: matrix would hold more bits than this (e.g. float data spanning 1e-300..1e300 at 1000 x 1000)
EXACT_MAX_BITS = 2 ** 28


@dataclass
class CertifiedRank:
    lower: int
    upper: int
    method: str
    shape: tuple
    primes: list = field(default_factory=list)
    seconds: float = 0.0
    upper_method: str = ""
    notes: list = field(default_factory=list)
    #: how the entries were taken (e.g. "float64 values taken as the exact dyadic rationals they store")
    read_as: str = ""

    @property
    def certified(self) -> bool:
        return self.lower == self.upper

    @property
    def value(self) -> int | None:
        return self.lower if self.certified else None

    def to_json(self) -> dict:
        d = asdict(self)
        d["certified"] = self.certified
        d["shape"] = list(self.shape)
        return d

    def __str__(self):
        if self.certified:
            return f"rank = {self.lower} (certified: {self.method}; upper: {self.upper_method})"
        return f"{self.lower} <= rank <= {self.upper} (lower: {self.method}; upper: {self.upper_method})"


def _classify(M):
    """('float', float64 ndarray) | ('int', int64 ndarray or list of lists of Python ints) |
    ('rational', list of lists of Fraction), holding exactly the values of ``M``.

    The float64 kind (and its fast paths: Rump, vectorised residues, the p-adic certificate) is
    used only when every stored value is a float64 exactly: float16/32/64 always, long double
    only when each value survives the round trip. Everything else (long double beyond float64's
    precision or range, uint64 values at or above 2^63, Python ints and Fractions) takes an exact
    path with Python integers. Big-endian arrays are byte-swapped to native order first.
    """
    if isinstance(M, np.ndarray):
        if M.ndim != 2:
            raise BadInput(f"matrix must be 2-D, got shape {M.shape}")
        k = M.dtype.kind
        if k in "biuf" and not M.dtype.isnative:
            M = M.astype(M.dtype.newbyteorder("="))
        kind, v = classify_array(M, "matrix")  # the one rule (bool as 0 and 1, refusals): theorems.exact.input
        if kind == "float":
            return "float", np.ascontiguousarray(v)
        if kind == "int":
            return "int", v
        if k == "f":  # long double beyond float64
            _check_exact_size(M)
            M = exact_entries(M)  # exact Fractions at the long double's precision
        elif k in "iu":
            return "int", M.tolist()  # uint64 at or above 2^63: Python ints, never a wrapping cast
        else:
            M = M.tolist()
    if hasattr(M, "tolist") and not isinstance(M, list):
        M = M.tolist()
    E = exact_rows(M, "matrix")  # validates: exact ints and Fractions
    if all(isinstance(v, int) or v.denominator == 1 for row in E for v in row):
        return "int", [[int(v) for v in row] for row in E]
    return "rational", [[v if isinstance(v, Fraction) else Fraction(v) for v in row] for row in E]


def _check_exact_size(M: np.ndarray) -> None:
    """Refuse long double data whose exact integers would exceed EXACT_MAX_BITS (refuse, never round)."""
    nz = M[M != 0]
    if nz.size == 0:
        return
    _, ex = np.frexp(nz)
    span = int(ex.max()) - int(ex.min()) + np.finfo(M.dtype).nmant + 2
    bits = span * M.size
    if bits > EXACT_MAX_BITS:
        raise BadInput(f"long double entries spanning 2^{int(ex.min())}..2^{int(ex.max())} in a {M.shape[0]} x "
                       f"{M.shape[1]} matrix need about {bits} bits as exact integers, above EXACT_MAX_BITS = "
                       f"{EXACT_MAX_BITS}; they are not float64 values, and rounding them would change the rank")


def _shape_if_empty(M):
    """(n, d) when M is an empty matrix (0 x d, n x 0, [] or [[]]), else None."""
    if isinstance(M, np.ndarray):
        return tuple(M.shape) if M.ndim == 2 and 0 in M.shape else None
    if isinstance(M, (list, tuple)):
        if len(M) == 0:
            return (0, 0)
        if all(isinstance(r, (list, tuple)) and len(r) == 0 for r in M):
            return (len(M), 0)
    return None


#: user primes must lie in [2, MAX_USER_PRIME]: residues are multiplied in int64 (p^2 < 2^63)
MAX_USER_PRIME = 2 ** 31 - 1


def validate_primes(primes) -> list[int]:
    """The caller's primes as Python ints, or BadInput naming the one that is not usable.

    >>> validate_primes([5, 2147483629])
    [5, 2147483629]
    >>> validate_primes([4])
    Traceback (most recent call last):
    ...
    theorems.exact.input.BadInput: primes: 4 is not a prime
    """
    if isinstance(primes, (str, bytes)) or not hasattr(primes, "__iter__"):
        raise BadInput(f"primes must be a list of primes, got {type(primes).__name__}")
    out = []
    for p in primes:
        if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, np.integer)):
            raise BadInput(f"primes: {p!r} is not an integer")
        p = int(p)
        if p < 2:
            raise BadInput(f"primes: {p} is not a prime (primes are at least 2)")
        if p > MAX_USER_PRIME:
            raise BadInput(f"primes: {p} is above the supported range [2, 2^31 - 1] (residues are multiplied "
                           "in int64)")
        if not flint.fmpz(p).is_prime():
            raise BadInput(f"primes: {p} is not a prime")
        out.append(p)
    if not out:
        raise BadInput("primes is empty: give at least one prime, or None for random primes")
    return out


def _read_as(M, kind) -> str:
    """How the entries of M are taken, in words (shown with the result)."""
    if isinstance(M, np.ndarray):
        k, name = M.dtype.kind, M.dtype.name
        if k == "f":
            return f"{name} values taken as the exact dyadic rationals they store"
        if k == "b":
            return "bool values taken as 0 and 1"
        if k in "iu":
            return f"{name} values taken as exact integers"
    return "exact values (ints, Fractions, 'p/q' or decimal strings exactly; Python floats as stored)"


def _max_entry_bits(kind: str, A) -> int:
    """Bits of the largest exactly scaled integer entry (cheap)."""
    if kind == "float":
        m, shift, _ = dyadic_scale(A)
        return 54 + int(shift.max()) if m.size else 0
    if kind == "int":
        if isinstance(A, np.ndarray):
            return 64
        return max((int(v).bit_length() for row in A for v in row), default=0)
    ints = _row_scaled_ints(A, EXACT_MAX_BITS)
    return EXACT_MAX_BITS if ints is None else max((v.bit_length() for row in ints for v in row), default=0)


def _exact_bits(kind: str, A) -> int:
    """An upper bound on the total bits of :func:`_exact_ints` (cheap: no big integers are built)."""
    if kind == "float":
        _, shift, _ = dyadic_scale(A)
        return int(shift.sum()) + 54 * A.size
    if kind == "int":
        if isinstance(A, np.ndarray):
            return 64 * A.size
        return sum(int(v).bit_length() + 1 for row in A for v in row)
    ints = _row_scaled_ints(A, EXACT_MAX_BITS)
    return EXACT_MAX_BITS + 1 if ints is None else sum(v.bit_length() + 1 for row in ints for v in row)


def dyadic_scale(M: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(m, shift, e0): M = 2^e0 * m * 2^shift entrywise, with m odd (0 at zeros) and shift >= 0.

    So ``m << shift`` is the float matrix scaled exactly, by the positive scalar 2^-e0, to the
    smallest such integer matrix (rank, kernels and ranks mod odd p are unchanged). This is the
    scaling :func:`residues_mod_p` uses for floats: anything appended to its result (a column of
    ones, say) must be scaled by 2^-e0 too.
    """
    mant, ex = np.frexp(M)                       # M = mant * 2^ex, 0.5 <= |mant| < 1
    m = (mant * 2.0 ** 53).astype(np.int64)      # exact: 53-bit mantissas
    e = ex.astype(np.int64) - 53
    nz = m != 0
    if not nz.any():
        return m, np.zeros_like(e), 0
    tz = np.log2((m[nz] & -m[nz]).astype(np.float64)).astype(np.int64)  # lowest set bit, exact
    m[nz] >>= tz                                 # exact: those bits are zero
    e[nz] += tz
    e0 = int(e[nz].min())
    return m, np.where(nz, e - e0, 0), e0


def _lcm_denominators(M) -> int:
    L = 1
    for row in M:
        for v in row:
            L = L * v.denominator // math.gcd(L, v.denominator)
    return L


def residues_mod_p(kind: str, M, p: int) -> np.ndarray | None:
    """The exactly scaled integer matrix modulo p, vectorised for float and int input.

    Floats are scaled by 2^-e0 with e0 from :func:`dyadic_scale`; rationals by the lcm of the
    denominators; integers are taken as they are.
    """
    if kind == "float":
        m, shift, _ = dyadic_scale(M)
        table = np.array([pow(2, int(k), p) for k in range(int(shift.max()) + 1)], dtype=np.int64)
        return (np.mod(m, p) * table[shift]) % p
    if kind == "int":
        A = np.asarray(M, dtype=object) if not isinstance(M, np.ndarray) else M
        if isinstance(A, np.ndarray) and A.dtype.kind in "iu":
            return np.mod(A.astype(np.int64), p) if A.dtype.itemsize <= 8 else np.mod(A, p)
        return np.array([[int(v) % p for v in row] for row in M], dtype=np.int64)
    # a/b -> a * b^-1 mod p: the row-scaled integer matrix times a unit per row, so the same rank mod p.
    # A denominator divisible by p has no inverse: the caller then skips this prime (None).
    if any(v.denominator % p == 0 for row in M for v in row):
        return None
    return np.array([[v.numerator * pow(v.denominator, -1, p) % p for v in row] for row in M], dtype=np.int64)


def _rank_mod_p(R: np.ndarray, p: int) -> int:
    """The rank of the residue matrix R (int64 in [0, p)) modulo p: FLINT, tall orientation (a
    minor that vanishes over Z vanishes mod p, so this is a lower bound on the rank over Q)."""
    if R.shape[0] < R.shape[1]:
        R = R.T
    n, d = R.shape
    return int(flint.nmod_mat(flint.fmpz_mat(n, d, np.ascontiguousarray(R).ravel().tolist()), p).rank())


def rump_full_rank(A: np.ndarray, probe: bool = False,
                   probe_passed: threading.Event | None = None) -> tuple[bool, float]:
    """Rigorous full-rank test of a float64 matrix (see the module docstring).

    Fails fast (bound reported as inf) when R is visibly no inverse of B: some entry of
    R B[:, :8] - I[:, :8] above 1 means ||I - RB||_inf > 1 up to rounding, so the full bound would
    fail too (skipping a certificate is always sound; it saves the two k^3 products on singular input).
    ``probe``: first solve B X = I[:, :8] (one LU, about a quarter of the inverse) and fail as fast
    when B X - I[:, :8] has an entry above 1 (used for integer data, often rank-deficient).
    ``probe_passed``: an event set when the probe passes (the caller's pivots for a rank-deficient matrix can stop).
    """
    T = A if A.shape[0] <= A.shape[1] else A.T
    k = T.shape[0]
    B = T[:, :k]
    with np.errstate(all="ignore"):
        if probe:
            E = np.zeros((k, min(k, 8)))             # I[:, :8] without the k x k identity (1.7 ms at k = 512)
            E[np.arange(E.shape[1]), np.arange(E.shape[1])] = 1.0
            try:
                Xs = np.linalg.solve(B, E)
            except np.linalg.LinAlgError:
                return False, math.inf
            if not float(np.abs(B @ Xs - E).max()) <= 1.0:  # also False for NaN
                return False, math.inf
            if probe_passed is not None:
                probe_passed.set()
        try:
            R = np.linalg.inv(B)
        except np.linalg.LinAlgError:
            return False, math.inf
        if not np.all(np.isfinite(R)):
            return False, math.inf
        first = R @ B[:, :8]                         # R B - I on the first 8 columns
        first[np.arange(first.shape[1]), np.arange(first.shape[1])] -= 1.0
        if not float(np.abs(first).max()) <= 1.0:
            return False, math.inf
        bound = rump_residual_bound(R, B)
    return bool(bound < 1.0), bound


def _row_scaled_ints(M, max_bits: float = float("inf")) -> list[list[int]] | None:
    """Each row of a rational matrix times the lcm of its denominators (rank and right kernel
    unchanged), or None as soon as the integers would hold more than ``max_bits`` bits in all."""
    out, total = [], 0
    for row in M:
        L, w = 1, max(len(row), 1)
        for v in row:
            L = L * v.denominator // math.gcd(L, v.denominator)
            if L.bit_length() * w > max_bits:
                return None
        ints = [v.numerator * (L // v.denominator) for v in row]
        total += sum(i.bit_length() for i in ints)
        if total > max_bits:
            return None
        out.append(ints)
    return out


def _exact_ints(kind: str, M) -> list[list[int]]:
    """The matrix scaled to integers by positive rationals, one per row (rank and right kernel unchanged)."""
    if kind == "float":
        m, shift, _ = dyadic_scale(M)
        ints = [[a << b for a, b in zip(r1, r2)] for r1, r2 in zip(m.tolist(), shift.tolist())]
    elif kind == "int":
        ints = M.tolist() if isinstance(M, np.ndarray) else M
    else:
        scaled = _row_scaled_ints(M)
        assert scaled is not None  # no bit limit given: never refused
        ints = scaled
    return ints


#: a 62-bit prime for kernel certificates (nmod_mat takes moduli below 2^64)
KERNEL_PRIME = 2 ** 62 - 57


def rational_reconstruction(a: int, m: int):
    """Rational reconstruction of a mod m with |num|, den <= sqrt(m / 2), or None."""
    bound = math.isqrt(m // 2)
    r0, r1, s0, s1 = m, a % m, 0, 1
    while r1 > bound:
        q = r0 // r1
        r0, r1 = r1, r0 - q * r1
        s0, s1 = s1, s0 - q * s1
    if s1 == 0 or abs(s1) > bound:
        return None
    if s1 < 0:
        r1, s1 = -r1, -s1
    return (r1, s1) if math.gcd(r1, s1) == 1 else None


def kernel_certificate(ints: list[list[int]], lower: int) -> int | None:
    """An exact upper bound on the rank from kernel vectors found mod p and verified over Z.

    The kernel of A (or of A^T, whichever is smaller) is computed modulo a 62-bit prime, each entry
    is lifted by rational reconstruction, the columns are scaled to integers, and A K = 0 is checked
    exactly with FLINT; if K has full column rank k, then rank A <= (width - k). Returns that bound,
    or None when reconstruction fails (kernel entries too large for one prime) or the check fails.
    """
    n, d = len(ints), len(ints[0])
    A = flint.fmpz_mat(ints)
    if n - lower < d - lower:  # left kernel is smaller: work with A^T
        A = A.transpose()
    cols = A.ncols()
    p = KERNEL_PRIME
    Kp, nullity = _nullspace_mod_p(A, p)
    if nullity == 0:
        return cols
    K = []
    for j in range(nullity):
        col = []
        den = 1
        for i in range(cols):
            rr = rational_reconstruction(int(Kp[i][j]), p)
            if rr is None:
                return None
            col.append(rr)
            den = den * rr[1] // math.gcd(den, rr[1])
        K.append([num * (den // dd) for num, dd in col])
    Kz = flint.fmpz_mat(cols, nullity, [K[j][i] for i in range(cols) for j in range(nullity)])
    if any(v != 0 for v in (A * Kz).entries()):
        return None
    if int(flint.nmod_mat(Kz.tolist(), p).rank()) != nullity:
        return None
    return cols - nullity


def _nullspace_mod_p(A: flint.fmpz_mat, p: int):
    """A basis of {x : A x = 0 mod p} as a list of rows of a cols x k table, and k."""
    M = flint.nmod_mat(A.tolist(), p)
    X, nullity = M.nullspace()
    nullity = int(nullity)
    tab = [[int(X[i, j]) for j in range(nullity)] for i in range(X.nrows())]
    return tab, nullity


def _float_exact(kind: str, A) -> np.ndarray | None:
    """The matrix as a float64 array holding its values exactly, or None if some entry does not fit."""
    if kind == "float":
        return A
    if kind == "int":
        if isinstance(A, np.ndarray) and A.dtype.kind in "iu":
            lo, hi = int(A.min()), int(A.max())  # no np.abs: it overflows at -2^63
            return A.astype(np.float64) if max(-lo, hi) < 2 ** 53 else None
        if max(abs(int(v)) for row in A for v in row) < 2 ** 53:
            return np.array(A, dtype=np.float64)
    return None


def _small_int_float(kind: str, A) -> np.ndarray | None:
    """The exactly scaled integer matrix as float64 if every entry is below 2^MAX_ENTRY_BITS, else None."""
    limit = 2 ** MAX_ENTRY_BITS
    if kind == "float":
        if whole_below(A, 2.0 ** MAX_ENTRY_BITS):
            # dyadic_scale's result without its frexp and logarithms (14 ms against 1 ms at 512 x 768). e0 is the
            # least number of trailing zero bits of a non-zero entry, read off the OR of their int64 values (two's
            # complement keeps trailing zeros). With e0 = 0 the matrix is its own scaled form: A itself (read only)
            ored = int(np.bitwise_or.reduce(A.astype(np.int64), axis=None)) if A.size else 0
            e0 = (ored & -ored).bit_length() - 1 if ored else 0
            S = np.ldexp(A, -e0) if e0 else np.asarray(A, dtype=np.float64)  # exact: entries are multiples of 2^e0
            return S if absmax(S) < 2.0 ** (MAX_ENTRY_BITS - 1) else None
        m, shift, _ = dyadic_scale(A)
        bits = np.where(m != 0, np.floor(np.log2(np.abs(m).astype(np.float64) + 0.5)) + 1 + shift, 0)
        if float(bits.max()) > MAX_ENTRY_BITS - 1:
            return None
        return np.ldexp(m.astype(np.float64), shift.astype(np.int32))
    if kind == "rational":
        ints = _row_scaled_ints(A, 64 * len(A) * len(A[0]))  # entries below 2^40 or nothing
        if ints is None:
            return None
    else:
        ints = A
    if isinstance(ints, np.ndarray) and ints.dtype.kind in "iu":
        if max(-int(ints.min()), int(ints.max())) >= limit:
            return None
        return ints.astype(np.float64)
    if max(abs(int(v)) for row in ints for v in row) >= limit:
        return None
    return np.array(ints, dtype=np.float64)


#: a rank mod p of a random (bound + SUBSET_SLACK)-square submatrix is tried first when the caller's
#: upper bound leaves a submatrix with at most SUBSET_MAX_FRACTION of the entries
SUBSET_SLACK = 8
SUBSET_MAX_FRACTION = 0.5


class MatrixSource:
    """A matrix as :func:`rank_certificate` reads it: every view holds a matrix of the same rank
    (the input scaled exactly by positive rationals, row by row).

    ``shape``; ``core_shape`` (rows/columns that a random submatrix samples; the others, a border,
    are always kept); ``residues(p)`` (int64 residues, or None when p divides a denominator);
    ``float_exact()`` (float64 holding the values exactly, for Rump; or None); ``small_ints()``
    (float64 integers below 2^MAX_ENTRY_BITS, for the p-adic certificate; or None);
    ``exact_ints()`` (Python ints, same rank and right kernel); ``exact_bits()`` and
    ``max_entry_bits()`` (sizes that gate the kernel certificate and the automatic exact rank).
    :class:`theorems.exact.norm_exact._Bordered` implements the same methods for bordered matrices.
    """

    def __init__(self, kind: str, A):
        self.kind, self.A = kind, A
        self.shape = (A.shape if isinstance(A, np.ndarray) else (len(A), len(A[0])))
        self.core_shape = self.shape
        self._float: tuple = ()  # float_exact's result, once computed (read only, like every view)
        self._small: tuple = ()  # small_ints' result, once computed

    def residues(self, p: int):
        return residues_mod_p(self.kind, self.A, p)

    def float_exact(self):
        if not self._float:
            self._float = (_float_exact(self.kind, self.A),)
        return self._float[0]

    def small_ints(self):
        if not self._small:
            if self.kind == "int" and self._float:  # the same float64 array when every entry is below 2^40
                X = self._float[0]  # whole numbers by construction: only their size is checked
                self._small = (X if X is not None and absmax(X) < 2.0 ** MAX_ENTRY_BITS else None,)
            else:
                self._small = (_small_int_float(self.kind, self.A),)
        return self._small[0]

    def exact_ints(self):
        return _exact_ints(self.kind, self.A)

    def exact_bits(self) -> int:
        return _exact_bits(self.kind, self.A)

    def max_entry_bits(self) -> int:
        return _max_entry_bits(self.kind, self.A)


def _submatrix(src, R: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray | None:
    """m random rows and m random columns of the core of R (every border row and column kept), or
    None if that is not much smaller (a submatrix's rank mod p is still a lower bound on the rank)."""
    n, d = src.core_shape
    if min(n, m) * min(d, m) > SUBSET_MAX_FRACTION * n * d:
        return None
    rows = np.sort(rng.choice(n, m, replace=False)) if m < n else np.arange(n)
    cols = np.sort(rng.choice(d, m, replace=False)) if m < d else np.arange(d)
    rows = np.concatenate([rows, np.arange(n, R.shape[0])])
    cols = np.concatenate([cols, np.arange(d, R.shape[1])])
    return np.ascontiguousarray(R[np.ix_(rows, cols)])


def rank_certificate(src, *, primes, rng: np.random.Generator, lo: int = 0, hi: int | None = None,
                     lo_how: str = "", hi_how: str = "structural bound supplied by the caller",
                     lo_is_mod_p: bool = False, exact: str = "auto",
                     exact_max_entries: int = EXACT_AUTO_MAX_ENTRIES, kernel_max_entries: int | None = None,
                     read_as: str = "", t0: float | None = None) -> CertifiedRank:
    """The one certified-rank procedure (``certified_rank`` and the full-width norm analysis).

    ``src`` is a :class:`MatrixSource` (or a bordered matrix with the same methods); ``lo`` and
    ``hi`` are bounds the caller has proved (``lo_is_mod_p``: ``lo`` is already a rank mod a prime
    of ``primes``, so no rank mod p is recomputed and Rump's test is skipped when ``lo`` is below
    full rank). Raises ValueError when a certified lower bound exceeds ``hi``.

    Order: Rump's full-rank test (float-exact values, ``hi`` = min(n, d); for integer data, ints or
    floats holding whole numbers below 2^40, a cheap LU probe first, and on large input the p-adic
    certificate's pivots computed meanwhile by a pool thread); a rank mod p first when
    ``hi`` < min(n, d) or no p-adic route (a random submatrix before the whole matrix); the p-adic
    bordering certificate (entries below 2^40; exact pivots mod a prime when float pivots miss
    rank); a rank mod p; the kernel certificate (at most ``kernel_max_entries`` entries and
    EXACT_MAX_BITS bits); FLINT's exact rank (``exact`` "always", or "auto" within
    ``exact_max_entries`` entries and the bit limits); the remaining primes; Rump's test if not
    tried; else the interval, with the reason. Every step is a proof; the order only decides speed.
    """
    with single_threaded_blas():  # one BLAS thread: robust on a shared machine (the p-adic lifting threads itself)
        return _rank_certificate(src, primes, rng, lo, hi, lo_how, hi_how, lo_is_mod_p, exact, exact_max_entries,
                                 kernel_max_entries, read_as, t0)


def _rank_certificate(src, primes, rng, lo, hi, lo_how, hi_how, lo_is_mod_p, exact, exact_max_entries,
                      kernel_max_entries, read_as, t0) -> CertifiedRank:
    """The body of :func:`rank_certificate`."""
    t0 = time.perf_counter() if t0 is None else t0
    n, d = src.shape
    full = min(n, d)
    if hi is None or hi >= full:
        hi, hi_how = full, "min(n, d)"
    used: list[int] = []
    pending = list(primes)
    method = lo_how
    count_mod_p = 0

    def done(lower, upper, how, upper_method, notes=()):
        return CertifiedRank(lower, upper, how, (n, d), list(used), time.perf_counter() - t0, upper_method,
                             list(notes), read_as=read_as)

    def raise_lo(r: int, how: str):
        nonlocal lo, method
        if r > lo:
            lo, method = r, how
        if lo > hi:
            raise ValueError(f"upper_bound {hi} is below the certified lower bound {lo}: "
                             "the structural bound you supplied is wrong")

    def mod_p(count: int = 1) -> bool:
        """Ranks mod the next ``count`` usable primes (a random submatrix first): True when lo reaches hi."""
        nonlocal count_mod_p
        while pending and count:
            p = pending.pop(0)
            R = src.residues(p)
            if R is None:  # p divides a denominator: no information from this prime
                continue
            used.append(p)
            count -= 1
            count_mod_p += 1
            S = _submatrix(src, R, hi + SUBSET_SLACK, rng)
            if S is not None:
                raise_lo(_rank_mod_p(S, p), f"rank mod p of a {S.shape[0]} x {S.shape[1]} submatrix")
                if lo >= hi:
                    return True
            method_p = f"rank mod p ({count_mod_p} prime{'s' if count_mod_p > 1 else ''})"
            raise_lo(_rank_mod_p(R, p), method_p)
            if lo >= hi:
                return True
        return lo >= hi

    raise_lo(lo, method)
    if lo >= hi:
        return done(hi, hi, method, hi_how)
    tried_rump = False
    pivots = None
    if hi == full and not (lo_is_mod_p and lo < full):
        X = src.float_exact()
        if X is not None:
            tried_rump = True
            # integer data (ints, or floats holding whole numbers below 2^40) are often rank-deficient: a cheap LU
            # probe first, and on large input the p-adic certificate's pivots are computed beside it on a pool
            # thread (waited for on every path). Other floats and bordered matrices: the inverse at once.
            # (whether the data are whole is judged on the block Rump's test factors: a heuristic for speed only;
            # small_ints below checks every entry)
            k = min(X.shape)
            integer = isinstance(src, MatrixSource) and (src.kind == "int"
                                                         or whole_below(X[:k, :k], 2.0 ** MAX_ENTRY_BITS))
            # the pivots' row samples come from their own seed, drawn whether or not a pool thread computes them:
            # the record of a seed does not depend on the number of cores nor on the threads' timing
            seed = int(rng.integers(2 ** 63)) if integer else None
            stop = threading.Event()  # set when the probe passes: the pivots are then probably not needed
            Zj = src.small_ints() if integer and pivots_beside_pay(*X.shape) else None
            job = gram_pivots_beside(Zj, np.random.default_rng(seed), stop) if Zj is not None else None
            try:
                ok, bound = rump_full_rank(X, probe=integer, probe_passed=stop)
            except BaseException:
                stop.set()  # the pivots will not be used: the job stops at its next stage
                raise
            finally:
                if job is not None:
                    wait([job])
            if ok:
                raise_lo(full, "rump-full-rank")
                return done(full, full, "rump-full-rank", "min(n, d)", [f"||I - RB||_inf <= {bound:.3e} < 1"])
            pivots = job.result() if job is not None else None
            Zi = src.small_ints() if pivots is None and seed is not None else None  # (computed once: MatrixSource)
            if Zi is not None:  # no job, or it stopped when the probe passed: the same pivots here
                pivots = gram_pivots(Zi, np.random.default_rng(seed))
    Z = src.small_ints()
    if not lo_is_mod_p and (hi < full or Z is None):
        if mod_p():
            return done(hi, hi, method, hi_how)
        lo_is_mod_p = True
    if Z is not None:
        rows, cols = pivots if pivots is not None else (None, None)
        cert = padic_rank_certificate(Z, rows, cols, rng=rng)
        if (cert is None or cert.upper is None) and blas_is_exact():
            # float pivoting missed rank (ill-conditioning, or a singular minor): exact pivots mod a prime
            rows, cols = modp_pivots(Z, random_primes(1, rng)[0])
            if len(rows) > (cert.lower if cert is not None else 0):
                cert = padic_rank_certificate(Z, rows, cols, rng=rng) or cert
        if cert is not None:
            if cert.prime:
                used.append(cert.prime)
            minor = (f"non-singular {cert.lower} x {cert.lower} minor mod {cert.prime}^{cert.exponent}" if cert.lower
                     else "the zero matrix")
            raise_lo(cert.lower, minor)
            if cert.upper is not None and cert.upper == cert.lower:
                up = ("min(n, d)" if cert.lower == full else f"p-adic bordering certificate: {cert.note}")
                return done(cert.lower, cert.lower, method, up)
    if not lo_is_mod_p and mod_p():
        return done(hi, hi, method, hi_how)
    if lo >= hi:
        return done(hi, hi, method, hi_how)
    # cheap: one nullspace mod p; aborts at the first entry that does not reconstruct. Skipped when the
    # exactly scaled integers would be huge (float data of enormous dynamic range): still sound
    big = src.exact_bits() > EXACT_MAX_BITS
    if not big and (kernel_max_entries is None or n * d <= kernel_max_entries):
        ub = kernel_certificate(src.exact_ints(), lo)
        if ub is not None and ub < hi:
            hi, hi_how = ub, "kernel certificate (found mod p, lifted by rational reconstruction, verified over Z)"
            raise_lo(lo, method)
            if lo >= hi:
                return done(lo, lo, method, hi_how)
    wide = not big and exact == "auto" and src.max_entry_bits() > EXACT_AUTO_MAX_ENTRY_BITS
    if exact == "always" or (exact == "auto" and n * d <= exact_max_entries and not big and not wide):
        r = _exact_rank_of_ints(src.exact_ints())
        raise_lo(r, "exact fraction-free rank (FLINT fmpz_mat)")
        return done(r, r, "exact fraction-free rank (FLINT fmpz_mat)", "exact fraction-free rank (FLINT fmpz_mat)")
    if pending and mod_p(len(pending)):  # the other primes, in case the first was unlucky
        return done(hi, hi, method, hi_how)
    if hi == full and not tried_rump:
        X = src.float_exact()
        if X is not None and rump_full_rank(X)[0]:
            raise_lo(full, "rump-full-rank")
            return done(full, full, "rump-full-rank", "min(n, d)")
    return done(lo, hi, method, "none found: min(n, d)" if hi == full else hi_how,
                [f"no upper-bound certificate found within the budgets (kernel certificate: "
                 f"{'any size' if kernel_max_entries is None else f'<= {kernel_max_entries} entries'}, exact rank: "
                 f"{exact}, <= {exact_max_entries} entries); the rank is only known to lie in the interval "
                 f"[{lo}, {hi}]"]
                + (["entries too large for the automatic exact rank (EXACT_AUTO_MAX_ENTRY_BITS / EXACT_MAX_BITS); "
                    "exact='always' (--exact always) computes it, possibly slowly"] if (big or wide) else []))


def _exact_rank_of_ints(ints) -> int:
    Z = flint.fmpz_mat(ints)
    if Z.nrows() < Z.ncols():
        Z = Z.transpose()
    return int(Z.rank())


def certified_rank(M, upper_bound: int | None = None, exact: str = "auto", primes=None,
                   seed: int | None = None) -> CertifiedRank:
    """Certified bounds on the exact rank of ``M`` (see the module docstring).

    ``upper_bound``: a structural bound you know (e.g. the inner dimension of a product).
    ``exact``: "auto" (fraction-free exact rank when n d <= EXACT_AUTO_MAX_ENTRIES and no
    other certificate closes the interval), "always", or "never".
    ``primes``: the primes for the mod-p lower bound; by default two random primes in
    [2^30, 2^31) (and a random lifting modulus), drawn from ``seed`` (fresh entropy when None). The
    record lists every prime used, so any result can be re-checked; the certificates are sound for
    every choice of prime, randomness only keeps an adversarial matrix from defeating the bounds.
    The order of the certificates is :func:`rank_certificate`'s.
    """
    t0 = time.perf_counter()
    if exact not in ("auto", "always", "never"):
        raise BadInput(f"exact must be 'auto', 'always' or 'never', got {exact!r}")
    if upper_bound is not None:
        if isinstance(upper_bound, (bool, np.bool_)) or not isinstance(upper_bound, (int, np.integer)):
            raise BadInput(f"upper_bound must be an integer, got {upper_bound!r}")
        if upper_bound < 0:
            raise BadInput(f"upper_bound {upper_bound} is negative: a rank is at least 0")
    if seed is not None:
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise BadInput(f"seed must be a non-negative integer, got {seed!r}")
    rng = np.random.default_rng(seed)
    if primes is None:
        primes = random_primes(2, rng)
    else:
        primes = validate_primes(primes)
    empty = _shape_if_empty(M)
    if empty is not None:
        return CertifiedRank(0, 0, "empty matrix", empty, [], time.perf_counter() - t0, "empty matrix",
                             ["a matrix with no rows or no columns has rank 0"], read_as=_read_as(M, "empty"))
    read_as = _read_as(M, None)
    kind, A = _classify(M)
    return rank_certificate(MatrixSource(kind, A), primes=primes, rng=rng,
                            hi=None if upper_bound is None else int(upper_bound), exact=exact, read_as=read_as, t0=t0)
