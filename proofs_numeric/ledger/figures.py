"""The book's figures, drawn with matplotlib from the library's own numbers while the book is built (never by hand).

Each function takes the numbers it draws (so a test can check a figure against its data) or computes them, draws one
figure with ``matplotlib.pyplot`` and returns it; a chapter shows it with ``plt.show()``.

* :func:`verdicts_per_chapter` — the front page: per chapter, how many claims earned each verdict (stacked bars);
* :func:`stress_per_regime` — Rank-Neutrality's seeded stress: per regime, per family, how many draws were made,
  defined LayerNorm, met H1-H4, and broke the conclusion under H1-H4;
* :func:`real_model_layers` — per layer of a trained model: cond(W_O) and the relative error of recovering the
  heads from the MHA output.
"""
from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt

from .report import VERDICT_ORDER, verdicts_by_chapter

__all__ = ["VERDICT_COLOURS", "verdicts_per_chapter", "stress_per_regime", "STRESS_SERIES", "real_model_layers"]

#: one colour per verdict, in the order of :data:`proofs_numeric.ledger.report.VERDICT_ORDER`
VERDICT_COLOURS = {"refuted": "#c0392b", "conditional": "#e67e22", "unsupported": "#d4ac0d", "proved": "#1e8449",
                   "certified": "#52be80", "supported": "#2e86c1", "not-checkable": "#aab7b8", "error": "#8e44ad"}


def verdicts_per_chapter(rows: list[tuple[str, dict]] | None = None, dps: int = 50):
    """A stacked horizontal bar per chapter: how many of its claims earned each verdict (computed now, or ``rows`` as
    :func:`proofs_numeric.ledger.report.verdicts_by_chapter` gives them: ``[(title, {verdict: count})]``)."""
    rows = verdicts_by_chapter(dps) if rows is None else rows
    titles = [textwrap.shorten(t, 60, placeholder=" …") for t, _ in rows][::-1]  # a conjecture's title may be long
    counts = [c for _, c in rows][::-1]
    height = 0.42 * len(rows) + 1.8
    fig, ax = plt.subplots(figsize=(9, height))
    left = [0] * len(rows)
    for v in VERDICT_ORDER:
        widths = [c.get(v, 0) for c in counts]
        if not any(widths):
            continue
        bars = ax.barh(titles, widths, left=left, color=VERDICT_COLOURS[v], label=v, edgecolor="white", height=0.7)
        for b, w in zip(bars, widths):
            if w:
                ax.text(b.get_x() + b.get_width() / 2, b.get_y() + b.get_height() / 2, str(w), ha="center",
                        va="center", fontsize=8, color="white")
        left = [a + w for a, w in zip(left, widths)]
    ax.set_xlabel("claims")
    fig.suptitle("Verdicts per chapter (computed while this page was built)", fontsize=11)
    handles, labels = ax.get_legend_handles_labels()
    ax.legend(handles, labels, ncol=len(labels), fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0),
              frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.45 / height))
    return fig


#: the counts :func:`stress_per_regime` draws per family, with their labels
STRESS_SERIES = (("drawn", "drawn"), ("LN defined", "LayerNorm defined (H1)"), ("H1-H4", "met H1-H4"),
                 ("H1-H4, conclusion fails", "met H1-H4, conclusion fails"))


def stress_per_regime(stats: dict):
    """One panel per regime (n < d, n = d, n > d): per family, grouped bars of the stress counts
    (``stats[(regime, family)][series]``, as :func:`proofs_numeric.ledger.report.rank_neutrality_stress` gives)."""
    regimes = [r for r in ("n<d", "n=d", "n>d") if any(k[0] == r for k in stats)]
    families = sorted({f for _, f in stats})
    fig, axes = plt.subplots(1, len(regimes), figsize=(12, 3.8), sharey=True, squeeze=False)
    width = 0.8 / len(STRESS_SERIES)
    colours = ("0.75", "#5dade2", "#1e8449", "#c0392b")
    for ax, regime in zip(axes[0], regimes):
        for k, ((key, label), colour) in enumerate(zip(STRESS_SERIES, colours)):
            xs = [i + (k - (len(STRESS_SERIES) - 1) / 2) * width for i in range(len(families))]
            ys = [stats.get((regime, f), {}).get(key, 0) for f in families]
            bars = ax.bar(xs, ys, width, color=colour, label=label)
            for b, y in zip(bars, ys):
                if y:
                    ax.text(b.get_x() + b.get_width() / 2, y, str(y), ha="center", va="bottom", fontsize=6)
        ax.set_xticks(range(len(families)), [f.replace("_", " ") for f in families], rotation=30, ha="right",
                      fontsize=8)
        ax.set_title(f"regime {regime.replace('<', ' < ').replace('>', ' > ').replace('=', ' = ')}")
        ax.spines[["top", "right"]].set_visible(False)
    axes[0][0].set_ylabel("inputs")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, ncol=len(STRESS_SERIES), fontsize=8, loc="upper center", bbox_to_anchor=(0.5, 0.93),
               frameon=False)
    fig.suptitle("Seeded exact stress of Thm 4.2, per regime and family")
    fig.tight_layout(rect=(0, 0, 1, 0.86))
    return fig


def real_model_layers(res: dict):
    """cond(W_O) and the relative error of recovering the head outputs from the MHA output, per layer (log scales),
    from :func:`proofs_numeric.real_model.measure`'s ``layers``."""
    layers = res["layers"]
    xs = [L["layer"] for L in layers]
    cond = [float("inf") if L["W_O_condition"] is None else L["W_O_condition"] for L in layers]
    err = [L["head_recovery_rel_error"] for L in layers]
    fig, ax = plt.subplots(figsize=(8, 3.6))
    ax.plot(xs, cond, "o-", color="#2e86c1", label="cond(W_O)")
    ax.set_yscale("log")
    ax.set_xlabel("layer")
    ax.set_ylabel("cond(W_O)", color="#2e86c1")
    ax2 = ax.twinx()
    ax2.plot(xs, err, "s--", color="#c0392b", label="head recovery rel. error")
    ax2.set_yscale("log")
    ax2.set_ylabel("head recovery relative error", color="#c0392b")
    ax.set_xticks(xs)
    ax.set_title(f"{res['model']}: W_O per layer (float64; exact ranks in the table)")
    lines = ax.get_lines() + ax2.get_lines()
    ax.legend(lines, [str(ln.get_label()) for ln in lines], fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig
