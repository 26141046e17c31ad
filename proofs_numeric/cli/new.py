"""``new``: scaffold a conjecture (module, tests, chapter)."""
from __future__ import annotations

from ..ledger.scaffold import ScaffoldError, scaffold
from .inputs import UsageError

__all__ = ["add_parsers", "cmd_new"]


def cmd_new(args) -> int:
    try:
        paths = scaffold(args.name, root=args.root, force=args.force)
    except (ScaffoldError, ValueError, FileExistsError, FileNotFoundError) as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"new: could not write ({e.strerror or e})") from None
    for p in paths:
        print(f"wrote {p}")
    print("next: fill in the statement, hypotheses and conclusion, then `collapse-verify verify --claims 'USER.*'`")
    return 0


def add_parsers(sub) -> None:
    """Add this module's subcommand(s) to the parser's subparsers."""
    nw = sub.add_parser("new", help="scaffold a conjecture: theorems/conjectures/<slug>.py, its tests and a book chapter")
    nw.add_argument("name", help="a name, e.g. 'LayerNorm sphere'")
    nw.add_argument("--force", action="store_true", help="overwrite files an earlier `new` generated (never others)")
    nw.add_argument("--root", metavar="DIR", help="project root to write into (default: the project holding the "
                    "current folder); files are written only inside DIR")
    nw.set_defaults(run=cmd_new)
