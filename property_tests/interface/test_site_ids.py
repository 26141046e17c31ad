"""The site registry (:mod:`proofs_numeric.model.site_ids`): typed ids that round-trip, one registry walked by the
forward and by the plan, records keyed by the id, and no code that reads a site back from its words.

The registry is derived from a checkpoint's config alone, so the round trip runs over every site of full-size BERT,
GPT-2 and LLaMA shapes (config files only: no weights are written); the forward and the plan run on the tiny
checkpoints of ``test_model_check.py``.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proofs_numeric.cli import main
from proofs_numeric.ledger import model_check as MC
from proofs_numeric.ledger import registry
from proofs_numeric.model import sites as S
from proofs_numeric.model import synthetic as SY
from proofs_numeric.model.checkpoint import read_config
from proofs_numeric.model.site_ids import SiteId, SiteIdError, site_registry
from property_tests.interface.test_model_check import tiny  # noqa: F401 - the tiny checkpoints (a fixture)

ROOT = Path(__file__).resolve().parents[2]

#: config.json of full-size shapes: BERT-base, GPT-2 small, a LLaMA-7B-shaped model (32 layers, 32 / 8 heads)
SHAPES = {
    "bert": SY.bert_config(),
    "gpt2": {"model_type": "gpt2", "n_embd": 768, "n_head": 12, "n_layer": 12, "n_positions": 1024,
             "layer_norm_epsilon": 1e-5, "vocab_size": 1000, "activation_function": "gelu_new"},
    "llama": SY.llama_config(layers=32),
}


@pytest.fixture(scope="module")
def configs(tmp_path_factory):
    root = tmp_path_factory.mktemp("shapes")
    out = {}
    for fam, cfg in SHAPES.items():
        (root / fam).mkdir()
        (root / fam / "config.json").write_text(json.dumps(cfg))
        out[fam] = read_config(root / fam)
    return out


@pytest.mark.parametrize("fam", sorted(SHAPES))
def test_site_ids_round_trip_over_every_site_of_a_full_size_model(configs, fam):
    """id -> string -> id is the identity at every site of the registry; no two sites render alike; the registry is in
    the order of the forward (:meth:`SiteId.order_key`); the counts are the architecture's: per layer two norms, W_O,
    H heads, the attention, two updates; the embeddings' norm (post-LN) or the final norm (pre-LN)."""
    c = configs[fam]
    reg = site_registry(c)
    texts = [str(s.id) for s in reg]
    assert [SiteId.parse(t) for t in texts] == [s.id for s in reg]
    assert len(set(texts)) == len(texts)
    assert [s.id for s in reg] == sorted((s.id for s in reg), key=SiteId.order_key)
    assert len(reg) == c.n_layers * (2 + 1 + c.H + 1 + 2) + 1
    assert (str(reg[0].id), reg[0].label) == (("ln_embed.input", "embeddings") if c.post_ln else
                                              ("L0.ln1.input", "layer 0 attention input"))
    if not c.post_ln:
        assert (str(reg[-1].id), reg[-1].label) == ("ln_final.input", "final norm")
    norm = "rmsnorm-input" if fam == "llama" else "layernorm-input"
    assert {s.kind for s in reg if s.id.is_norm} == {norm}
    last = c.n_layers - 1
    assert f"L{last}.head{c.H - 1}.output" in texts and f"L{last}.attn.W_O" in texts


_LAYERED = [("ln1", "input"), ("ln2", "input"), ("attn", "W_O"), ("attn", "input"), ("attn", "update"),
            ("mlp", "update")]
VALID_IDS = st.one_of(
    st.sampled_from([SiteId(None, "ln_embed", "input"), SiteId(None, "ln_final", "input")]),
    st.builds(lambda li, cp: SiteId(li, *cp), st.integers(0, 10**6), st.sampled_from(_LAYERED)),
    st.builds(lambda li, h: SiteId(li, "head", "output", h), st.integers(0, 10**6), st.integers(0, 10**4)))


@given(VALID_IDS)
def test_site_ids_any_valid_id_round_trips(sid):
    """Every site id renders to a text the parser reads back to it (any layer, any head index)."""
    assert SiteId.parse(str(sid)) == sid and str(SiteId.parse(str(sid))) == str(sid)


@given(layer=st.one_of(st.none(), st.integers(-3, 50)), comp=st.sampled_from(
    ["ln_embed", "ln1", "ln2", "ln_final", "attn", "head", "mlp", "ln", "x"]),
       point=st.sampled_from(["input", "W_O", "output", "update", "mha", "w_o"]),
       head=st.one_of(st.none(), st.integers(-2, 40)))
def test_site_ids_the_constructor_makes_only_site_ids(layer, comp, point, head):
    """The constructor accepts exactly the sites (a layer-less norm; a layer's norm, W_O, attention or update; a
    layer's head with its index) and refuses every other combination; what it accepts round-trips."""
    cp = (comp, point)
    in_layer = layer is not None and layer >= 0
    valid = ((cp in (("ln_embed", "input"), ("ln_final", "input")) and layer is None and head is None)
             or (cp in _LAYERED and in_layer and head is None)
             or (cp == ("head", "output") and in_layer and head is not None and head >= 0))
    try:
        sid = SiteId(layer, comp, point, head)
    except SiteIdError:
        assert not valid
        return
    assert valid and SiteId.parse(str(sid)) == sid


@given(st.text(alphabet="L0123456789.lnembdfiahtpuoWO_ :-", max_size=24))
def test_site_ids_the_parser_accepts_only_rendered_ids(text):
    """Whatever the parser accepts renders back to the same text (one spelling per site), and anything else is a
    SiteIdError (a ValueError with a one-line message naming the grammar), never another exception."""
    try:
        sid = SiteId.parse(text)
    except SiteIdError as e:
        assert "\n" not in str(e) and "L{l}.ln1.input" in str(e)
        return
    assert str(sid) == text


@pytest.mark.parametrize("text", ["norm: layer 0 attention input", "W_O: layer 3", "head: layer 1 head 2",
                                  "update: layer 0 MLP", "attention: layer 0", "norm: embeddings", "L01.ln1.input",
                                  "L0.head.output", "L0.head01.output", "ln1.input", "L0.ln_final.input",
                                  "L0.attn.W_O.x", "", "L0.mlp.W_O"])
def test_site_ids_words_and_misspellings_are_refused(text):
    with pytest.raises(SiteIdError, match="is not a site id"):
        SiteId.parse(text)


@pytest.mark.parametrize("fam", ["bert", "gpt2", "llama"])
def test_site_ids_the_forward_yields_every_registry_site_in_order(tiny, fam):  # noqa: F811 - the fixture
    """The forward's sites are the registry's, in its order, with its kinds and labels: a forward that drops or
    reorders a site (or a registry that lists one the forward does not make) turns this red."""
    m = S.open_model(tiny[fam])
    got = [(s.id, s.kind, s.label) for s in S.forward_sites(m, [3, 1, 4, 1, 5, 9], "in", "x", weight_refs=False)]
    want = [(s.id, s.kind, s.label) for s in S.model_sites(m)]
    assert got == want
    kinds = {k for _, k, _ in got}
    assert {"output-projection", "head-output", "residual-update"} <= kinds
    assert ("attention" in kinds) == (fam == "bert")  # causal / rotary layers have no attention site


@pytest.mark.parametrize("fam", ["bert", "gpt2", "llama"])
def test_site_ids_the_plan_is_the_forward_site_by_site(tiny, fam):  # noqa: F811 - the fixture
    """The plan (progress totals, --resume) lists the tasks the forward yields, the same typed ids in the same order,
    network-level sites included (bert, gpt2: the interval forward through both layers), every kind of site a claim
    is declared at."""
    registry()
    m = S.open_model(tiny[fam])
    claims = MC.select_claims("RN.main,HC.main,RA.main,RC.*,RRO.only-increase,USER.rmsnorm-*")
    ids = [3, 1, 4, 1, 5, 9]
    tasks = list(S.site_tasks(m, "x", "in", ids, claims))
    got = [(s.id, s.kind, s.level, items) for s, items in tasks]
    plan = S.site_plan(m, ids, claims)
    assert [p[0] for p in plan] == [g[0] for g in got]  # ids and order first: the clearest message
    assert plan == got
    assert all(isinstance(p[0], SiteId) for p in plan)
    assert {s.kind for s, _ in tasks} >= {"output-projection", "head-output", "residual-update"}
    assert any(s.enclosure for s, _ in tasks) == (fam != "llama")


