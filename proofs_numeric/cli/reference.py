"""The command-line reference as Markdown, generated from the argparse parser (never written by hand).

:func:`markdown` walks the parser :func:`proofs_numeric.cli.build_parser` builds: the program, then every
subcommand in the order ``--help`` lists them, each with its one-line help, its usage, one definition list per
argument group (every option string, its argument, its default, its help text as ``--help`` prints it) and its epilog
(examples, how inputs are read, the limits in force). The book's page ``book/reference/cli_reference.md``
renders it while the book is built, so the reference cannot drift from the code; a test
(``property_tests/interface/test_cli_reference.py``) checks that every subcommand and every option appears.

>>> text = markdown()
>>> "## `collapse-verify verify`" in text and "`--claims`" in text
True
"""
from __future__ import annotations

import argparse
import re
import textwrap
from collections.abc import Iterator

__all__ = ["markdown", "subcommands", "options", "limits_markdown", "WIDTH"]

#: the width usage lines and epilogs are formatted to: fixed, so the page does not depend on the terminal
#: (``COLUMNS``) of whoever builds the book
WIDTH = 86


def subcommands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str, argparse.ArgumentParser, list[str]]]:
    """``(name, one-line help, parser, aliases)`` for every subcommand of ``parser``, in the order ``--help`` lists
    them (nested subcommands included, their names joined by a space; an alias is listed with its subcommand, not
    as one of its own)."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {a.dest: a.help or "" for a in action._choices_actions}
        names: dict[int, list[str]] = {}
        for name, sub in action.choices.items():
            names.setdefault(id(sub), []).append(name)
        for name, sub in action.choices.items():
            if names[id(sub)][0] != name:  # an alias of a subcommand already listed
                continue
            yield name, helps.get(name, ""), sub, names[id(sub)][1:]
            for inner, h, p, al in subcommands(sub):
                yield f"{name} {inner}", h, p, al


def options(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    """Every argument of ``parser`` that ``--help`` shows (positionals included; not the subcommand choice)."""
    for action in parser._actions:
        if action.help is argparse.SUPPRESS or isinstance(action, argparse._SubParsersAction):
            continue
        yield action


def _formatter(parser: argparse.ArgumentParser) -> argparse.HelpFormatter:
    # every argparse formatter class takes width=; typeshed's _FormatterClass protocol names only prog
    return parser.formatter_class(prog=parser.prog, width=WIDTH)  # type: ignore[call-arg]


def _usage(parser: argparse.ArgumentParser) -> str:
    f = _formatter(parser)
    f.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return f.format_help().strip()


def _cell(text: str) -> str:
    """One line of text, pipes escaped (safe in a table cell)."""
    return " ".join(str(text).split()).replace("|", "\\|")


#: an option spelled in prose (``--json``, ``-h``): shown as code, so Markdown's typography leaves its dashes alone
_OPTION_WORD = re.compile(r"(?<![\w`-])(--?[A-Za-z][\w-]*)")


def _prose(text: str) -> str:
    """Help text as Markdown: one line, option names outside existing code spans made code spans."""
    parts = " ".join(str(text).split()).split("`")
    return "`".join(p if k % 2 else _OPTION_WORD.sub(r"`\1`", p) for k, p in enumerate(parts))


def _help_text(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    if not action.help:
        return ""
    return _prose(_formatter(parser)._expand_help(action))  # %(default)s and friends, as --help prints them


def _argument(action: argparse.Action) -> str:
    if action.nargs == 0:
        return ""
    if action.choices is not None and not isinstance(action.choices, dict):
        text = "{" + ", ".join(str(c) for c in action.choices) + "}"  # spaced: the line may wrap there
    else:
        text = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
    if action.nargs in ("+", "*"):
        text += " ..."
    elif action.nargs == "?":
        text = f"[{text}]"
    return f"`{text}`"


def _default(action: argparse.Action) -> str:
    d = action.default
    if d is None or d is False or d is argparse.SUPPRESS or action.nargs == 0 or d == []:
        return ""
    return f"`{repr(d) if isinstance(d, str) else d}`"


def _names(action: argparse.Action) -> str:
    if action.option_strings:
        return ", ".join(f"`{s}`" for s in action.option_strings)
    return f"`{action.metavar or action.dest}` (positional)"


def _options(parser: argparse.ArgumentParser, actions: list[argparse.Action]) -> list[str]:
    """The arguments as a definition list: names, argument and default on the term line, the help below."""
    out = []
    for a in actions:
        term = " ".join(x for x in (_names(a), _argument(a) if a.option_strings else "") if x)
        default = _default(a)
        out += [term + (f" (default {default})" if default else ""), f": {_help_text(parser, a) or '(no help)'}", ""]
    return out


def _block(text: str) -> list[str]:
    """Preformatted text (an epilog: examples, limits) as a text block, each line wrapped to :data:`WIDTH` with its
    continuation indented under the line's own indent plus two spaces."""
    out = ["```text"]
    for line in text.strip("\n").splitlines():
        line = line.rstrip()
        indent = " " * (len(line) - len(line.lstrip()))
        out += textwrap.wrap(line, WIDTH, subsequent_indent=indent + "  ", break_long_words=False,
                             break_on_hyphens=False) or [""]
    return out + ["```", ""]


