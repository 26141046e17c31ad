r"""Generic claims and honest searches: the parameter space a claim's "almost every" ranges over, the perturbation
probe that labels a failing instance, and searches that state the region they search.

A **generic** claim holds "for almost every point of a stated parameter space". Its :class:`Generic` spec says
which variables are generic (the instance's keys a probe perturbs), over which space, with respect to which
measure, and what is held fixed. A failing instance of a generic claim says nothing by itself: it may lie on the
exceptional null set. :func:`probe_failure` re-decides the claim at seeded random rational perturbations of the
generic variables (exactly, or with the spec's certified ``conclusion``): every perturbation restoring the
conclusion makes the instance an *exceptional point* (shown, never decisive); otherwise it is *persistent*
(evidence against, at most ``unsupported``). Only a failure on a set of positive measure — a certified box or an
identity (:func:`~theorems.framework.evidence.failing_box`, :func:`~theorems.framework.evidence.identical_failure`),
which the spec's ``certify`` may supply for an instance — refutes a generic claim.

A :class:`Search` (an existential claim's witness search, or a stress looking for a counterexample) states its
region; :data:`SEARCHES` lists every registered one, and a test shows, for each, an instance inside the region that
would count (so that "none found" is informative).

>>> import random
>>> from sympy import Matrix
>>> g = Generic(space="B in R^{2 x 2}", variables=("B",))
>>> y = g.perturbed({"B": Matrix([[1, 0], [0, 0]]), "n": 2}, random.Random(0))
>>> y["n"], y["B"] != Matrix([[1, 0], [0, 0]])
(2, True)
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import Any, Callable, Mapping, Union

import sympy

from .aliases import Instance, JSONObject, Numbers, Predicate
from .evidence import (
    Evidence,
    ProofStep,
    derivation,
    exact_complete,
    exact_instances,
    genericity_argument,
    interval_witness,
    tri,
)

__all__ = ["Generic", "Probe", "probe_failure", "perturb_value", "Search", "SEARCHES", "register_search",
           "COLLAPSE_NOTIONS", "Notion", "check_notion", "DETERMINANTAL_STEP", "rank_genericity"]

#: a notion as declared on a claim or reading: a key of COLLAPSE_NOTIONS (optionally "key: detail"), or
#: {part: notion} when its parts use different notions
Notion = Union[str, Mapping[str, Union["Notion", None]]]  # a part declared None has no notion of its own

#: the notions that decide a rank or collapse claim (``notion=`` on a claim or reading: a key, optionally
#: followed by ``": detail"``, or ``{part: notion}`` when its parts use different notions)
COLLAPSE_NOTIONS = {
    "exact-rank": "exact rank over Q (python-flint) of the exact matrix; certified enclosures of a non-zero minor "
                  "(with an exact structural upper bound) give the exact rank of a real matrix",
    "numerical-rank": "numerical rank: the number of singular values above a stated tolerance (float evidence)",
    "residual": "Dong's residual rho = ||X - 1 xbar^T||_F / ||X||_F, the relative distance to the rank-one "
                "matrices 1 x^T",
    "effective-rank": "Roy and Vetterli's effective rank erank M = exp(-sum_i p_i log p_i), p_i = sigma_i / sum_j "
                      "sigma_j over the non-zero singular values sigma_i of M: a real number in [1, rank M] for "
                      "M != 0, equal to rank M exactly when the non-zero singular values are equal, unchanged by "
                      "M -> c M; computed from float64 SVDs (float evidence)",
}


def check_notion(notion: object, owner: str = "") -> Notion | None:
    """The notion as declared (a key of :data:`COLLAPSE_NOTIONS`, optionally ``"key: detail"``, or
    ``{part: notion}``); anything else is a ValueError naming the owner."""
    if notion is None:
        return None
    if isinstance(notion, dict):
        if not notion:
            raise ValueError(f"{owner}: notion={{}} names no part")
        return {str(k): check_notion(v, f"{owner} part {k!r}") for k, v in notion.items()}
    if not isinstance(notion, str) or notion.split(":", 1)[0].strip() not in COLLAPSE_NOTIONS:
        raise ValueError(f"{owner}: notion {notion!r} is not one of {sorted(COLLAPSE_NOTIONS)} (optionally "
                         "'key: detail'), nor {part: notion}")
    return notion


def perturb_value(v: Any, rng: random.Random, scale: Fraction) -> Any:
    """``v`` plus a random rational perturbation of size about ``scale`` (a sympy matrix entrywise, a list or
    tuple of them elementwise, a rational); other values unchanged. Entries r * scale, r uniform in [-1, 1] on a
    grid of 10^6 (a discretised continuous law: it meets a given proper algebraic set with probability ~0)."""
    if isinstance(v, sympy.MatrixBase):
        return v + sympy.Matrix(v.shape[0], v.shape[1],
                                lambda i, j: sympy.Rational(rng.randint(-10 ** 6, 10 ** 6), 10 ** 6) * scale)
    if isinstance(v, (list, tuple)):
        return type(v)(perturb_value(w, rng, scale) for w in v)
    if isinstance(v, (int, Fraction, sympy.Rational)) and not isinstance(v, bool):
        return v + sympy.Rational(rng.randint(-10 ** 6, 10 ** 6), 10 ** 6) * scale
    return v


@dataclass(frozen=True)
class Generic:
    """The parameter space of a generic claim ("for almost every point of ...").

    ``space``: the space, in words (e.g. ``"(W_V, W_O) in R^{d x d_k} x R^{d_k x d}"``); ``variables``: the
    instance keys that are generic (what a probe perturbs); ``measure``: with respect to which measure;
    ``fixed``: what is held fixed (not generic). ``perturb(instance, rng, scale)``: a perturbation that keeps the
    instance's structure (e.g. X = U V^T in the rank-r stratum; default: :func:`perturb_value` on each variable
    of a dict instance). ``conclusion``: the predicate a probe decides at a perturbed point when the declared one
    cannot (e.g. certified interval enclosures where exact softmax is irrational); ``certified`` says so.
    ``certify(instance)``: a positive-measure certificate of a failure (a failing box or identity) or None.
    """

    space: str
    variables: tuple[str, ...] = ()
    measure: str = "Lebesgue"
    fixed: str = ""
    perturb: Callable[[Instance, random.Random, Fraction], Instance] | None = None
    conclusion: Predicate | None = None
    certified: bool = False
    certify: Callable[[Instance], Evidence | None] | None = None
    probes: int = 4
    scale: Fraction = Fraction(1, 1000)
    #: how a probe's conclusion is decided, when not by the declared predicate (shown in the evidence)
    probe_arithmetic: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.space, str) or not self.space.strip():
            raise ValueError("a generic claim states its parameter space (Generic(space=...))")
        if isinstance(self.variables, str) or not all(isinstance(v, str) for v in self.variables):
            raise TypeError("Generic(variables=...) is a tuple of the instance's generic keys")
        if self.probes < 1:
            raise ValueError("a probe perturbs at least once")

    def to_json(self) -> JSONObject:
        return {"space": self.space, "variables": list(self.variables), "measure": self.measure,
                "fixed": self.fixed or None, "probes": self.probes, "scale": str(self.scale),
                "probe_arithmetic": self.probe_arithmetic or ("interval-certified" if self.certified else "exact, the "
                                                                              "declared predicates")}

    def perturbed(self, x: Instance, rng: random.Random) -> Instance:
        """One seeded perturbation of the instance's generic variables."""
        if self.perturb is not None:
            return self.perturb(x, rng, self.scale)
        if not isinstance(x, dict):
            raise TypeError(f"the instance is a {type(x).__name__}: give Generic(perturb=...) to perturb it")
        missing = [k for k in self.variables if k not in x]
        if missing or not self.variables:
            raise KeyError(f"generic variables {missing or '(none)'} are not keys of the instance")
        return {**x, **{k: perturb_value(x[k], rng, self.scale) for k in self.variables}}


