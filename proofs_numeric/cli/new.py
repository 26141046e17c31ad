"""``new``: scaffold a conjecture (module, tests, chapter)."""
from __future__ import annotations

from proofs_numeric.cli.inputs import UsageError

__all__ = ["add_parsers", "cmd_new"]


def cmd_new(args) -> int:
    # lazy: a genuine cycle through the package: ledger.scaffold imports cli.inputs, and importing that runs this
    # package's __init__, which imports this module (so `import proofs_numeric.ledger.scaffold` first failed)
    from proofs_numeric.ledger.scaffold import ScaffoldError, remove, scaffold

    backups: list = []
    if args.remove and args.force:
        raise UsageError("new --remove takes no --force: it removes only what `new` generated")
    try:
        if args.remove:
            paths = remove(args.name, root=args.root, backups=backups)
        else:
            paths = scaffold(args.name, root=args.root, force=args.force, backups=backups)
    except (ScaffoldError, ValueError, FileExistsError, FileNotFoundError) as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"new: could not write ({e.strerror or e})") from None
    for src, dst in backups:
        print(f"backed up {src} to {dst} (it differed from the template, or the regenerated placeholder would not "
              "read it)")
    if args.remove:
        for p in paths:
            print(f"removed {p}" if p.name != "_toc.yml" else f"removed the entry of {args.name!r} from {p}")
        return 0
    for p in paths:
        print(f"wrote {p}")
    print("next: fill in the statement, hypotheses and conclusion, set PLACEHOLDER = False, then "
          "`collapse-verify verify --claims 'USER.*'` (to undo: `collapse-verify new --remove NAME`)")
    return 0


def add_parsers(sub) -> None:
    """Add this module's subcommand(s) to the parser's subparsers."""
    nw = sub.add_parser("new", help="scaffold a conjecture: theorems/conjectures/<slug>.py, its tests and a book "
                                    "chapter (--remove undoes it)")
    nw.add_argument("name", help="a name, e.g. 'LayerNorm sphere'")
    nw.add_argument("--remove", action="store_true", help="undo `new NAME`: remove the files it generated and its "
                    "book/_toc.yml entry (NAME: the title, the module name or the claim id); a file `new` did not "
                    "generate is refused, a generated file you edited and the stored counterexample are backed up "
                    "under .collapse-verify/backups/ first")
    nw.add_argument("--force", action="store_true", help="regenerate files an earlier `new` generated for the same "
                    "title (never others; a file you edited is backed up under .collapse-verify/backups/ first)")
    nw.add_argument("--root", metavar="DIR", help="project root to write into (default: the project holding the "
                    "current folder); files are written only inside DIR")
    nw.set_defaults(run=cmd_new)
