"""``depth``: the certified depth study (Dong's collapse layer by layer)."""
from __future__ import annotations

import argparse

from proofs_numeric.cli.console import print_table, table, terminal
from proofs_numeric.cli.inputs import (
    LIMITS,
    SEED_MAX,
    UsageError,
    add_deprecated_seed,
    check_output,
    check_range,
    resolve_deprecated_seed,
    write_json_output,
)
from proofs_numeric.witnesses.dong_collapse import (
    ARCHITECTURES,
    DEPTH_SHAPES,
    DepthConfig,
    DepthRangeError,
    exponent_note,
    run_all,
)
from theorems.exact.input import int_digits_unlimited

__all__ = ["add_parsers", "cmd_depth", "depth_work"]


def cmd_depth(args) -> int:
    with int_digits_unlimited():
        return _depth(args)


def _depth(args) -> int:
    # lazy: rich is imported only by the subcommands that print (CLI start-up time)

    _validate_depth(args, ARCHITECTURES)
    check_output(args.json, kind="depth", force=args.force)
    try:
        cfg = DepthConfig(n=args.n, d=args.d, H=args.heads, d_k=args.d_k, layers=args.layers, dps=args.dps,
                          seed=args.instance_seed if args.instance_seed is not None else 0)
    except ValueError as e:
        raise UsageError(str(e)) from None
    regimes = args.regime or list(ARCHITECTURES)
    for r in regimes:
        if r not in ARCHITECTURES:
            raise UsageError(f"unknown regime {r!r}; choose from {', '.join(ARCHITECTURES)}")
    try:
        res = run_all(cfg, shapes=DEPTH_SHAPES if args.all_shapes else None, regimes=regimes)
    except DepthRangeError as e:
        raise UsageError(str(e)) from None
    except ValueError as e:  # LayerNorm of a row that is (or may be) constant: H1 fails, named
        if not str(e).startswith("H1"):
            raise
        raise UsageError(f"attention_ln: {e}") from None
    c = terminal()
    for reg, r in res["regimes"].items():
        expo = exponent_note(r["layers"])
        t = table(title=f"{reg}: n={cfg.n}, d={cfg.d}, H={cfg.H}, d_k={cfg.d_k}; {r['arithmetic']}; {expo}",
                  caption="rho certified; log ratio = log rho_(l+1) / log rho_l; num. rank at rtol 1e-12; f64: the "
                          "same network in float64")
        for col in ("layer", "rho", "log ratio", "certified rank", "num. rank", "eff. rank", "f64 rho", "f64 rank"):
            t.add_column(col, overflow="fold")
        for x in r["layers"]:
            f = x["float64"]
            t.add_row(str(x["layer"]), x["rho"], "" if x["log_ratio"] is None else f"{x['log_ratio']:.4f}",
                      str(x["certified_rank"]), str(x["numerical_rank"]), f"{x['effective_rank']:.3f}",
                      f"{f['rho']:.3g}", str(f["numerical_rank"]))
        print_table(c, t)
    if args.json:
        write_json_output(args.json, res, kind="depth", force=args.force)
        c.print(f"wrote {args.json}", markup=False, highlight=False)
    return 0


#: what `depth --seed` set before each random choice had its own flag
OLD_SEED = ("seed of the random weights and input", ("--instance-seed",))


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
        check_range("--" + name.replace("_", "-"), getattr(args, name), lo, hi, why,
                    f"DEPTH_MAX_{'SIDE' if name in ('n', 'd', 'd_k') else name.upper()}")
    resolve_deprecated_seed(args, "depth", *OLD_SEED)
    check_range("--instance-seed", args.instance_seed, 0, SEED_MAX, "seeds are 0 <= seed < 2^63")
    for r in args.regime or []:
        if r not in regimes:
            raise UsageError(f"unknown regime {r!r}; choose from {', '.join(regimes)}")
    w = depth_work(args.n, args.d, args.heads, args.d_k, args.layers, args.dps)
    if w > L["DEPTH_MAX_WORK"]:
        raise UsageError(f"the depth study with these sizes would take too long: estimated work {w:.3g} "
                         f"(layers * n * d * (n + d + heads * d_k) * (dps/1000)^2) is above DEPTH_MAX_WORK = "
                         f"{L['DEPTH_MAX_WORK']} (about a minute here); lower --layers, --dps or the sizes, or "
                         "raise COLLAPSE_VERIFY_DEPTH_MAX_WORK")


def add_parsers(sub) -> None:
    """Add this module's subcommand(s) to the parser's subparsers."""
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
    dp.add_argument("--instance-seed", type=int, metavar="N", help="seed of the random instance: the weights and the "
                    "input X (default 0; 0 <= seed < 2^63)")
    add_deprecated_seed(dp, *OLD_SEED)
    dp.add_argument("--regime", action="append", choices=["pure_attention", "attention_skip", "attention_mlp",
                                                          "full_block", "attention_ln"],
                    help="pure_attention, attention_skip, attention_mlp, full_block or attention_ln (pure attention "
                         "with LayerNorm after every layer, no skip, no MLP) (repeatable; default all five)")
    dp.add_argument("--all-shapes", action="store_true", help="also run the study's standard shapes")
    dp.add_argument("--json", metavar="PATH",
                    help='write {"config": {...}, "regimes": {"pure_attention": {"layers": [...], "exponent": float}, '
                         '...}}; each layer\'s rho as its arb ball and enclosure (a file that exists is replaced only '
                         'if it is a depth record this tool wrote)')
    dp.add_argument("--force", action="store_true",
                    help="replace an existing --json file even if it is not a depth record this tool wrote")
    dp.set_defaults(run=cmd_depth)