def _description(text: str) -> list[str]:
    """A description: prose paragraphs as prose, indented ones (examples) as a text block."""
    out: list[str] = []
    for para in text.strip("\n").split("\n\n"):
        lines = para.splitlines()
        if any(line.startswith(" ") for line in lines):
            out += _block(para)
        else:
            out += [_cell(para), ""]
    return out


def _section(title: str, summary: str, parser: argparse.ArgumentParser, level: int,
             aliases: list[str]) -> list[str]:
    out = [f"{'#' * level} `{title}`", ""]
    if summary:
        out += [_cell(summary)[:1].upper() + _cell(summary)[1:] + ".", ""]
    if aliases:
        out += ["Also spelled " + ", ".join(f"`{a}`" for a in aliases) + ".", ""]
    out += ["```text", _usage(parser), "```", ""]
    shown = set(id(a) for a in options(parser))
    for group in parser._action_groups:
        actions = [a for a in group._group_actions if id(a) in shown]
        if not actions:
            continue
        out += [f"**{group.title}**", ""] if group.title else []
        out += _options(parser, actions)
    if parser.epilog:
        out += _block(parser.epilog)
    return out


def markdown(parser: argparse.ArgumentParser | None = None, level: int = 2) -> str:
    """The reference of ``parser`` (default: the ``collapse-verify`` parser) as Markdown: the program, then one
    section per subcommand (headings at ``level``)."""
    if parser is None:
        from proofs_numeric.cli import (
            build_parser,
        )  # lazy: this module is imported by the package that defines build_parser

        parser = build_parser()
    prog = parser.prog
    out = [f"{'#' * level} `{prog}`", ""]
    if parser.description:
        out += _description(parser.description)
    out += ["```text", _usage(parser), "```", ""]
    out += _options(parser, list(options(parser)))
    subs = list(subcommands(parser))
    if subs:
        out += ["Subcommands: " + ", ".join(f"`{name}`" for name, *_ in subs) + ".", ""]
    if parser.epilog:
        out += _block(parser.epilog)
    for name, summary, sub, aliases in subs:
        out += _section(f"{prog} {name}", summary, sub, level, aliases)
    return "\n".join(out).rstrip() + "\n"


def limits_markdown() -> str:
    """The limits in force (defaults, or the values set with ``COLLAPSE_VERIFY_<NAME>``) as a table: name, value,
    what it bounds; read from :func:`proofs_numeric.cli.inputs.limits_text`, the lines ``--help`` prints."""
    from proofs_numeric.cli.inputs import limits_text

    rows = ["| name | value in force | what it bounds |", "|---|---:|---|"]
    for line in limits_text().splitlines():
        m = re.fullmatch(r"\s*(\w+) = (\d+): (.*)", line)
        if m is None:
            raise ValueError(f"a limit line not of the form 'NAME = value: what': {line!r}")
        rows.append(f"| `{m.group(1)}` | {int(m.group(2)):,} | {_cell(_prose(m.group(3)))} |")
    return "\n".join(rows)
