r"""A local Hugging Face checkpoint read with numpy only, and run in float64 (no torch, no download).

A checkpoint folder holds ``config.json`` and either ``model.safetensors`` or shards ``*.safetensors``
listed by ``model.safetensors.index.json``. Each safetensors file is read from its own header (an
8-byte little-endian length, then a JSON header giving every tensor's ``dtype``, ``shape`` and
``data_offsets``) through one read-only ``numpy.memmap``: a tensor is touched only when it is asked
for, and :class:`Checkpoint` builds the weights of one layer at a time, so memory stays near one
layer's weights (plus the embedding rows of the input tokens). Once a tensor is copied out (widened), its
pages of the map are released (``madvise(MADV_DONTNEED)``: they stay in the page cache, but no longer count in
this process's resident memory), so the resident size does not grow with the layers read. Values are widened
**exactly**: F64 and F32 as stored, F16 by numpy, BF16 as the upper 16 bits of a float32
(``(u16.astype(uint32) << 16).view(float32)``).

Why by hand and not by the ``safetensors`` library: its numpy API cannot return a BF16 tensor (numpy has no
bfloat16 dtype; ``safe_open(..., framework="numpy").get_tensor`` raises on one), and LLaMA-family checkpoints are
BF16; it also copies a whole tensor where this reader maps the file and gathers only the embedding rows of the input
tokens. The library is used where it serves: it writes the synthetic checkpoints
(:mod:`proofs_numeric.model.synthetic`) and the tests' checkpoints, and it is the oracle of this reader in the tests
(``property_tests/interface/test_checkpoints.py``: every tensor it can read, compared bit for bit).

Families (from ``config.json``'s ``model_type``, or from the tensor names when it is absent; tensor
names may be bare or carry a ``bert.``, ``transformer.`` or ``model.`` prefix; extra tensors such as
GPT-2's ``attn.bias``/``attn.masked_bias``, poolers and ``lm_head`` are ignored):

=========  ========  =========  ==============================================================
family     norm      placement  attention and MLP
=========  ========  =========  ==============================================================
``bert``   LayerNorm post-LN    bidirectional; Linear layout [out, in]; GELU MLP
``gpt2``   LayerNorm pre-LN     causal; fused ``c_attn`` in Conv1D layout [in, out]; ``ln_f``
``llama``  RMSNorm   pre-LN     causal; rotary positions (``rope_theta``; ``rope_scaling``
                                ``linear`` or ``llama3``); grouped-query attention;
                                gated MLP ``down(silu(gate x) * up x)``; Linear layout; final norm
=========  ========  =========  ==============================================================

Anything else raises :class:`UnknownFamily`; a tensor the family needs and the files lack raises
:class:`MissingTensor` naming what was expected; a folder without ``config.json`` raises
:class:`MissingConfig`. All are :class:`CheckpointError` (a ``ValueError``).

The forward uses the config's epsilon (``layer_norm_eps``, ``layer_norm_epsilon``,
``rms_norm_eps``); the theorem checks in :mod:`proofs_numeric.witnesses.real_model` analyse the activations it
produced with the paper's norms (epsilon = 0). Weights are in the ``x @ W`` convention below:
``Wq`` is ``[d, H d_k]``, ``Wk``/``Wv`` ``[d, H_kv d_k]``, ``Wo`` ``[H d_k, d]``.
"""
from __future__ import annotations

import json
import math
import mmap
import struct
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Generic, Iterator, TypeVar, overload

import numpy as np

from proofs_numeric.core.transformer import gelu, layer_norm, rms_norm, softmax_rows
from proofs_numeric.model.site_ids import LN_EMBED, LN_FINAL, SiteId

__all__ = ["CheckpointError", "MissingConfig", "UnknownFamily", "MissingTensor", "BadCheckpoint", "FAMILIES",
           "TensorStore", "Config", "read_config", "Checkpoint", "load_checkpoint", "widen", "read_header",
           "rope", "rope_inv_freq", "ACTIVATIONS", "required_tensors"]

FAMILIES = ("bert", "gpt2", "llama")
PREFIXES = ("", "bert.", "transformer.", "model.")
MAX_HEADER_BYTES = 100_000_000  # a safetensors header is JSON text; 100 MB covers any real checkpoint


#: the span :meth:`_release` rounds to: Linux's default fault_around_bytes (64 KB = 16 pages of 4 KB)
_FAULT_AROUND = max(mmap.PAGESIZE, 65536)

class CheckpointError(ValueError):
    """A checkpoint that cannot be read as one of the supported families."""


class MissingConfig(CheckpointError):
    pass


class UnknownFamily(CheckpointError):
    pass


class MissingTensor(CheckpointError):
    pass


class BadCheckpoint(CheckpointError):
    pass


# --- safetensors, by hand ------------------------------------------------------------------

_NP_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2", "I64": "<i8", "I32": "<i4",
              "I16": "<i2", "I8": "i1", "U8": "u1", "BOOL": "u1"}
_FLOATS = ("F64", "F32", "F16", "BF16")


