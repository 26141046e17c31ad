r"""Synthetic checkpoints written to disk: seeded random weights of a given shape, or a path between two checkpoints.

For the benchmarks (a BERT-base-shaped and LLaMA-shaped checkpoints of 2 and 4 layers, written into a temporary
folder, never committed) and the book (a sequence of checkpoints from a random initialisation to the trained
all-MiniLM-L6-v2). Each tensor is made and written one at a time (the header first: every shape is known from the
config), so writing an 8 GB checkpoint holds one tensor in memory.

The tensor names and shapes are the reader's own (:func:`proofs_numeric.model.checkpoint.required_tensors`): these
files are inputs for measurements, not an independent test of the reader (the tests
have their own writer, ``property_tests/interface/test_checkpoints.py``).

A random weight matrix is drawn N(0, 1/fan_in) (float32, then stored as F32, F16 or BF16: BF16 by truncating the
float32 to its upper 16 bits, which is a bf16 value exactly); norm gains are 1 + N(0, 0.1^2), biases N(0, 0.02^2).

The files are written by the ``safetensors`` library (``safetensors.numpy.save_file``), in shards of at most
:data:`SHARD_BYTES` listed by ``model.safetensors.index.json`` when there is more than one (the library writes a
whole file from arrays in memory: shards keep memory near one shard however large the checkpoint). BF16 is the one
exception: numpy has no bfloat16 dtype and the library's numpy API cannot write one, so a BF16 checkpoint is
written here by hand, one tensor at a time (an 8-byte header length, the JSON header, the data), in the layout
the library's own reader accepts (``property_tests/interface/test_checkpoints.py`` opens these files with
``safetensors.safe_open``).
"""
from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

from proofs_numeric.model.checkpoint import TensorStore, read_config, required_tensors

__all__ = ["BERT_BASE", "LLAMA_LIKE", "bert_config", "llama_config", "write_random", "write_path_point",
           "DTYPES", "SHARD_BYTES"]

#: stored dtypes this writer supports, with their byte widths
DTYPES = {"F32": 4, "F16": 2, "BF16": 2}
#: the largest shard the library writes at once (a tensor larger than this is a shard of its own)
SHARD_BYTES = 256 * 2 ** 20
_NUMPY_DTYPE = {"F32": "<f4", "F16": "<f2"}


def bert_config(layers: int = 12, d: int = 768, H: int = 12, d_ff: int = 3072, vocab: int = 1000,
                max_pos: int = 512) -> dict:
    """A BERT config (``model_type`` bert); the defaults are BERT-base's sizes with a small vocabulary (the
    embedding table's size does not enter any claim at a site)."""
    return {"model_type": "bert", "hidden_size": d, "num_attention_heads": H, "num_hidden_layers": layers,
            "intermediate_size": d_ff, "max_position_embeddings": max_pos, "vocab_size": vocab,
            "type_vocab_size": 2, "layer_norm_eps": 1e-12, "hidden_act": "gelu"}


def llama_config(layers: int = 2, d: int = 4096, H: int = 32, H_kv: int = 8, d_ff: int = 11008, vocab: int = 1000,
                 max_pos: int = 4096) -> dict:
    """A LLaMA config (``model_type`` llama); the defaults are a LLaMA-7B-shaped layer with grouped-query attention
    (32 query / 8 key-value heads) and a small vocabulary."""
    return {"model_type": "llama", "hidden_size": d, "num_attention_heads": H, "num_key_value_heads": H_kv,
            "num_hidden_layers": layers, "intermediate_size": d_ff, "max_position_embeddings": max_pos,
            "vocab_size": vocab, "rms_norm_eps": 1e-6, "hidden_act": "silu", "rope_theta": 10000.0}


BERT_BASE = bert_config()
LLAMA_LIKE = llama_config()


def _tensor_list(folder: Path) -> list[tuple[str, tuple]]:
    """(name, shape) of every tensor a checkpoint of the config in ``folder`` needs, in the reader's names."""
    return required_tensors(read_config(folder))


def _encode(a: np.ndarray, dt: str) -> bytes:
    a = np.ascontiguousarray(a, dtype=np.float32)
    if dt == "F32":
        return a.astype("<f4").tobytes()
    if dt == "F16":
        return a.astype("<f2").tobytes()
    return (a.view("<u4") >> 16).astype("<u2").tobytes()  # bf16: the upper half of the float32 (truncation)


def _save_file():
    """``safetensors.numpy.save_file`` (the ``model`` extra installs the library)."""
    try:
        from safetensors.numpy import save_file
    except ImportError:
        raise ImportError("writing a synthetic checkpoint needs the safetensors package: pip install "
                          "'collapse-verify[model]'") from None
    return save_file


