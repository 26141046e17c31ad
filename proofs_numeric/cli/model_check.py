"""``check CLAIM --model DIR [DIR ...]``: the claims matching CLAIM at every site of your checkpoint(s) (and the
``real-model`` command, which is this with the default claim set)."""
from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path

from proofs_numeric.cli.console import print_table, short_labels, table, terminal
from proofs_numeric.cli.inputs import (
    LIMITS,
    SEED_MAX,
    UsageError,
    check_range,
    write_text,
)
from proofs_numeric.ledger.model_check import (
    RECORD_KIND,
    RunSpec,
    SchedulerError,
    run,
    say_interrupted,
    select_claims,
    summary_json,
)
from proofs_numeric.model.sites import NETWORK_LAYERS, SiteIdError
from proofs_numeric.output import check_plot_output, check_stream, marked, write_plot

__all__ = ["add_model_arguments", "cmd_check_model", "spec_from_args", "render_summary", "MODEL_EPILOG",
           "token_inputs", "run_or_usage_error", "check_scheduler", "interrupted", "resume_command"]

MODEL_EPILOG = """claims at the sites of your model (--model):
  collapse-verify check 'RN.*' --model ~/models/bert-base --text "A sentence." --jsonl rn.jsonl
  collapse-verify check 'HC.*,RA.*' --model run/ckpt-* --ids '[1, 5, 9, 42]' --json
  collapse-verify check RN.main --model DIR --resume rn.jsonl        # continue an interrupted run
  collapse-verify check RN.main --model DIR --workers 2              # local worker processes (default: cores)
  collapse-verify check RN.main --model DIR --scheduler tcp://host:8786   # an existing Dask cluster
  each (checkpoint, input, site, claim, reading, level) is one JSON Lines record (--jsonl): holds / counterexample /
  premise-fails / undecided, or not checked with the reason; `about` says whether it is about the float
  computation (the stored float64 activations taken exactly) or about the network itself (stored weights,
  exact embeddings, or interval enclosures of a forward in arb). Every line is a record, its first key the
  marker collapse_verify (pandas.read_json(PATH, lines=True) reads the file as it is); --resume continues only a
  stream check --model wrote. Ctrl-C (or SIGTERM) stops the run within seconds, exit 130, with one line: the
  records in the file and the --resume command that completes the run."""

_USER_FLAGS = (("X", "--X"), ("gamma", "--gamma"), ("beta", "--beta"), ("Delta", "--Delta"), ("W_O", "--W-O"),
               ("weights", "--weights"), ("n", "--n"), ("heads", "--heads"), ("save", "--save"))


def add_model_arguments(c) -> None:
    """The --model options of ``check`` (``c`` is its parser)."""
    g = c.add_argument_group("claims at the sites of a model (--model)")
    g.add_argument("--model", nargs="+", metavar="DIR", help="checkpoint folder(s): config.json + model.safetensors "
                   "(or shards); several folders (a training run) run as one job. CLAIM is then a glob, e.g. 'RN.*'")
    add_token_arguments(g)
    g.add_argument("--jsonl", metavar="PATH", help="write one JSON Lines record per (checkpoint, input, site, "
                   "claim, reading, about.level), appended and flushed as each finishes; a site is a typed id such as "
                   "L0.ln1.input, L3.attn.W_O, L3.head7.output, L3.mlp.update")
    g.add_argument("--resume", metavar="PATH", help="continue the record stream PATH: records already there are "
                   "skipped (the result is the records of an uninterrupted run)")
    g.add_argument("--workers", type=int, metavar="N", help=f"local worker processes (default: the core count, "
                   f"{os.cpu_count()}; 1 runs in this process)")
    g.add_argument("--scheduler", metavar="ADDRESS", help="submit the tasks to an existing Dask distributed cluster "
                   "(e.g. tcp://host:8786); 'local' starts a dask.distributed.LocalCluster of --workers processes")
    g.add_argument("--network-layers", type=int, metavar="L", default=None,
                   help="network-level records: run the forward in interval arithmetic through the first L "
                        "layers (arb) of inputs of at most 64 tokens, or through layer 0 (midpoint-radius float64) of "
                        "inputs up to 128 tokens (default 2; 0: none)")
    g.add_argument("--progress", choices=["auto", "bar", "lines"], default="auto",
                   help="a progress bar (default on a terminal) or plain lines: the task count at the start, "
                        "progress at most every 10 s, one line per finished checkpoint")
    g.add_argument("--plot", metavar="PATH", help="draw the run across its checkpoints (.png, .svg or .pdf): per "
                   "reading the share of sites in each outcome, per checkpoint in the natural order of their names "
                   "(checkpoint-2 before checkpoint-10), and the attention update's ||Delta||/||X|| per layer where "
                   "the records have it; replaces only a figure collapse-verify drew")


def add_token_arguments(g) -> None:
    g.add_argument("--text", action="append", help="an input text (repeatable; needs tokenizer.json; default: the "
                   f"three standard inputs; at most MAX_TEXTS = {LIMITS['MAX_TEXTS']} of TEXT_MAX_CHARS = "
                   f"{LIMITS['TEXT_MAX_CHARS']} characters)")
    g.add_argument("--ids", metavar="JSON", help="token ids as a JSON list, e.g. '[1, 5, 9]'")
    g.add_argument("--length", type=int, metavar="N", help="number of seeded random token ids (default 16; capped at "
                   "the model's positions)")
    g.add_argument("--token-seed", type=int, metavar="N", help="seed of the random token ids (no tokenizer.json and "
                   "no --ids; default 0)")


def token_inputs(args) -> tuple:
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
    seed = getattr(args, "token_seed", None)
    check_range("--token-seed", seed, 0, SEED_MAX, "seeds are 0 <= seed < 2^63")
    if args.length is not None and args.length < 1:  # no upper bound to state: the model's positions cap the length
        raise UsageError(f"--length {args.length}: give at least 1 token (a length above the model's positions is "
                         "capped at them, and the output says so)")
    check_range("--length", args.length, 1, SEED_MAX, "tokens of the random input; capped at the model's positions")
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
    if jsonl is not None:  # the stream rule, checked before any work (and again when the stream opens)
        check_stream(jsonl, what="--resume" if resume else "--jsonl", kind=RECORD_KIND, resume=resume,
                     inputs=[m for m in models if m is not None])
    return RunSpec(models=models, claims=claims, texts=texts, ids=ids, length=length, token_seed=tseed, jsonl=jsonl,
                   resume=resume, workers=workers, scheduler=args.scheduler,
                   seed=args.prime_seed if getattr(args, "prime_seed", None) is not None else 0,
                   dps=getattr(args, "dps", 50) or 50,
                   network_layers=NETWORK_LAYERS if args.network_layers is None else args.network_layers,
                   measure=measure, readings=tuple(args.reading) if getattr(args, "reading", None) else None,
                   progress={"auto": None, "bar": True, "lines": False}[getattr(args, "progress", "auto")],
                   interrupt_line=interrupt_line(jsonl, getattr(args, "argv", None)),
                   process_exits_after=True)


def resume_command(argv, jsonl) -> str:
    """The command line that continues an interrupted run: ``argv`` with ``--jsonl PATH`` as ``--resume PATH``."""
    words = ["collapse-verify"]
    args = list(argv or [])
    i = 0
    has_resume = False
    while i < len(args):
        a = args[i]
        if a == "--jsonl" and i + 1 < len(args):
            i += 2
            continue
        if a.startswith("--jsonl="):
            i += 1
            continue
        has_resume = has_resume or a == "--resume" or a.startswith("--resume=")
        words.append(a)
        i += 1
    if not has_resume:
        words += ["--resume", str(jsonl)]
    return shlex.join(words)


def interrupt_line(jsonl, argv):
    """The one line an interrupted run prints: (records in the stream, a second signal) -> text."""
    def line(count: int, again: bool = False) -> str:
        head = "collapse-verify: interrupted" + (" again, stopped at once" if again else "")
        if jsonl is None:
            return f"{head}: {count} records computed, none kept (give --jsonl PATH to keep them, --resume PATH " \
                   "to continue)"
        return f"{head}: {count} records in {jsonl}; continue with: {resume_command(argv, jsonl)}"
    return line


