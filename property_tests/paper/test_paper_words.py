"""Issue 33: the paper's words, exactly.

Every registered quote is a verbatim passage of its source (the paper, its abstract or the Dong explainer, in
``../shared/paper/``), compared whitespace- and LaTeX-tolerantly by :func:`theorems.framework.check_quote`; a claim
that is the suite's own framing has no quote, says in ``source`` what it stands for, and is shown as the suite's
reading (no quotation marks) by the ledger, the book and ``show``. The comparison with the source texts runs
wherever they are (``COLLAPSE_VERIFY_SOURCES``, default ``../shared/paper``: the developers' machines and CI), each
text checked against its SHA-256 first, and is skipped in a user's clone with the instruction how to get them
(issue 58, item 9); the matcher's own tests and the hash check's run everywhere on texts written here.
"""
from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

from proofs_numeric.cli import main
from proofs_numeric.ledger import get, registry, report
from proofs_numeric.ledger.render import render_claim
from proofs_numeric.ledger.report import verdict_admonition, words_markdown
from property_tests.paper.quick_runs import quick_run
from theorems.framework import (
    HOW_TO_GET_SOURCES,
    SOURCE_FILES,
    SOURCE_SHA256,
    SOURCES_ENV,
    SUITE_READING,
    SourceMismatch,
    check_quote,
    claim,
    load_sources,
    set_source_dir,
    source_dir,
    sources_available,
)
from theorems.framework.quotes import canonical, passages

_HAVE_SOURCES = sources_available()
needs_sources = pytest.mark.skipif(not _HAVE_SOURCES, reason=f"the source texts are not in {source_dir()}, so the "
                                   f"quotes cannot be compared with them: {HOW_TO_GET_SOURCES}")

#: the suite's claims: the paper's words (source "collapse-verify") or the suite's own framing (empty quote)
SUITE = [c for c in registry() if c.source != "user"]
#: the claims that are the suite's own framing (issue 33): no quotation marks
FRAMING = {"SYM.head-permutation", "SYM.value-output-gauge", "SYM.query-key-gauge", "SYM.token-permutation",
           "SYM.ln-shift-scale"}
#: Dong et al.'s Figure 2 and path-length counts are plotted values and a notebook's formula, not words: the suite's
#: readings of them carry no quote, and their source names the packaged data
FIGURE_READINGS = {"DONG.fig2-bert-san", "DONG.fig2-albert-san-skip", "DONG.path-length-mode"}
#: the suite's own statements about the blocks deployed Transformers use (issue 57): no sentence of the paper says them
OWN_STATEMENTS = {"BLOCK.causal-invertible"}


def unverbatim(claims, sources) -> list[tuple[str, str]]:
    """(claim id, problem) for every claim whose quote is not verbatim in ``sources``, or that has no quote and
    does not say what it stands for."""
    out = []
    for c in claims:
        if not c.quoted:
            if c.source in ("", "collapse-verify"):
                out.append((c.id, "no quote, and its source does not say what the suite's reading stands for"))
            continue
        r = check_quote(c.quote, sources)
        if not r.ok:
            out.append((c.id, r.problem))
    return out


@pytest.fixture(scope="module")
def sources():
    return load_sources()


@needs_sources
@pytest.mark.parametrize("cid", [c.id for c in SUITE], ids=str)
def test_paper_words_every_quote_is_verbatim_in_its_source(cid, sources):
    bad = unverbatim([get(cid)], sources)
    assert not bad, f"{cid}: the quote is not the source's words: {bad[0][1]}"


def _made_up(cid, quote, source="collapse-verify"):
    return claim(id=cid, section="§3", quote=quote, statement=r"x", hypotheses=(), conclusion="", regimes=("all",),
                 source=source, register_claim=False)


