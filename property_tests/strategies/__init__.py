"""Every Hypothesis strategy of the suite, a module per subject (test modules import them from here:
``from property_tests.strategies import X``; this package re-exports every public name).

Built on :mod:`theorems.exact.instances` where a theorem has structured families: each
builder takes ``draw(lo, hi)``, so the same families that feed the ledger's seeded
checks feed Hypothesis, and Hypothesis shrinks the *structure* (shape, rank,
entries), not a seed. No strategy here draws a seed for a pseudo-random generator:
matrices are built from drawn entries or drawn small integer factors (``A @ B``
with ``A`` n x r and ``B`` r x d when the rank must be bounded), so a failure
shrinks to small entries and small shapes.

Entries are small integers or rationals (exact) unless a strategy says otherwise;
nothing here produces NaN or infinity (those are tested as bad input,
separately). Float entries are bounded (``st.floats(-m, m, allow_nan=False,
allow_infinity=False)``).

Conventions follow ``hypothesis.strategies`` / ``hypothesis.extra.numpy``: plural
nouns, **keyword-only** bounds ``min_*`` / ``max_*`` / ``allow_*``, validated when
the strategy is *built*: a bad bound (``min_side > max_side``, a negative size, a
float where an integer is needed, an unknown regime or family) raises
:class:`hypothesis.errors.InvalidArgument` naming the argument, before anything is
drawn.

Modules: ``layernorm`` (shapes by regime, token matrices, LayerNorm/RMSNorm inputs, wide rows),
``matrices`` (exact low rank, float data), ``heads`` (attention heads and setups), ``ranks`` (certified rank),
``adversarial`` (hard inputs for the certified rank), ``evidence`` (the verdict model), ``command_lines``
(hostile command lines), ``transformer`` (the maps over every context); ``validation`` holds the shared
argument checks.
"""
from __future__ import annotations

from .adversarial import DTYPES, adversarial_integer_matrices, longdouble_matrices, stored_matrices
from .command_lines import (
    check_argv,
    depth_argv,
    hostile_matrix_texts,
    matrix_args,
    out_paths,
    rank_argv,
    real_model_argv,
    scaffold_names,
    show_argv,
    verify_argv,
)
from .evidence import EVIDENCE_CONSTRUCTORS, evidence_lists
from .heads import (
    EDGE_MAPS,
    AttentionSetup,
    attention_setups,
    integer_attention_inputs,
    value_output_maps,
    w_o_of_rank,
    witness_shapes,
)
from .layernorm import (
    LN_PREMISE_EXAMPLES,
    SHAPE_REGIMES,
    betas,
    gammas,
    ln_inputs,
    ln_inputs_breaking,
    ln_inputs_meeting_all_hypotheses,
    rms_inputs,
    shapes,
    token_matrices,
    wide_rows,
)
from .matrices import (
    float_matrices,
    float_vectors,
    low_rank_matrices,
    low_rank_matrix_pairs,
    square_matrices_and_shifts,
)
from .ranks import (
    deficient_integer_matrices,
    dyadic_low_rank,
    integer_arrays,
    integer_matrices_of_rank,
    matrices_with_dependent_columns,
    matrices_with_pivots,
    rational_low_rank,
)
from .transformer import rational_matrices, small_rationals, transformer_instances

__all__ = [
    # layernorm: rank neutrality / LayerNorm
    "SHAPE_REGIMES", "shapes", "token_matrices", "gammas", "betas", "ln_inputs", "ln_inputs_meeting_all_hypotheses",
    "LN_PREMISE_EXAMPLES", "ln_inputs_breaking", "rms_inputs", "wide_rows",
    # matrices: exact low rank, float data
    "low_rank_matrices", "low_rank_matrix_pairs", "float_vectors", "float_matrices", "square_matrices_and_shifts",
    # heads: attention heads
    "value_output_maps", "EDGE_MAPS", "w_o_of_rank", "integer_attention_inputs", "witness_shapes", "AttentionSetup",
    "attention_setups",
    # ranks: certified rank
    "integer_arrays", "integer_matrices_of_rank", "deficient_integer_matrices", "matrices_with_dependent_columns",
    "matrices_with_pivots", "dyadic_low_rank", "rational_low_rank",
    # adversarial: hard inputs for the certified rank
    "adversarial_integer_matrices", "DTYPES", "stored_matrices", "longdouble_matrices",
    # evidence: the verdict model
    "EVIDENCE_CONSTRUCTORS", "evidence_lists",
    # command_lines: hostile command lines
    "hostile_matrix_texts", "matrix_args", "out_paths", "check_argv", "show_argv", "rank_argv", "depth_argv",
    "verify_argv", "real_model_argv", "scaffold_names",
    # transformer: the transformer maps over every arithmetic context
    "small_rationals", "rational_matrices", "transformer_instances",
]
