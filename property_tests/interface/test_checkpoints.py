"""Your own checkpoint: tiny BERT, GPT-2 and LLaMA checkpoints written here, read and run by the suite.

Each checkpoint is written by :func:`_write_safetensors` below (independent of the reader under test: the
``safetensors`` library writes F32, F16 and F64; BF16, which numpy and so the library's numpy API cannot hold, is
assembled here byte by byte), and the library is the oracle of the reader (every tensor the library can read is
compared bit for bit), with the real tensor names and layouts,
random weights, 2 layers and width 32-48. The loader and the forward are checked through
invariances an independent bug would break: causality, relative rotary positions, grouped-query
attention against plain MHA with repeated K/V heads, GPT-2's Conv1D layout against a reference
written with the transposed Linear layout, LLaMA against a reference written in Hugging Face's
terms (repeat_kv, rotate_half), exact bf16/f16 widening, sharded files; then the
command line on each family (JSON keys, which symmetries each family keeps) and its bad input.
"""
from __future__ import annotations

import json
import math
import struct

import mpmath
import numpy as np
import pytest
from safetensors import safe_open
from safetensors.numpy import save_file

from proofs_numeric.cli import main
from proofs_numeric.model import checkpoint as CK
from proofs_numeric.witnesses import real_model as RM
from property_tests.documents import document

_FWD_TOL = 1e-12  # float64 forwards of the same values in a different order (BLAS blocking, head order)
_BF16_REF_TOL = 0.0  # widening is exact: bit-for-bit equality

D_BERT, D_GPT2, D_LLAMA = 32, 32, 48
VOCAB, MAX_POS = 50, 64


# --- an independent safetensors writer ---------------------------------------------------------

def _to_bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 -> bf16 bit patterns, rounded to nearest even (as torch does)."""
    b = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def _encode(arr: np.ndarray, dt: str) -> bytes:
    if dt == "BF16":
        return _to_bf16_bits(arr).astype("<u2").tobytes()
    return np.ascontiguousarray(arr, dtype={"F32": "<f4", "F16": "<f2", "F64": "<f8", "U8": "u1"}[dt]).tobytes()


def _write_safetensors(path, tensors: dict, dt: str) -> None:
    """``tensors`` stored as ``dt``: by ``safetensors.numpy.save_file`` (F32, F16, F64; bool tensors as U8), or for
    BF16 by hand (numpy has no bfloat16 dtype, so the library's numpy API cannot write one)."""
    if dt != "BF16":
        arrays = {name: (arr.astype(np.uint8) if arr.dtype == bool else
                         np.ascontiguousarray(arr, dtype={"F32": "<f4", "F16": "<f2", "F64": "<f8"}[dt]))
                  for name, arr in tensors.items()}
        save_file(arrays, str(path), metadata={"format": "pt"})
        return
    header, blobs, off = {"__metadata__": {"format": "pt"}}, [], 0
    for name, arr in tensors.items():
        t = "U8" if arr.dtype == bool else dt
        b = _encode(arr.astype(np.uint8) if arr.dtype == bool else arr, t)
        header[name] = {"dtype": t, "shape": list(arr.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def write_checkpoint(folder, config: dict, tensors: dict, dt: str = "F32", shards: int = 1):
    """A checkpoint folder (config.json, safetensors in one file or `shards` shards) from the independent writer."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))
    if shards == 1:
        _write_safetensors(folder / "model.safetensors", tensors, dt)
        return folder
    names = list(tensors)
    weight_map = {}
    for s in range(shards):
        fn = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        part = {n: tensors[n] for n in names[s::shards]}
        _write_safetensors(folder / fn, part, dt)
        weight_map.update({n: fn for n in part})
    (folder / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    return folder


def _w(rng, *shape, scale=None):
    return (rng.standard_normal(shape) * (scale if scale is not None else 1 / math.sqrt(shape[-1]))).astype(np.float32)


def bert_tensors(rng, d=D_BERT, f=64, layers=2, prefix="bert.", max_pos=MAX_POS):
    t = {"embeddings.word_embeddings.weight": _w(rng, VOCAB, d, scale=1.0),
         "embeddings.position_embeddings.weight": _w(rng, max_pos, d, scale=0.5),
         "embeddings.token_type_embeddings.weight": _w(rng, 2, d, scale=0.5),
         "embeddings.LayerNorm.weight": 1 + _w(rng, d, scale=0.1), "embeddings.LayerNorm.bias": _w(rng, d, scale=0.1),
         "pooler.dense.weight": _w(rng, d, d), "pooler.dense.bias": _w(rng, d, scale=0.1)}
    for i in range(layers):
        a = f"encoder.layer.{i}."
        for n, (o, k) in {"attention.self.query": (d, d), "attention.self.key": (d, d),
                          "attention.self.value": (d, d), "attention.output.dense": (d, d),
                          "intermediate.dense": (f, d), "output.dense": (d, f)}.items():
            t[a + n + ".weight"], t[a + n + ".bias"] = _w(rng, o, k), _w(rng, o, scale=0.1)  # Linear: [out, in]
        for n in ("attention.output.LayerNorm", "output.LayerNorm"):
            t[a + n + ".weight"], t[a + n + ".bias"] = 1 + _w(rng, d, scale=0.1), _w(rng, d, scale=0.1)
    return {prefix + k: v for k, v in t.items()}


def bert_config(d=D_BERT, f=64, layers=2, max_pos=MAX_POS):
    return {"model_type": "bert", "hidden_size": d, "num_attention_heads": 4, "num_hidden_layers": layers,
            "intermediate_size": f, "layer_norm_eps": 1e-12, "max_position_embeddings": max_pos,
            "type_vocab_size": 2, "vocab_size": VOCAB, "hidden_act": "gelu"}


def gpt2_tensors(rng, d=D_GPT2, layers=2, prefix=""):
    t = {"wte.weight": _w(rng, VOCAB, d, scale=1.0), "wpe.weight": _w(rng, MAX_POS, d, scale=0.5),
         "ln_f.weight": 1 + _w(rng, d, scale=0.1), "ln_f.bias": _w(rng, d, scale=0.1)}
    for i in range(layers):
        a = f"h.{i}."
        for n, (k, o) in {"attn.c_attn": (d, 3 * d), "attn.c_proj": (d, d), "mlp.c_fc": (d, 4 * d),
                          "mlp.c_proj": (4 * d, d)}.items():
            t[a + n + ".weight"], t[a + n + ".bias"] = _w(rng, k, o, scale=1 / math.sqrt(k)), _w(rng, o, scale=0.1)
        for n in ("ln_1", "ln_2"):
            t[a + n + ".weight"], t[a + n + ".bias"] = 1 + _w(rng, d, scale=0.1), _w(rng, d, scale=0.1)
        t[a + "attn.bias"] = np.tril(np.ones((MAX_POS, MAX_POS), dtype=bool))[None, None]  # the causal buffer
        t[a + "attn.masked_bias"] = np.array(-1e4, dtype=np.float32)
    return {prefix + k: v for k, v in t.items()}


def gpt2_config(d=D_GPT2, layers=2):
    return {"model_type": "gpt2", "n_embd": d, "n_head": 4, "n_layer": layers, "n_positions": MAX_POS,
            "layer_norm_epsilon": 1e-5, "vocab_size": VOCAB, "activation_function": "gelu_new"}


def llama_tensors(rng, d=D_LLAMA, H=4, H_kv=2, f=64, layers=2, repeat_kv=False):
    dk = d // H
    t = {"model.embed_tokens.weight": _w(rng, VOCAB, d, scale=1.0), "model.norm.weight": 1 + _w(rng, d, scale=0.1),
         "lm_head.weight": _w(rng, VOCAB, d)}
    for i in range(layers):
        a = f"model.layers.{i}."
        q, k, v = _w(rng, H * dk, d), _w(rng, H_kv * dk, d), _w(rng, H_kv * dk, d)
        if repeat_kv:  # the same K/V heads, each repeated for the query heads that share it
            rep = H // H_kv
            k, v = (np.repeat(m.reshape(H_kv, dk, d), rep, axis=0).reshape(H * dk, d) for m in (k, v))
        t.update({a + "self_attn.q_proj.weight": q, a + "self_attn.k_proj.weight": k, a + "self_attn.v_proj.weight": v,
                  a + "self_attn.o_proj.weight": _w(rng, d, H * dk), a + "mlp.gate_proj.weight": _w(rng, f, d),
                  a + "mlp.up_proj.weight": _w(rng, f, d), a + "mlp.down_proj.weight": _w(rng, d, f),
                  a + "input_layernorm.weight": 1 + _w(rng, d, scale=0.1),
                  a + "post_attention_layernorm.weight": 1 + _w(rng, d, scale=0.1)})
    return t


def llama_config(d=D_LLAMA, H=4, H_kv=2, f=64, layers=2):
    return {"model_type": "llama", "hidden_size": d, "num_attention_heads": H, "num_key_value_heads": H_kv,
            "num_hidden_layers": layers, "intermediate_size": f, "rms_norm_eps": 1e-6, "hidden_act": "silu",
            "max_position_embeddings": MAX_POS, "rope_theta": 10000.0, "vocab_size": VOCAB}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The three families (bert f32 prefixed; gpt2 f32 sharded; llama bf16 GQA) and a GQA-free llama twin."""
    root = tmp_path_factory.mktemp("ckpt")
    out = {"bert": write_checkpoint(root / "bert", bert_config(), bert_tensors(np.random.default_rng(1))),
           "gpt2": write_checkpoint(root / "gpt2", gpt2_config(), gpt2_tensors(np.random.default_rng(2)), shards=2),
           "llama": write_checkpoint(root / "llama", llama_config(), llama_tensors(np.random.default_rng(3)),
                                     dt="BF16")}
    out["llama_mha"] = write_checkpoint(root / "llama_mha", llama_config(H_kv=4),
                              llama_tensors(np.random.default_rng(3), repeat_kv=True), dt="BF16")
    return out


IDS = [3, 14, 15, 9, 26, 5, 35, 8, 9, 7, 9, 32, 38, 4, 6, 2]


# --- the reader --------------------------------------------------------------------------------

def test_checkpoints_bf16_and_f16_widening_is_exact(tmp_path):
    """Every finite bf16 bit pattern decodes to sign * 2^(e-127) * (1 + m/128) (or the subnormal/zero form)."""
    bits = np.arange(0, 1 << 16, dtype=np.uint32)
    finite = ((bits >> 7) & 0xFF) != 0xFF
    bits = bits[finite].astype(np.uint16)
    got = CK.widen(bits, "BF16", np.float64)
    e, m, s = (bits.astype(np.int64) >> 7) & 0xFF, bits.astype(np.int64) & 0x7F, np.where(bits >> 15, -1.0, 1.0)
    ref = s * np.where(e == 0, np.ldexp(m.astype(np.float64), -133), np.ldexp(128.0 + m, e - 134))
    assert np.array_equal(got, ref) and np.array_equal(np.signbit(got), np.signbit(ref))
    assert np.array_equal(CK.widen(bits, "BF16", np.float32).astype(np.float64), ref)
    h = np.arange(0, 1 << 16, dtype=np.uint16).view(np.float16)
    h = h[np.isfinite(h)]
    assert np.array_equal(CK.widen(h, "F16", np.float64), [float(v) for v in h.tolist()])
    # and through a file: what the writer rounded to bf16 comes back bit for bit
    x = np.random.default_rng(0).standard_normal((5, 7)).astype(np.float32)
    _write_safetensors(tmp_path / "m.safetensors", {"x": x}, "BF16")
    (tmp_path / "config.json").write_text("{}")
    back = CK.TensorStore(tmp_path).get("x", np.float32)
    assert np.array_equal(back.view(np.uint32) >> 16, _to_bf16_bits(x).astype(np.uint32))
    assert np.abs(back - x).max() <= np.abs(x).max() * 2.0 ** -8


def test_checkpoints_sharded_store_reads_every_tensor_once(tiny):
    st = CK.TensorStore(tiny["gpt2"])
    want = set(gpt2_tensors(np.random.default_rng(2)))
    assert set(st.names()) == want
    ref = gpt2_tensors(np.random.default_rng(2))
    for n in ("wte.weight", "h.1.attn.c_attn.weight", "ln_f.bias"):
        assert np.array_equal(st.get(n), ref[n].astype(np.float64))
    assert np.array_equal(st.get("wte.weight", rows=[4, 1]), ref["wte.weight"][[4, 1]].astype(np.float64))


def test_checkpoints_families_and_prefixes_recognised(tiny):
    for fam in ("bert", "gpt2", "llama"):
        m = CK.load_checkpoint(tiny[fam])
        assert m.family == fam and len(m.layers) == 2
        assert m.prefix == {"bert": "bert.", "gpt2": "", "llama": "model."}[fam]
        assert m.norm == ("rmsnorm" if fam == "llama" else "layernorm")


def test_checkpoints_family_from_tensor_names_when_model_type_absent(tmp_path):
    cfg = gpt2_config()
    del cfg["model_type"]
    m = CK.load_checkpoint(write_checkpoint(tmp_path / "g", cfg,
                                            gpt2_tensors(np.random.default_rng(2), prefix="transformer.")))
    assert m.family == "gpt2" and m.prefix == "transformer."


def test_checkpoints_named_errors(tmp_path):
    with pytest.raises(CK.UnknownFamily, match="model_type 't5' is not supported; expected one of bert, gpt2, llama"):
        CK.load_checkpoint(write_checkpoint(tmp_path / "t5", {**bert_config(), "model_type": "t5"},
                                  bert_tensors(np.random.default_rng(0))))
    t = bert_tensors(np.random.default_rng(0))
    del t["bert.encoder.layer.1.attention.self.key.weight"]
    with pytest.raises(CK.MissingTensor, match=r"needs \d+ tensors; missing 1: bert\.encoder\.layer\.1\.attention"
                                               r"\.self\.key\.weight"):
        CK.load_checkpoint(write_checkpoint(tmp_path / "hole", bert_config(), t))
    with pytest.raises(CK.MissingTensor, match="needs 'wte.weight'"):
        CK.load_checkpoint(write_checkpoint(tmp_path / "mixed", gpt2_config(), bert_tensors(np.random.default_rng(0))))
    (tmp_path / "noconf").mkdir()
    _write_safetensors(tmp_path / "noconf" / "model.safetensors", bert_tensors(np.random.default_rng(0)), "F32")
    with pytest.raises(CK.MissingConfig, match="no config.json"):
        CK.load_checkpoint(tmp_path / "noconf")
    with pytest.raises(CK.UnknownFamily, match="activation 'relu6' is not supported"):
        CK.load_checkpoint(write_checkpoint(tmp_path / "act", {**bert_config(), "hidden_act": "relu6"},
                                  bert_tensors(np.random.default_rng(0))))
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "config.json").write_text(json.dumps(bert_config()))
    (bad / "model.safetensors").write_bytes(struct.pack("<Q", 10 ** 9) + b"{}")
    with pytest.raises(CK.BadCheckpoint, match="does not fit in the file"):
        CK.load_checkpoint(bad)


def test_checkpoints_hostile_files_are_named_errors(tmp_path):
    t = bert_tensors(np.random.default_rng(0))
    t["bert.encoder.layer.0.attention.self.query.bias"] = np.zeros(7, np.float32)
    with pytest.raises(CK.MissingTensor, match=r"query\.bias has shape \[7\], expected \[32\]"):
        CK.load_checkpoint(write_checkpoint(tmp_path / "shape", bert_config(), t))
    folder = write_checkpoint(tmp_path / "offsets", bert_config(), bert_tensors(np.random.default_rng(0)))
    raw = (folder / "model.safetensors").read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    header["bert.pooler.dense.bias"]["data_offsets"] = ["a", "b"]
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(h)) + h + raw[8 + n:])
    with pytest.raises(CK.BadCheckpoint, match="lacks dtype/shape/data_offsets"):
        CK.load_checkpoint(folder)
    header["bert.pooler.dense.bias"]["data_offsets"] = [0, 10 ** 12]
    h = json.dumps(header).encode()
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(h)) + h + raw[8 + n:])
    with pytest.raises(CK.BadCheckpoint, match="inconsistent with its size"):
        CK.load_checkpoint(folder)
    deep = write_checkpoint(tmp_path / "deep", {**bert_config(), "num_hidden_layers": 10 ** 12},
                  bert_tensors(np.random.default_rng(0)))
    with pytest.raises(CK.MissingTensor, match="config.json says 1000000000000 layers, the files hold 2"):
        CK.load_checkpoint(deep)
    tok = write_checkpoint(tmp_path / "tok", bert_config(), bert_tensors(np.random.default_rng(0)))
    (tok / "tokenizer.json").write_text("{not json")
    with pytest.raises(CK.CheckpointError, match="tokenizer.json could not be read"):
        CK.load_checkpoint(tok)
    with pytest.raises(CK.MissingConfig, match="no such directory"):
        CK.load_checkpoint(tmp_path / "nowhere")