def _models(args) -> list:
    """The checkpoint folders, each once: a folder given twice (or under two spellings: a link, a trailing slash)
    runs once, and a note says so."""
    out: list = []
    seen: dict[Path, str] = {}
    for d in args.model:
        p = Path(d)
        if not p.exists():
            raise UsageError(f"--model: {d} not found (give a folder holding config.json and model.safetensors)")
        if not p.is_dir():
            raise UsageError(f"--model: {d} is not a directory (give the checkpoint folder)")
        real = p.resolve()
        if real in seen:
            same = "given twice" if seen[real] == d else f"the same folder as {seen[real]}"
            print(f"collapse-verify: note: --model {d} is {same}; it runs once", file=sys.stderr)
            continue
        seen[real] = d
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
    models = _models(args)
    plot = getattr(args, "plot", None)
    if plot is not None:  # checked before the run: a refused path or a missing package costs no computation
        check_plot_output(plot, inputs=models)
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise UsageError("--plot needs matplotlib: pip install matplotlib") from None
    spec = spec_from_args(args, claims, models)
    if args.scheduler is not None and args.scheduler != "local":
        check_scheduler(args.scheduler)
    out = run_or_usage_error(spec)
    code = _finish(out, spec, args.json, args.jsonl or args.resume)
    if plot is not None and not out.interrupted:
        drawn = plot_run(out.records, plot, inputs=models)
        print(f"collapse-verify: wrote {drawn}", file=sys.stderr)
    return code


def natural_key(label: str) -> list:
    """checkpoint-2 before checkpoint-10: the digit runs of a name compared as numbers."""
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", str(label)) if t]


