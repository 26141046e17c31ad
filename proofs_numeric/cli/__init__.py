r"""collapse-verify: is each claim of Cirrincione (2026) on rank collapse, and of Dong et al. (2021), true,
exactly when, and why? Verdicts are computed from evidence (Coq proofs, exact rationals, interval
certificates, labelled float64), never typed in.

examples:
  collapse-verify verify                      # every claim: verdict, strength, evidence, counterexamples
  collapse-verify verify --claims 'RN.*' --json ledger.json
  collapse-verify show RN.main                # the whole record of one claim
  collapse-verify check RN.main --X '[[0,2,-2],[1,1,-2],[2,0,-2]]'
  collapse-verify check --list                # every claim checkable on your input
  collapse-verify check HC.main --W-O W_O.npy --heads 12
  collapse-verify rank matrix.npy             # certified exact rank of your matrix
  collapse-verify depth --regime pure_attention
  collapse-verify real-model --model path/to/checkpoint
  collapse-verify fig2 --plot fig2.png         # Dong et al.'s Figure 2 re-run, exact ranks at the 0.00 layers
  collapse-verify new "My conjecture"         # add a conjecture in one file

``collapse-verify verify [--json PATH] [--claims GLOB] [--dps N] [--quick] [--store]``
    run every registered claim and print the ledger.
``collapse-verify check CLAIM ... | check --list``
    a claim's own declared hypotheses and conclusion on your input (--X, --gamma, --beta, --Delta, --W-O with
    --heads, --weights or --heads/--weights-seed, --n, as the claim needs), the answer holds / counterexample /
    premise-fails / undecided per reading; the old theorem names (rank-neutrality, ...) are aliases.
``collapse-verify show CLAIM [--json]``
    the whole record of one claim.
``collapse-verify depth [--n N --d D --heads H --d-k K --layers L --dps P] [--json PATH]``
    the depth study (five regimes, certified residuals deep into the collapse).
``collapse-verify rank MATRIX [--upper K] [--exact auto|always|never] [--json]``
    certified exact rank of a rational or float matrix.
``collapse-verify real-model [--model DIR] [--text T ... | --ids JSON | --token-seed N --length N] [--json PATH]``
    the checks on trained weights: all-MiniLM-L6-v2, or your BERT/GPT-2/LLaMA checkpoint.
``collapse-verify fig2 [--model DIR] [--text T | --ids JSON | --length N --token-seed S] [--json PATH] [--plot PATH]``
    Dong et al.'s Figure 2 protocol (four surgeries, the composite-norm ratio per layer) in numpy, beside the
    published curves, with the exact rank of the stored activations at every layer that prints 0.00.
``collapse-verify new NAME``
    scaffold a conjecture (module, tests, chapter).
``collapse-verify --version``
    versions, and the sympy ground types in use.

Exit codes: 0 success (a refuted claim is a result, not an error); 1 the suite
itself failed (a check raised); 2 usage error or bad input; 130 interrupted (Ctrl-C
or SIGTERM: every record written is kept, and the line printed says how to --resume).
"""
from __future__ import annotations

import argparse
import os
import sys
import traceback

from proofs_numeric.cli import check, console, depth, fig2, new, rank, real_model, verify
from proofs_numeric.cli.common import EPILOG, version_text
from proofs_numeric.cli.inputs import UsageError
from theorems.exact.input import BadInput
from theorems.framework.memo import computing_fresh

__all__ = ["main", "build_parser", "UsageError"]

#: the subcommand modules, in the order `--help` lists them
SUBCOMMANDS = (verify, check, depth, real_model, fig2, rank, new)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="collapse-verify", description="\n\n".join(__doc__.split("\n\n")[:2]),
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG)
    p.add_argument("--version", action="store_true", help="print versions and sympy's ground types")
    sub = p.add_subparsers(dest="cmd")
    for m in SUBCOMMANDS:
        m.add_parsers(sub)
    return p


def main(argv=None) -> int:
    """The command line: every subcommand runs here, on streams prepared once (:mod:`proofs_numeric.cli.console`:
    a closed pipe is a normal end, exit 0; a terminal that cannot show a character gets its ASCII spelling)."""
    console.prepare_streams()
    try:
        code = _main(argv)
        console.flush()  # the final flush, here: a reader that has gone is a normal end, not an error at exit
    except BrokenPipeError:
        return console.closed_pipe()
    return code


def _main(argv) -> int:
    try:
        parser = build_parser()
    except BadInput as e:  # an environment variable naming a limit is not an integer
        print(f"collapse-verify: error: {e}", file=sys.stderr)
        return 2
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse exits 2 on usage errors already
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # an interrupted run prints the command that resumes it
    try:
        if args.version:
            print(version_text())
            return 0
        if getattr(args, "run", None) is None:
            parser.print_help()
            return 2
        with computing_fresh():  # a command computes what it reports (and stores it for the book's pages)
            return args.run(args)
    except (UsageError, BadInput) as e:
        print(f"collapse-verify: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("collapse-verify: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # the suite itself failed: say so in one line (traceback on request)
        if console.is_closed_pipe(e):  # the reader has gone (`| head`), maybe under another exception: not a failure
            raise BrokenPipeError from e
        if os.environ.get("COLLAPSE_VERIFY_TRACEBACK"):
            traceback.print_exc()
        print(f"collapse-verify: internal error (please report; COLLAPSE_VERIFY_TRACEBACK=1 shows the "
              f"traceback): {type(e).__name__}: {str(e)[:500]}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