@needs_sources
def test_paper_words_the_test_fails_on_a_spliced_and_on_an_invented_quote(sources):
    real = _made_up("MADE.real", "LN neither prevents collapse (our theorem) nor accelerates it")
    spliced = _made_up("MADE.spliced", "LN is not passive, it is exactly neutral — it preserves rank precisely, "
                                       "neither helping nor hindering. LN neither prevents collapse (our theorem)")
    invented = _made_up("MADE.invented", "the invariance group G of the Transformer's forward pass (head permutations)")
    reordered = _made_up("MADE.reordered", "nor accelerates it ... LN neither prevents collapse")
    far = _made_up("MADE.far", "Three results are established ... four collapse phenomena")  # "..." over a page
    framing = _made_up("MADE.framing", "")  # an empty quote must say what it stands for
    bad = dict(unverbatim([real, spliced, invented, reordered, far, framing], sources))
    assert set(bad) == {"MADE.spliced", "MADE.invented", "MADE.reordered", "MADE.far", "MADE.framing"}
    assert "LN neither prevents collapse" in bad["MADE.spliced"]  # the part that was not found, named
    assert "not within" in bad["MADE.far"]
    # the same two passages, labelled as two passages, are verbatim
    labelled = _made_up("MADE.labelled", "LN is not passive, it is exactly neutral — it preserves rank precisely, "
                                         "neither helping nor hindering. [§3:] LN neither prevents collapse")
    assert unverbatim([labelled, _made_up("MADE.suite", "", source="standard symmetry")], sources) == []


def test_paper_words_the_comparison_is_whitespace_and_latex_tolerant_but_not_blind_to_words():
    src = {"paper": r"Take $X^{\star}=\mathbf{e}_{1}\mathbf{f}_{1}^{\top}$, so $\operatorname{rank}(X)\leq d_{k}$"
                    r" and $\alpha_{h}\in[0,1]$ — “plays no role.”"}
    for ok in ("Take X^* = e_1 f_1^T, so rank(X) <= d_k", "so rank(X) ≤ d_k and α_h ∈[0,1]",
               "rank(X)\\le d_k and \\alpha_h\\in[0,1] - \"plays no role.\"", "TAKE   x^⋆=e_1f_1^⊤"):
        assert check_quote(ok, src).ok, ok
    for bad in ("so rank(X) < d_k", "rank(X) ≤ d_k and β_h", "Take X^* = e_1 f_1^T and α_h",
                "plays a role"):
        assert not check_quote(bad, src).ok, bad
    assert canonical(r"\operatorname{rowspace}(\Delta)\not\subseteq\operatorname{rowspace}(X)") == \
        canonical("rowspace(Δ) ⊈ rowspace(X)")


def test_paper_words_quote_syntax_omissions_insertions_and_labels():
    ps = passages("arank(LN(X)) = arank(X) under non-degeneracy hypotheses [H1-H4] ... matrix rank "
                  "[§3:] LN neither prevents collapse D[A](X_0)[δX]")
    assert [p.label for p in ps] == ["", "§3"]
    assert [f.strip() for f in ps[0].fragments] == ["arank(LN(X)) = arank(X) under non-degeneracy hypotheses",
                                                     "matrix rank"]
    assert ps[1].fragments == [" LN neither prevents collapse D[A](X_0)[δX]"]  # math brackets are not insertions
    src = {"abstract": "alpha beta gamma", "explainer": "delta epsilon"}
    assert not check_quote("alpha [Explainer:] alpha", src).ok  # a label restricts the passage to its source
    assert check_quote("alpha [Explainer:] delta", src).ok


# --- the suite's own framing: no quotation marks anywhere -----------------------------------------------------

@pytest.mark.parametrize("cid", sorted(FRAMING))
def test_paper_words_the_suites_framing_has_no_quote_and_says_what_it_stands_for(cid):
    c = get(cid)
    assert not c.quoted and c.quote == ""
    assert "§9" in c.source and "not in the available text" in c.source


@pytest.mark.parametrize("cid", sorted(FIGURE_READINGS))
def test_paper_words_figure_readings_have_no_quote_and_name_their_data(cid):
    c = get(cid)
    assert not c.quoted and c.quote == "" and c.origin == "suite"
    assert c.source.startswith("Dong, Cordonnier & Loukas 2021") and "theorems/data/" in c.source
    assert words_markdown(c).startswith(f"**{SUITE_READING.capitalize()}**") and "“" not in words_markdown(c)


@pytest.mark.parametrize("cid", sorted(OWN_STATEMENTS))
def test_paper_words_own_statements_have_no_quote_and_say_whose_they_are(cid):
    c = get(cid)
    assert not c.quoted and c.quote == "" and c.origin == "suite"
    assert c.source.startswith("the suite's own statement")


def test_paper_words_only_the_listed_claims_are_framing():
    assert {c.id for c in SUITE if not c.quoted} == FRAMING | FIGURE_READINGS | OWN_STATEMENTS


def test_paper_words_an_empty_quote_stays_empty():
    c = _made_up("MADE.empty", "")
    assert c.quote == "" and not c.quoted  # no fallback to the statement, which is not anyone's words