def test_checkpoints_layers_are_built_on_access(tiny):
    m = CK.load_checkpoint(tiny["bert"])
    assert sorted(m.f32) == [0, 1] and len(m.layers) == 2  # {layer: W_O}, as the benchmarks read it
    assert m.layers[1] is not m.layers[1]  # nothing cached: one layer's weights at a time
    assert isinstance(m.store.raw("bert.pooler.dense.weight").base, np.memmap)


def test_checkpoints_non_finite_weights_exit_2(tmp_path, capsys):
    t = gpt2_tensors(np.random.default_rng(2))
    t["h.0.mlp.c_fc.weight"][0, 0] = np.inf
    folder = write_checkpoint(tmp_path / "inf", gpt2_config(), t)
    code, _, err = _cli(capsys, "real-model", "--model", str(folder))
    # named where it is: the tensor and its file (issue 29), not only the activations it spoils
    assert code == 2 and "tensor h.0.mlp.c_fc.weight holds an infinity" in err and str(folder) in err


# --- the forward, through invariances ----------------------------------------------------------

@pytest.mark.parametrize("fam", ["gpt2", "llama"])
def test_checkpoints_causal_outputs_ignore_later_tokens(tiny, fam):
    m = CK.load_checkpoint(tiny[fam])
    k = 7
    a = m.forward(IDS, record=False)
    b = m.forward(IDS[:k] + [(v + 11) % VOCAB for v in IDS[k:]], record=False)
    for Xa, Xb in zip(a["hidden"] + [a["output"]], b["hidden"] + [b["output"]]):
        assert np.abs(Xa[:k] - Xb[:k]).max() <= _FWD_TOL * np.abs(Xa[:k]).max()
        assert np.abs(Xa[k:] - Xb[k:]).max() > 1e-3  # and the later rows do change
    # a bidirectional model's earlier rows do change
    mb = CK.load_checkpoint(tiny["bert"])
    a, b = (mb.forward(ids, record=False)["output"] for ids in (IDS, IDS[:k] + [(v + 11) % VOCAB for v in IDS[k:]]))
    assert np.abs(a[:k] - b[:k]).max() > 1e-3