def _write(folder: Path, config: dict, tensors: list[tuple[str, tuple]], make, dt: str) -> Path:
    """The tensors ``make(name, shape)`` into ``folder``: by the safetensors library (F32, F16), in shards of at most
    :data:`SHARD_BYTES`, or by hand (BF16, which the library's numpy API cannot write)."""
    if dt not in DTYPES:
        raise ValueError(f"dtype {dt!r}: expected one of {', '.join(DTYPES)}")
    if dt == "BF16":
        return _write_bf16(folder, tensors, make)
    save_file = _save_file()
    groups: list[list[tuple[str, tuple]]] = [[]]
    size = 0
    for name, shape in tensors:
        nbytes = int(np.prod(shape)) * DTYPES[dt]
        if groups[-1] and size + nbytes > SHARD_BYTES:
            groups.append([])
            size = 0
        groups[-1].append((name, shape))
        size += nbytes
    weight_map = {}
    for k, group in enumerate(groups):
        fn = "model.safetensors" if len(groups) == 1 else f"model-{k + 1:05d}-of-{len(groups):05d}.safetensors"
        arrays = {name: np.ascontiguousarray(make(name, shape), dtype=_NUMPY_DTYPE[dt]) for name, shape in group}
        save_file(arrays, str(folder / fn), metadata={"format": "pt"})
        del arrays
        weight_map.update({name: fn for name, _ in group})
    if len(groups) > 1:
        (folder / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    return folder


def _write_bf16(folder: Path, tensors: list[tuple[str, tuple]], make) -> Path:
    """A BF16 ``model.safetensors`` by hand, one tensor at a time (numpy has no bfloat16, so the library cannot)."""
    dt = "BF16"
    header, off = {}, 0
    for name, shape in tensors:
        size = int(np.prod(shape)) * DTYPES[dt]
        header[name] = {"dtype": dt, "shape": list(shape), "data_offsets": [off, off + size]}
        off += size
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(folder / "model.safetensors", "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for name, shape in tensors:
            f.write(_encode(make(name, shape), dt))
    return folder


def _random(rng: np.random.Generator, name: str, shape: tuple) -> np.ndarray:
    if len(shape) == 1:
        if "norm" in name.lower() and name.endswith("weight"):
            return 1 + 0.1 * rng.standard_normal(shape, dtype=np.float32)
        return 0.02 * rng.standard_normal(shape, dtype=np.float32)
    return rng.standard_normal(shape, dtype=np.float32) / np.float32(np.sqrt(shape[-1]))


def write_random(folder, config: dict, seed: int = 0, dtype: str = "F32") -> Path:
    """A checkpoint folder (``config.json`` + ``model.safetensors``) with seeded random weights of ``config``'s shapes,
    written one tensor at a time."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))
    rng = np.random.default_rng(seed)
    return _write(folder, config, _tensor_list(folder), lambda n, s: _random(rng, n, s), dtype)


def write_path_point(folder, source, t: float, seed: int = 0) -> Path:
    r"""The checkpoint :math:`\theta_t = (1 - t)\,\theta_0 + t\,\theta_1` on the straight path from a seeded random
    initialisation :math:`\theta_0` (:func:`write_random`'s distribution, the source's shapes) to the checkpoint in
    ``source`` (:math:`\theta_1`), stored as F32 (``t`` = 1: the source's values, widened exactly). A point on this
    path is not a checkpoint of a training run: it is a reproducible sequence from untrained to trained weights."""
    if not 0 <= t <= 1:
        raise ValueError(f"t = {t} is outside [0, 1]")
    folder, source = Path(folder), Path(source)
    folder.mkdir(parents=True, exist_ok=True)
    config = json.loads((source / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps(config))
    if (source / "tokenizer.json").is_file():
        (folder / "tokenizer.json").write_bytes((source / "tokenizer.json").read_bytes())
    store = TensorStore(source)
    prefix = next((p for p in ("", "bert.", "transformer.", "model.")
                   if all(p + n in store for n, _ in _tensor_list(folder)[:1])), "")
    rng = np.random.default_rng(seed)

    def make(name, shape):
        trained = store.get(prefix + name, np.float32)
        init = _random(rng, name, shape)
        return (1 - t) * init + t * trained if t < 1 else trained

    tensors = [(n, tuple(store.shape(prefix + n))) for n, _ in _tensor_list(folder)]  # the source's table sizes
    return _write(folder, config, tensors, make, "F32")
