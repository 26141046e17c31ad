"""The book's figures, drawn with matplotlib from the library's own numbers while the book is built (never by hand).

Each function takes the numbers it draws (so a test can check a figure against its data) or computes them, draws one
figure with ``matplotlib.pyplot`` and returns it; a chapter shows it with ``plt.show()``.

* :func:`verdicts_per_chapter` — the front page: per chapter, how many claims earned each verdict (stacked bars);
* :func:`stress_per_regime` — Rank-Neutrality's seeded stress: per regime, per family, how many draws were made,
  defined LayerNorm, met H1-H4, and broke the conclusion under H1-H4;
* :func:`real_model_layers` — per layer of a trained model: cond(W_O) and the relative error of recovering the
  heads from the MHA output;
* :func:`claims_at_sites` — claim x site of one input of a model, coloured by what each site says about the reading
  (holds / fails / premise fails / undecided / not checked), from the site records of ``check --model``;
* :func:`across_checkpoints` — the same across several checkpoints (a training run): per reading the share of sites
  in each verdict, and cond(W_O) and the head-recovery error per layer, one line per checkpoint.
"""
from __future__ import annotations

import textwrap
from collections import Counter

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

from proofs_numeric.ledger.report import VERDICT_ORDER, verdicts_by_chapter
from proofs_numeric.model.site_ids import site_of

__all__ = ["VERDICT_COLOURS", "verdicts_per_chapter", "stress_per_regime", "STRESS_SERIES", "real_model_layers",
           "SITE_COLOURS", "SITE_VERDICTS", "site_matrix", "claims_at_sites", "across_checkpoints", "site_label",
           "residual_across"]

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