def test_checkpoints_rotary_scores_depend_only_on_relative_position(tiny):
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((1, 12)), rng.standard_normal((1, 12))
    score = lambda i, j: float((CK.rope(q, [i], 1e4) @ CK.rope(k, [j], 1e4).T)[0, 0])
    for i, j, s in [(3, 1, 7), (10, 10, 33), (0, 5, 40)]:
        assert math.isclose(score(i, j), score(i + s, j + s), rel_tol=1e-12, abs_tol=1e-12)
    assert abs(score(3, 1) - score(3, 2)) > 1e-3
    # through the model: shifting every position by 17 leaves every attention pattern unchanged
    m = CK.load_checkpoint(tiny["llama"])
    X = m.norm_apply(m.embeddings(IDS), m.layers[0].ln1)
    A0, _, _ = m.attend(X, m.layers[0])
    A1, _, _ = m.attend(X, m.layers[0], positions=np.arange(len(IDS)) + 17)
    assert max(np.abs(a - b).max() for a, b in zip(A0, A1)) < 1e-12


def test_checkpoints_llama3_rope_scaling_against_the_reference_loop():
    """Llama 3.1's frequency rescaling, written as Meta's per-frequency loop, against the vectorised one."""
    sc = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
          "original_max_position_embeddings": 64.0}
    dk, theta = 32, 500000.0
    ref = []
    for i in range(0, dk, 2):
        freq = 1.0 / theta ** (i / dk)
        wavelen = 2 * math.pi / freq
        if wavelen < 64 / 4:
            ref.append(freq)
        elif wavelen > 64 / 1:
            ref.append(freq / 8)
        else:
            smooth = (64 / wavelen - 1) / (4 - 1)
            ref.append((1 - smooth) * freq / 8 + smooth * freq)
    got = CK.rope_inv_freq(dk, theta, sc)
    assert np.allclose(got, ref, rtol=1e-14, atol=0) and len(set(np.isclose(got, CK.rope_inv_freq(dk, theta)))) == 2
    assert np.allclose(CK.rope_inv_freq(dk, theta, {"rope_type": "linear", "factor": 4.0}),
                       CK.rope_inv_freq(dk, theta) / 4, rtol=1e-15)


def test_checkpoints_rope_scaling_from_config(tmp_path):
    rs = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
          "original_max_position_embeddings": 32}
    m = CK.load_checkpoint(write_checkpoint(tmp_path / "l3", {**llama_config(), "rope_scaling": rs},
                                  llama_tensors(np.random.default_rng(3)), dt="BF16"))
    assert dict(m.config.rope_scaling)["factor"] == 8.0
    X = m.norm_apply(m.embeddings(IDS), m.layers[0].ln1)
    A0, _, _ = m.attend(X, m.layers[0])
    A1, _, _ = m.attend(X, m.layers[0], positions=np.arange(len(IDS)) + 17)
    assert max(np.abs(a - b).max() for a, b in zip(A0, A1)) < 1e-12  # still relative positions only
    plain = CK.load_checkpoint(write_checkpoint(tmp_path / "l2", llama_config(),
                                                llama_tensors(np.random.default_rng(3)), dt="BF16"))
    assert np.abs(m.forward(IDS, record=False)["output"] - plain.forward(IDS, record=False)["output"]).max() > 1e-6
    with pytest.raises(CK.UnknownFamily, match="rope_scaling .* is not supported"):
        CK.load_checkpoint(write_checkpoint(tmp_path / "yarn", {**llama_config(), "rope_scaling": {"rope_type": "yarn",
                                                                                        "factor": 4.0}},
                                  llama_tensors(np.random.default_rng(3)), dt="BF16"))


def test_checkpoints_gqa_equals_mha_with_repeated_kv_heads(tiny):
    g, h = CK.load_checkpoint(tiny["llama"]), CK.load_checkpoint(tiny["llama_mha"])
    assert (g.config.H_kv, h.config.H_kv) == (2, 4)
    a, b = g.forward(IDS), h.forward(IDS)
    assert np.abs(a["output"] - b["output"]).max() <= _FWD_TOL * np.abs(a["output"]).max()
    for la, lb in zip(a["layers"], b["layers"]):
        assert all(np.array_equal(x, y) for x, y in zip(la["A"], lb["A"]))


def _gpt2_reference_linear_layout(t: dict, ids, d=D_GPT2, H=4, eps=1e-5):
    """GPT-2 written from scratch with torch.nn.Linear's layout: weight [out, in], y = x W^T + b."""
    f = {k: v.astype(np.float64) for k, v in t.items()}
    lin = {k[:-len(".weight")]: f[k].T for k in f if k.endswith("c_attn.weight") or k.endswith("c_proj.weight")
           or k.endswith("c_fc.weight")}  # Conv1D [in, out] -> Linear [out, in]
    linear = lambda x, name: x @ lin[name].T + f[name + ".bias"]

    def ln(x, name):
        mu = x.mean(-1, keepdims=True)
        return ((x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps) * f[name + ".weight"]
                + f[name + ".bias"])

    n, dk = len(ids), d // H
    x = f["wte.weight"][ids] + f["wpe.weight"][:n]
    for i in range(2):
        a = ln(x, f"h.{i}.ln_1")
        qkv = linear(a, f"h.{i}.attn.c_attn")
        q, k, v = (qkv[:, j * d:(j + 1) * d].reshape(n, H, dk).transpose(1, 0, 2) for j in range(3))
        s = q @ k.transpose(0, 2, 1) / math.sqrt(dk) + np.triu(np.full((n, n), -np.inf), 1)
        p = np.exp(s - s.max(-1, keepdims=True))
        z = (p / p.sum(-1, keepdims=True)) @ v  # [H, n, dk]
        x = x + linear(z.transpose(1, 0, 2).reshape(n, d), f"h.{i}.attn.c_proj")
        hdn = linear(ln(x, f"h.{i}.ln_2"), f"h.{i}.mlp.c_fc")
        hdn = 0.5 * hdn * (1 + np.tanh(math.sqrt(2 / math.pi) * (hdn + 0.044715 * hdn ** 3)))
        x = x + linear(hdn, f"h.{i}.mlp.c_proj")
    return ln(x, "ln_f")


def test_checkpoints_conv1d_layout_matches_linear_layout_reference(tiny):
    m = CK.load_checkpoint(tiny["gpt2"])
    got = m.forward(IDS, record=False)["output"]
    ref = _gpt2_reference_linear_layout(gpt2_tensors(np.random.default_rng(2)), IDS)
    assert np.abs(got - ref).max() <= _FWD_TOL * 10 * np.abs(ref).max()  # different summation order