@dataclass(frozen=True)
class Probe:
    """What the probe of one failing instance found: how many perturbations were decided and how."""

    probes: int
    restored: int
    failed: int
    seed: int

    @property
    def label(self) -> str:
        return "exceptional-point" if self.restored == self.probes and self.failed == 0 else "persistent"


def probe_failure(spec: Generic, x: Instance, premise: Callable[[Instance], bool], conclude: Predicate,
                  seed: int) -> Probe:
    """Re-decide a failing instance at ``spec.probes`` seeded perturbations of its generic variables.

    A perturbed point that leaves the premise (``premise(y)`` not True) or whose conclusion is undecided counts as
    neither restored nor failed, so it keeps the label ``persistent`` (never a free pass to exceptional)."""
    rng = random.Random(seed)
    decide = spec.conclusion or conclude
    restored = failed = 0
    for _ in range(spec.probes):
        y = spec.perturbed(x, rng)
        if premise(y) is not True:
            continue
        v = tri(decide(y))
        restored += v is True
        failed += v is False
    return Probe(spec.probes, restored, failed, seed)


# --- searches that state their region --------------------------------------------------------------------------

@dataclass(frozen=True)
class Search:
    """A search for a witness (of an existential claim) that states the region it searches.

    ``region``: the region in words; ``draw(rng)``: one instance of the region; ``inside(x)``: membership;
    ``counts(x)``: does the instance count (True / False / None); ``example()``: one instance inside the region
    that counts (a test checks it, so that an empty search is informative); ``describe``: one line per instance.
    """

    region: str
    draw: Callable[[random.Random], Any]
    inside: Callable[[Any], bool]
    counts: Callable[[Any], bool | None]
    example: Callable[[], Any]
    describe: Callable[[Any], str] = str

    def run(self, what: str, *, seed: int, draws: int, arithmetic: str, regime: str = "all",
            numbers: Numbers | None = None) -> Evidence:
        """Draw ``draws`` instances of the region: the first that counts is an exact witness (holds); none is
        evidence against, shown with the region it covered."""
        rng = random.Random(seed)
        for k in range(draws):
            x = self.draw(rng)
            if tri(self.counts(x)) is True:
                return exact_complete(f"{what}: a witness in the region «{self.region}» (draw {k + 1} of at most "
                                      f"{draws}, seed {seed}): {self.describe(x)}", True, arithmetic=arithmetic,
                                      regime=regime, numbers={"region": self.region, "seed": seed, **(numbers or {})})
        return exact_instances(f"{what}: no witness among {draws} draws of the region «{self.region}» (seed {seed})",
                               met=draws, held=0, drawn=draws, arithmetic=arithmetic, regime=regime,
                               numbers={"region": self.region, "seed": seed, **(numbers or {})})


