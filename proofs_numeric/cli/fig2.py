"""``fig2``: Dong et al.'s Figure 2 protocol re-run on a checkpoint, the certified answer at every 0.00 layer."""
from __future__ import annotations

import argparse
from pathlib import Path

from proofs_numeric.cli.inputs import SEED_MAX, UsageError, check_range
from proofs_numeric.cli.model_check import add_token_arguments, token_inputs
from proofs_numeric.ledger.dong_figure import draw
from proofs_numeric.model import checkpoint as CK
from proofs_numeric.model import service
from proofs_numeric.model.dong_variants import VARIANTS
from proofs_numeric.output import check_output, check_plot_output, write_json_output, write_plot
from proofs_numeric.witnesses.dong_figure import run_figure2
from theorems.exact.dong_figure import first_layer_below

__all__ = ["add_parsers", "cmd_fig2", "DEFAULT_TOKENS", "figure2_inputs"]

#: Dong's protocol: texts of at least 128 tokens, max_length 128
DEFAULT_TOKENS = 128


def _model(arg):
    if arg is None:
        try:
            return service.load()
        except service.ModelNotInstalled as e:
            raise UsageError(f"{e}, or give --model DIR") from None
    p = Path(arg)
    if not p.exists():
        raise UsageError(f"--model: {arg} not found (give a folder holding config.json and model.safetensors)")
    if not p.is_dir():
        raise UsageError(f"--model: {arg} is not a directory (give the checkpoint folder)")
    try:
        return CK.load_checkpoint(p)
    except (CK.CheckpointError, ValueError) as e:
        raise UsageError(f"--model: {e}") from None


def figure2_inputs(m, args) -> tuple[str, list[int]]:
    """(what the input is, its token ids): one text, token ids, or seeded ids; by default the suite's long text cut at
    128 tokens (Dong's max_length), or 128 seeded ids when the checkpoint has no tokenizer."""
    texts, ids, length, tseed = token_inputs(args)
    if texts is not None and len(texts) > 1:
        raise UsageError(f"fig2 runs one input; got {len(texts)} --text options")
    random = length is not None or tseed is not None
    if texts is None and ids is None and not random:
        if m.tokenizer is not None:
            texts = {"long": service.TEXTS["long"]}
        else:
            length = DEFAULT_TOKENS
    try:
        runs, _ = service.prepare_inputs(m, texts, ids, tseed, length)
    except ValueError as e:
        raise UsageError(str(e)) from None
    name, run = next(iter(runs.items()))
    if texts is not None and ids is None and len(run) > DEFAULT_TOKENS:
        run = run[:DEFAULT_TOKENS]
        name = f"text {name!r} cut at {DEFAULT_TOKENS} tokens"
    if len(run) < 2:
        raise UsageError(f"the input has {len(run)} token: the ratio ||X - mean|| / ||X|| needs at least 2 tokens")
    return name, run


def cmd_fig2(args) -> int:
    check_range("--prime-seed", args.prime_seed, 0, SEED_MAX, "seeds are 0 <= seed < 2^63")
    variants = VARIANTS
    if args.variants:
        variants = tuple(v.strip() for v in args.variants.split(","))
        bad = [v for v in variants if v not in VARIANTS]
        if bad:
            raise UsageError(f"--variants: {', '.join(map(repr, bad))} not among {', '.join(VARIANTS)}")
    m = _model(args.model)
    inputs = [m.path]
    check_output(args.json, kind="fig2", force=args.force, inputs=inputs)
    if args.plot is not None:  # a figure collapse-verify drew is replaced; any other file only with --force
        check_plot_output(args.plot, force=args.force, inputs=inputs)
        try:
            import matplotlib  # noqa: F401 - checked before the run, so a missing package costs no computation
        except ImportError:
            raise UsageError("--plot needs matplotlib: pip install matplotlib") from None
    what, ids = figure2_inputs(m, args)
    try:
        res = run_figure2(m, ids, variants, seed=args.prime_seed or 0, certify=not args.no_certify)
    except ValueError as e:  # non-finite activations of a broken checkpoint
        raise UsageError(f"--model: {e}") from None
    res["input"] = what
    print(f"{res['model']}: {res['family']} ({'post' if res['post_ln'] else 'pre'}-LN), {res['n_layers']} layers, "
          f"d = {res['d']}; input: {what}, {res['n_tokens']} tokens")
    print(f"metric: {res['metric']}")
    width = max(len(v) for v in variants)
    print(" " * (width + 2) + " ".join(f"{k:>6d}" for k in range(res["n_layers"] + 1)))
    for v in variants:
        print(f"{v:<{width}}  " + " ".join(f"{x:6.2f}" for x in res["variants"][v]["ratio"]))
    bert = first_layer_below("BERT", "pretrained", "SAN")
    print(f"Dong et al.'s BERT (pretrained) SAN prints 0.00 from layer {bert} (the published curve, "
          "theorems/data/dong2021_fig2.csv)")
    for z in res["zero_layers"]:
        head = f"{z['variant']} layer {z['layer']}: ratio {z['ratio']:.2e} (prints 0.00)"
        if "exact_rank" not in z:
            print(head)
            continue
        print(head)
        print(f"  {z['rank_words']}")
        print(f"  {z['real_words']}")
    if not res["zero_layers"]:
        print("no layer prints 0.00 in this re-run")
    print(f"{res['seconds']['total']:.2f} s ({res['seconds']['forwards']:.2f} s for the {len(variants)} float64 "
          "forwards); " + res["note"])
    if args.json:
        p = write_json_output(args.json, res, kind="fig2", force=args.force, inputs=inputs)
        print(f"wrote {p}")
    if args.plot is not None:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig = draw(res)
        try:
            print(f"wrote {write_plot(fig, args.plot, force=args.force, inputs=inputs)}")
        finally:
            plt.close(fig)
    return 0


def add_parsers(sub) -> None:
    """Add this module's subcommand(s) to the parser's subparsers."""
    f = sub.add_parser("fig2", help="Dong et al.'s Figure 2 re-run on a checkpoint (numpy), the exact rank of the "
                       "stored activations at every layer that prints 0.00",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    f.add_argument("--model", metavar="DIR", help="a local checkpoint folder (BERT, GPT-2 or LLaMA family); default: "
                   "the packaged all-MiniLM-L6-v2")
    add_token_arguments(f)
    f.add_argument("--variants", metavar="LIST", help=f"comma-separated subset of {','.join(VARIANTS)} (default all)")
    f.add_argument("--prime-seed", type=int, metavar="N", help="seed of the certified rank's random primes (default 0)")
    f.add_argument("--no-certify", action="store_true", help="skip the exact ranks at the 0.00 layers (float only)")
    f.add_argument("--json", metavar="PATH", help="write the re-run (ratios, the certified answers, the ids) as JSON")
    f.add_argument("--plot", metavar="PATH", help="draw the figure (.png, .svg or .pdf; needs matplotlib)")
    f.add_argument("--force", action="store_true", help="replace a --json file that is not a fig2 record, or a "
                   "--plot file that is not a figure collapse-verify drew")
    f.set_defaults(run=cmd_fig2)
