"""Issue 58, item 6, the book's Markdown: statements as display math (a display formula scrolls in its own box;
inline math in a line of words was clipped), Coq lemma statements typeset in the evidence tables (they were raw
LaTeX)."""
from __future__ import annotations

import re

from proofs_numeric.ledger import report
from property_tests.paper.quick_runs import QUICK, quick_run
from theorems.framework import formal_proof


def test_report_a_coq_lemma_statement_is_typeset_in_the_evidence_table():
    tex = r"\operatorname{rank}(XP)=\operatorname{rank}X-1"
    md = report.evidence_markdown([formal_proof("CollapseVerify.rank_neutrality.step1", True, statement=tex)])
    assert f"$$\n{tex}\n$$" in md  # display math below the table, not escaped raw LaTeX in a cell
    assert "\\\\operatorname" not in md and "CollapseVerify.<wbr>rank_neutrality" in md
    refused = report.evidence_markdown([formal_proof("CollapseVerify.x.y", None, statement=tex, reason="no coqc")])
    assert f"$$\n{tex}\n$$" in refused and "not accepted" in refused
    # the label theorems.formal.evidence gives an accepted lemma
    labelled = report.evidence_markdown([formal_proof("CollapseVerify.x.y [formal, no axioms]", True, statement=tex)])
    assert "formal, no axioms" in labelled and f"$$\n{tex}\n$$" in labelled


def test_report_statements_are_display_math(monkeypatch):
    """The headline's and every further reading's statement stand in $$ blocks of their own, never inline after
    "Reading ...:" (what the book clipped at 1400 and 800 px). On RN.main's quick result (shared with the other
    tests): the full run took 2465 s in one loaded `make test`, and the layout does not depend on the budget."""
    monkeypatch.setattr(report, "run", lambda cid, dps=QUICK.dps: quick_run(cid))
    md = report.verdict_admonition("RN.main", dps=QUICK.dps)
    readings = re.findall(r"^Reading \*\*([^*]+)\*\*.*$", md, flags=re.M)
    assert len(readings) >= 3
    for line in md.splitlines():
        if line.startswith(("Reading **", "Formal statement")):
            assert "$" not in line, line
    assert md.count("$$\n") >= 2 * (len(readings) + 1)
