"""The paper as a graph, the way Lean blueprints draw a formalisation: one node per claim, coloured by its computed
verdict, an edge from each claim to the claims it rests on (``depends_on``, declared on the claims, never drawn by
hand), and a red frame around every claim that rests, directly or through other claims, on a refuted one.

The picture is generated from the registry: :func:`graph_dot` writes Graphviz DOT and :func:`graph_svg` runs
Debian's ``dot`` on it (offline); where ``dot`` is missing, :func:`graph_svg` draws a layered picture with
matplotlib instead, and says so. Each node links to its claim's verdict in its chapter (``#claim-<id>`` anchors,
written by :func:`proofs_numeric.ledger.report.verdict_admonition`).
"""
from __future__ import annotations

import io
import re
import shutil
import subprocess
from collections import defaultdict

from theorems.framework import ClaimResult

__all__ = ["VERDICT_COLOUR", "anchor", "claim_url", "edges", "unknown_dependencies", "cycles", "rests_on_refuted",
           "graph_dot", "graph_svg", "dot_available", "CLUSTER_TITLES"]

#: fill colours by verdict (the ledger's styles in colour)
VERDICT_COLOUR = {"proved": "#2e7d32", "certified": "#66bb6a", "supported": "#90caf9", "conditional": "#fff176",
                  "refuted": "#ef5350", "unsupported": "#ffb74d", "not-checkable": "#e0e0e0", "error": "#ce93d8"}
_FONT = {"proved": "white"}

#: cluster titles by chapter slug
CLUSTER_TITLES = {
    "rank_neutrality": "§4 Rank-Neutrality (LayerNorm)", "residual_obstruction": "§5 residual connections",
    "mlp_role": "§5.3 the MLP's role",
    "dong_collapse": "Dong's collapse (depth study)", "head_channel": "§7 head-channel non-identifiability",
    "recovery_ambiguity": "§7.3 recovery ambiguity, §8 PG-OP", "symmetries": "§9 symmetries",
    "rank_contraction": "§6 rank contraction, design counts", "real_model": "a trained model",
    "related_work": "§3 related work", "dong_explainer": "the Dong explainer",
}


def anchor(claim_id: str) -> str:
    """The HTML id of a claim's verdict on its chapter page."""
    return "claim-" + re.sub(r"[^a-z0-9]+", "-", claim_id.lower()).strip("-")


def claim_url(claim, prefix: str = "chapters/") -> str:
    return f"{prefix}{claim.chapter}.html#{anchor(claim.id)}" if claim.chapter else ""


def edges(claims) -> list[tuple[str, str]]:
    """(claim, the claim it rests on) for every declared dependency."""
    return [(c.id, d) for c in claims for d in c.depends_on]


def unknown_dependencies(claims) -> list[tuple[str, str]]:
    """Declared dependencies that name no registered claim (a typo would silently drop an edge)."""
    ids = {c.id for c in claims}
    return [(a, b) for a, b in edges(claims) if b not in ids]


def cycles(claims) -> list[list[str]]:
    """Cycles of the dependency relation (an argument cannot rest on itself)."""
    graph = defaultdict(list)
    for a, b in edges(claims):
        graph[a].append(b)
    out, state, stack = [], {}, []

    def visit(v):
        state[v] = 1
        stack.append(v)
        for w in graph[v]:
            if state.get(w) == 1:
                out.append(stack[stack.index(w):] + [w])
            elif w not in state:
                visit(w)
        stack.pop()
        state[v] = 2

    for v in list(graph):
        if v not in state:
            visit(v)
    return out


def rests_on_refuted(claims, verdicts: dict[str, str]) -> dict[str, list[str]]:
    """claim id -> the refuted claims it rests on, directly or through others (claims resting on none left out)."""
    deps = {c.id: list(c.depends_on) for c in claims}
    memo: dict[str, set] = {}

    def below(v, seen=()):
        if v in memo:
            return memo[v]
        acc = set()
        for w in deps.get(v, ()):
            if w in seen:
                continue
            if verdicts.get(w) == "refuted":
                acc.add(w)
            acc |= below(w, (*seen, v))
        memo[v] = acc
        return acc

    return {c.id: sorted(below(c.id)) for c in claims if below(c.id)}


def _verdicts(results) -> dict[str, str]:
    return {r.claim.id: ("error" if r.error else r.verdict) for r in results}