#: every registered search by name ("CLAIM.ID:reading"), for the test that each can succeed
SEARCHES: dict[str, Search] = {}


def register_search(name: str, search: Search) -> Search:
    if name in SEARCHES and SEARCHES[name] is not search:
        raise ValueError(f"search {name!r} is already registered")
    SEARCHES[name] = search
    return search


# --- the genericity argument of a rank statement ----------------------------------------------------------------

def _determinantal_spot_check() -> bool:
    """rank M <= r iff every (r+1)-minor vanishes, on exact matrices of rank 1, 2 and 3 (3 x 4)."""
    mats = [sympy.Matrix([[1, 2, 0, 1], [2, 4, 0, 2], [-1, -2, 0, -1]]), sympy.Matrix([[1, 0, 2, 1], [0, 1, 1, 1],
                                                                                     [1, 1, 3, 2]]),
            sympy.Matrix([[1, 0, 0, 2], [0, 1, 0, 3], [0, 0, 1, 4]])]
    for M in mats:
        r = M.rank()
        for k in range(1, 4):
            minors = [M.extract(list(rs), list(cs)).det() for rs in combinations(range(3), k)
                      for cs in combinations(range(4), k)]
            if (k > r) != all(m == 0 for m in minors):
                return False
    return True


#: the cited lemma behind every rank genericity argument, spot-checked exactly
DETERMINANTAL_STEP = ProofStep(r"\operatorname{rank}M\le r\iff\text{every }(r+1)\times(r+1)\text{ minor of }M"
                               r"\text{ vanishes}",
                               "the determinantal characterisation of rank (spot-checked exactly on 3 x 4 matrices "
                               "of rank 1, 2, 3)", "lemma", _determinantal_spot_check)


def rank_genericity(what: str, *, P: str, witness: str, witness_holds: bool | None, arithmetic: str,
                    analytic: bool = False, interval: bool = False, regime: str = "all",
                    numbers: Numbers | None = None) -> Evidence:
    """The genericity argument of a rank statement: the failure (a rank at most r) forces the minor ``P`` — a
    polynomial, or a real-analytic function on a connected domain (``analytic``), of the generic variables — to
    vanish (:data:`DETERMINANTAL_STEP`); ``witness``: the point where P != 0 was computed (exactly, or with
    certified enclosures: ``interval``). It supports (cited null-set lemma) and never decides alone."""
    vanishing = derivation([DETERMINANTAL_STEP], f"the failure forces P = {P} to vanish",
                           arithmetic="exact (sympy, the lemma spot-checked)", regime=regime)
    make = interval_witness if interval else exact_complete
    w = make(f"P != 0 at {witness}", witness_holds, arithmetic=arithmetic, regime=regime,
             reason=None if witness_holds else "the witness does not show P != 0")
    return genericity_argument(what, vanishing=vanishing, witness=w, null_set="analytic" if analytic else "polynomial",
                               regime=regime, numbers=numbers)
