"""``check CLAIM``: a claim's own declared hypotheses and conclusion on the user's input (one exact reader)."""
from __future__ import annotations

import argparse
import difflib
import json
from pathlib import Path

from proofs_numeric.cli.common import READING
from proofs_numeric.cli.console import terminal
from proofs_numeric.cli.inputs import (
    LIMITS,
    SEED_MAX,
    UsageError,
    add_deprecated_seed,
    check_range,
    check_writable,
    resolve_deprecated_seed,
)
from proofs_numeric.cli.model_check import MODEL_EPILOG, add_model_arguments, cmd_check_model
from proofs_numeric.ledger import registry, render_check
from proofs_numeric.ledger.check import check_claim, checkable, save_instance
from proofs_numeric.output import marked
from theorems.exact.reader import UserInput, gaussian_weights, read_matrix, read_stochastic, read_vector, read_weights
from theorems.framework import OFF_INSTANCE_MEANING, OFF_INSTANCE_REASONS

__all__ = ["add_parsers", "cmd_check", "ALIASES", "read_user_input", "check_document"]


#: a claim a name stands for: (claim id, the reading keys to check, or None for every reading)
Target = tuple[str, tuple[str, ...] | None]
#: the five theorem names of earlier versions, kept as aliases: name -> [(claim id, reading keys or None)]
ALIASES: dict[str, list[Target]] = {
    "rank-neutrality": [("RN.main", None)],
    "head-channel": [("HC.main", ("literal", "corrected"))],  # reading (a): W_O known
    "recovery-ambiguity": [("RA.main", None)],
    "residual-obstruction": [("RRO.main", None)],
    "rank-contraction": [("RC.rank-equals-sum", None)],
}
#: `check rank-neutrality --norm rmsnorm`: the RMSNorm conjectures
RMSNORM_ALIAS: list[Target] = [("USER.rmsnorm-matrix-rank", None), ("USER.rmsnorm-affine-rank", None)]


_CHECK_EPILOG = """examples:
  collapse-verify check --list                      # every checkable claim with the inputs it takes
  collapse-verify check RN.main --X '[[1,0,0],[1,1,0],[1,2,0]]'            # a counterexample (H1-H4 hold)
  collapse-verify check RN.main --X '[[1,0,0],[0,1,0],[0,0,1]]'            # premise fails (H2)
  collapse-verify check RN.main --X '[[0,0,1],[0,1,0],[0,1,1]]'            # holds
  collapse-verify check RN.main --X tokens.npy --gamma gamma.npy --json
  collapse-verify check RRO.rowspace-remark --X '[[1,0],[0,0]]' --Delta '[[-1,1],[0,0]]'
  collapse-verify check RRO.main --X '[[1,0,0],[0,0,0],[0,0,0],[0,0,0]]' --heads 1 --weights-seed 1
  collapse-verify check HC.main --W-O '[[0.1,0.3],[1,3]]' --heads 1
  collapse-verify check DONG.markov-geometric --P '[[1,0,0],[0.5,0.5,0],[0,0.5,0.5]]' --X '[[0],[1],[0]]'
  collapse-verify check RA.main --W-O W_O.npy --heads 12 --n 512

aliases (the theorem names of earlier versions):
  rank-neutrality       RN.main (with --norm rmsnorm: the RMSNorm conjectures USER.rmsnorm-*)
  head-channel          HC.main, reading (a): W_O known (readings literal and corrected)
  recovery-ambiguity    RA.main
  residual-obstruction  RRO.main
  rank-contraction      RC.rank-equals-sum

inputs (a claim names which it needs; a missing or extra one is a named error):
  --X MATRIX, --gamma VEC, --beta VEC, --Delta MATRIX, --W-O MATRIX with --heads H, --n N,
  --P MATRIX (row-stochastic: square, entries >= 0, rows summing to 1 exactly; else a named error),
  --weights W.npz (W_Q, W_K, W_V of shape (H, d, d_k), W_O of shape (H, d_k, d)), or
  --heads H [--weights-seed N] (seeded Gaussian weights, d_k = d / H).

answers on one instance: holds (premise met, conclusion holds), counterexample (premise met,
conclusion fails), premise-fails (which hypothesis), undecided (with the reason)."""