def graph_dot(results: list[ClaimResult], url=claim_url) -> str:
    """Graphviz DOT of the argument: clusters by chapter, nodes coloured by verdict, the suite's own framing dashed,
    a red frame on every claim that rests on a refuted one, an edge from each claim to what it rests on."""
    claims = [r.claim for r in results]
    verdicts = _verdicts(results)
    on_refuted = rests_on_refuted(claims, verdicts)
    lines = ["digraph paper {", '  graph [rankdir=RL, fontname="Helvetica", fontsize=11, nodesep=0.12, ranksep=0.5, '
             'newrank=true, compound=true];',
             '  node [shape=box, style="filled,rounded", fontname="Helvetica", fontsize=9, margin="0.06,0.03"];',
             '  edge [color="#555555", arrowsize=0.6];']
    by_chapter = defaultdict(list)
    for r in results:
        by_chapter[r.claim.chapter or "other"].append(r)
    for k, (ch, rs) in enumerate(sorted(by_chapter.items())):
        lines.append(f'  subgraph cluster_{k} {{ label="{CLUSTER_TITLES.get(ch, ch)}"; style="rounded"; '
                     'color="#bbbbbb";')
        for r in rs:
            c, v = r.claim, verdicts[r.claim.id]
            style = "filled,rounded" + ("" if c.quoted else ",dashed")
            frame = ', color="#c62828", penwidth=2.6' if c.id in on_refuted else ""
            tip = f"{c.id}: {v} ({r.strength})" + ("" if c.quoted else " — the suite's reading") + \
                  (f"; rests on refuted {', '.join(on_refuted[c.id])}" if c.id in on_refuted else "")
            href = url(c)
            lines.append(f'    "{c.id}" [label="{c.id}\\n{v}", fillcolor="{VERDICT_COLOUR.get(v, "#ffffff")}", '
                         f'fontcolor="{_FONT.get(v, "black")}", style="{style}"{frame}, tooltip="{_q(tip)}"'
                         + (f', href="{href}", target="_top"' if href else "") + "];")
        lines.append("  }")
    for a, b in edges(claims):
        if b in verdicts:
            red = verdicts[b] == "refuted"
            lines.append(f'  "{a}" -> "{b}"' + (' [color="#c62828"]' if red else "") + ";")
    lines.append("}")
    return "\n".join(lines)


def _q(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def dot_available() -> bool:
    return shutil.which("dot") is not None


def graph_svg(results: list[ClaimResult], url=claim_url) -> tuple[str, str]:
    """(SVG text, how it was drawn): Graphviz ``dot`` when installed, else matplotlib (layered by dependency depth)."""
    if dot_available():
        out = subprocess.run(["dot", "-Tsvg"], input=graph_dot(results, url), capture_output=True, text=True,
                             timeout=120, check=True)
        svg = out.stdout
        return svg[svg.index("<svg"):], "Graphviz dot"
    return _matplotlib_svg(results, url), "matplotlib (Graphviz dot is not installed here: a plainer layout)"


def _matplotlib_svg(results, url) -> str:
    # lazy: matplotlib is an optional dependency (the book extra), slow to import; only this fallback needs it
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # lazy: after matplotlib.use("Agg"), which must come first

    claims = [r.claim for r in results]
    verdicts = _verdicts(results)
    on_refuted = rests_on_refuted(claims, verdicts)
    deps = {c.id: [d for d in c.depends_on if d in verdicts] for c in claims}
    level: dict[str, int] = {}

    def lev(v, seen=()):
        if v not in level:
            level[v] = 1 + max((lev(w, (*seen, v)) for w in deps[v] if w not in seen), default=-1)
        return level[v]

    for c in claims:
        lev(c.id)
    cols = defaultdict(list)
    for c in sorted(claims, key=lambda c: (c.chapter, c.id)):
        cols[level[c.id]].append(c.id)
    pos = {v: (x, -y) for x, vs in cols.items() for y, v in enumerate(vs)}
    fig, ax = plt.subplots(figsize=(4 + 3.2 * len(cols), 1 + 0.28 * max(len(v) for v in cols.values())))
    for a, bs in deps.items():
        for b in bs:
            (x1, y1), (x2, y2) = pos[a], pos[b]
            ax.annotate("", xy=(x2 + 0.9, y2), xytext=(x1, y1),
                        arrowprops={"arrowstyle": "->", "color": "#c62828" if verdicts[b] == "refuted" else "#777777",
                                    "lw": 0.6})
    for c in claims:
        x, y = pos[c.id]
        v = verdicts[c.id]
        t = ax.text(x, y, f"{c.id} ({v})", fontsize=7, va="center",
                    bbox={"boxstyle": "round", "fc": VERDICT_COLOUR.get(v, "white"),
                          "ec": "#c62828" if c.id in on_refuted else "#555555",
                          "lw": 2 if c.id in on_refuted else 0.5, "ls": "-" if c.quoted else "--"})
        if url(c):
            t.set_url(url(c))
    ax.set_xlim(-0.5, len(cols) + 0.5)
    ax.set_ylim(-max(len(v) for v in cols.values()) - 1, 1)
    ax.axis("off")
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    s = buf.getvalue()
    return s[s.index("<svg"):]