def real_model_layers(layers: list[dict], model: str):
    """cond(W_O) and the relative error of recovering the head outputs from the MHA output, per layer (log scales),
    of the rows :func:`proofs_numeric.witnesses.real_model.layer_rows` reads from the records of the ``L{l}.attn.W_O``
    sites; ``model`` names the model in the title."""
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
    ax.set_title(f"{model}: W_O per layer (float64; exact ranks in the table)")
    lines = ax.get_lines() + ax2.get_lines()
    ax.legend(lines, [str(ln.get_label()) for ln in lines], fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig


#: what one site says about a reading (``on_this_instance`` of a record; None: not checked there), in legend order,
#: with the words of the legend
SITE_VERDICTS = (("holds", "holds"), ("counterexample", "fails (counterexample)"),
                 ("premise-fails", "premise fails"), ("exceptional-point", "exceptional point"),
                 ("undecided", "undecided"), (None, "not checked (reason in the record)"))
SITE_COLOURS = {"holds": "#1e8449", "counterexample": "#c0392b", "premise-fails": "#e67e22",
                "exceptional-point": "#8e44ad", "undecided": "#aab7b8", None: "#d6eaf8"}
#: the short name of a site kind in a column label
_KIND_SHORT = {"layernorm-input": "LN", "rmsnorm-input": "LN", "output-projection": "W_O", "attention": "MHA",
               "residual-update": "+", "head-output": "head"}


def site_label(record: dict, arb: bool = False) -> str:
    """A short column label for a record's site: its kind's short name and the registry's label (``site_label``) with
    "layer " shortened (``LN L0 attention output``, ``W_O L3``), with ``[arb]`` for a record decided on the interval
    forward's enclosures (``arb``)."""
    kind = str(record.get("site_kind"))
    out = f"{_KIND_SHORT.get(kind, kind)} {record.get('site_label') or record['site']}".replace("layer ", "L")
    return out + (" [arb]" if arb else "")


def _is_arb(r: dict) -> bool:
    return str((r.get("about") or {}).get("how", "")).startswith("the network itself")


def site_matrix(records: list[dict]) -> tuple[list, list, list]:
    """(rows, columns, cells) of the claim x site figure: rows ``(claim, reading)`` in claim order, columns ``(site id,
    level)`` (:class:`proofs_numeric.model.site_ids.SiteId`) in the order of the forward (a site's network-level record
    beside its float record), ``cells[i][j]`` the record's ``on_this_instance`` (``"none"`` where that reading has no
    record at that site)."""
    level_rank = {"float-computation": 0, "network": 1}
    col = lambda r: (site_of(r), (r.get("about") or {}).get("level"))
    cols = sorted({col(r) for r in records}, key=lambda c: (c[0].order_key(), level_rank.get(str(c[1]), 2)))
    rows = sorted({(r["claim"], r["reading"]) for r in records}, key=lambda rk: (rk[0], rk[1] != "literal", rk[1]))
    ci = {c: j for j, c in enumerate(cols)}
    ri = {rk: i for i, rk in enumerate(rows)}
    cells: list[list] = [["none"] * len(cols) for _ in rows]
    for r in records:
        cells[ri[(r["claim"], r["reading"])]][ci[col(r)]] = r.get("on_this_instance")
    return rows, cols, cells


def claims_at_sites(records: list[dict], title: str | None = None):
    """Claim x site for one input of one checkpoint: one cell per (reading, site), coloured by what the site says
    about the reading (:data:`SITE_COLOURS`; white: the reading is not declared at that site's kind). ``records``: the
    site records of ``check --model`` / ``real-model`` for that input; the legend counts the cells of each colour."""
    rows, cols, cells = site_matrix(records)
    keys = [k for k, _ in SITE_VERDICTS]
    idx = {k: i for i, k in enumerate(keys)}
    M = np.full((len(rows), len(cols)), np.nan)
    for i, row in enumerate(cells):
        for j, v in enumerate(row):
            if v != "none":
                M[i, j] = idx[v]
    cmap = ListedColormap([SITE_COLOURS[k] for k in keys]).with_extremes(bad="white")
    width = min(18.0, max(8.0, 2.6 + 0.24 * len(cols)))
    height = 2.3 + 0.3 * len(rows)
    fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
    ax.imshow(np.ma.masked_invalid(M), cmap=cmap, vmin=-0.5, vmax=len(keys) - 0.5, aspect="auto",
              interpolation="nearest")
    ax.set_yticks(range(len(rows)), [f"{c} ({k})" for c, k in rows], fontsize=8)
    arb = {(site_of(r), (r.get("about") or {}).get("level")) for r in records if _is_arb(r)}
    first: dict = {}
    for r in records:
        first.setdefault(site_of(r), r)
    ax.set_xticks(range(len(cols)), [site_label(first[c[0]], c in arb) for c in cols], rotation=90, fontsize=7)
    ax.set_xticks(np.arange(-0.5, len(cols)), minor=True)
    ax.set_yticks(np.arange(-0.5, len(rows)), minor=True)
    ax.grid(which="minor", color="white", linewidth=1)
    ax.tick_params(which="minor", length=0)
    counts = Counter(v for row in cells for v in row if v != "none")
    handles = [Patch(facecolor=SITE_COLOURS[k], edgecolor="0.6", label=f"{words} ({counts.get(k, 0)})")
               for k, words in SITE_VERDICTS if counts.get(k, 0)]
    ax.legend(handles=handles, ncol=min(len(handles), 3), fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0),
              frameon=False)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def residual_across(runs: list[tuple[str, list[dict], list[dict]]]) -> dict[int, list[float | None]]:
    """{layer: [||Delta||/||X|| of its attention update at each checkpoint, in order]} from the records' labelled
    numbers (:func:`proofs_numeric.witnesses.real_model.update_ratios` of each checkpoint's first input; None where a
    checkpoint has no such record)."""
    from proofs_numeric.witnesses.real_model import update_ratios
    per = []
    for _, recs, _ in runs:
        inputs = list(dict.fromkeys(r["input"] for r in recs))
        per.append(update_ratios(recs, inputs[0]) if inputs else {})
    layers = sorted({li for p in per for li in p})
    return {li: [p.get(li) for p in per] for li in layers}