def plot_run(records: list, path, inputs=()) -> Path:
    """The figure of a run across its checkpoints (:func:`proofs_numeric.ledger.figures.across_checkpoints`), from
    its records, the checkpoints in natural order of their names; written under the figure rule."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from proofs_numeric.ledger.figures import across_checkpoints
    from proofs_numeric.witnesses.real_model import layer_rows
    by: dict = {}
    for r in records:
        by.setdefault(str(r["checkpoint"]), []).append(r)
    if not by:
        raise UsageError(f"--plot {path}: the run has no records to draw")
    names = sorted(by, key=natural_key)
    short = short_labels(set(names))
    runs = []
    for name in names:
        recs = by[name]
        first = next(iter(dict.fromkeys(r["input"] for r in recs)))
        runs.append((short.get(name, name), recs, layer_rows(recs, first)))
    fig = across_checkpoints(runs, f"{len(names)} checkpoint(s), {len(records)} site records")
    try:
        return write_plot(fig, path, inputs=inputs)
    finally:
        plt.close(fig)


def interrupted(out, spec) -> int:
    """An interrupted run (SIGINT or SIGTERM): its one line on stderr, exit 130."""
    count = out.in_stream if out.in_stream is not None else out.written
    say_interrupted(spec.interrupt_line(count) if spec.interrupt_line else
                    f"collapse-verify: interrupted: {count} records")
    return 130


def run_or_usage_error(spec):
    """:func:`proofs_numeric.ledger.model_check.run`, with a scheduler that cannot be reached as a usage error."""
    try:
        return run(spec)
    except SchedulerError as e:
        raise UsageError(str(e)) from None
    except SiteIdError as e:  # a stream whose records name their sites in words (before site ids were typed)
        raise UsageError(f"--resume {spec.jsonl}: {e}") from None


def check_scheduler(address: str) -> None:
    if "://" not in address and ":" not in address:
        raise UsageError(f"--scheduler {address!r}: give a Dask scheduler address such as tcp://host:8786, or 'local'")


def _finish(out, spec, as_json: bool, jsonl) -> int:
    if out.interrupted:
        return interrupted(out, spec)
    data = summary_json(out, spec)
    if as_json:  # one marked object (schema model-summary.schema.json)
        print(json.dumps(marked("model-check-summary", data), indent=1, default=str))
    else:
        render_summary(data)
    if out.errors:
        return 1
    return 2 if out.failures else 0


def render_summary(data: dict, console=None) -> None:
    """The per-claim table of a run on the terminal."""
    # lazy: rich is imported only by the subcommands that print (CLI start-up time)
    from rich.markup import escape
    con = console if console is not None else terminal()
    labels = short_labels({str(c["checkpoint"]) for c in data["checkpoints"]} |
                          {str(r["checkpoint"]) for r in data["claims"]})  # two folders named ckpt: told apart
    for c in data["checkpoints"]:
        if c.get("error"):
            con.print(f"[red]{escape(str(c['checkpoint']))}: {escape(c['error'])}[/]")
            continue
        ins = ", ".join(f"{k} ({len(v)} tokens)" for k, v in c["inputs"].items())
        name = labels.get(str(c["checkpoint"]), str(c["checkpoint"]))
        con.print(escape(f"{name}: {c['family']}, {c['norm']}, {c['n_layers']} layers, d = {c['d']}, "
                         f"H = {c['H']}; inputs {ins}; {c['config_hash'][:19]}"))
        for k, why in c.get("kinds_absent", {}).items():
            con.print(escape(f"  no {k} sites: {why}"), style="dim")
        for k, why in (c.get("network") or {}).items():
            if why:
                con.print(escape(f"  network-level records for {k}: none ({why})"), style="dim")
    counts = [("sites", "sites"), ("holds", "holds"), ("counterexample", "fails"),
              ("exceptional-point", "exceptional points"), ("premise-fails", "premise fails"),
              ("undecided", "undecided"), ("not-checked", "not checked")]
    shown = [(k, h) for k, h in counts if k in ("sites", "holds", "counterexample")
             or any(r.get(k) for r in data["claims"])]  # a count that is 0 in every row says nothing: left out, named
    left_out = [h for k, h in counts if (k, h) not in shown]
    several = len({str(r["checkpoint"]) for r in data["claims"]}) > 1
    levels = {r["level"] for r in data["claims"]}
    one = "" if several or not data["claims"] else labels.get(str(data["claims"][0]["checkpoint"]), "")
    t = table(title="claims at the sites: sites where the reading holds / fails"
              + "".join(f" / {h}" for _, h in shown[3:]) + (f" (checkpoint {one})" if one else ""),
              caption=(f"no site is {' or '.join(left_out)} (columns left out)" if left_out else None))
    t.add_column("claim, reading", overflow="fold", ratio=1)
    if several:
        t.add_column("checkpoint", overflow="fold")
    if len(levels) > 1:
        t.add_column("about", no_wrap=True)
    for _, h in shown:
        t.add_column(h, justify="right", overflow="fold", min_width=4)
    for r in data["claims"]:
        row = [f"{r['claim']} {r['reading']}"]
        if several:
            row.append(labels.get(str(r["checkpoint"]), str(r["checkpoint"])))
        if len(levels) > 1:
            row.append({"float-computation": "float", "network": "network"}.get(r["level"], str(r["level"])))
        t.add_row(*row, *(str(r.get(k, 0)) for k, _ in shown))
    print_table(con, t, key_columns=1 + several + (len(levels) > 1))
    for nc in data["not_checked"]:
        con.print(escape(f"not checked: {nc['claim']} ({nc['reading']}) at {nc['sites']} sites: {nc['reason']}"),
                  style="dim")
    for nc in data["not_at_sites"]:
        con.print(escape(f"not at sites: {nc['claim']}: {nc['reason']}"), style="dim")
    for e in data["errors"]:
        con.print(f"[red]error at {escape(str(e['checkpoint']))}, {escape(str(e['site']))}: "
                  f"{escape(e['error'])}[/]")
    con.print(escape(f"{data['records']} records ({data['written']} written now, {data['skipped_already_written']} "
                     f"already in the stream) by {data['executor']} in {data['seconds']:.1f} s"
                     + (f"; records: {data['jsonl']}" if data.get("jsonl") else "")))


def write_summary(path, data) -> None:
    write_text(path, json.dumps(data, indent=1, default=str) + "\n")