def test_paper_words_ledger_book_and_show_mark_the_suites_reading():
    cid = "SYM.head-permutation"
    r = quick_run(cid)  # run_claim(get(cid), CheckContext(dps=30, quick=True)), shared with the other tests
    text = "\n".join(t for t, _ in render_claim(r))
    assert SUITE_READING in text and "“" not in text
    adm = verdict_admonition(cid, dps=30)
    assert "The suite's reading" in adm and "“" not in adm
    quoted = verdict_admonition("RN.step1", dps=30)
    assert "“" in quoted and SUITE_READING not in quoted
    rec = r.to_json()
    assert rec["quoted"] is False and rec["quote"] == "" and "§9" in rec["source"]
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["show", cid, "--quick", "--dps", "30"]) == 0
    out = buf.getvalue()
    assert "the suite's reading" in out and "“" not in out
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["show", cid, "--quick", "--dps", "30", "--json"]) == 0
    assert json.loads(buf.getvalue())["quoted"] is False


def test_paper_words_the_ledger_table_marks_the_suites_reading(monkeypatch):
    monkeypatch.setattr(report, "registry", lambda: [get("SYM.value-output-gauge"), get("DC.bert-config")])
    md = report.ledger_markdown(dps=30)
    rows = md.split("* - ")
    assert SUITE_READING in next(r for r in rows if "SYM.value-output-gauge" in r)
    assert SUITE_READING not in next(r for r in rows if "DC.bert-config" in r)


# --- issue 56: quoted only for words found in a source; the tally in three parts --------------------------------

_ALL = registry()


@needs_sources
@pytest.mark.parametrize("cid", [c.id for c in _ALL if c.quoted], ids=str)
def test_paper_words_quoted_means_found_in_a_source(cid, sources):
    """`quoted` is true only for words a source contains (users' conjectures included in the check)."""
    r = check_quote(get(cid).quote, sources)
    assert r.ok, f"{cid} is marked quoted but: {r.problem}"


@needs_sources
def test_paper_words_users_conjectures_are_not_quoted(sources):
    """The 3 USER.* conjectures carry words that are in no source: quoted is false, origin user."""
    users = [c for c in _ALL if c.id.startswith("USER.")]
    assert len(users) == 3
    for c in users:
        assert not check_quote(c.quote, sources).ok  # the words really are in no source
        assert c.quoted is False and c.origin == "user"


@needs_sources
@pytest.mark.parametrize("cid", [c.id for c in _ALL if c.origin in ("paper", "explainer")], ids=str)
def test_paper_words_origin_is_where_the_first_passage_is_found(cid, sources):
    """origin 'explainer' iff the quote's first passage is the explainer's words; 'paper' iff the paper's or the
    abstract's (the tally's first two parts)."""
    c = get(cid)
    first = check_quote(c.quote, sources).found[0]
    assert first == ("explainer" if c.origin == "explainer" else first) and \
        (first in ("paper", "abstract")) == (c.origin == "paper"), (cid, c.origin, first)


def test_paper_words_suite_framing_and_users_are_the_third_part():
    third = {c.id for c in _ALL if c.origin in ("suite", "user")}
    assert third == FRAMING | FIGURE_READINGS | OWN_STATEMENTS | {"USER.ln-sphere", "USER.rmsnorm-affine-rank",
                                                                  "USER.rmsnorm-matrix-rank"}


def test_paper_words_tally_has_three_parts_that_add_up():
    """The summary of `verify` and ledger.json: the paper, the explainer, the suite's own and users' conjectures."""
    from proofs_numeric.ledger.render import render_summary, tally
    results = [quick_run(cid) for cid in ("RN.main", "DONG.softmax-shift", "SYM.head-permutation",
                                          "USER.rmsnorm-affine-rank")]
    parts = tally(results)
    assert [p["claims"] for p in parts] == [1, 1, 2]
    assert sum(sum(p["verdicts"].values()) for p in parts) == len(results)
    assert parts[2]["verdicts"] == {"proved": 1, "refuted": 1}
    lines = render_summary(results).splitlines()
    assert len(lines) == 3 and lines[0].startswith("the paper") and "explainer" in lines[1]
    assert lines[2].startswith("the suite's own statements (its framing, readings of Dong's figures) and users' "
                             "conjectures, 2 claims")


