"""Dong et al.'s Figure 2 beside the re-run: one panel per variant, the published BERT/ALBERT/XLNet curves (mean and
band, from the packaged CSV) and the re-run's curve, with the certified answer marked at every layer that prints 0.00.

matplotlib is imported when a figure is drawn (the book extra installs it); without it :func:`draw` raises
``ImportError`` with the install line.
"""
from __future__ import annotations

from theorems.exact.dong_figure import curve

__all__ = ["PUBLISHED", "draw", "published_series", "PANELS"]

#: the re-run's variant -> the figure's variant name
PANELS = {"SAN": "SAN", "SAN+MLP": "SAN+MLP", "SAN+skip": "SAN+skip", "full": "transformer"}
#: the published curves drawn in every panel (pretrained weights), with their colours
PUBLISHED = {"BERT": "#2e86c1", "Albert": "#e67e22", "XLNet": "#27ae60"}


def published_series(model: str, variant: str, weights: str = "pretrained") -> tuple[list, list, list]:
    """(layers, means, stds) of one published curve, as floats for drawing."""
    rows = curve(model, weights, PANELS.get(variant, variant))
    return [r.layer for r in rows], [float(r.mean) for r in rows], [float(r.std) for r in rows]


def _short(name: str) -> str:
    return name.split(" ")[0].split("/")[-1]


def draw(result: dict, path=None):
    """One panel per variant of ``result`` (:func:`proofs_numeric.witnesses.dong_figure.run_figure2`); returns the
    figure, saved to ``path`` when given."""
    try:
        import matplotlib
        if path is not None:
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("drawing the figure needs matplotlib: pip install matplotlib (or the book extra: "
                          "pip install 'collapse-verify[book]')") from None
    variants = list(result["variants"])
    fig, axes = plt.subplots(1, len(variants), figsize=(3.4 * len(variants), 3.3), sharey=True, squeeze=False)
    zeros = {(z["variant"], z["layer"]): z for z in result["zero_layers"]}
    for ax, v in zip(axes[0], variants):
        for model, colour in PUBLISHED.items():
            x, y, s = published_series(model, v)
            ax.plot(x, y, color=colour, lw=1.2, label=f"{model} (Dong et al.)")
            ax.fill_between(x, [a - b for a, b in zip(y, s)], [a + b for a, b in zip(y, s)], color=colour,
                            alpha=0.18, lw=0)
        r = result["variants"][v]["ratio"]
        ax.plot(range(len(r)), r, "k.-", lw=1.6, label=f"{_short(result['model'])} (re-run)")
        lines = []
        for layer, val in enumerate(r):
            z = zeros.get((v, layer))
            if z is None:
                continue
            ax.plot([layer], [val], "rx", ms=7, mew=1.6)
            ex = z.get("exact_rank")
            if ex is None:
                lines.append(f"L{layer}: 0.00")
                continue
            exact = str(ex["lower"]) if ex["certified"] else f"[{ex['lower']}, {ex['upper']}]"
            lines.append(f"L{layer}: exact rank {exact}, numpy {z['numpy_rank']}")
        if lines:
            ax.text(0.97, 0.55, "\n".join(lines), transform=ax.transAxes, ha="right", va="center", fontsize=6.5,
                    color="#c0392b", bbox={"facecolor": "white", "edgecolor": "#c0392b", "lw": 0.5, "alpha": 0.9})
        ax.set_title(v, fontsize=10)
        ax.set_xlabel("layer")
        ax.set_ylim(-0.03, 1.05)
        ax.axhline(0.005, color="grey", lw=0.6, ls=":")
    axes[0][0].set_ylabel("||X - mean|| / ||X|| (composite norm)")
    axes[0][-1].legend(fontsize=6.5, loc="upper right")
    fig.suptitle(f"Dong et al. 2021, Figure 2 (pretrained; mean +- band) beside {_short(result['model'])} "
                 f"({result['n_tokens']} tokens); x = prints 0.00, with the exact rank of the stored rows", fontsize=8)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=130)
    return fig
