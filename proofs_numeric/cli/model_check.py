"""``check CLAIM --model DIR [DIR ...]``: the claims matching CLAIM at every site of your checkpoint(s) (and the
``real-model`` command, which is this with the default claim set)."""
from __future__ import annotations

import json
import os
from pathlib import Path

from proofs_numeric.cli.inputs import LIMITS, SEED_MAX, UsageError, check_range, check_writable, write_text
from proofs_numeric.ledger.model_check import RunSpec, SchedulerError, run, select_claims, summary_json
from proofs_numeric.model.sites import NETWORK_LAYERS
from proofs_numeric.output import marked

__all__ = ["add_model_arguments", "cmd_check_model", "spec_from_args", "render_summary", "MODEL_EPILOG",
           "token_inputs", "run_or_usage_error", "check_scheduler"]

MODEL_EPILOG = """claims at the sites of your model (--model):
  collapse-verify check 'RN.*' --model ~/models/bert-base --text "A sentence." --jsonl rn.jsonl
  collapse-verify check 'HC.*,RA.*' --model run/ckpt-* --ids '[1, 5, 9, 42]' --json
  collapse-verify check RN.main --model DIR --resume rn.jsonl        # continue an interrupted run
  collapse-verify check RN.main --model DIR --workers 2              # local worker processes (default: cores)
  collapse-verify check RN.main --model DIR --scheduler tcp://host:8786   # an existing Dask cluster
  each (checkpoint, input, site, claim, reading, level) is one JSON Lines record (--jsonl): holds / counterexample /
  premise-fails / undecided, or not checked with the reason; `about` says whether it is about the float
  computation (the stored float64 activations taken exactly) or about the network itself (stored weights,
  exact embeddings, or interval enclosures of a forward in arb)."""

_USER_FLAGS = (("X", "--X"), ("gamma", "--gamma"), ("beta", "--beta"), ("Delta", "--Delta"), ("W_O", "--W-O"),
               ("weights", "--weights"), ("n", "--n"), ("heads", "--heads"), ("save", "--save"))


def add_model_arguments(c) -> None:
    """The --model options of ``check`` (``c`` is its parser)."""
    g = c.add_argument_group("claims at the sites of a model (--model)")
    g.add_argument("--model", nargs="+", metavar="DIR", help="checkpoint folder(s): config.json + model.safetensors "
                   "(or shards); several folders (a training run) run as one job. CLAIM is then a glob, e.g. 'RN.*'")
    add_token_arguments(g)
    g.add_argument("--jsonl", metavar="PATH", help="write one JSON Lines record per (checkpoint, input, site, "
                   "claim, reading, about.level), appended and flushed as each finishes")
    g.add_argument("--resume", metavar="PATH", help="continue the record stream PATH: records already there are "
                   "skipped (the result is the records of an uninterrupted run)")
    g.add_argument("--workers", type=int, metavar="N", help=f"local worker processes (default: the core count, "
                   f"{os.cpu_count()}; 1 runs in this process)")
    g.add_argument("--scheduler", metavar="ADDRESS", help="submit the tasks to an existing Dask distributed cluster "
                   "(e.g. tcp://host:8786); 'local' starts a dask.distributed.LocalCluster of --workers processes")
    g.add_argument("--network-layers", type=int, metavar="L", default=None,
                   help="network-level records: run the forward in interval arithmetic (arb) through the first L "
                        "layers of inputs of at most 64 tokens (default 2; 0: none)")
    g.add_argument("--progress", choices=["auto", "bar", "lines"], default="auto",
                   help="a progress bar (default on a terminal) or one line per finished checkpoint")


def add_token_arguments(g, token_seed: bool = True) -> None:
    g.add_argument("--text", action="append", help="an input text (repeatable; needs tokenizer.json; default: the "
                   f"three standard inputs; at most MAX_TEXTS = {LIMITS['MAX_TEXTS']} of TEXT_MAX_CHARS = "
                   f"{LIMITS['TEXT_MAX_CHARS']} characters)")
    g.add_argument("--ids", metavar="JSON", help="token ids as a JSON list, e.g. '[1, 5, 9]'")
    g.add_argument("--length", type=int, metavar="N", help="number of seeded random token ids (default 16; capped at "
                   "the model's positions)")
    if token_seed:
        g.add_argument("--token-seed", type=int, metavar="N", help="seed of the random token ids (default 0); --seed "
                       "keeps its check meaning (the primes of the certified ranks)")


