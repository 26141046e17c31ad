"""``new``: scaffold a conjecture (module, tests, chapter)."""
from __future__ import annotations

from proofs_numeric.cli.inputs import UsageError

__all__ = ["add_parsers", "cmd_new"]


def cmd_new(args) -> int:
    # lazy: a genuine cycle through the package: ledger.scaffold imports cli.inputs, and importing that runs this
    # package's __init__, which imports this module (so `import proofs_numeric.ledger.scaffold` first failed)
    from proofs_numeric.ledger.scaffold import ScaffoldError, scaffold

    backups: list = []
    try:
        paths = scaffold(args.name, root=args.root, force=args.force, backups=backups)
    except (ScaffoldError, ValueError, FileExistsError, FileNotFoundError) as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"new: could not write ({e.strerror or e})") from None
    for src, dst in backups:
        print(f"backed up {src} to {dst} (it differed from the template, or the regenerated placeholder would not "
              "read it)")
    for p in paths:
        print(f"wrote {p}")
    print("next: fill in the statement, hypotheses and conclusion, set PLACEHOLDER = False, then "
          "`collapse-verify verify --claims 'USER.*'`")
    return 0


def add_parsers(sub) -> None:
    """Add this module's subcommand(s) to the parser's subparsers."""
    nw = sub.add_parser("new", help="scaffold a conjecture: theorems/conjectures/<slug>.py, its tests and a book "
                                    "chapter")
    nw.add_argument("name", help="a name, e.g. 'LayerNorm sphere'")
    nw.add_argument("--force", action="store_true", help="regenerate files an earlier `new` generated for the same "
                    "title (never others; a file you edited is backed up under .collapse-verify/backups/ first)")
    nw.add_argument("--root", metavar="DIR", help="project root to write into (default: the project holding the "
                    "current folder); files are written only inside DIR")
    nw.set_defaults(run=cmd_new)
