"""The command-line reference (``proofs_numeric.cli.reference``) is generated from the argparse parser: every
subcommand and every option appears in it, the book renders it, and the check below catches an option the
rendering left out."""
from __future__ import annotations

import argparse
from pathlib import Path

import pytest
import yaml

from proofs_numeric.cli import build_parser
from proofs_numeric.cli import reference as R

BOOK = Path(__file__).resolve().parents[2] / "book"


def _walk(parser: argparse.ArgumentParser, prefix: str = ""):
    """``(subcommand path, parser)`` for the parser and every subcommand (an alias: once, under its first name),
    read from argparse's own structures (independently of the module under test)."""
    yield prefix, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen = set()
            for name, sub in action.choices.items():
                if id(sub) not in seen:
                    seen.add(id(sub))
                    yield from _walk(sub, f"{prefix} {name}".strip())


def _missing(text: str, parser: argparse.ArgumentParser) -> list[str]:
    """What of ``parser`` the Markdown ``text`` does not show: a subcommand without its heading, or an option
    string (or positional) absent from that subcommand's section."""
    prog = parser.prog
    out = []
    for path, p in _walk(parser):
        title = f"{prog} {path}".strip()
        start = text.find(f"## `{title}`\n")
        if start < 0:
            out.append(f"no section for {title}")
            continue
        end = text.find("\n## `", start + 1)
        section = text[start:end if end > 0 else len(text)]
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction) or a.help is argparse.SUPPRESS:
                continue
            names = a.option_strings or [a.metavar or a.dest]
            out += [f"{prog} {path}: {s}" for s in names if f"`{s}`" not in section]
    return out


def test_cli_reference_shows_every_subcommand_and_option():
    parser = build_parser()
    subs = [path for path, _ in _walk(parser) if path]
    assert {"verify", "show", "check", "depth", "real-model", "rank", "new"} <= set(subs)
    text = R.markdown(parser)
    assert _missing(text, parser) == []
    # the options of the model group of `check` are there too (they live in another module)
    assert all(f"`{o}`" in text for o in ("--model", "--jsonl", "--resume", "--workers"))


def test_cli_reference_help_text_is_the_parsers():
    """Each option's help is the one ``--help`` prints (defaults expanded), not a copy typed elsewhere; option
    names in it are code spans, so Markdown does not turn their dashes into dashes of prose."""
    parser = build_parser()
    text = R.markdown(parser)
    for _, p in _walk(parser):
        for a in p._actions:
            if a.help and a.help is not argparse.SUPPRESS and not isinstance(a, argparse._SubParsersAction):
                words = " ".join(p.formatter_class(prog=p.prog)._expand_help(a).split()).replace("`", "")
                assert words in text.replace("`", ""), (p.prog, a.option_strings, words)  # options are code spans


def test_cli_reference_catches_an_option_left_out():
    """The check can fail: an option added after rendering, a section removed, are both reported."""
    parser = build_parser()
    text = R.markdown(parser)
    sub = dict(_walk(parser))["rank"]
    sub.add_argument("--planted-option", help="not in the rendered text")
    assert _missing(text, parser) == ["collapse-verify rank: --planted-option"]
    cut = text.replace("## `collapse-verify depth`\n", "## depth\n")
    assert "no section for collapse-verify depth" in _missing(cut, build_parser())


def test_cli_reference_option_names_in_help_text_are_code():
    text = R.markdown()
    assert "(with `--W-O`)" in text and "with –" not in text
    assert "entry of `verify --json`, plus" in text  # an existing code span is left as it is
    assert "see `--list`) or an alias (rank-neutrality, head-channel," in text  # hyphenated words stay prose


def test_cli_reference_does_not_depend_on_the_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    narrow = R.markdown()
    monkeypatch.setenv("COLUMNS", "200")
    assert R.markdown() == narrow


def test_cli_reference_renders_a_nested_parser_with_aliases():
    p = argparse.ArgumentParser(prog="tool")
    sub = p.add_subparsers()
    a = sub.add_parser("outer", aliases=["o"], help="the outer one")
    inner = a.add_subparsers().add_parser("inner", help="the inner one")
    inner.add_argument("--deep", choices=["x", "y"], default="x", help="pick (default %(default)s)")
    text = R.markdown(p)
    assert [(name, al) for name, _, _, al in R.subcommands(p)] == [("outer", ["o"]), ("outer inner", [])]
    assert "Also spelled `o`." in text and "## `tool outer inner`" in text
    assert "`{x, y}`" in text and "pick (default x)" in text
    assert _missing(text, p) == []


def test_cli_reference_limits_table_lists_every_limit():
    from proofs_numeric.cli.inputs import LIMITS
    from theorems.exact.input import LIMITS as EXACT
    from theorems.exact.reader import READER_LIMITS
    table = R.limits_markdown()
    for name in [*LIMITS, *EXACT, *READER_LIMITS]:
        assert f"| `{name}` |" in table


@pytest.mark.parametrize("page", ["reference/cli_reference"])
def test_cli_reference_page_is_in_the_book_and_renders_the_generator(page):
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text())
    files = [c["file"] for part in toc.get("parts", []) for c in part.get("chapters", [])]
    assert page in files
    src = (BOOK / f"{page}.md").read_text()
    assert "reference.markdown(" in src and "```{code-cell}" in src  # executed, not a pasted copy