def _bf16(x):
    """What a bf16 file holds for float32 x, as float64 (rounded by this file's writer, widened by hand)."""
    return (_to_bf16_bits(x).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _llama_reference(t: dict, ids, d=D_LLAMA, H=4, H_kv=2, eps=1e-6, theta=1e4):
    """LLaMA written from scratch in Hugging Face's terms: repeat_kv, rotate_half, Linear [out, in]."""
    f = {k: _bf16(v) for k, v in t.items()}
    n, dk, rep = len(ids), d // H, H // H_kv
    rms = lambda x, w: w * (x / np.sqrt((x ** 2).mean(-1, keepdims=True) + eps))
    inv_freq = 1.0 / theta ** (np.arange(0, dk, 2) / dk)
    emb = np.concatenate([np.outer(np.arange(n), inv_freq)] * 2, axis=-1)  # [n, dk]
    rotate_half = lambda x: np.concatenate([-x[..., dk // 2:], x[..., :dk // 2]], axis=-1)
    rot = lambda x: x * np.cos(emb) + rotate_half(x) * np.sin(emb)
    x = f["model.embed_tokens.weight"][ids]
    for i in range(2):
        w = lambda name, i=i: f[f"model.layers.{i}.{name}.weight"]
        h = rms(x, w("input_layernorm"))
        q = (h @ w("self_attn.q_proj").T).reshape(n, H, dk).transpose(1, 0, 2)
        k = (h @ w("self_attn.k_proj").T).reshape(n, H_kv, dk).transpose(1, 0, 2)
        v = (h @ w("self_attn.v_proj").T).reshape(n, H_kv, dk).transpose(1, 0, 2)
        k, v = np.repeat(k, rep, axis=0), np.repeat(v, rep, axis=0)  # repeat_kv
        s = rot(q) @ rot(k).transpose(0, 2, 1) / math.sqrt(dk) + np.triu(np.full((n, n), -np.inf), 1)
        p = np.exp(s - s.max(-1, keepdims=True))
        o = ((p / p.sum(-1, keepdims=True)) @ v).transpose(1, 0, 2).reshape(n, H * dk)
        x = x + o @ w("self_attn.o_proj").T
        h = rms(x, w("post_attention_layernorm"))
        g = h @ w("mlp.gate_proj").T
        x = x + ((g / (1 + np.exp(-g))) * (h @ w("mlp.up_proj").T)) @ w("mlp.down_proj").T
    return rms(x, f["model.norm.weight"])


def test_checkpoints_llama_matches_a_reference_written_from_scratch(tiny):
    m = CK.load_checkpoint(tiny["llama"])
    got = m.forward(IDS, record=False)["output"]
    ref = _llama_reference(llama_tensors(np.random.default_rng(3)), IDS)
    assert np.abs(got - ref).max() <= _FWD_TOL * 10 * np.abs(ref).max()  # different summation order


def test_checkpoints_raw_w_o_is_the_stored_matrix(tiny):
    m = CK.load_checkpoint(tiny["llama"])
    W = m.f32[1]
    assert W.dtype == np.float32 and W.shape == (D_LLAMA, D_LLAMA)
    assert np.array_equal(W.astype(np.float64), m.layers[1].Wo)
    assert np.all(W.view(np.uint32) & 0xFFFF == 0)  # bf16 values, widened without rounding


def test_checkpoints_exact_rms_site_against_a_50_digit_svd():
    """rank/arank of RMSNorm(X) (decided exactly) against mpmath's SVD at 50 digits (independent)."""
    rng = np.random.default_rng(4)
    for n, d in [(3, 5), (6, 4), (5, 5)]:
        X = rng.standard_normal((n, d))
        if n > d:
            X[0] = X[1] + X[2]  # rank X < n: the affine rank needs the square classes
        g = 1 + 0.1 * rng.standard_normal(d)
        s = RM.exact_rms_site(X, g)
        with mpmath.workdps(50):
            Xm = mpmath.matrix(X.tolist())
            Y = mpmath.matrix(n, d + 1)
            for i in range(n):
                r = mpmath.sqrt(mpmath.fsum(Xm[i, j] ** 2 for j in range(d)) / d)
                for j in range(d):
                    Y[i, j] = Xm[i, j] / r * mpmath.mpf(float(g[j]))
                Y[i, d] = 1
            rank = lambda M: sum(1 for v in mpmath.svd_r(M, compute_uv=False) if abs(v) > mpmath.mpf(10) ** -30)
            Ymat = mpmath.matrix([[Y[i, j] for j in range(d)] for i in range(n)])
            assert s["rank_RMS_X"] == rank(Ymat)
            assert s["arank_RMS_X"] == rank(Y) - 1
            assert s["rank_X"] == rank(Xm)


def test_checkpoints_exact_rms_site_hypotheses_fail_with_a_reason():
    X = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [1.0, -1.0, 0.5]])
    s = RM.exact_rms_site(X, np.ones(3))
    assert s["R1"] is False and s["rank_RMS_X"] is None and "a row of X is zero" in s["how"]["rank_RMS_X"]
    assert s["rank_X"] == 2 and s["arank_X"] == 2
    s = RM.exact_rms_site(X[[0, 2]], np.array([1.0, 0.0, 2.0]))
    # R2 fails, yet RMSNorm is defined: its ranks are still decided (a zero column), with the reason shown
    assert s["R2"] is False and s["rank_RMS_X"] == 2 and "gamma_j = 0" in s["how"]["arank_RMS_X"]


# --- the command line on each family -----------------------------------------------------------

def _cli(capsys, *argv):
    argv = list(argv)
    if argv[0] == "real-model" and "--workers" not in argv:
        argv += ["--workers", "1"]  # the claims at sites in this process (the worker pools: test_model_check.py)
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


KEPT = {  # which SYM.* layer 0 keeps, per family
    "bert": {"SYM.token-permutation": True, "SYM.head-permutation": True, "SYM.value-output-gauge": True,
             "SYM.query-key-gauge": True, "SYM.ln-shift-scale": True},
    "gpt2": {"SYM.token-permutation": False, "SYM.head-permutation": True, "SYM.value-output-gauge": True,
             "SYM.query-key-gauge": True, "SYM.ln-shift-scale": True},
    "llama": {"SYM.token-permutation": False, "SYM.head-permutation": True, "SYM.value-output-gauge": True,
              "SYM.query-key-gauge": False, "SYM.ln-shift-scale": False},
}


@pytest.mark.slow
@pytest.mark.parametrize("fam", ["bert", "gpt2", "llama"])
def test_checkpoints_cli_json_every_family(tiny, tmp_path, capsys, fam):
    p = tmp_path / f"{fam}.json"
    code, out, err = _cli(capsys, "real-model", "--model", str(tiny[fam]), "--seed", "1", "--length", "20",
                          "--json", str(p))
    assert code == 0, err
    r = document(p.read_text(), "real-model")
    assert (r["family"], r["norm"], r["n_layers"]) == (fam, "rmsnorm" if fam == "llama" else "layernorm", 2)
    assert r["n_layers"] == len(r["layers"]) and r["inputs"] == {"random (seed 1)": 20}
    d = {"bert": D_BERT, "gpt2": D_GPT2, "llama": D_LLAMA}[fam]
    for L in r["layers"]:
        assert isinstance(L["W_O_exact_rank"], int) and L["W_O_exact_rank"] == d  # random W_O: full rank
        assert L["head_recovery_rel_error"] < 1e-8 and len(L["alpha"]) == 4 and len(L["alignment"]) == 4
        assert L["mha_rank"] <= L["sum_rowspace_dim"]
    assert len(r["norm_sites"]) == 5 and all(s["norm"] == r["norm"] for s in r["norm_sites"])
    if fam == "llama":
        ids = np.random.default_rng(1).integers(0, VOCAB, size=20)
        s = r["norm_sites"][0]  # the embeddings: repeated tokens are repeated rows
        assert s["R1"] and s["R2"] and s["rank_RMS_X"] == s["rank_X"] == len(set(ids.tolist())) < 20
        assert s["arank_RMS_X"] == s["rank_X"] - 1
        s = r["norm_sites"][1]  # after causal attention every row differs
        assert s["rank_RMS_X"] == s["rank_X"] == 20 and s["arank_RMS_X"] == 19 == s["arank_X"]
        assert "relative offset 0" in r["alpha_definition"]
        assert r["symmetries"]["SYM.query-key-gauge"]["commuting_subgroup_kept"] is True
        assert r["symmetries"]["SYM.ln-shift-scale"]["scale_kept"] is True
    else:
        assert all(s["H1"] and s["H3"] for s in r["norm_sites"])
    assert {k: v["kept"] for k, v in r["symmetries"].items() if k.startswith("SYM.")} == KEPT[fam]
    assert "eps = 0" in r["eps_note"] and len(r["depth"]["residual"]) == 3
    assert "symmetries of layer 0" in out


def test_checkpoints_rank_deficient_w_o_gets_an_exact_integer_rank(tmp_path, capsys):
    t = bert_tensors(np.random.default_rng(1))
    W = t["bert.encoder.layer.1.attention.output.dense.weight"]  # [out, in]
    W[:, 5] = W[:, 3]  # two rows of W_O (x @ W layout) equal: rank d - 1 exactly
    p = tmp_path / "r.json"
    code, _, err = _cli(capsys, "real-model", "--model", str(write_checkpoint(tmp_path / "b", bert_config(), t)),
                        "--length", "8", "--json", str(p))
    assert code == 0, err
    L = document(p.read_text(), "real-model")["layers"]
    assert [x["W_O_exact_rank"] for x in L] == [D_BERT, D_BERT - 1]
    assert L[1]["head_recovery_rel_error"] > 1e-6  # a head channel is lost: the heads are not recovered


def test_checkpoints_cli_caps_length_at_the_positions(tiny, tmp_path, capsys):
    p = tmp_path / "l.json"
    code, out, _ = _cli(capsys, "real-model", "--model", str(tiny["llama"]), "--length", str(10 ** 12),
                        "--json", str(p))
    r = document(p.read_text(), "real-model")
    assert code == 0 and r["inputs"] == {"random (seed 0)": MAX_POS}
    assert r["inputs_capped"] == {"random (seed 0)": {"requested": 10 ** 12, "used": MAX_POS}} and "capped" in out
    s = r["norm_sites"][1]  # n = 64 > d = 48: rank X = d < n, so the affine rank needs the square classes
    assert s["rank_X"] == D_LLAMA and s["arank_RMS_X"] == D_LLAMA
    assert any("square class" in v for v in s["how"].values())  # decided through the square classes


def test_checkpoints_cli_ids(tiny, tmp_path, capsys):
    p = tmp_path / "i.json"
    code, _, err = _cli(capsys, "real-model", "--model", str(tiny["gpt2"]), "--ids", json.dumps(IDS), "--json", str(p))
    assert code == 0, err
    assert document(p.read_text(), "real-model")["inputs"] == {"ids": len(IDS)}


@pytest.mark.parametrize("argv, needle", [
    (["--model", "{missing}"], "not found"),
    (["--model", "{file}"], "is not a directory"),
    (["--model", "{empty}"], "no config.json"),
    (["--model", "{bert}", "--ids", "[1, 2"], "--ids is not valid JSON"),
    (["--model", "{bert}", "--ids", "[1, -2]"], "token id 1 is -2, outside [0, 50)"),
    (["--model", "{bert}", "--ids", "[1, 50]"], "token id 1 is 50, outside [0, 50)"),
    (["--model", "{bert}", "--ids", "[]"], "non-empty JSON list"),
    (["--model", "{bert}", "--ids", '[1, "a"]'], "not an integer"),
    (["--model", "{bert}", "--length", "0"], "--length 0: give at least 1 token"),
    (["--model", "{bert}", "--length", "-3"], "--length -3: give at least 1 token"),
    (["--model", "{bert}", "--seed", "-1"], "--seed -1 is outside [0,"),
    (["--model", "{bert}", "--text", "hello"], "no tokenizer.json"),
    (["--model", "{bert}", "--ids", "[1]", "--length", "4"], "cannot be combined"),
    (["--model", "{t5}"], "model_type 't5' is not supported"),
])
def test_checkpoints_cli_bad_input_exits_2(tiny, tmp_path, capsys, argv, needle):
    (tmp_path / "file").write_text("x")
    (tmp_path / "empty").mkdir()
    t5 = tmp_path / "t5"
    t5.mkdir()
    (t5 / "config.json").write_text(json.dumps({**bert_config(), "model_type": "t5"}))
    _write_safetensors(t5 / "model.safetensors", {"x": np.zeros(2, np.float32)}, "F32")
    paths = {"missing": tmp_path / "nope", "file": tmp_path / "file", "empty": tmp_path / "empty", "t5": t5,
             "bert": tiny["bert"]}
    argv = [a.format(**{k: str(v) for k, v in paths.items()}) for a in argv]
    code, _, err = _cli(capsys, "real-model", *argv)
    assert code == 2 and needle in err, err


@pytest.mark.slow
def test_checkpoints_cli_text_with_a_tokenizer_and_the_cap(tmp_path, capsys):
    tokenizers = pytest.importorskip("tokenizers")
    # 16 positions: the cap is the model's, whatever it is (the site claims' cost grows fast with the tokens:
    # 12 s at 16, 25 s at 32 on this machine)
    cap = 16
    folder = write_checkpoint(tmp_path / "bt", bert_config(max_pos=cap),
                              bert_tensors(np.random.default_rng(1), max_pos=cap))
    words = [f"w{i}" for i in range(VOCAB - 1)]
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel({"[UNK]": 0, **{w: i + 1 for i, w in enumerate(words)}},
                                                           unk_token="[UNK]"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tok.save(str(folder / "tokenizer.json"))
    p = tmp_path / "t.json"
    code, out, err = _cli(capsys, "real-model", "--model", str(folder), "--text", "w1 w2 w3 w4",
                          "--text", " ".join(words[:40] * 2), "--json", str(p))
    assert code == 0, err
    r = document(p.read_text(), "real-model")
    assert r["inputs"] == {"text0": 4, "text1": cap} and r["inputs_capped"] == {"text1": {"requested": 80, "used": cap}}
    assert r["cosine"] is not None and r["family"] == "bert"  # the sentence sanity check runs on any bert
    code, _, err = _cli(capsys, "real-model", "--model", str(folder), "--seed", "2", "--length", "5", "--json", str(p))
    # random ids asked for
    assert code == 0 and document(p.read_text(), "real-model")["inputs"] == {"random (seed 2)": 5}


# --- the safetensors library as the reader's oracle (issue 58) ----------------------------------------------------

def _library_tensors(folder) -> dict:
    """Every tensor of a checkpoint folder as the safetensors library reads it: name -> (dtype, shape, array or None
    for BF16, which the library's numpy API cannot return)."""
    out = {}
    for f in sorted(folder.glob("*.safetensors")):
        with safe_open(str(f), framework="numpy") as h:
            for name in h.keys():
                sl = h.get_slice(name)
                arr = None if sl.get_dtype() == "BF16" else h.get_tensor(name)
                out[name] = (sl.get_dtype(), tuple(sl.get_shape()), arr)
    return out


@pytest.mark.parametrize("dt, shards", [("F32", 1), ("F16", 1), ("F64", 1), ("F32", 3), ("BF16", 1)])
def test_checkpoints_the_reader_agrees_with_the_safetensors_library(tmp_path, dt, shards):
    """The hand-written reader (memory maps, row reads, BF16) against the library on the same files: the same names,
    dtypes and shapes; every tensor the library can read equal bit for bit after widening (F16 and F32 exactly to
    float64); BF16, which the library's numpy API cannot return, is the writer's float32 rounded to bf16 exactly, and
    the library accepts the hand-written file's layout."""
    tensors = bert_tensors(np.random.default_rng(11))
    if dt == "F64":  # values float32 cannot hold: a reader that passes F64 through float32 fails
        tensors = {k: v.astype(np.float64) * (1 + 2.0 ** -40) if v.dtype != bool else v for k, v in tensors.items()}
    folder = write_checkpoint(tmp_path / f"{dt}-{shards}", bert_config(), tensors, dt=dt, shards=shards)
    lib = _library_tensors(folder)
    store = CK.TensorStore(folder)
    assert sorted(store.names()) == sorted(lib) == sorted(tensors)
    for name, (ldt, shape, arr) in lib.items():
        assert (store.dtype(name), store.shape(name)) == (ldt, shape) == (dt, tensors[name].shape), name
        got = store.get(name)
        if arr is not None:
            want = arr.astype(np.float64)
            assert got.dtype == np.float64 and np.array_equal(got, want), name
            rows = [1, 0, 1] if got.ndim == 2 else None  # the row reads (embedding rows of token ids) too
            if rows is not None:
                assert np.array_equal(store.get(name, rows=rows), want[rows]), name
        else:
            want = (_to_bf16_bits(tensors[name]).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
            assert np.array_equal(got, want), name