def across_checkpoints(runs: list[tuple[str, list[dict], list[dict]]], title: str | None = None):
    """Several checkpoints (a training run) in one figure. ``runs``: ``[(label, records, layers)]`` per checkpoint,
    in training order, ``records`` its site records (every input), ``layers`` the per-layer measurements
    (:func:`proofs_numeric.witnesses.real_model.layer_rows` of its records: ``W_O_condition``,
    ``head_recovery_rel_error``; empty when the run did not measure them).
    Left: per reading (rows) and checkpoint (columns), the share of its site records in each verdict (a stacked bar,
    the number of sites beside it). Right, each panel drawn when its numbers are in the records: the attention
    update's relative size ||Delta||/||X|| against the checkpoint, one line per layer (:func:`residual_across`);
    cond(W_O) and the head-recovery error per layer, one line per checkpoint."""
    labels = [lb for lb, _, _ in runs]
    rows = sorted({(r["claim"], r["reading"]) for _, recs, _ in runs for r in recs},
                  key=lambda rk: (rk[0], rk[1] != "literal", rk[1]))
    resid = residual_across(runs)
    measured = any(layers for _, _, layers in runs)
    panels = (["residual"] if resid else []) + (["W_O_condition", "head_recovery_rel_error"] if measured else [])
    fig = plt.figure(figsize=(11, 1.8 + max(3.2 if len(panels) < 3 else 4.6, 0.34 * len(rows))), layout="constrained")
    gs = fig.add_gridspec(max(1, len(panels)), 2, width_ratios=(1.5, 1))
    ax = fig.add_subplot(gs[:, 0])
    keys = [k for k, _ in SITE_VERDICTS]
    for j, (_, recs, _) in enumerate(runs):
        per = {rk: Counter(r.get("on_this_instance") for r in recs if (r["claim"], r["reading"]) == rk) for rk in rows}
        for i, rk in enumerate(rows):
            total = sum(per[rk].values())
            left: float = j
            for k in keys:
                w = per[rk].get(k, 0) / total * 0.9 if total else 0
                if w:
                    ax.barh(i, w, left=left, height=0.7, color=SITE_COLOURS[k], edgecolor="white", linewidth=0.3)
                    left += w
            ax.text(j + 0.92, i, str(total), va="center", fontsize=6, color="0.35")
    ax.set_yticks(range(len(rows)), [f"{c} ({k})" for c, k in rows], fontsize=8)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xticks([j + 0.45 for j in range(len(runs))], labels, rotation=30, ha="right", fontsize=8)
    ax.set_xlim(-0.05, len(runs))
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title("share of sites per verdict (number of sites at the right)", fontsize=9)
    handles = [Patch(facecolor=SITE_COLOURS[k], edgecolor="0.6", label=w) for k, w in SITE_VERDICTS]
    ax.legend(handles=handles, ncol=3, fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.04), frameon=False)
    colours = plt.cm.viridis(np.linspace(0, 0.9, len(runs)))
    if resid:
        a = fig.add_subplot(gs[0, 1])
        lc = plt.cm.plasma(np.linspace(0, 0.85, len(resid)))
        for (li, vals), col in zip(resid.items(), lc):
            a.plot(range(len(runs)), np.array([np.nan if v is None else v for v in vals], dtype=float), "o-",
                   color=col, label=f"layer {li}",
                   markersize=3)
        a.set_yscale("log")
        a.set_xticks(range(len(runs)), labels, rotation=30, ha="right", fontsize=7)
        a.set_ylabel("||Delta|| / ||X|| (attention)", fontsize=8)
        a.set_title("the attention update's relative size (float64)", fontsize=8)
        a.tick_params(labelsize=7)
        a.spines[["top", "right"]].set_visible(False)
        a.legend(fontsize=6, ncol=2)
    for pos, key, ylabel in ((panels.index(k), k, y) for k, y in (("W_O_condition", "cond(W_O)"),
                                                                     ("head_recovery_rel_error",
                                                                      "head recovery rel. error")) if k in panels):
        a = fig.add_subplot(gs[pos, 1])
        for (lb, _, layers), col in zip(runs, colours):
            xs = [L["layer"] for L in layers]
            ys = [float("inf") if L.get(key) is None else L[key] for L in layers]
            a.plot(xs, ys, "o-", color=col, label=lb, markersize=3)
        a.set_yscale("log")
        a.set_xticks(sorted({L["layer"] for _, _, layers in runs for L in layers}))
        a.set_xlabel("layer", fontsize=8)
        a.set_ylabel(ylabel, fontsize=8)
        a.tick_params(labelsize=7)
        a.spines[["top", "right"]].set_visible(False)
        if key == "W_O_condition":
            a.legend(fontsize=6, ncol=2)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig
