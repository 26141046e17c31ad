"""``verify`` (the ledger) and ``show`` (one claim's whole record)."""
from __future__ import annotations

import difflib
import json
import os
import signal
import sys
import textwrap
import time

import sympy

from proofs_numeric.cli.check import ALIASES
from proofs_numeric.cli.common import report_import_errors, wrap_plain, wrap_tex
from proofs_numeric.cli.console import terminal
from proofs_numeric.cli.inputs import LIMITS, UsageError, check_output, check_range, write_json_output, write_output
from proofs_numeric.ledger import (
    claim_header,
    ledger_json,
    registry,
    render_claim,
    render_summary,
    run_ledger,
    said,
    select,
)
from proofs_numeric.ledger.diff import DiffError, ledger_diff, load_ledger, render_diff
from proofs_numeric.ledger.run import signals_handled_by
from proofs_numeric.output import marked
from theorems.exact.input import int_digits_unlimited
from theorems.framework import (
    CONJECTURES,
    HOW_TO_GET_SOURCES,
    REPO_ROOT,
    SOURCES_ENV,
    CheckContext,
    check_quote,
    load_sources,
    run_claim,
    set_source_dir,
    source_dir,
    tri,
)
from theorems.framework.evidence import counterexample_file, store_command
from theorems.framework.storage import encode_instance
from theorems.framework.storage import typeset as storage_typeset

__all__ = ["add_parsers", "cmd_verify", "cmd_show", "store_writer", "default_workers"]


def cmd_verify(args) -> int:
    check_range("--workers", args.workers, 1, 1024, "worker processes")
    check_range("--dps", args.dps, 15, LIMITS["VERIFY_MAX_DPS"], "digits of the interval witnesses", "VERIFY_MAX_DPS")
    if args.claims is not None and not args.claims.strip():
        raise UsageError("--claims is empty: give a glob such as 'RN.*' (omit it for every claim)")
    check_output(args.json, kind="ledger", force=args.force)
    sources = _sources(args)  # before any computation: a missing or wrong text is a usage error
    args.old_ledger = None
    if args.diff is not None:
        try:  # read before the run: a bad OLD file is a usage error at once, not after minutes
            args.old_ledger = load_ledger(args.diff)
        except DiffError as e:
            raise UsageError(str(e)) from None
    with int_digits_unlimited(), _sigterm_interrupts():  # witnesses above 4300 digits print exact integers
        return _verify(args, sources)


def _sigterm_interrupts():
    """SIGTERM ends ``verify`` as Ctrl-C does (the workers and the Coq check ended, one line, exit 130), not silently
    with status -15 (in the main thread; elsewhere the default stays)."""
    def interrupt(n, f):
        raise KeyboardInterrupt
    return signals_handled_by(interrupt, (signal.SIGTERM,))


def _verify(args, sources: dict[str, str] | None = None) -> int:
    # lazy: rich is imported only by the subcommands that print (CLI start-up time)
    from rich.markup import escape
    from rich.text import Text

    claims = select(args.claims)
    if not claims:
        raise UsageError(f"no claim matches --claims {args.claims!r}")
    console = terminal()
    err = terminal(stderr=True)
    width = max(40, console.width)
    ctx = CheckContext(dps=args.dps, quick=args.quick)
    started = time.time()
    t0 = time.perf_counter()
    tty = err.is_terminal

    def progress(k, total, c, r):
        if r is None:
            if tty:
                err.print(f"[{k + 1}/{total}] verifying {escape(c.id)} ...", end="\r")
            return
        line = f"[{k}/{total}] {c.id}: {'ERROR' if r.error else r.verdict} ({r.seconds:.1f} s)"
        err.print(escape(line[:max(20, err.width)]) + (" " * 10 if tty else ""), soft_wrap=True)
    def say(line: str) -> None:  # a note on stderr, wrapped to the terminal (the first line clears the \r status)
        # never inside a claim id (RRO.only-increase): no break at hyphens
        for i, part in enumerate(textwrap.wrap(line, max(20, err.width - 3), break_on_hyphens=False) or [""]):
            err.print(escape(part if i == 0 else "  " + part) + (" " * 10 if tty and i == 0 else ""), soft_wrap=True)

    workers = min(args.workers if args.workers is not None else
                  default_workers() if len(claims) >= WORKERS_FROM_CLAIMS else 1, len(claims))
    cpus = available_cpus()
    if workers > cpus:
        say(f"verify: {workers} worker processes on {cpus} CPU{'s' if cpus > 1 else ''}: they share the CPUs (slower "
            "than one per CPU), and each holds 100-300 MB")
    if workers > 1 and tty:
        err.print(f"verifying {len(claims)} claims in {workers} worker processes ...", end="\r")
    from proofs_numeric.witnesses.real_model import claims_sharing_parts  # lazy: the model's modules
    results, errors = run_ledger(claims, ctx, progress, workers=workers, say=say,
                                 together=claims_sharing_parts() if workers > 1 else (), families=True)
    _report_found_counterexamples(results, store=args.store, force=args.force)  # first: the lines below name the file
    head = (f"collapse-verify ledger: {len(results)} claims, {time.perf_counter() - t0:.1f} s "
            f"(dps {args.dps}{', quick' if args.quick else ''})")
    console.print(escape(head), soft_wrap=True)

    def summary() -> None:  # the tally in three parts: the paper, the Dong explainer, the suite's own and users'
        for part in render_summary(results).splitlines():
            for line in wrap_plain(part, width):
                console.print(escape(line), soft_wrap=True)
    summary()
    for r in results:
        console.print("", soft_wrap=True)
        for line, style in render_claim(r, width):
            console.print(Text(line, style=style or ""), soft_wrap=True)
    if len(results) > 1:  # a long ledger: the counts again where the reader ends up
        console.print("", soft_wrap=True)
        for line in wrap_plain(head, width):
            console.print(escape(line), soft_wrap=True)
        summary()
    for e in errors:
        print(f"collapse-verify: error: {e}", file=sys.stderr)
    quotes_ok = _check_quotes(claims, sources, console) if sources is not None else True
    out = ledger_json(results, ctx, started, errors)
    if args.old_ledger is not None:
        console.print("", soft_wrap=True)
        d = ledger_diff(args.old_ledger, out, only={r.claim.id for r in results} if args.claims else None)
        for line in render_diff(d, args.diff):
            console.print(escape(line), soft_wrap=True)
    if args.json:
        write_json_output(args.json, out, kind="ledger", force=args.force)
        console.print(escape(f"wrote {args.json}"), soft_wrap=True)
    failed = report_import_errors() or bool(errors) or not quotes_ok
    return 1 if failed else 0


#: the default number of worker processes is one per CPU, at most this many (each holds the model and its caches)
MAX_DEFAULT_WORKERS = 4
#: by default a run of fewer claims runs in this process: starting the pool (about 2.5 s) would cost more than it saves
WORKERS_FROM_CLAIMS = 24


def available_cpus() -> int:
    """The CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def default_workers() -> int:
    """``verify --workers``' default: one per CPU this process may use, at most :data:`MAX_DEFAULT_WORKERS`."""
    return min(MAX_DEFAULT_WORKERS, available_cpus())


def _sources(args) -> dict[str, str] | None:
    """The source texts when ``--sources DIR`` or $COLLAPSE_VERIFY_SOURCES names them (each checked against its
    SHA-256), else None (no quote is compared)."""
    if args.sources is None and not os.environ.get(SOURCES_ENV, "").strip():
        return None
    if args.sources is not None:
        if not os.path.isdir(args.sources):
            raise UsageError(f"--sources {args.sources}: no such folder ({HOW_TO_GET_SOURCES})")
        set_source_dir(args.sources)
    try:
        return load_sources()
    except (OSError, ValueError) as e:  # FileNotFoundError, SourceMismatch, undecodable text: named
        raise UsageError(str(e)) from None


def _check_quotes(claims, sources: dict[str, str], console) -> bool:
    """Every selected claim's quote compared with the source texts; prints the count and each quote not found."""
    from rich.markup import escape
    quoted = [c for c in claims if c.quoted]
    bad = [(c.id, r.problem) for c in quoted for r in [check_quote(c.quote, sources)] if not r.ok]
    for line in wrap_plain(f"quotes: {len(quoted) - len(bad)} of {len(quoted)} quoted claims verbatim in "
                           f"{source_dir()} (SHA-256 of each text checked)", max(40, console.width)):
        console.print(escape(line), soft_wrap=True)
    for cid, why in bad:
        print(f"collapse-verify: error: {cid}: the quote is not the source's words: {why}", file=sys.stderr)
    return not bad


def _typeset_counterexamples(result) -> list[dict]:
    """The counterexamples of a claim's evidence as exact data and LaTeX: a stored one read from its file (named),
    one found on this run and not stored yet from the run itself (no file named; ``store_with`` says how)."""
    out = []
    seen = set()
    for rr in result.readings:
        for e in rr.evidence:
            if e.kind != "counterexample" or e.counterexample in seen:
                continue
            seen.add(e.counterexample)
            stored = counterexample_file(e)
            rec = {"file": stored, "reading": rr.key, "stored": stored is not None}
            if stored is not None:
                data = json.loads((REPO_ROOT / stored).read_text())
                rec["instance"] = data.get("instance")
                rec["latex"] = _latex_of_instance(data.get("instance"))
            else:
                rec["store_with"] = store_command(e.counterexample)
                inst = result.found_counterexamples.get(e.regime)
                if inst is not None:
                    rec["instance"] = {"regime": e.regime, "value": encode_instance(inst)}
                    rec["latex"] = {e.regime: storage_typeset(inst)}
            out.append(rec)
    return out


def _latex_of_instance(inst) -> dict:
    """LaTeX for each matrix-like field of a stored instance (lists of rows of exact numbers)."""
    out: dict[str, str] = {}
    if not isinstance(inst, dict):
        return out
    if "regimes" in inst:  # a user conjecture: one instance per regime, LaTeX stored with it
        return {r: v.get("latex", "") for r, v in inst["regimes"].items()}
    def tex(v):
        if isinstance(v, list) and v and all(isinstance(r, list) for r in v):
            if all(isinstance(x, list) for r in v for x in r):  # a list of matrices (e.g. one per head)
                return ",\\ ".join(tex(m) for m in v)
            return sympy.latex(sympy.Matrix([[sympy.sympify(x) for x in r] for r in v]), mat_delim="[")
        if isinstance(v, list):
            return sympy.latex(sympy.Matrix([[sympy.sympify(x) for x in v]]), mat_delim="[")
        return sympy.latex(sympy.sympify(v))

    for k, v in inst.items():
        try:
            out[k] = tex(v)
        except (sympy.SympifyError, TypeError, ValueError):
            out[k] = str(v)
    return out


def cmd_show(args) -> int:
    """The whole record of one claim: what `verify --json` writes for it, plus its counterexamples typeset."""
    check_range("--dps", args.dps, 15, LIMITS["VERIFY_MAX_DPS"], "digits of the interval witnesses", "VERIFY_MAX_DPS")
    claims = {c.id: c for c in registry()}
    name = args.claim
    if name not in claims and name in ALIASES:  # the names `check --list` prints as aliases
        name = ALIASES[name][0][0]
        print(f"collapse-verify: note: {args.claim} is the earlier name of {name}; showing {name}", file=sys.stderr)
    if name not in claims:
        close = difflib.get_close_matches(name, list(claims) + list(ALIASES), n=5, cutoff=0.4)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; known: {', '.join(sorted(claims))}"
        raise UsageError(f"no claim {name!r}{hint}")
    r = run_claim(claims[name], CheckContext(dps=args.dps, quick=args.quick))
    rec = r.to_json()
    rec["counterexamples_typeset"] = _typeset_counterexamples(r) if not r.error else []
    if args.json:  # one marked object (schema claim.schema.json): the ledger's entry and its counterexamples typeset
        print(json.dumps(marked("claim", rec), indent=1, default=str))
        return 1 if r.error else 0
    c = terminal()
    width = max(40, c.width)
    out: list[tuple[str, str | None]] = []

    def say(text: str, first: str = "", indent: str | None = None, style: str | None = None) -> None:
        """One logical line, wrapped at spaces outside LaTeX groups, continuation lines indented (as in verify)."""
        out.extend((ln, style) for ln in wrap_tex(text, width, first, indent if indent is not None else first + "  "))

    for line, style in claim_header(rec):  # the same head as `check CLAIM` prints
        say(line, style=style)
    if r.error:
        say(f"ERROR: {r.error}", style="bold magenta")
        _print_lines(c, out)
        return 1
    for rr in r.readings:
        out.append(("", None))
        say(f"reading {rr.key}: {rr.statement}", style="bold")
        say(f"verdict: {rr.verdict} (strength {rr.strength}; {rr.form}; regimes {', '.join(rr.regimes)})", "  ")
        for label, v in (("condition", rr.condition), ("reason", rr.reason), ("note", rr.note)):
            if v:
                say(f"{label}: {v}", "  ")
        if rr.formal_gap is not None:
            say(f"formal gap [{rr.formal_gap.reason}]: {rr.formal_gap.words}", "  ")
        for e in rr.evidence:
            holds = said(e.holds)
            say(f"[{e.kind}/{e.scope}/{e.strength}] {e.regime}: {holds}: {e.summary}", "  - ", "      ")
            where = ""
            if e.kind == "counterexample":
                stored = counterexample_file(e)
                where = (f"; file: {stored}" if stored else
                         f"; found on this run, not stored: `{store_command(e.counterexample or '')}` stores it")
            say(f"arithmetic: {e.arithmetic}{where}", "      ", "        ")
            if e.holds is None and e.reason and e.reason not in e.summary:
                say(f"why undecided: {e.reason}", "      ", "        ")
            if e.numbers.get("failed_steps"):
                say(f"failed steps: {e.numbers['failed_steps']}", "      ", "        ")
        if rr.breaking is not None and not rr.breaking.searched:
            say(f"each hypothesis dropped in turn ({', '.join(d.hypothesis for d in rr.breaking.dropped)}): "
                f"undecided, not searched: {rr.breaking.search.removeprefix('no search: ')}", "  ", "    ")
        elif rr.breaking is not None:
            say(f"each hypothesis dropped in turn (not evidence; searched on {rr.breaking.search}):", "  ")
            for d in rr.breaking.dropped:
                found = (f" on {d.instance}" + (f" [{d.label}, {d.regime}]" if d.label else "") if d.instance else "") \
                    + (f"; a stored instance: {d.stored}, re-checked on this run" if d.stored else "")
                say(f"{d.hypothesis}: {d.result}{found} (met the others: {d.met_others}, of those failing "
                    f"{d.hypothesis}: {d.failed_it}): {d.reason}", "  - ", "      ")
    for ce in rec["counterexamples_typeset"]:
        out.append(("", None))
        say(f"counterexample file {ce['file']} (reading {ce['reading']})" if ce["stored"] else
            f"counterexample found on this run (reading {ce['reading']}), not stored: `{ce['store_with']}` stores it")
        for k, tex in ce.get("latex", {}).items():
            say(f"{k} = {tex}", "  ", "    ")
    steps = r.claim.proof_steps
    if steps:
        out.append(("", None))
        say("proof steps:")
        for k, (tex, words, kind, check) in enumerate(steps, 1):
            say(f"{k}. [{kind}] {tex} — {words}: {said(tri(check()))}", "  ", "     ")
    _print_lines(c, out)
    return 0


def _print_lines(console, lines) -> None:
    from rich.text import Text  # lazy: rich only when printing (CLI start-up time)
    for line, style in lines:
        console.print(Text(line, style=style or ""), soft_wrap=True)


def store_writer(force: bool = False):
    """How ``verify --store`` writes a counterexample file: the command line's write rule, kind ``counterexample``."""
    return lambda path, text: write_output(path, text, what="--store", kind="counterexample", force=force)


def _report_found_counterexamples(results, store: bool, force: bool = False) -> None:
    """Counterexamples to user conjectures found (and shrunk) on this run: stored with --store, else a hint."""
    for r in results:
        conj = CONJECTURES.get(r.claim.id)
        if conj is None or not r.found_counterexamples or conj.stored_path().exists():
            continue
        if store:
            for p in conj.store(r.found_counterexamples, write=store_writer(force)):
                print(f"stored the counterexample of {r.claim.id} in {p}", file=sys.stderr)
        else:
            print(f"note: {r.claim.id} has a counterexample found on this run, not stored; `collapse-verify verify "
                  f"--claims '{r.claim.id}' --store` stores it (plain verify never writes into the source tree)",
                  file=sys.stderr)


def add_parsers(sub) -> None:
    """Add this module's subcommand(s) to the parser's subparsers."""
    v = sub.add_parser("verify", help="run every registered claim and print the ledger")
    v.add_argument("--json", metavar="PATH", help="also write the ledger as JSON (a file that exists is replaced only "
                   "if it is a ledger this tool wrote; written through a temporary file)")
    v.add_argument("--claims", metavar="GLOB", help="only claims whose id matches, e.g. 'RN.*', or any of a "
                   "comma-separated list, e.g. 'RN.*,HC.main'")
    v.add_argument("--dps", type=int, default=50, help="decimal digits for the interval witnesses "
                   f"(15 to VERIFY_MAX_DPS = {LIMITS['VERIFY_MAX_DPS']})")
    v.add_argument("--quick", action="store_true", help="fewer stress instances (for tests)")
    v.add_argument("--workers", type=int, metavar="N",
                   help="run the claims in N worker processes (a Dask LocalCluster); 1 runs every claim in this "
                        f"process. Default: one per CPU, at most {MAX_DEFAULT_WORKERS}, for a run of at least "
                        f"{WORKERS_FROM_CLAIMS} claims (the pool takes about 2.5 s to start), else 1. More workers "
                        "than CPUs is allowed, and said (slower, and each worker holds 100-300 MB). The verdicts do "
                        "not depend on N")
    v.add_argument("--sources", metavar="DIR", help="the folder of the source texts (arXiv 2604.23681 and the Dong "
                   "explainer, not shipped; default $COLLAPSE_VERIFY_SOURCES): each text's SHA-256 is checked, then "
                   "every claim's quote is compared with them (an error names a quote not found)")
    v.add_argument("--store", action="store_true",
                   help="write counterexamples found for user conjectures under theorems/counterexamples/ "
                        "(plain verify never writes into the source tree)")
    v.add_argument("--force", action="store_true",
                   help="replace an existing --json file even if it is not a ledger this tool wrote")
    v.add_argument("--diff", metavar="OLD.json",
                   help="after the ledger, list the claims and readings whose verdict or strength changed since the "
                        "ledger OLD.json (written by verify --json), old -> new with the new reason")
    v.set_defaults(run=cmd_verify)
    sh = sub.add_parser("show", help="the whole record of one claim (quote, statement, every piece of evidence, "
                                     "readings, counterexamples typeset)")
    sh.add_argument("claim", metavar="CLAIM", help="a claim id, e.g. RN.main (see `verify` for the list), or an alias "
                    "`check --list` prints (rank-neutrality, ...)")
    sh.add_argument("--json", action="store_true",
                    help="print the claim's entry of `verify --json`, plus its counterexamples typeset")
    sh.add_argument("--dps", type=int, default=50, help="digits for the interval witnesses (default 50)")
    sh.add_argument("--quick", action="store_true", help="fewer stress instances")
    sh.set_defaults(run=cmd_show)
