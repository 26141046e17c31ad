r"""The site registry: one typed id for every site of a checkpoint's forward pass, derived once from its config.

In the manner of TransformerLens's hook names (``blocks.{l}.attn.hook_z``), a site is named by where it sits in the
forward, not by words: :class:`SiteId` ``(layer, component, point, head)``, rendered

===========================  ===================  ==========================================================
id                           kind                 what the site gives
===========================  ===================  ==========================================================
``ln_embed.input``           norm input           the embeddings' LayerNorm input (post-LN families)
``L{l}.ln1.input``           norm input           the input of layer l's first norm (before or after attention)
``L{l}.ln2.input``           norm input           the input of layer l's second norm (before or after the MLP)
``L{l}.attn.W_O``            output-projection    layer l's stored W_O, split into its heads
``L{l}.head{h}.output``      head-output          head h's output Y_h with its block W_O^h
``L{l}.attn.input``          attention            layer l's attention input X with its heads
``L{l}.attn.update``         residual-update      the update X -> X + Delta the attention sublayer makes
``L{l}.mlp.update``          residual-update      the update the MLP sublayer makes
``ln_final.input``           norm input           the final norm's input (pre-LN families)
===========================  ===================  ==========================================================

``str(site)`` is the id a record carries (``site``); :meth:`SiteId.parse` reads it back (``parse(str(s)) == s``) and
refuses anything else, naming the grammar. :func:`site_registry` lists the sites a config's forward has, in the order
the forward reaches them, each with its kind and a display label for tables (``site_label`` in a record: "layer 0
attention output" for a post-LN model's ``L0.ln1.input``). The forward
(:func:`proofs_numeric.model.sites.forward_sites`) and the plan (:func:`proofs_numeric.model.sites.site_plan`:
progress totals and ``--resume``) both walk this registry; nothing reads a label back.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["SiteId", "SiteIdError", "SiteSpec", "site_registry", "site_of", "NORM_COMPONENTS", "ID_GRAMMAR",
           "norm_kind_of", "LN_EMBED", "LN_FINAL"]

#: the components of a norm site, in the order the forward reaches them
NORM_COMPONENTS = ("ln_embed", "ln1", "ln2", "ln_final")
#: (component, point) of each site of a layer, in the order the forward yields them (``head`` carries an index)
_LAYER_ORDER = (("ln1", "input"), ("ln2", "input"), ("attn", "W_O"), ("head", "output"), ("attn", "input"),
                ("attn", "update"), ("mlp", "update"))
#: the layer-less sites: the embeddings' norm (before layer 0) and the final norm (after the last layer)
_OUTSIDE = {("ln_embed", "input"): -1, ("ln_final", "input"): 1}
#: the grammar of an id, for messages
ID_GRAMMAR = ("ln_embed.input, L{l}.ln1.input, L{l}.ln2.input, L{l}.attn.W_O, L{l}.head{h}.output, L{l}.attn.input, "
              "L{l}.attn.update, L{l}.mlp.update, ln_final.input")
_LAYER_RE = re.compile(r"L(0|[1-9][0-9]*)")
_HEAD_RE = re.compile(r"head(0|[1-9][0-9]*)")


class SiteIdError(ValueError):
    """A text that is not a site id (a record stream written before ids were typed, or a typing error)."""


@dataclass(frozen=True)
class SiteId:
    """Where a site is in the forward: ``layer`` (None for the embeddings' and the final norm), ``component``
    (``ln_embed``, ``ln1``, ``ln2``, ``ln_final``, ``attn``, ``head``, ``mlp``), ``point`` (``input``, ``W_O``,
    ``output``, ``update``) and, for a head's output, ``head``. Construct only valid ids (checked here)."""

    layer: int | None
    component: str
    point: str
    head: int | None = None

    def __post_init__(self) -> None:
        cp = (self.component, self.point)
        if cp in _OUTSIDE:
            ok = self.layer is None and self.head is None
        elif cp in _LAYER_ORDER:
            ok = (isinstance(self.layer, int) and not isinstance(self.layer, bool) and self.layer >= 0
                  and ((self.head is not None and isinstance(self.head, int) and self.head >= 0)
                       if self.component == "head" else self.head is None))
        else:
            ok = False
        if not ok:
            raise SiteIdError(f"not a site id: layer={self.layer!r}, component={self.component!r}, "
                              f"point={self.point!r}, head={self.head!r} (ids: {ID_GRAMMAR})")

    def __str__(self) -> str:
        comp = self.component + ("" if self.head is None else str(self.head))
        return f"{comp}.{self.point}" if self.layer is None else f"L{self.layer}.{comp}.{self.point}"

    def __repr__(self) -> str:
        return f"SiteId({str(self)!r})"

    @classmethod
    def parse(cls, text) -> SiteId:
        """The id ``str(site)`` rendered; :class:`SiteIdError` (one line, naming the grammar) for anything else."""
        if not isinstance(text, str):
            raise SiteIdError(f"{text!r} is not a site id (ids: {ID_GRAMMAR})")
        return _parse(text)

    @classmethod
    def _parse(cls, text: str) -> SiteId:
        bad = SiteIdError(f"{text!r} is not a site id (ids: {ID_GRAMMAR})")
        parts = text.split(".")
        if len(parts) == 3:
            lm = _LAYER_RE.fullmatch(parts[0])
            if lm is None:
                raise bad
            layer: int | None = int(lm.group(1))
            parts = parts[1:]
        elif len(parts) == 2:
            layer = None
        else:
            raise bad
        comp, point = parts
        hm = _HEAD_RE.fullmatch(comp)
        try:
            out = cls(layer, "head", point, int(hm.group(1))) if hm else cls(layer, comp, point)
        except SiteIdError:
            raise bad from None
        if str(out) != text:  # e.g. a head index on a component that has none
            raise SiteIdError(f"{text!r} is not a site id (ids: {ID_GRAMMAR})")
        return out

    @property
    def is_norm(self) -> bool:
        return self.component in NORM_COMPONENTS

    def order_key(self) -> tuple:
        """The position of this site in the forward of any config: the embeddings' norm first, then layer by layer
        (norms, W_O, heads, attention, updates), the final norm last."""
        outside = _OUTSIDE.get((self.component, self.point))
        if outside is not None:
            return (outside, 0, 0, 0)
        return (0, self.layer, _LAYER_ORDER.index((self.component, self.point)), self.head or 0)


@lru_cache(maxsize=8192)
def _parse(text: str) -> SiteId:
    return SiteId._parse(text)


#: the layer-less norm sites: the embeddings' LayerNorm (post-LN families) and the final norm (pre-LN families)
LN_EMBED, LN_FINAL = SiteId(None, "ln_embed", "input"), SiteId(None, "ln_final", "input")


def site_of(record: dict) -> SiteId:
    """The typed id of a record's ``site`` (:class:`SiteIdError` for a record that carries no site id)."""
    return SiteId.parse(record.get("site"))


@dataclass(frozen=True)
class SiteSpec:
    """One site of a config's forward: its id, its kind (:data:`theorems.framework.SITE_KINDS`) and a label for
    tables (never parsed)."""

    id: SiteId
    kind: str
    label: str


def norm_kind_of(config) -> str:
    return "rmsnorm-input" if config.norm == "rmsnorm" else "layernorm-input"


def site_registry(config) -> tuple[SiteSpec, ...]:
    """Every site of the forward of a checkpoint with this config (:class:`proofs_numeric.model.checkpoint.Config`),
    in the order the forward reaches them. Lists every kind; a kind the model does not give as the claims' map (the
    attention of a causal or rotary layer) is left out by the caller
    (:func:`proofs_numeric.model.sites.model_kinds`)."""
    norm = norm_kind_of(config)
    post = bool(config.post_ln)
    ln1, ln2 = ("attention output", "output") if post else ("attention input", "MLP input")
    out: list[SiteSpec] = []
    if post:
        out.append(SiteSpec(LN_EMBED, norm, "embeddings"))
    for li in range(config.n_layers):
        out += [SiteSpec(SiteId(li, "ln1", "input"), norm, f"layer {li} {ln1}"),
                SiteSpec(SiteId(li, "ln2", "input"), norm, f"layer {li} {ln2}"),
                SiteSpec(SiteId(li, "attn", "W_O"), "output-projection", f"layer {li}")]
        out += [SiteSpec(SiteId(li, "head", "output", h), "head-output", f"layer {li} head {h}")
                for h in range(config.H)]
        out += [SiteSpec(SiteId(li, "attn", "input"), "attention", f"layer {li}"),
                SiteSpec(SiteId(li, "attn", "update"), "residual-update", f"layer {li} attention"),
                SiteSpec(SiteId(li, "mlp", "update"), "residual-update", f"layer {li} MLP")]
    if not post:
        out.append(SiteSpec(LN_FINAL, norm, "final norm"))
    return tuple(out)