@needs_sources
def test_paper_words_what_the_explainer_says_about_the_attributions(sources):
    """The facts behind the attribution claims (DONG.attr-*), against the explainer's text: its words on the remedies
    are verbatim, it never says 'tug of war', and it writes W_O once (inside Attn(X) = P X W_V W_O)."""
    from theorems.paper.dong_collapse import EXPLAINER_ON_REMEDIES
    for q in EXPLAINER_ON_REMEDIES:
        assert check_quote("[Explainer:] " + q, sources).ok, q
    assert "tug of war" not in sources["explainer"].lower()
    assert canonical(sources["explainer"]).count("w_o") == 1
    assert "plays no role" not in sources["explainer"].lower()


# --- where the source texts are, and that they are the texts (issue 58, item 9) ---------------------------------

def _texts(folder, **replace):
    """Three files named as the source texts in ``folder`` (their contents: ``replace`` or a placeholder)."""
    folder.mkdir(exist_ok=True)
    for f in SOURCE_FILES.values():
        (folder / f).write_text(replace.get(f, f"not the text of {f}"), encoding="utf-8")
    return folder


def test_paper_words_the_sources_folder_is_a_setting(tmp_path, monkeypatch):
    """``verify --sources DIR`` (set_source_dir) beats $COLLAPSE_VERIFY_SOURCES, which beats ../shared/paper."""
    from theorems.framework.quotes import SOURCE_DIR
    a, b = tmp_path / "a", tmp_path / "b"
    monkeypatch.delenv(SOURCES_ENV, raising=False)
    try:
        set_source_dir(None)
        assert source_dir() == SOURCE_DIR
        monkeypatch.setenv(SOURCES_ENV, str(a))
        assert source_dir() == a and not sources_available()
        _texts(a)
        assert sources_available()
        set_source_dir(b)
        assert source_dir() == b and not sources_available()
    finally:
        set_source_dir(None)


def test_paper_words_a_wrong_text_is_refused_naming_the_file_and_both_hashes(tmp_path):
    """The hashes are in the repository, the texts are not: a text that is not the one the quotes were checked
    against (another version, another conversion) is refused with the file, its hash and the expected one."""
    folder = _texts(tmp_path / "src")
    paper = SOURCE_FILES["paper"]
    with pytest.raises(SourceMismatch) as e:
        load_sources(folder)
    msg = str(e.value)
    assert str(folder / paper) in msg and SOURCE_SHA256[paper] in msg and "arXiv 2604.23681" in msg
    (folder / paper).unlink()
    with pytest.raises(FileNotFoundError, match="arXiv 2604.23681"):
        load_sources(folder)


def test_paper_words_every_source_has_a_sha256_and_the_skip_says_how_to_get_them():
    assert set(SOURCE_SHA256) == set(SOURCE_FILES.values())
    assert all(len(h) == 64 and int(h, 16) >= 0 for h in SOURCE_SHA256.values())
    for words in ("arXiv 2604.23681", "--sources DIR", SOURCES_ENV):
        assert words in HOW_TO_GET_SOURCES


@needs_sources
def test_paper_words_the_texts_found_are_the_texts_hashed():
    """Where the texts are (CI, the developers' machines), each has the SHA-256 kept in the repository."""
    import hashlib
    for f, h in SOURCE_SHA256.items():
        assert hashlib.sha256((source_dir() / f).read_bytes()).hexdigest() == h, f


def test_paper_words_verify_sources_refuses_a_wrong_or_missing_text_before_running(tmp_path, capsys):
    """`verify --sources DIR` checks each text's SHA-256 before any claim runs: exit 2 naming the file."""
    folder = _texts(tmp_path / "src")
    try:
        assert main(["verify", "--claims", "RN.step1", "--quick", "--sources", str(folder)]) == 2
        err = capsys.readouterr().err
        assert SOURCE_FILES["paper"] in err and "SHA-256" in err and "[1/1]" not in err
        assert main(["verify", "--claims", "RN.step1", "--quick", "--sources", str(tmp_path / "none")]) == 2
        assert "no such folder" in capsys.readouterr().err
    finally:
        set_source_dir(None)


@needs_sources
def test_paper_words_verify_sources_compares_the_quotes(capsys):
    try:
        assert main(["verify", "--claims", "RN.step[0-9]", "--quick", "--dps", "30", "--sources",
                     str(source_dir())]) == 0
        assert "quotes: 3 of 3 quoted claims verbatim" in capsys.readouterr().out
    finally:
        set_source_dir(None)