def read_header(path) -> tuple[dict, int]:
    """The JSON header of a safetensors file and the byte offset where its data begins."""
    path = Path(path)
    size = path.stat().st_size
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise BadCheckpoint(f"{path}: shorter than the 8-byte safetensors header length")
        (n,) = struct.unpack("<Q", head)
        if n > min(size - 8, MAX_HEADER_BYTES):
            raise BadCheckpoint(f"{path}: header length {n} does not fit in the file ({size} bytes)")
        try:
            header = json.loads(f.read(n))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise BadCheckpoint(f"{path}: the safetensors header is not JSON ({e})") from None
    if not isinstance(header, dict):
        raise BadCheckpoint(f"{path}: the safetensors header is not a JSON object")
    data = size - 8 - n
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            dt, shape = info["dtype"], [int(s) for s in info["shape"]]
            begin, end = (int(v) for v in info["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise BadCheckpoint(f"{path}: tensor {name!r} lacks dtype/shape/data_offsets") from None
        if dt in _NP_DTYPES:
            want = math.prod(shape) * np.dtype(_NP_DTYPES[dt]).itemsize
            if min(shape, default=0) < 0 or not (0 <= begin <= end <= data) or end - begin != want:
                raise BadCheckpoint(f"{path}: tensor {name!r} ({dt} {shape}) has data_offsets [{begin}, {end}] "
                                    f"inconsistent with its size {want} or the file")
    return header, 8 + n


def widen(raw: np.ndarray, st_dtype: str, dtype=np.float64) -> np.ndarray:
    """Stored values widened exactly to ``dtype`` (float32 or float64; F64 only to float64)."""
    if st_dtype == "BF16":
        f = (np.asarray(raw, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
        return f.astype(dtype, copy=False)
    if st_dtype in ("F32", "F16"):
        return np.asarray(raw).astype(dtype)
    if st_dtype == "F64":
        if np.dtype(dtype) != np.float64:
            raise BadCheckpoint("an F64 tensor cannot be widened to float32 exactly")
        return np.array(raw, dtype=np.float64)
    raise BadCheckpoint(f"dtype {st_dtype} is not a floating-point weight (expected one of {_FLOATS})")


class TensorStore:
    """Every tensor of a checkpoint folder, by name, read lazily through memory maps."""

    _where: dict[str, tuple[Path, int, dict[str, Any]]]  # name -> (file, start of its data, header record)
    _maps: dict[Path, np.memmap]  # file -> its memory map, opened once

    def __init__(self, folder):
        self.folder = Path(folder)
        index = self.folder / "model.safetensors.index.json"
        if index.exists():
            try:
                wm = json.loads(index.read_text())["weight_map"]
            except (json.JSONDecodeError, KeyError, TypeError):
                raise BadCheckpoint(f"{index}: not a safetensors index (no weight_map)") from None
            files = sorted(set(wm.values()))
        elif (self.folder / "model.safetensors").exists():
            files = ["model.safetensors"]
        else:
            files = sorted(p.name for p in self.folder.glob("*.safetensors"))
        if not files:
            raise MissingTensor(f"{self.folder}: no model.safetensors, no model.safetensors.index.json and no "
                                f"*.safetensors file")
        self._where = {}
        self._maps = {}
        for fn in files:
            p = self.folder / fn
            if not p.exists():
                raise MissingTensor(f"{self.folder}: the index names shard {fn}, which is missing")
            header, start = read_header(p)
            for name, info in header.items():
                if name != "__metadata__":
                    self._where[name] = (p, start, info)

    def names(self) -> list[str]:
        return list(self._where)

    def __contains__(self, name) -> bool:
        return name in self._where

    def dtype(self, name) -> str:
        return self._where[name][2]["dtype"]

    def shape(self, name) -> tuple:
        return tuple(self._where[name][2]["shape"])

    def raw(self, name) -> np.ndarray:
        """The stored array (a read-only memmap view; BF16 as uint16), nothing copied."""
        p, start, info = self._where[name]
        if info["dtype"] not in _NP_DTYPES:
            raise BadCheckpoint(f"{p}: tensor {name!r} has dtype {info['dtype']}, which this reader does not "
                                f"know (expected one of {', '.join(_FLOATS)})")
        if p not in self._maps:
            self._maps[p] = np.memmap(p, dtype=np.uint8, mode="r")
        b, e = info["data_offsets"]
        dt = np.dtype(_NP_DTYPES[info["dtype"]])
        return self._maps[p][start + b:start + e].view(dt).reshape(info["shape"])

    def _release(self, name) -> None:
        """Drop the pages of tensor ``name`` from this process's map (``MADV_DONTNEED`` on a read-only file map: a
        later access reads them again from the page cache or the file; nothing is lost)."""
        p, start, info = self._where[name]
        mm = getattr(self._maps.get(p), "_mmap", None)
        if mm is None or not hasattr(mm, "madvise") or not hasattr(mmap, "MADV_DONTNEED"):
            return
        b, e = info["data_offsets"]
        # rounded outward to the kernel's fault-around window (Linux maps up to 16 cached pages around a faulting
        # address, so reading one tensor also maps the ends of its neighbours in the file; measured: 15-31 pages of
        # every tensor stayed resident). Dropping a neighbour's pages loses nothing: they are read again on access.
        lo = (start + b) // _FAULT_AROUND * _FAULT_AROUND
        hi = min(len(mm), -(-(start + e) // _FAULT_AROUND) * _FAULT_AROUND)
        if hi > lo:
            mm.madvise(mmap.MADV_DONTNEED, lo, hi - lo)

    def get(self, name, dtype=np.float64, rows=None) -> np.ndarray:
        """Tensor ``name`` (only ``rows`` of it, if given) widened exactly to ``dtype``; a NaN or an infinity in
        it is a :class:`BadCheckpoint` naming the tensor, its file and the first bad entry."""
        r = self.raw(name)
        if rows is not None:
            r = r[np.asarray(rows, dtype=np.int64)]
        out = widen(r, self.dtype(name), dtype)
        if isinstance(r, np.memmap) or rows is not None:  # `out` is a copy: the map's pages are not needed any more
            self._release(name)
        if out.dtype.kind == "f" and not np.all(np.isfinite(out)):
            bad = ~np.isfinite(out)
            first = tuple(int(i) for i in np.argwhere(bad)[0]) if out.ndim else ()
            what = "NaN" if np.isnan(out[bad]).any() else "an infinity"
            if np.isnan(out[bad]).any() and np.isinf(out[bad]).any():
                what = "NaN and infinities"
            raise BadCheckpoint(f"{self._where[name][0]}: tensor {name} holds {what} ({int(bad.sum())} of "
                                f"{out.size} entries{'' if rows is None else ' read'}, the first at index "
                                f"{list(first)}); the checkpoint's weights must be finite")
        return out


# --- config -----------------------------------------------------------------------------------

def _silu(x):
    with np.errstate(over="ignore"):  # exp(-x) = inf for x << 0 gives x / inf = -0, the right limit
        return x / (1.0 + np.exp(-x))


ACTIVATIONS = {
    "gelu": lambda x: gelu(x),  # exact (erf)
    "gelu_new": lambda x: 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3))),
    "silu": lambda x: _silu(x),
}
_ACT_ALIASES = {"gelu_pytorch_tanh": "gelu_new", "gelu_fast": "gelu_new", "swish": "silu"}


@dataclass(frozen=True)
class Config:
    family: str
    d: int
    H: int
    H_kv: int
    d_k: int
    d_ff: int
    n_layers: int
    eps: float
    act: str
    max_pos: int
    vocab: int
    rope_theta: float | None = None  # llama only
    rope_scaling: tuple = ()  # llama only: sorted items of config.json's rope_scaling ("linear", "llama3")
    type_vocab: int = 0  # bert only

    @property
    def norm(self) -> str:
        return "rmsnorm" if self.family == "llama" else "layernorm"

    @property
    def causal(self) -> bool:
        return self.family in ("gpt2", "llama")

    @property
    def post_ln(self) -> bool:
        return self.family == "bert"

    @property
    def rotary(self) -> bool:
        return self.family == "llama"


def _family_from_names(names) -> str | None:
    sentinels = {"bert": "embeddings.word_embeddings.weight", "gpt2": "wte.weight", "llama": "embed_tokens.weight"}
    for fam, s in sentinels.items():
        if any(n == p + s for p in PREFIXES for n in names):
            return fam
    return None


def read_config(folder, names=None) -> Config:
    folder = Path(folder)
    path = folder / "config.json"
    if not path.is_file():
        raise MissingConfig(f"{folder}: no config.json (a Hugging Face checkpoint folder holds config.json and "
                            f"model.safetensors)")
    try:
        c = json.loads(path.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise MissingConfig(f"{path}: not valid JSON ({e})") from None
    if not isinstance(c, dict):
        raise MissingConfig(f"{path}: not a JSON object")
    fam = c.get("model_type")
    if fam is None and names is not None:
        fam = _family_from_names(names)
    if fam not in FAMILIES:
        raise UnknownFamily(f"{path}: model_type {fam!r} is not supported; expected one of {', '.join(FAMILIES)} "
                            f"(BERT-, GPT-2- or LLaMA-family checkpoints)")

    def need(*keys, default=None):
        for k in keys:
            if c.get(k) is not None:
                return c[k]
        if default is not None:
            return default
        raise MissingConfig(f"{path}: a {fam} config needs {' or '.join(keys)}")

    try:
        if fam == "gpt2":
            d, H, L = int(need("n_embd")), int(need("n_head")), int(need("n_layer"))
            if c.get("scale_attn_by_inverse_layer_idx") or c.get("scale_attn_weights") is False:
                raise UnknownFamily(f"{path}: GPT-2 attention scaling other than 1/sqrt(d_k) is not supported")
            cfg = dict(d=d, H=H, H_kv=H, d_k=d // H, d_ff=int(need("n_inner", default=4 * d)), n_layers=L,
                       eps=float(need("layer_norm_epsilon", default=1e-5)),
                       act=need("activation_function", default="gelu_new"),
                       max_pos=int(need("n_positions", "n_ctx", "max_position_embeddings")),
                       vocab=int(need("vocab_size")))
        else:
            d, H, L = int(need("hidden_size")), int(need("num_attention_heads")), int(need("num_hidden_layers"))
            cfg = dict(d=d, H=H, H_kv=int(need("num_key_value_heads", default=H)) if fam == "llama" else H,
                       d_k=int(need("head_dim", default=d // H)) if fam == "llama" else d // H,
                       d_ff=int(need("intermediate_size")), n_layers=L,
                       eps=float(need("rms_norm_eps", default=1e-6) if fam == "llama" else need("layer_norm_eps",
                                                                                                  default=1e-12)),
                       act=need("hidden_act", default="silu" if fam == "llama" else "gelu"),
                       max_pos=int(need("max_position_embeddings")), vocab=int(need("vocab_size")))
            if fam == "llama":
                cfg["rope_theta"] = float(need("rope_theta", default=10000.0))
                rs = c.get("rope_scaling") or {}
                kind = rs.get("rope_type", rs.get("type", "default")) if isinstance(rs, dict) else None
                if kind not in ("default", "linear", "llama3"):
                    raise UnknownFamily(f"{path}: rope_scaling {rs!r} is not supported (plain rotary positions, "
                                        f"'linear' or 'llama3' scaling)")
                if kind != "default":
                    need_rs = ("factor",) + (("low_freq_factor", "high_freq_factor", "original_max_position_embeddings")
                                             if kind == "llama3" else ())
                    if any(not isinstance(rs.get(k), (int, float)) or rs[k] <= 0 for k in need_rs):
                        raise MissingConfig(f"{path}: rope_scaling {kind!r} needs positive {', '.join(need_rs)}")
                    cfg["rope_scaling"] = tuple(sorted({"rope_type": kind, **{k: float(rs[k]) for k in need_rs}}
                                                       .items()))
            else:
                cfg["type_vocab"] = int(need("type_vocab_size", default=2))
                if c.get("position_embedding_type", "absolute") != "absolute":
                    raise UnknownFamily(f"{path}: position_embedding_type {c['position_embedding_type']!r} is not "
                                        f"supported (absolute positions only)")
    except (TypeError, ValueError) as e:
        if isinstance(e, CheckpointError):
            raise
        raise MissingConfig(f"{path}: a size field is not a number ({e})") from None
    act = _ACT_ALIASES.get(cfg["act"], cfg["act"])
    if act not in ACTIVATIONS:
        raise UnknownFamily(f"{path}: activation {cfg['act']!r} is not supported; expected one of "
                            f"{', '.join(ACTIVATIONS)}")
    cfg["act"] = act
    if min(cfg["d"], cfg["H"], cfg["H_kv"], cfg["d_k"], cfg["n_layers"], cfg["max_pos"], cfg["vocab"]) <= 0 \
            or cfg["H"] % cfg["H_kv"]:
        raise MissingConfig(f"{path}: inconsistent sizes {cfg}")
    if fam != "llama" and cfg["d"] % cfg["H"]:
        raise MissingConfig(f"{path}: hidden size {cfg['d']} is not a multiple of the {cfg['H']} heads")
    return Config(family=fam, **cfg)


# --- tensor names per family ---------------------------------------------------------------

def _names(cfg: Config) -> dict:
    """{"global": {role: name}, "layer": {role: name with {i}}} for the family (without prefix)."""
    if cfg.family == "bert":
        e, a = "embeddings.", "encoder.layer.{i}."
        g = {"word": e + "word_embeddings.weight", "pos": e + "position_embeddings.weight",
             "typ": e + "token_type_embeddings.weight", "ln_emb.w": e + "LayerNorm.weight",
             "ln_emb.b": e + "LayerNorm.bias"}
        lay = {}
        for r, n in (("q", "attention.self.query"), ("k", "attention.self.key"), ("v", "attention.self.value"),
                     ("o", "attention.output.dense"), ("fc", "intermediate.dense"), ("proj", "output.dense"),
                     ("ln1", "attention.output.LayerNorm"), ("ln2", "output.LayerNorm")):
            lay[r + ".w"], lay[r + ".b"] = a + n + ".weight", a + n + ".bias"
        return {"global": g, "layer": lay}
    if cfg.family == "gpt2":
        a = "h.{i}."
        g = {"word": "wte.weight", "pos": "wpe.weight", "lnf.w": "ln_f.weight", "lnf.b": "ln_f.bias"}
        lay = {}
        for r, n in (("qkv", "attn.c_attn"), ("o", "attn.c_proj"), ("fc", "mlp.c_fc"), ("proj", "mlp.c_proj"),
                     ("ln1", "ln_1"), ("ln2", "ln_2")):
            lay[r + ".w"], lay[r + ".b"] = a + n + ".weight", a + n + ".bias"
        return {"global": g, "layer": lay}
    a = "layers.{i}."
    g = {"word": "embed_tokens.weight", "lnf.w": "norm.weight"}
    lay = {"q.w": a + "self_attn.q_proj.weight", "k.w": a + "self_attn.k_proj.weight",
           "v.w": a + "self_attn.v_proj.weight", "o.w": a + "self_attn.o_proj.weight",
           "gate.w": a + "mlp.gate_proj.weight", "up.w": a + "mlp.up_proj.weight",
           "proj.w": a + "mlp.down_proj.weight", "ln1.w": a + "input_layernorm.weight",
           "ln2.w": a + "post_attention_layernorm.weight"}
    return {"global": g, "layer": lay}


_OPTIONAL_BIASES = {"q.b": "self_attn.q_proj.bias", "k.b": "self_attn.k_proj.bias", "v.b": "self_attn.v_proj.bias",
                    "o.b": "self_attn.o_proj.bias", "gate.b": "mlp.gate_proj.bias", "up.b": "mlp.up_proj.bias",
                    "proj.b": "mlp.down_proj.bias"}  # llama with attention_bias / mlp_bias


def _expected_shapes(cfg: Config) -> dict:
    d, H, Hk, dk, f = cfg.d, cfg.H, cfg.H_kv, cfg.d_k, cfg.d_ff
    vec = {r: (d,) for r in ("ln_emb.w", "ln_emb.b", "lnf.w", "lnf.b", "ln1.w", "ln1.b", "ln2.w", "ln2.b",
                             "o.b", "proj.b")}
    if cfg.family == "bert":
        return {**vec, "word": (cfg.vocab, d), "pos": (cfg.max_pos, d), "typ": (cfg.type_vocab, d), "q.w": (d, d),
                "k.w": (d, d), "v.w": (d, d), "o.w": (d, d), "fc.w": (f, d), "proj.w": (d, f),
                "q.b": (d,), "k.b": (d,), "v.b": (d,), "fc.b": (f,)}
    if cfg.family == "gpt2":
        return {**vec, "word": (cfg.vocab, d), "pos": (cfg.max_pos, d), "qkv.w": (d, 3 * d), "qkv.b": (3 * d,),
                "o.w": (d, d), "fc.w": (d, f), "fc.b": (f,), "proj.w": (f, d)}
    return {**vec, "word": (cfg.vocab, d), "q.w": (H * dk, d), "k.w": (Hk * dk, d), "v.w": (Hk * dk, d),
            "o.w": (d, H * dk), "gate.w": (f, d), "up.w": (f, d), "proj.w": (d, f)}


_Item = TypeVar("_Item")
def required_tensors(cfg: Config) -> list[tuple[str, tuple]]:
    """(name without prefix, shape) of every tensor a checkpoint of ``cfg`` needs, in the reader's names (what
    :mod:`proofs_numeric.model.synthetic` writes)."""
    names, shapes = _names(cfg), _expected_shapes(cfg)
    out = [(n, shapes[r]) for r, n in names["global"].items() if r in shapes]
    for i in range(cfg.n_layers):
        out += [(n.format(i=i), shapes[r]) for r, n in names["layer"].items() if r in shapes]
    return out


@dataclass
class LayerWeights:
    """One layer in the ``x @ W`` convention (biases are zero vectors where the family has none)."""
    Wq: np.ndarray  # [d, H d_k]
    bq: np.ndarray
    Wk: np.ndarray  # [d, H_kv d_k]
    bk: np.ndarray
    Wv: np.ndarray  # [d, H_kv d_k]
    bv: np.ndarray
    Wo: np.ndarray  # [H d_k, d]
    bo: np.ndarray
    ln1: tuple[np.ndarray, np.ndarray | None]  # (gamma, beta) for LayerNorm, (gamma, None) for RMSNorm
    W1: np.ndarray  # [d, d_ff] (llama: up_proj)
    b1: np.ndarray
    W2: np.ndarray  # [d_ff, d]
    b2: np.ndarray
    ln2: tuple[np.ndarray, np.ndarray | None]
    Wg: np.ndarray | None = None  # [d, d_ff] llama gate_proj
    bg: np.ndarray | None = None


class _Lazy(Generic[_Item]):
    """A read-only sequence whose items are built on access (nothing kept)."""

    def __init__(self, n: int, build: Callable[[int], _Item]) -> None:
        self._n, self._build = n, build

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> _Item: ...
    @overload
    def __getitem__(self, i: slice) -> list[_Item]: ...
    def __getitem__(self, i: int | slice) -> _Item | list[_Item]:
        if isinstance(i, slice):
            return [self._build(j) for j in range(*i.indices(self._n))]
        if not -self._n <= i < self._n:
            raise IndexError(i)
        return self._build(i % self._n)

    def __iter__(self) -> Iterator[_Item]:
        return (self._build(i) for i in range(self._n))


class _LazyMap(Mapping):
    """``{layer index: value}`` built on access (nothing kept)."""

    def __init__(self, n, build):
        self._n, self._build = n, build

    def __len__(self):
        return self._n

    def __iter__(self):
        return iter(range(self._n))

    def __getitem__(self, i):
        if not (isinstance(i, (int, np.integer)) and 0 <= i < self._n):
            raise KeyError(i)
        return self._build(int(i))


def rope_inv_freq(dk: int, theta: float, scaling: dict | tuple = ()) -> np.ndarray:
    """The rotary frequencies theta^(-2i/d_k), rescaled as config.json's ``rope_scaling`` says.  # [d_k/2]

    ``linear``: every frequency divided by ``factor``. ``llama3`` (Llama 3.1/3.2): wavelengths below
    original_len / high_freq_factor kept, above original_len / low_freq_factor divided by ``factor``,
    and a linear blend in between.
    """
    inv = 1.0 / theta ** (np.arange(0, dk, 2, dtype=np.float64) / dk)
    sc = dict(scaling)
    kind = sc.get("rope_type", "default")
    if kind == "linear":
        return inv / sc["factor"]
    if kind == "llama3":
        f, lo, hi = sc["factor"], sc["low_freq_factor"], sc["high_freq_factor"]
        old = sc["original_max_position_embeddings"]
        wavelen = 2 * math.pi / inv
        smooth = (old / wavelen - lo) / (hi - lo) if hi != lo else np.zeros_like(inv)
        blended = (1 - smooth) * inv / f + smooth * inv
        return np.where(wavelen < old / hi, inv, np.where(wavelen > old / lo, inv / f, blended))
    return inv


def rope(x: np.ndarray, positions, theta: float, scaling: dict | tuple = ()) -> np.ndarray:
    """Rotary positions, Hugging Face LLaMA convention (rotate_half pairs i with i + d_k/2).  # [n, d_k]"""
    n, dk = x.shape
    inv = rope_inv_freq(dk, theta, scaling)  # [d_k/2]
    ang = np.outer(np.asarray(positions, dtype=np.float64), inv)  # [n, d_k/2]
    cos, sin = np.cos(ang), np.sin(ang)
    x1, x2 = x[:, :dk // 2], x[:, dk // 2:]
    return np.hstack([x1 * cos - x2 * sin, x2 * cos + x1 * sin])


class Checkpoint:
    """A BERT-, GPT-2- or LLaMA-family checkpoint run in float64 (see the module docstring)."""

    def __init__(self, folder, tokenizer=None, name: str | None = None):
        self.path = Path(folder)
        if not self.path.is_dir():
            raise MissingConfig(f"{folder}: not a directory")
        if not (self.path / "config.json").is_file():
            read_config(self.path)  # raises MissingConfig
        self.store = TensorStore(self.path)
        self.config = read_config(self.path, self.store.names())
        self.name = name or self.path.name
        self._names = _names(self.config)
        self.prefix = self._find_prefix()
        self._check_tensors()
        self.tokenizer = tokenizer
        if tokenizer is None and (self.path / "tokenizer.json").is_file():
            try:
                import tokenizers  # lazy: an optional dependency (the model extra), only for a folder with a tokenizer
            except ImportError:  # not installed: the model runs on token ids only
                pass
            else:
                try:
                    self.tokenizer = tokenizers.Tokenizer.from_file(str(self.path / "tokenizer.json"))
                except Exception as e:  # the Rust tokenizer raises its own exception type
                    raise CheckpointError(f"{self.path / 'tokenizer.json'} could not be read: {e}") from None
        self.layers = _Lazy(self.config.n_layers, self._layer)
        self.f32 = _LazyMap(self.config.n_layers, self.raw_Wo)  # {layer: W_O as stored}

    # sizes, in the names the rest of the suite uses
    family = property(lambda self: self.config.family)
    norm = property(lambda self: self.config.norm)
    d = property(lambda self: self.config.d)
    H = property(lambda self: self.config.H)
    d_k = property(lambda self: self.config.d_k)
    eps = property(lambda self: self.config.eps)
    max_len = property(lambda self: self.config.max_pos)

    def _find_prefix(self) -> str:
        first = self._names["global"]["word"]
        for p in PREFIXES:
            if p + first in self.store:
                return p
        raise MissingTensor(f"{self.path}: a {self.family} checkpoint needs {first!r} (bare or prefixed with "
                            f"{', '.join(repr(p) for p in PREFIXES if p)}); the files hold "
                            f"{', '.join(sorted(self.store.names())[:8])}"
                            f"{' ...' if len(self.store.names()) > 8 else ''}")

    def _check_tensors(self) -> None:
        L, first = self.config.n_layers, next(iter(self._names["layer"].values()))
        held = sum(1 for n in self.store.names() if n.startswith(self.prefix) and
                   n[len(self.prefix):].endswith(first.split("{i}", 1)[1]) and
                   n[len(self.prefix):].startswith(first.split("{i}", 1)[0]))
        if L != held:  # before listing L x (tensors per layer) names: config.json may claim absurd depth
            cls = MissingTensor if L > held else BadCheckpoint  # fewer would silently run a shallower model
            raise cls(f"{self.path}: {self.path / 'config.json'} says {L} {'layer' if L == 1 else 'layers'}, the "
                      f"files hold {held} (counting {self.prefix + first.format(i='*')}); fix the config's layer "
                      "count or the files")
        want = [self.prefix + n for n in self._names["global"].values()]
        for i in range(self.config.n_layers):
            want += [self.prefix + n.format(i=i) for n in self._names["layer"].values()]
        missing = [n for n in want if n not in self.store]
        if missing:
            raise MissingTensor(f"{self.path}: a {self.family} checkpoint with {self.config.n_layers} layers needs "
                                f"{len(want)} tensors; missing {len(missing)}: {', '.join(missing[:6])}"
                                f"{' ...' if len(missing) > 6 else ''}")
        shapes = _expected_shapes(self.config)
        for role, shp in shapes.items():
            tmpl = self._names["global"].get(role) or self._names["layer"].get(role)
            if tmpl is None:
                continue  # a role this family does not have (e.g. no bias)
            for i in range(self.config.n_layers if role in self._names["layer"] else 1):
                n = self.prefix + tmpl.format(i=i)
                got = self.store.shape(n)
                if role in ("pos", "word", "typ") and len(got) == 2 and got[1] == shp[1] and got[0] >= 1:
                    continue  # tables may be larger or smaller than the config says; checked at use
                if got != shp:
                    raise MissingTensor(f"{self.path}: tensor {n} has shape {list(got)}, expected {list(shp)} "
                                        f"from config.json")
            if role not in ("pos", "word", "typ"):
                continue
            rows = self.store.shape(self.prefix + tmpl)[0]
            if role == "pos" and rows < self.config.max_pos:
                self.config = replace(self.config, max_pos=rows)  # positions: what the table holds
            if role == "word" and rows < self.config.vocab:
                self.config = replace(self.config, vocab=rows)
            if role == "typ" and rows < 1:
                raise MissingTensor(f"{self.path}: {self.prefix + tmpl} has no rows")

    def _get(self, key, i=None, dtype=np.float64, rows=None):
        tbl = self._names["layer"] if i is not None else self._names["global"]
        return self.store.get(self.prefix + tbl[key].format(i=i), dtype, rows)

    def _opt(self, tmpl, i, size):
        n = self.prefix + f"layers.{i}." + tmpl
        return self.store.get(n) if n in self.store else np.zeros(size)

    def _layer(self, i: int) -> LayerWeights:
        c, g = self.config, lambda k: self._get(k, i)
        if c.family == "bert":
            lin = lambda r: (g(r + ".w").T, g(r + ".b"))
            (Wq, bq), (Wk, bk), (Wv, bv), (Wo, bo) = (lin(r) for r in "qkvo")
            (W1, b1), (W2, b2) = lin("fc"), lin("proj")
            return LayerWeights(Wq, bq, Wk, bk, Wv, bv, Wo, bo, (g("ln1.w"), g("ln1.b")), W1, b1, W2, b2,
                                (g("ln2.w"), g("ln2.b")))
        if c.family == "gpt2":  # Conv1D: weight is [in, out] already in the x @ W convention
            Wqkv, bqkv, d = g("qkv.w"), g("qkv.b"), c.d
            return LayerWeights(Wqkv[:, :d], bqkv[:d], Wqkv[:, d:2 * d], bqkv[d:2 * d], Wqkv[:, 2 * d:],
                                bqkv[2 * d:], g("o.w"), g("o.b"), (g("ln1.w"), g("ln1.b")), g("fc.w"), g("fc.b"),
                                g("proj.w"), g("proj.b"), (g("ln2.w"), g("ln2.b")))
        hq, hk = c.H * c.d_k, c.H_kv * c.d_k
        ob = lambda k, size: self._opt(_OPTIONAL_BIASES[k], i, size)
        return LayerWeights(g("q.w").T, ob("q.b", hq), g("k.w").T, ob("k.b", hk), g("v.w").T, ob("v.b", hk),
                            g("o.w").T, ob("o.b", c.d), (g("ln1.w"), None), g("up.w").T, ob("up.b", c.d_ff),
                            g("proj.w").T, ob("proj.b", c.d), (g("ln2.w"), None), g("gate.w").T, ob("gate.b", c.d_ff))

    def raw_Wo(self, i: int) -> np.ndarray:
        """W_O of layer i as stored, widened exactly (float32 unless stored as F64), ``x @ W`` layout."""
        key = self.prefix + self._names["layer"]["o.w"].format(i=i)
        dt = np.float64 if self.store.dtype(key) == "F64" else np.float32
        W = self.store.get(key, dt)
        return W if self.family == "gpt2" else W.T

    # --- the forward ---------------------------------------------------------------------

    def ids(self, text: str, max_len: int | None = None) -> list[int]:
        if self.tokenizer is None:
            raise CheckpointError(f"{self.path}: no tokenizer.json beside the checkpoint; give token ids instead")
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(min(max_len or self.max_len, self.max_len))
        return self.tokenizer.encode(text).ids

    def embedding_parts(self, ids) -> list:
        """The stored rows whose float64 sum (left to right) :meth:`embeddings` is: word, then position, then token
        type (only the rows of ``ids`` are read)."""
        word = self._get("word", rows=ids)
        if self.family == "llama":
            return [word]
        pos = self._get("pos", rows=range(len(ids)))
        if self.family == "gpt2":
            return [word, pos]
        return [word, pos, np.broadcast_to(self._get("typ", rows=[0])[0], word.shape)]

    def embedding_norm(self):
        """(gamma, beta) of the embeddings' LayerNorm (post-LN families), else None."""
        if not self.config.post_ln:
            return None
        return (self._get("ln_emb.w"), self._get("ln_emb.b"))

    def embeddings(self, ids) -> np.ndarray:
        """Token (+ position, + token type) embeddings of ``ids``; only those rows are read.  # [n, d]"""
        n = len(ids)
        if n > self.max_len:
            raise ValueError(f"{n} tokens exceed the {self.max_len} positions of this model")
        if n == 0:
            raise ValueError("no tokens")
        word = self._get("word", rows=ids)
        if self.family == "llama":
            return word
        pos = self._get("pos", rows=range(n))
        if self.family == "gpt2":
            return word + pos
        return word + pos + self._get("typ", rows=[0])[0]

    def norm_apply(self, X, params, eps=None, where: str = "a norm input") -> np.ndarray:
        """The family's norm with the config's epsilon (or ``eps``).  # [n, d] -> [n, d]

        Non-finite activations (from wrong weights or sizes) are named with ``where`` they appeared."""
        if not np.all(np.isfinite(X)):
            raise ValueError(f"{self.path}: the forward produced non-finite activations at {where}: the weights or "
                             "the config's sizes are wrong")
        eps = self.eps if eps is None else eps
        g, b = params
        if b is None:
            return rms_norm(X, g, eps=eps)
        return layer_norm(X, g, b, eps=eps)

    def attend(self, X, L: LayerWeights, positions=None):
        """(A_h, Y_h per query head, MHA(X) = [Y_1 .. Y_H] W_O before the output bias).  X: [n, d]."""
        c = self.config
        n, dk, rep = len(X), c.d_k, c.H // c.H_kv
        pos = np.arange(n) if positions is None else np.asarray(positions)
        Q, K, V = X @ L.Wq + L.bq, X @ L.Wk + L.bk, X @ L.Wv + L.bv
        As, Ys = [], []
        for h in range(c.H):
            s, t = slice(h * dk, (h + 1) * dk), slice((h // rep) * dk, (h // rep + 1) * dk)
            q, k = Q[:, s], K[:, t]
            if c.rotary:
                assert c.rope_theta is not None  # read_config sets it for every rotary family
                q, k = rope(q, pos, c.rope_theta, c.rope_scaling), rope(k, pos, c.rope_theta, c.rope_scaling)
            S = q @ k.T / math.sqrt(dk)
            A = softmax_rows(S, causal=c.causal)
            As.append(A)
            Ys.append(A @ V[:, t])
        return As, Ys, np.hstack(Ys) @ L.Wo

    def mlp(self, Z, L: LayerWeights) -> np.ndarray:
        act = ACTIVATIONS[self.config.act]
        if L.Wg is not None:
            return (act(Z @ L.Wg + L.bg) * (Z @ L.W1 + L.b1)) @ L.W2 + L.b2
        return act(Z @ L.W1 + L.b1) @ L.W2 + L.b2

    def block(self, X, L: LayerWeights, li: int = 0, rec: dict | None = None, pure_attention: bool = False):
        """One layer on the hidden states ``X`` (its input residual stream).  # [n, d] -> [n, d]

        ``rec``: filled with the layer's attention (``layers``), its norm inputs (``ln_inputs``) and, when it has the
        key, its residual updates (``updates``), each tagged with its :class:`~proofs_numeric.model.site_ids.SiteId`."""
        ln1, ln2 = SiteId(li, "ln1", "input"), SiteId(li, "ln2", "input")
        up_attn, up_mlp = SiteId(li, "attn", "update"), SiteId(li, "mlp", "update")
        if self.config.post_ln:
            As, Ys, mha = self.attend(X, L)
            if rec is not None:
                rec["layers"].append({"A": As, "Y": Ys, "mha": mha, "X_in": X})
            if pure_attention:
                return mha
            pre1 = X + mha + L.bo
            if rec is not None:
                rec["ln_inputs"].append((ln1, pre1.copy(), L.ln1))
                if "updates" in rec:  # the residual updates X -> X + Delta, Delta as the layer defines it
                    rec["updates"].append((up_attn, X, mha + L.bo))
            Z = self.norm_apply(pre1, L.ln1, where=str(ln1))
            F = self.mlp(Z, L)
            pre2 = Z + F
            if rec is not None:
                rec["ln_inputs"].append((ln2, pre2.copy(), L.ln2))
                if "updates" in rec:
                    rec["updates"].append((up_mlp, Z, F))
            return self.norm_apply(pre2, L.ln2, where=str(ln2))
        if pure_attention:
            As, Ys, mha = self.attend(X, L)
            if rec is not None:
                rec["layers"].append({"A": As, "Y": Ys, "mha": mha, "X_in": X})
            return mha
        if rec is not None:
            rec["ln_inputs"].append((ln1, X.copy(), L.ln1))
        a = self.norm_apply(X, L.ln1, where=str(ln1))
        As, Ys, mha = self.attend(a, L)
        if rec is not None:
            rec["layers"].append({"A": As, "Y": Ys, "mha": mha, "X_in": a})
        X0, X = X, X + mha + L.bo
        if rec is not None:
            rec["ln_inputs"].append((ln2, X.copy(), L.ln2))
            if "updates" in rec:  # the residual updates X -> X + Delta, Delta as the layer defines it
                rec["updates"].append((up_attn, X0, mha + L.bo))
        F = self.mlp(self.norm_apply(X, L.ln2, where=str(ln2)), L)
        if rec is not None and "updates" in rec:
            rec["updates"].append((up_mlp, X, F))
        return X + F

    def final_norm(self):
        if self.config.post_ln:
            return None
        w = self._get("lnf.w")
        return (w, self._get("lnf.b") if self.family == "gpt2" else None)

    def forward(self, ids, record: bool = True, pure_attention: bool = False) -> dict:
        """Run the model one layer at a time; ``record`` keeps every norm input, A_h, Y_h and MHA output.

        ``hidden`` is the residual stream: the embedding output and each layer's output; ``output``
        adds the final norm of pre-LN families.
        """
        rec: dict[str, Any] = {"ln_inputs": [], "layers": []}
        X = self.embeddings(ids)
        if self.config.post_ln:
            ln_emb = (self._get("ln_emb.w"), self._get("ln_emb.b"))
            if record:
                rec["ln_inputs"].append((LN_EMBED, X.copy(), ln_emb))
            X = self.norm_apply(X, ln_emb, where=str(LN_EMBED))
        hidden = [X]
        for li in range(self.config.n_layers):
            X = self.block(X, self._layer(li), li, rec if record else None, pure_attention)
            hidden.append(X)
        rec["hidden"] = hidden
        fin = self.final_norm()
        if fin is not None and not pure_attention:
            if record:
                rec["ln_inputs"].append((LN_FINAL, X.copy(), fin))
            rec["output"] = self.norm_apply(X, fin, where=str(LN_FINAL))
        else:
            rec["output"] = X
        if not record:
            del rec["ln_inputs"], rec["layers"]
        return rec

    def embed(self, text: str) -> np.ndarray:
        """Mean over tokens of the last output, L2-normalised (the sentence-transformers pooling)."""
        X = self.forward(self.ids(text), record=False)["output"]
        v = X.mean(axis=0)
        return v / np.linalg.norm(v)


def load_checkpoint(folder, tokenizer=None, name: str | None = None) -> Checkpoint:
    """Open a checkpoint folder (header and config only; weights are read when used)."""
    p = Path(folder)
    if not p.exists():
        raise MissingConfig(f"{folder}: no such directory")
    return Checkpoint(p, tokenizer=tokenizer, name=name)