def token_inputs(args, seed_attr: str = "token_seed") -> tuple:
    """(texts, ids, length, token seed) from the arguments, validated (UsageError naming the problem)."""
    texts_in = args.text or []
    if len(texts_in) > LIMITS["MAX_TEXTS"]:
        raise UsageError(f"{len(texts_in)} --text options, above MAX_TEXTS = {LIMITS['MAX_TEXTS']}")
    for i, t in enumerate(texts_in):
        if not t.strip():
            raise UsageError(f"--text number {i + 1} is empty")
        if len(t) > LIMITS["TEXT_MAX_CHARS"]:
            raise UsageError(f"--text number {i + 1} has {len(t)} characters, above TEXT_MAX_CHARS = "
                             f"{LIMITS['TEXT_MAX_CHARS']}")
    ids = None
    if args.ids is not None:
        try:
            ids = json.loads(args.ids)
        except json.JSONDecodeError as e:
            raise UsageError(f"--ids is not valid JSON ({e.msg} at column {e.colno}): give a list such as "
                             f"'[1, 5, 9]'") from None
    texts = {f"text{i}": t for i, t in enumerate(texts_in)} if texts_in else None
    seed = getattr(args, seed_attr, None)  # --seed of real-model is validated with the token inputs (prepare_inputs)
    if seed_attr == "token_seed":
        check_range("--token-seed", seed, 0, SEED_MAX, "seeds are 0 <= seed < 2^63")
    check_range("--length", args.length, 1, SEED_MAX, "tokens of the random input, capped at the model's positions")
    return texts, ids, args.length, seed


def spec_from_args(args, claims, models, measure: bool = False):
    """A :class:`proofs_numeric.ledger.model_check.RunSpec` from the parsed arguments."""
    texts, ids, length, tseed = token_inputs(args)
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    check_range("--workers", workers, 1, 1024, "worker processes")
    if args.network_layers is not None:
        check_range("--network-layers", args.network_layers, 0, 10_000, "layers")
    jsonl, resume = args.jsonl, False
    if args.resume is not None:
        if jsonl is not None and Path(jsonl).resolve() != Path(args.resume).resolve():
            raise UsageError("--resume PATH continues PATH itself; give it alone (or the same path as --jsonl)")
        jsonl, resume = args.resume, True
        if not Path(jsonl).is_file():
            raise UsageError(f"--resume {jsonl}: no such record stream (start it with --jsonl {jsonl})")
    if jsonl is not None:
        check_writable(jsonl, "--jsonl" if not resume else "--resume")
        if not resume and Path(jsonl).exists() and Path(jsonl).stat().st_size > 0:
            raise UsageError(f"--jsonl {jsonl} exists; give --resume {jsonl} to continue it, or another path")
    return RunSpec(models=models, claims=claims, texts=texts, ids=ids, length=length, token_seed=tseed, jsonl=jsonl,
                   resume=resume, workers=workers, scheduler=args.scheduler,
                   seed=args.seed if getattr(args, "seed", None) is not None else 0,
                   dps=getattr(args, "dps", 50) or 50,
                   network_layers=NETWORK_LAYERS if args.network_layers is None else args.network_layers,
                   measure=measure, readings=tuple(args.reading) if getattr(args, "reading", None) else None,
                   progress={"auto": None, "bar": True, "lines": False}[getattr(args, "progress", "auto")])


def _models(args) -> list:
    out = []
    for d in args.model:
        p = Path(d)
        if not p.exists():
            raise UsageError(f"--model: {d} not found (give a folder holding config.json and model.safetensors)")
        if not p.is_dir():
            raise UsageError(f"--model: {d} is not a directory (give the checkpoint folder)")
        out.append(d)
    return out


def cmd_check_model(args) -> int:
    """``check CLAIM --model DIR ...``."""
    given = [flag for name, flag in _USER_FLAGS if getattr(args, name, None) is not None]
    if given:
        raise UsageError(f"--model reads every input from the model's sites; {', '.join(given)} cannot be given with "
                         "it")
    if args.claim is None:
        raise UsageError("check --model needs a CLAIM (an id or a glob such as 'RN.*')")
    claims = select_claims(args.claim)
    if not claims:
        raise UsageError(f"no registered claim matches {args.claim!r} (`collapse-verify check --list` lists them)")
    spec = spec_from_args(args, claims, _models(args))
    if args.scheduler is not None and args.scheduler != "local":
        check_scheduler(args.scheduler)
    out = run_or_usage_error(spec)
    return _finish(out, spec, args.json, args.jsonl or args.resume)


def run_or_usage_error(spec):
    """:func:`proofs_numeric.ledger.model_check.run`, with a scheduler that cannot be reached as a usage error."""
    try:
        return run(spec)
    except SchedulerError as e:
        raise UsageError(str(e)) from None


def check_scheduler(address: str) -> None:
    if "://" not in address and ":" not in address:
        raise UsageError(f"--scheduler {address!r}: give a Dask scheduler address such as tcp://host:8786, or 'local'")


def _finish(out, spec, as_json: bool, jsonl) -> int:
    data = summary_json(out, spec)
    if as_json:  # one marked object (schema model-summary.schema.json)
        print(json.dumps(marked("model-check-summary", data), indent=1, default=str))
    else:
        render_summary(data)
    if out.interrupted:
        print(f"interrupted: {out.written} records written" + (f"; continue with --resume {jsonl}" if jsonl else ""))
        return 130
    if out.errors:
        return 1
    return 2 if out.failures else 0


def render_summary(data: dict, console=None) -> None:
    """The per-claim table of a run on the terminal."""
    # lazy: rich is imported only by the subcommands that print (CLI start-up time)
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table
    con = Console(highlight=False, width=max(140, Console().width), file=getattr(console, "file", None))
    for c in data["checkpoints"]:
        if c.get("error"):
            con.print(f"[red]{escape(c['checkpoint'])}: {escape(c['error'])}[/]", soft_wrap=True)
            continue
        ins = ", ".join(f"{k} ({len(v)} tokens)" for k, v in c["inputs"].items())
        con.print(escape(f"{c['checkpoint']}: {c['family']}, {c['norm']}, {c['n_layers']} layers, d = {c['d']}, "
                         f"H = {c['H']}; inputs {ins}; {c['config_hash'][:19]}"), soft_wrap=True)
        for k, why in c.get("kinds_absent", {}).items():
            con.print(escape(f"  no {k} sites: {why}"), style="dim", soft_wrap=True)
        for k, why in (c.get("network") or {}).items():
            if why:
                con.print(escape(f"  network-level records for {k}: none ({why})"), style="dim", soft_wrap=True)
    t = Table(title="claims at the sites (sites where the reading holds / fails / premise fails / undecided / not "
                    "checked)")
    for col in ("claim", "reading", "checkpoint", "about", "sites", "holds", "fails", "premise fails", "undecided",
                "not checked"):
        t.add_column(col, overflow="fold")
    for r in data["claims"]:
        t.add_row(r["claim"], r["reading"], Path(str(r["checkpoint"])).name or str(r["checkpoint"]),
                  {"float-computation": "float", "network": "network"}.get(r["level"], str(r["level"])),
                  str(r["sites"]), str(r["holds"]), str(r["counterexample"]), str(r["premise-fails"]),
                  str(r["undecided"]), str(r["not-checked"]))
    con.print(t)
    for nc in data["not_checked"]:
        con.print(escape(f"not checked: {nc['claim']} ({nc['reading']}) at {nc['sites']} sites: {nc['reason']}"),
                  style="dim", soft_wrap=True)
    for nc in data["not_at_sites"]:
        con.print(escape(f"not at sites: {nc['claim']}: {nc['reason']}"), style="dim", soft_wrap=True)
    for e in data["errors"]:
        con.print(f"[red]error at {escape(str(e['checkpoint']))}, {escape(str(e['site']))}: "
                  f"{escape(e['error'])}[/]", soft_wrap=True)
    con.print(escape(f"{data['records']} records ({data['written']} written now, {data['skipped_already_written']} "
                     f"already in the stream) by {data['executor']} in {data['seconds']:.1f} s"
                     + (f"; records: {data['jsonl']}" if data.get("jsonl") else "")), soft_wrap=True)


def write_summary(path, data) -> None:
    write_text(path, json.dumps(data, indent=1, default=str) + "\n")