def test_site_ids_records_are_keyed_by_the_typed_id(tiny):  # noqa: F811 - the fixture
    """A record carries its site as the rendered id and the registry's label beside it; the record key holds the
    typed id."""
    registry()
    m = S.open_model(tiny["bert"])
    recs = S.run_serial(m, "bert", {"x": [3, 1, 4, 1, 5, 9]}, MC.select_claims("RN.main,HC.main"), network_layers=0)
    labels = {str(s.id): s.label for s in S.model_sites(m)}
    assert recs and all(labels[r["site"]] == r["site_label"] for r in recs)
    assert {S.record_key(r)[2] for r in recs} == {SiteId.parse(r["site"]) for r in recs}
    assert list(recs[0])[5:8] == ["site", "site_label", "site_kind"]


def test_site_ids_a_stream_with_sites_in_words_is_refused_and_left_alone(tiny, tmp_path, capsys):  # noqa: F811
    """--resume on a stream written before site ids were typed (its records name sites in words): exit 2, one line
    naming the file and the site, no traceback, the file byte-identical (never keyed by its words)."""
    p = tmp_path / "old.jsonl"
    old = {"checkpoint": str(tiny["bert"]), "input": "random (seed 0)", "site": "norm: layer 0 attention output",
           "claim": "RN.main", "reading": "literal", "about": {"level": "float-computation"}}
    p.write_text('{"collapse_verify": {"kind": "model-check", "version": 1}}\n' + json.dumps(old) + "\n")
    before = p.read_bytes()
    code = main(["check", "RN.main", "--model", str(tiny["bert"]), "--length", "4", "--workers", "1", "--resume",
                 str(p), "--network-layers", "0"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and str(p) in lines[0] and "'norm: layer 0 attention output' is not a site id" in lines[0]
    assert p.read_bytes() == before


#: what reading a site back from its words looks like: the old prefixes, or string surgery on a site field
_PARSING = [re.compile(r"""["'](norm|W_O|head|attention|update): """),
            re.compile(r"""\b(sid|site|site_label|where)\b(\[[^\]]*\])?\s*\.\s*(split|rsplit|startswith|endswith|"""
                       r"""partition|removeprefix|removesuffix)\("""),
            re.compile(r"""\[["'](site|site_label)["']\]\s*\.\s*(split|rsplit|startswith|endswith|partition|"""
                       r"""removeprefix|removesuffix|replace)\(""")]


def parsing_lines(text: str) -> list[str]:
    """The lines of ``text`` that read a site from words (:data:`_PARSING`)."""
    return [ln.strip() for ln in text.splitlines() if any(p.search(ln) for p in _PARSING)]


def test_site_ids_no_code_parses_a_site_from_its_words():
    """No module of the numeric layer and no book page reads a site back from a display string: ids are parsed by
    :meth:`SiteId.parse` only. (Before the registry, ``real_model.measurements`` did ``sid.startswith("norm: ")`` and
    ``int(sid.split()[-1])``.)"""
    files = sorted((ROOT / "proofs_numeric").rglob("*.py")) + sorted((ROOT / "book").glob("**/*.md"))
    found = {str(f.relative_to(ROOT)): hits for f in files if "_build" not in f.parts
             for hits in [parsing_lines(f.read_text(encoding="utf-8"))] if hits}
    assert found == {}


def test_site_ids_the_parsing_check_can_fail():
    """The grep above finds the old code (planted)."""
    old = ('        if not sid.startswith("norm: "):\n            continue\n'
           '                layers[int(sid.split()[-1])] = {"layer": int(sid.split()[-1])}\n'
           '    ok = r["site_label"].startswith("layer 0")\n')
    assert len(parsing_lines(old)) == 3
