"""The training-run figure (issue 57): ``check PATTERN --model run/ckpt-* --plot PATH`` draws a run across its
checkpoints from the records it wrote: per reading the share of sites in each outcome per checkpoint, and the
attention update's ||Delta||/||X|| per layer against the checkpoint. Tested on a synthetic run of three checkpoints
whose weights move (the straight path from one seeded BERT-shaped checkpoint to another), named so that a plain
sort would put checkpoint-10 before checkpoint-2.
"""
from __future__ import annotations

import json

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from proofs_numeric.cli import main  # noqa: E402
from proofs_numeric.cli import model_check as CM  # noqa: E402
from proofs_numeric.ledger import figures as F  # noqa: E402
from proofs_numeric.ledger import model_check as MC  # noqa: E402
from proofs_numeric.output import PLOT_CREATOR  # noqa: E402
from property_tests.interface.test_checkpoints import bert_config, bert_tensors, write_checkpoint  # noqa: E402

pytestmark = pytest.mark.slow

STEPS = {"checkpoint-1": 0.0, "checkpoint-2": 0.5, "checkpoint-10": 1.0}
CLAIMS = "RN.main,RRO.only-increase"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("run")
    a, b = bert_tensors(np.random.default_rng(11)), bert_tensors(np.random.default_rng(12))
    for name, t in STEPS.items():
        write_checkpoint(root / name, bert_config(), {k: ((1 - t) * a[k] + t * b[k]).astype(np.float32) for k in a})
    return root


def _argv(run_dir, out, *extra):
    models = [str(run_dir / n) for n in sorted(STEPS)]  # a shell glob's order: checkpoint-1, -10, -2
    return ["check", CLAIMS, "--model", *models, "--length", "8", "--workers", "1", "--progress", "lines",
            "--network-layers", "0", "--jsonl", str(out.with_suffix(".jsonl")), "--plot", str(out), *extra]


def test_training_run_figure_from_three_checkpoints(run_dir, tmp_path, capsys):
    out = tmp_path / "run.png"
    assert main(_argv(run_dir, out)) == 0
    err = capsys.readouterr().err
    assert f"wrote {out}" in err
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and PLOT_CREATOR.encode() in data
    img = matplotlib.image.imread(out)
    assert img.shape[0] > 300 and img.shape[1] > 600
    # the figure's data, from the same records: checkpoints in natural order, one line per layer, weights moving
    recs = MC.read_records(out.with_suffix(".jsonl"))
    names = sorted({str(r["checkpoint"]) for r in recs}, key=CM.natural_key)
    assert [n.rsplit("/", 1)[1] for n in names] == ["checkpoint-1", "checkpoint-2", "checkpoint-10"]
    runs = [(n, [r for r in recs if str(r["checkpoint"]) == n], []) for n in names]
    resid = F.residual_across(runs)
    assert sorted(resid) == [0, 1] and all(len(v) == 3 and None not in v for v in resid.values())
    assert all(len({round(x, 9) for x in v}) == 3 for v in resid.values())  # the update's size moves with the weights
    fig = F.across_checkpoints(runs)
    assert len(fig.axes) == 2 and len(fig.axes[1].get_lines()) == 2  # outcomes; one line per layer
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == names
    rows = {(r["claim"], r["reading"]) for r in recs}
    assert len(fig.axes[0].get_yticklabels()) == len(rows)


def test_training_run_figure_replaces_only_its_own_figure(run_dir, tmp_path, capsys):
    """A path holding the user's own file is refused before the run, the file unchanged; a figure collapse-verify drew
    is replaced; a path inside a checkpoint folder and a format it cannot draw are refused."""
    mine = tmp_path / "notes.png"
    mine.write_bytes(b"\x89PNG\r\n\x1a\n my own picture")
    assert main(_argv(run_dir, mine)) == 2
    err = capsys.readouterr().err
    assert "is not a figure collapse-verify drew" in err and mine.read_bytes().endswith(b"my own picture")
    assert not mine.with_suffix(".jsonl").exists()  # refused before any work
    assert main(_argv(run_dir, tmp_path / "fig.txt")) == 2
    assert "give a .png, .svg or .pdf path" in capsys.readouterr().err
    inside = run_dir / "checkpoint-1" / "fig.svg"
    assert main(_argv(run_dir, inside)[:-2] + ["--jsonl", str(tmp_path / "x.jsonl"), "--plot", str(inside)]) == 2
    assert "inside the input folder" in capsys.readouterr().err and not inside.exists()
    svg = tmp_path / "again.svg"
    svg.write_text("<svg><!-- " + PLOT_CREATOR + " --></svg>")  # one it drew before (its creator in the metadata)
    assert main(_argv(run_dir, svg)) == 0
    assert svg.stat().st_size > 1000 and json.dumps(PLOT_CREATOR)[1:-1] in svg.read_text()