def read_user_input(args) -> UserInput:
    """Every input flag of `check`, read once by the one exact reader; numeric arguments validated."""
    L = LIMITS
    resolve_seed(args)
    check_range("--heads", args.heads, 1, L["CHECK_MAX_HEADS"], "heads", "CHECK_MAX_HEADS")
    check_range("--n", args.n, 1, L["CHECK_MAX_N"], "tokens per sequence", "CHECK_MAX_N")
    check_range("--dps", args.dps, 15, L["VERIFY_MAX_DPS"], "digits of the interval checks", "VERIFY_MAX_DPS")
    check_range("--weights-seed", args.weights_seed, 0, SEED_MAX, "seeds are 0 <= seed < 2^63")
    check_range("--prime-seed", args.prime_seed, 0, SEED_MAX, "seeds are 0 <= seed < 2^63")
    check_range("--max-entries", args.max_entries, 1, 2 ** 62, "entries")
    limit = args.max_entries or L["CHECK_MAX_ENTRIES"]
    user = UserInput(n=args.n, seed=args.prime_seed, dps=args.dps, heads=args.heads)
    for name, flag, text in (("X", "--X", args.X), ("Delta", "--Delta", args.Delta), ("W_O", "--W-O", args.W_O)):
        if text is not None:
            user.matrices[name] = read_matrix(text, flag, max_entries=limit)
    if args.P is not None:
        user.matrices["P"] = read_stochastic(args.P, "--P", max_entries=limit)
    for name, flag, text in (("gamma", "--gamma", args.gamma), ("beta", "--beta", args.beta)):
        if text is not None:
            user.vectors[name] = read_vector(text, flag)
    if "W_O" in user.matrices and args.heads is None:
        raise UsageError("--W-O needs --heads H (W_O is H d_k x d)")
    if args.weights is not None:
        if args.heads is not None and "W_O" not in user.matrices:
            raise UsageError("--heads with --weights: the weights file says H (give one of them)")
        user.weights = read_weights(args.weights, "--weights", max_entries=limit)
    elif args.heads is not None and "W_O" not in user.matrices:
        if "X" not in user.matrices:
            raise UsageError("--heads H (seeded Gaussian weights) needs --X for d; or give --weights W.npz")
        d = user.matrices["X"].shape[1]
        user.weights = gaussian_weights(d, args.heads, args.weights_seed if args.weights_seed is not None else 0)
    return user


#: what `check --seed` set before each random choice had its own flag
OLD_SEED = ("seed of the seeded weights and of the random primes", ("--weights-seed", "--prime-seed"))


def resolve_seed(args) -> None:
    """The deprecated ``--seed`` of `check` (once per run): it sets --weights-seed and --prime-seed, and says so."""
    if getattr(args, "seed_deprecated", None) is not None and not getattr(args, "_seed_resolved", False):
        resolve_deprecated_seed(args, "check", *OLD_SEED)
        args._seed_resolved = True


def _targets(args) -> list[tuple]:
    """[(claim, reading keys or None)] named by CLAIM (an id or an alias)."""
    claims = {c.id: c for c in registry()}
    name = args.claim
    if args.norm is not None and name != "rank-neutrality":
        raise UsageError("--norm applies to the alias rank-neutrality only (name a claim id instead, e.g. "
                         "USER.rmsnorm-matrix-rank)")
    if name in ALIASES:
        spec = RMSNORM_ALIAS if (name == "rank-neutrality" and args.norm == "rmsnorm") else ALIASES[name]
    elif name in claims:
        spec = [(name, None)]
    else:
        close = difflib.get_close_matches(name, list(claims) + list(ALIASES), n=5, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else "; `collapse-verify check --list` lists them"
        raise UsageError(f"unknown claim {name[:80]!r}{hint}")
    out = []
    for cid, keys in spec:
        if cid not in claims:
            raise UsageError(f"{name} names {cid}, which is not registered (is theorems/conjectures/ there?)")
        if args.reading:
            keys = tuple(args.reading)
        out.append((claims[cid], keys))
    return out


def _list(args) -> int:
    rows = checkable()
    yes = [c for c in rows if c.checkable]
    listed_no = [c for c in rows if not c.checkable and c.declared_on_instances]
    no_form = [c for c in rows if not c.declared_on_instances]
    off = [c for c in no_form if c.off_instance() is not None]
    unclassified = [c for c in no_form if c.off_instance() is None]
    if args.json:
        print(json.dumps(marked("check-list", {
            "checkable": [{"claim": c.claim.id, "inputs": c.inputs(), "readings": list(c.forms),
                           "not_checkable": c.reasons} for c in yes],
            "not_checkable_on_user_input": [{"claim": c.claim.id, "reasons": c.reasons} for c in listed_no],
            "not_on_instances": [{"claim": c.claim.id, **c.off_instance().to_json()} for c in off],
            "no_instance_form_yet": [c.claim.id for c in unclassified]}), indent=1))
        return 0
    # lazy: rich is imported only by the subcommands that print (CLI start-up time)
    from rich.markup import escape
    con = terminal()
    con.print(f"[bold]{len(yes)} claims checkable on your input[/] (collapse-verify check CLAIM ...):")
    w = max(len(c.claim.id) for c in yes)
    for c in yes:
        more = f"  readings: {', '.join(c.forms)}" if len(c.forms) > 1 else ""
        con.print(escape(f"  {c.claim.id:<{w}}  {c.inputs()}{more}"), soft_wrap=True)
    if listed_no:
        con.print(f"\n[bold]{len(listed_no)} declared on instances but not checkable on user input[/]:")
        for c in listed_no:
            con.print(escape(f"  {c.claim.id}: {c.reason()}"), soft_wrap=True)
    if off:
        con.print(f"\n[bold]{len(off)} not decided on one instance[/], by reason:")
        for reason in OFF_INSTANCE_REASONS:
            ids = [c.claim.id for c in off if c.off_instance().reason == reason]
            if ids:
                con.print(escape(f"  {reason} ({OFF_INSTANCE_MEANING[reason]}): {', '.join(ids)}"), soft_wrap=True)
    if unclassified:
        con.print(f"\n[bold]{len(unclassified)} not classified yet[/] (no instance form, and no declared reason "
                  "why not):")
        con.print(escape("  " + ", ".join(c.claim.id for c in unclassified)), soft_wrap=True)
    con.print("\naliases: " + escape(", ".join(f"{k} -> {v[0][0]}" for k, v in ALIASES.items())), soft_wrap=True)
    return 0


#: the flags of `check` a --json document echoes under ``request.arguments`` (as given on the command line)
_ECHOED = (("X", "--X"), ("P", "--P"), ("gamma", "--gamma"), ("beta", "--beta"), ("Delta", "--Delta"),
           ("W_O", "--W-O"), ("weights", "--weights"), ("heads", "--heads"), ("n", "--n"), ("seed", "--seed"),
           ("dps", "--dps"), ("norm", "--norm"), ("reading", "--reading"), ("max_entries", "--max-entries"),
           ("save", "--save"))


def check_document(args, user, records: list[dict]) -> dict:
    """The ``check --json`` document: one object for every CLAIM (an alias naming two claims included), with the
    marker ``{"collapse_verify": {"kind": "check", "version": 1}}``, the request echoed (the CLAIM as typed, every
    flag given, as given), how each input was read, and ``claims``: one record per claim (schema:
    ``proofs_numeric/schemas/check.schema.json``)."""
    given = {flag: getattr(args, attr) for attr, flag in _ECHOED if getattr(args, attr, None) is not None}
    return marked("check", {"request": {"claim": args.claim, "claims": [r["claim"] for r in records],
                                        "arguments": given},
                            "input": user.how(), "claims": records})


def _header(claim) -> dict:
    return {"id": claim.id, "section": claim.section, "quote": claim.quote, "form": claim.form,
            "statement": claim.statement, "hypotheses": list(claim.hypotheses), "conclusion": claim.conclusion,
            "regimes": list(claim.regimes)}


def cmd_check(args) -> int:
    if args.list:
        return _list(args)
    resolve_seed(args)
    if getattr(args, "model", None) is not None:  # claims at the sites of a model (cli/model_check.py)
        return cmd_check_model(args)
    if args.claim is None:
        raise UsageError("check needs a CLAIM (an id such as RN.main, or an alias); `collapse-verify check --list` "
                         "lists them")
    targets = _targets(args)
    if args.save is not None:
        if len(targets) > 1:
            raise UsageError("--save writes one claim's instance; this alias names several claims")
        check_writable(args.save, "--save")
        if Path(args.save).exists():
            raise UsageError(f"--save {args.save} exists; check never writes over a file")
    user = read_user_input(args)
    records = []
    for claim, keys in targets:
        try:
            rec = check_claim(claim, user, keys)
        except ValueError as e:  # a named input error (BadInput included): exit 2
            raise UsageError(str(e)) from None
        if args.save is not None:
            try:
                rec["saved"] = str(save_instance(args.save, claim, rec, user))
            except FileExistsError:
                raise UsageError(f"--save {args.save} exists; check never writes over a file") from None
            except OSError as e:
                raise UsageError(f"--save {args.save}: could not write ({e.strerror or e})") from None
        records.append((claim, rec))
    clean = [{k: v for k, v in rec.items() if not k.startswith("_")} for _, rec in records]
    if args.json:
        print(json.dumps(check_document(args, user, clean), indent=1, default=str))
        return 0
    # lazy: rich is imported only by the subcommands that print (CLI start-up time)
    from rich.text import Text
    con = terminal()
    width = max(30, con.width)  # the terminal's width (COLUMNS), as every command
    for k, ((claim, _), rec) in enumerate(zip(records, clean, strict=True)):
        if k:
            con.print("")
        for line, style in render_check(rec, _header(claim), width):
            con.print(Text(line, style=style or ""), soft_wrap=True)
    return 0


def add_parsers(sub) -> None:
    """Add this module's subcommand(s) to the parser's subparsers."""
    c = sub.add_parser("check", help="a claim's own hypotheses and conclusion on your own input",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog=_CHECK_EPILOG + "\n\n" + MODEL_EPILOG + "\n\n" + READING)
    c.add_argument("claim", metavar="CLAIM", nargs="?",
                   help="a claim id (RN.main, RRO.rowspace-remark, ...; see --list) or an alias (rank-neutrality, "
                        "head-channel, recovery-ambiguity, residual-obstruction, rank-contraction)")
    c.add_argument("--list", action="store_true", help="list every checkable claim with the inputs it takes")
    c.add_argument("--reading", action="append", metavar="KEY", help="check only this reading (repeatable; default: "
                   "every reading whose inputs are given)")
    c.add_argument("--X", metavar="MATRIX", help="the tokens: a JSON list of rows (ints, decimals or 'p/q' strings, "
                   "all exact), a .json or a .npy file")
    c.add_argument("--gamma", metavar="VEC", help="LayerNorm / RMSNorm scale (default: all ones)")
    c.add_argument("--beta", metavar="VEC", help="LayerNorm shift (default: zeros)")
    c.add_argument("--Delta", metavar="MATRIX", help="a perturbation or increment of X (same shape)")
    c.add_argument("--P", metavar="MATRIX", help="a row-stochastic matrix (n x n, entries >= 0, rows summing to 1; "
                   "read exactly: 0.1 is 1/10): a transition matrix, or rows of convex weights")
    c.add_argument("--W-O", dest="W_O", metavar="MATRIX", help="the output projection, H d_k x d (with --heads)")
    c.add_argument("--heads", type=int, metavar="H", help="how W_O's rows split (with --W-O), or the seeded Gaussian "
                   "weights' H (without --weights)")
    c.add_argument("--weights", metavar="W.npz", help="W_Q, W_K, W_V of shape (H, d, d_k) and W_O of shape (H, d_k, d)")
    c.add_argument("--n", type=int, metavar="N", help="tokens per sequence")
    c.add_argument("--norm", choices=["layernorm", "rmsnorm"], default=None,
                   help="with the alias rank-neutrality: layernorm (RN.main, default) or rmsnorm (the RMSNorm "
                        "conjectures)")
    c.add_argument("--dps", type=int, default=50, help=f"digits of the interval checks (15 to VERIFY_MAX_DPS = "
                   f"{LIMITS['VERIFY_MAX_DPS']}; default 50)")
    c.add_argument("--weights-seed", type=int, metavar="N", help="seed of the seeded Gaussian weights (--heads H "
                   "without --weights; default 0)")
    c.add_argument("--prime-seed", type=int, metavar="N", help="seed of the random primes of the certified ranks "
                   "(default: fresh entropy; the results do not depend on it)")
    add_deprecated_seed(c, *OLD_SEED)
    c.add_argument("--max-entries", type=int, metavar="N",
                   help="refuse an input with more than N entries (default CHECK_MAX_ENTRIES = "
                        f"{LIMITS['CHECK_MAX_ENTRIES']})")
    c.add_argument("--save", metavar="PATH", help="write the instance in the stored-counterexample format (never over "
                   "an existing file), ready to be added to a claim or a conjecture")
    c.add_argument("--json", action="store_true", help="print one JSON object (schema check.schema.json: the request "
                   "echoed, one record per claim); with --model, the summary")
    add_model_arguments(c)
    c.set_defaults(run=cmd_check)
