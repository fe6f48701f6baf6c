"""A Qwen3-style decoder, the production model of notebook 10, and its Hugging Face loader.

Qwen3 (like Llama before it) keeps notebook 06's pre-norm causal decoder and changes the
block: RMSNorm instead of LayerNorm, a gated SiLU MLP (SwiGLU) without biases, grouped-query
attention (``n_kv_heads`` key/value heads shared by ``n_heads`` query heads) with an RMSNorm
on every query and key head (QK-norm), RoPE, and no bias anywhere. The head width ``d_k`` is
its own setting: ``n_heads * d_k`` need not equal ``d_model``.

Module names mirror notebook 10's classes (``embed, blocks, norm, head``; ``norm1, W_Q, W_K,
W_V, q_norm, k_norm, W_O, norm2, mlp``; ``w_gate, w_up, w_down``), so a learner's decoder and
`Qwen3LM` share state_dict keys. A block returns its output and the keys and values it
attended over, ``(h_out, (k, v))``, and accepts the cached ones of earlier tokens as
``past``: one block definition serves the full forward pass and cached decoding.

The checkpoint on the Hub stores Hugging Face's names and its RoPE layout: it rotates the
half-split pairs ``(i, i + d_k/2)`` of a head, where the course rotates consecutive pairs
``(2i, 2i+1)``. The loader renames every tensor and permutes the features of each query and
key head (rows of ``q_proj``, ``k_proj`` and the QK-norm weights) so that the same pairs turn
by the same angles; dot products, and therefore the logits, are unchanged.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

import torch
import torch.nn.functional as F
from torch import nn

from attnbook.lm.model import rope_tables, rotate_pairs

__all__ = [
    "Qwen3LMConfig",
    "Qwen3LM",
    "ModernBlock",
    "GatedMLP",
    "block_attention",
    "attention_maps",
    "config_from_hf",
    "config_to_hf",
    "hf_key_map",
    "state_dict_from_hf",
    "state_dict_to_hf",
    "load_hf_checkpoint",
    "load_hf_model",
    "save_hf_checkpoint",
    "config_kwargs",
    "tiny_checkpoint",
    "find_cached_qwen3",
    "QWEN3_0_6B",
]

QWEN3_0_6B = "Qwen/Qwen3-0.6B"


@dataclass
class Qwen3LMConfig:
    """Hyperparameters of a `Qwen3LM` (field order = notebook 10's `Qwen3Decoder` arguments)."""

    vocab_size: int  # V
    d_model: int = 64  # d: width of the residual stream
    n_layers: int = 2  # N: number of blocks
    n_heads: int = 4  # h: query heads
    n_kv_heads: int = 2  # h_kv: key/value heads, each shared by n_heads / n_kv_heads queries
    d_k: int = 16  # width of one head (Qwen3 sets it apart from d_model / h)
    d_hidden: int = 128  # SwiGLU hidden width
    max_len: int = 128  # longest sequence (RoPE tables are built for it)
    rope_base: float = 1_000_000.0  # theta_i = rope_base ** (-2i / d_k); Qwen3 uses 1e6
    eps: float = 1e-6  # RMSNorm's epsilon, inside the square root
    tie_weights: bool = False  # the head's weight is the token embedding

    def __post_init__(self) -> None:
        for name in (
            "vocab_size",
            "d_model",
            "n_layers",
            "n_heads",
            "n_kv_heads",
            "d_k",
            "d_hidden",
            "max_len",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"Qwen3LMConfig.{name}: expected a positive int, got {value!r}")
        if self.n_heads % self.n_kv_heads:
            raise ValueError(
                f"Qwen3LMConfig.n_heads: expected a multiple of n_kv_heads="
                f"{self.n_kv_heads}, got n_heads={self.n_heads}"
            )
        if self.d_k % 2:
            raise ValueError(
                f"Qwen3LMConfig.d_k: RoPE rotates pairs, so d_k must be even; got d_k={self.d_k}"
            )
        if not self.rope_base > 1.0:
            raise ValueError(
                f"Qwen3LMConfig.rope_base: expected a value > 1, got {self.rope_base!r}"
            )
        if not self.eps > 0.0:
            raise ValueError(f"Qwen3LMConfig.eps: expected a value > 0, got {self.eps!r}")

    @property
    def group_size(self) -> int:
        """Query heads per key/value head."""
        return self.n_heads // self.n_kv_heads


class GatedMLP(nn.Module):
    """SwiGLU: ``w_down(SiLU(w_gate(x)) * w_up(x))``, three linear maps without biases."""

    def __init__(self, config: Qwen3LMConfig) -> None:
        super().__init__()
        self.w_gate = nn.Linear(config.d_model, config.d_hidden, bias=False)
        self.w_up = nn.Linear(config.d_model, config.d_hidden, bias=False)
        self.w_down = nn.Linear(config.d_hidden, config.d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w_down(F.silu(self.w_gate(x)) * self.w_up(x))  # (B, L, d)


def _heads(x: torch.Tensor, n: int, d_k: int) -> torch.Tensor:
    B, L, _ = x.shape
    return x.view(B, L, n, d_k).transpose(1, 2)  # (B, n, L, d_k)


def _bottom_right_causal(L: int, total: int, device) -> torch.Tensor:
    """allowed[i, j]: new query i sits at position total - L + i and may read keys j <= it."""
    keys = torch.arange(total, device=device)  # (total,)
    queries = torch.arange(total - L, total, device=device)  # (L,)
    return keys[None, :] <= queries[:, None]  # (L, total)


class ModernBlock(nn.Module):
    """``U = H + W_O GQA(QKnorm(Q), QKnorm(K), V)`` on ``RMSNorm1(H)``, then
    ``H_out = U + SwiGLU(RMSNorm2(U))``; returns ``(H_out, (k, v))``."""

    def __init__(self, config: Qwen3LMConfig) -> None:
        super().__init__()
        d, h, h_kv, d_k = config.d_model, config.n_heads, config.n_kv_heads, config.d_k
        self.d_model, self.n_heads, self.n_kv_heads, self.d_k = d, h, h_kv, d_k
        self.norm1 = nn.RMSNorm(d, eps=config.eps)
        self.W_Q = nn.Linear(d, h * d_k, bias=False)
        self.W_K = nn.Linear(d, h_kv * d_k, bias=False)
        self.W_V = nn.Linear(d, h_kv * d_k, bias=False)
        self.q_norm = nn.RMSNorm(d_k, eps=config.eps)
        self.k_norm = nn.RMSNorm(d_k, eps=config.eps)
        self.W_O = nn.Linear(h * d_k, d, bias=False)
        self.norm2 = nn.RMSNorm(d, eps=config.eps)
        self.mlp = GatedMLP(config)

    def qkv(self, x: torch.Tensor, rope: tuple[torch.Tensor, torch.Tensor]):
        """Queries (B, h, L, d_k) and keys, values (B, h_kv, L, d_k) of normalised input x;
        QK-norm per head, then RoPE at the positions whose cos and sin ``rope`` holds."""
        q = self.q_norm(_heads(self.W_Q(x), self.n_heads, self.d_k))  # (B, h, L, d_k)
        k = self.k_norm(_heads(self.W_K(x), self.n_kv_heads, self.d_k))  # (B, h_kv, L, d_k)
        v = _heads(self.W_V(x), self.n_kv_heads, self.d_k)  # (B, h_kv, L, d_k)
        return rotate_pairs(q, *rope), rotate_pairs(k, *rope), v

    def forward(
        self,
        h: torch.Tensor,
        rope: tuple[torch.Tensor, torch.Tensor],
        past: tuple[torch.Tensor, torch.Tensor] | None = None,
    ):
        """h (B, L, d); rope (cos, sin), each (L, d_k/2) at the L new positions; past None or
        cached (k, v), each (B, h_kv, T, d_k). Returns (B, L, d) and (k, v) over T + L."""
        B, L, _ = h.shape
        q, k, v = self.qkv(self.norm1(h), rope)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)  # (B, h_kv, T + L, d_k)
            v = torch.cat([past[1], v], dim=2)  # (B, h_kv, T + L, d_k)
        T = k.shape[2] - L
        allowed = None if T == 0 else _bottom_right_causal(L, T + L, h.device)  # (L, T + L)
        y = F.scaled_dot_product_attention(
            q, k, v, attn_mask=allowed, is_causal=T == 0, enable_gqa=True
        )  # (B, h, L, d_k)
        u = h + self.W_O(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_k))
        return u + self.mlp(self.norm2(u)), (k, v)  # (B, L, d)


class Qwen3LM(nn.Module):
    """Token ids (B, L) -> next-token logits (B, L, V): ``head(RMSNorm(blocks(E[ids])))``."""

    rope_cos: torch.Tensor  # (max_len, d_k/2): buffers, registered in __init__
    rope_sin: torch.Tensor

    def __init__(self, config: Qwen3LMConfig) -> None:
        super().__init__()
        self.config = config
        self.max_len = config.max_len  # as notebook 10's Qwen3Decoder has it
        self.embed = nn.Embedding(config.vocab_size, config.d_model)
        self.blocks = nn.ModuleList(ModernBlock(config) for _ in range(config.n_layers))
        self.norm = nn.RMSNorm(config.d_model, eps=config.eps)
        self.head = nn.Linear(config.d_model, config.vocab_size, bias=False)
        cos, sin = rope_tables(config.max_len, config.d_k, config.rope_base)
        self.register_buffer("rope_cos", cos, persistent=False)  # (max_len, d_k/2)
        self.register_buffer("rope_sin", sin, persistent=False)  # (max_len, d_k/2)
        self.reset_parameters()
        if config.tie_weights:
            self.head.weight = self.embed.weight

    def reset_parameters(self) -> None:
        """N(0, 0.02) for every matrix, ones for every RMSNorm weight (as Qwen3 does)."""
        for module in self.modules():
            if isinstance(module, nn.Linear | nn.Embedding):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)
            elif isinstance(module, nn.RMSNorm):
                nn.init.ones_(module.weight)

    def num_parameters(self) -> int:
        """Distinct trainable numbers (a tied matrix counts once)."""
        return sum(p.numel() for p in self.parameters())

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        if idx.dim() != 2 or idx.dtype not in (torch.int64, torch.int32):
            raise ValueError(
                f"idx: expected an integer tensor of shape (B, L), got dtype "
                f"{idx.dtype} and shape {tuple(idx.shape)}"
            )
        L = idx.shape[1]
        if L > self.config.max_len:
            raise ValueError(f"idx: sequence length L={L} exceeds max_len={self.config.max_len}")
        rope = (self.rope_cos[:L], self.rope_sin[:L])  # (L, d_k/2) each
        h = self.embed(idx)  # (B, L, d)
        for block in self.blocks:
            h, _ = block(h, rope)  # (B, L, d)
        return self.head(self.norm(h))  # (B, L, V)


# ---------------------------------------------------------------------------------------
# Attention weights, for pictures and the head explorer
# ---------------------------------------------------------------------------------------
def _rms(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * weight


def _eps(norm: nn.Module) -> float:
    eps = getattr(norm, "eps", None)
    return 1e-6 if eps is None else float(eps)


def block_attention(block: Any, h: torch.Tensor, rope) -> torch.Tensor:
    """The causal attention weights A (B, n_heads, L, L) of one block on input h (B, L, d).

    Works on any block with the course's names (`ModernBlock`, notebook 10's `Qwen3Block`):
    head counts and widths are read from the weights' shapes. Typed ``Any``: the learner's
    classes are duck-typed, and an ``nn.Module``'s submodules are dynamic attributes.
    """
    d_k = block.q_norm.weight.shape[0]
    n_heads, n_kv = block.W_Q.weight.shape[0] // d_k, block.W_K.weight.shape[0] // d_k
    x = _rms(h, block.norm1.weight, _eps(block.norm1))  # (B, L, d)
    q = _rms(_heads(block.W_Q(x), n_heads, d_k), block.q_norm.weight, _eps(block.q_norm))
    k = _rms(_heads(block.W_K(x), n_kv, d_k), block.k_norm.weight, _eps(block.k_norm))
    q, k = rotate_pairs(q, *rope), rotate_pairs(k, *rope)  # (B, h, L, d_k), (B, h_kv, L, d_k)
    k = k.repeat_interleave(n_heads // n_kv, dim=1)  # (B, h, L, d_k): kv head j serves a group
    S = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (B, h, L, L)
    L = h.shape[1]
    causal = torch.ones(L, L, dtype=torch.bool, device=h.device).tril()
    return torch.softmax(S.masked_fill(~causal, float("-inf")), dim=-1)  # (B, h, L, L)


@torch.no_grad()
def attention_maps(model: Any, ids) -> torch.Tensor:
    """Attention weights of every layer and head for one sequence: (n_layers, h, L, L)."""
    ids = torch.as_tensor(ids, dtype=torch.long, device=model.rope_cos.device).reshape(1, -1)
    L = ids.shape[1]
    rope = (model.rope_cos[:L], model.rope_sin[:L])  # (L, d_k/2) each
    h = model.embed(ids)  # (1, L, d)
    maps = []
    for block in model.blocks:
        maps.append(block_attention(block, h, rope)[0].float())  # (h, L, L)
        h, _ = block(h, rope)  # (1, L, d)
    return torch.stack(maps)  # (n_layers, h, L, L)


# ---------------------------------------------------------------------------------------
# The Hugging Face format: config.json and safetensors with Qwen3ForCausalLM's names
# ---------------------------------------------------------------------------------------
#: Our name inside a block -> Hugging Face's name inside model.layers.{i}.
BLOCK_KEYS = {
    "norm1.weight": "input_layernorm.weight",
    "W_Q.weight": "self_attn.q_proj.weight",
    "W_K.weight": "self_attn.k_proj.weight",
    "W_V.weight": "self_attn.v_proj.weight",
    "q_norm.weight": "self_attn.q_norm.weight",
    "k_norm.weight": "self_attn.k_norm.weight",
    "W_O.weight": "self_attn.o_proj.weight",
    "norm2.weight": "post_attention_layernorm.weight",
    "mlp.w_gate.weight": "mlp.gate_proj.weight",
    "mlp.w_up.weight": "mlp.up_proj.weight",
    "mlp.w_down.weight": "mlp.down_proj.weight",
}
TOP_KEYS = {
    "embed.weight": "model.embed_tokens.weight",
    "norm.weight": "model.norm.weight",
    "head.weight": "lm_head.weight",
}
#: Tensors whose per-head features the half-split RoPE layout orders differently.
ROPE_PERMUTED = ("W_Q.weight", "W_K.weight", "q_norm.weight", "k_norm.weight")


def hf_key_map(config: Qwen3LMConfig) -> dict[str, str]:
    """Every state_dict key of `Qwen3LM` -> the Hugging Face key that holds it."""
    keys = dict(TOP_KEYS)
    for i in range(config.n_layers):
        keys |= {
            f"blocks.{i}.{ours}": f"model.layers.{i}.{theirs}"
            for ours, theirs in BLOCK_KEYS.items()
        }
    return keys


def expected_shapes(config: Qwen3LMConfig) -> dict[str, tuple[int, ...]]:
    """The shape of every tensor of `Qwen3LM` under `config`, by our key."""
    d, V, d_k, hidden = config.d_model, config.vocab_size, config.d_k, config.d_hidden
    q, kv = config.n_heads * d_k, config.n_kv_heads * d_k
    block = {
        "norm1.weight": (d,),
        "W_Q.weight": (q, d),
        "W_K.weight": (kv, d),
        "W_V.weight": (kv, d),
        "q_norm.weight": (d_k,),
        "k_norm.weight": (d_k,),
        "W_O.weight": (d, q),
        "norm2.weight": (d,),
        "mlp.w_gate.weight": (hidden, d),
        "mlp.w_up.weight": (hidden, d),
        "mlp.w_down.weight": (d, hidden),
    }
    shapes = {"embed.weight": (V, d), "norm.weight": (d,), "head.weight": (V, d)}
    for i in range(config.n_layers):
        shapes |= {f"blocks.{i}.{key}": shape for key, shape in block.items()}
    return shapes


def pairs_from_half_split(d_k: int) -> torch.Tensor:
    """Index taking a head's half-split features to our consecutive pairs:
    ``ours = theirs[..., index]``, so that HF's pair (i, i + d_k/2) becomes (2i, 2i + 1)."""
    half = torch.arange(d_k // 2)
    return torch.stack((half, half + d_k // 2), dim=-1).flatten()  # (d_k,)


def _permute_heads(tensor: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """Reorder the features of every head of a (n * d_k, ...) or (d_k,) tensor."""
    d_k = index.numel()
    heads = tensor.reshape(-1, d_k, *tensor.shape[1:])  # (n, d_k, ...)
    return heads[:, index].reshape(tensor.shape)


def _convert(key: str, tensor: torch.Tensor, config: Qwen3LMConfig, to_ours: bool):
    if not key.endswith(ROPE_PERMUTED):
        return tensor
    index = pairs_from_half_split(config.d_k)
    if not to_ours:
        index = torch.argsort(index)  # the inverse permutation
    return _permute_heads(tensor, index)


def state_dict_from_hf(
    hf_state: dict, config: Qwen3LMConfig, dtype: torch.dtype = torch.float32
) -> dict[str, torch.Tensor]:
    """A `Qwen3LM` state_dict from a Hugging Face one; missing, unexpected or misshapen
    tensors raise a ValueError that names them. A tied checkpoint may omit lm_head.weight."""
    names, shapes = hf_key_map(config), expected_shapes(config)
    if config.tie_weights and names["head.weight"] not in hf_state:
        names = {k: v for k, v in names.items() if k != "head.weight"}
    missing = sorted(v for v in names.values() if v not in hf_state)
    unexpected = sorted(set(hf_state) - set(names.values()) - {TOP_KEYS["head.weight"]})
    if missing:
        raise ValueError(
            f"checkpoint: {len(missing)} tensor(s) that config.json implies are "
            f"missing, e.g. {missing[:4]}"
        )
    if unexpected:
        raise ValueError(
            f"checkpoint: {len(unexpected)} tensor(s) this Qwen3 loader does not "
            f"know, e.g. {unexpected[:4]} (biases and other architectures are "
            "not supported)"
        )
    state = {}
    for ours, theirs in names.items():
        tensor = hf_state[theirs]
        if tuple(tensor.shape) != shapes[ours]:
            raise ValueError(
                f"checkpoint: {theirs} has shape {tuple(tensor.shape)}; "
                f"config.json implies {shapes[ours]}"
            )
        state[ours] = _convert(ours, tensor.to(dtype), config, to_ours=True)
    if "head.weight" not in state:
        state["head.weight"] = state["embed.weight"]
    return state


def state_dict_to_hf(state: dict, config: Qwen3LMConfig) -> dict[str, torch.Tensor]:
    """The inverse of `state_dict_from_hf`: Hugging Face names and RoPE layout. A tied model
    stores its embedding once (no lm_head.weight), as save_pretrained does."""
    names = hf_key_map(config)
    if config.tie_weights:
        names.pop("head.weight")
    return {
        theirs: _convert(ours, state[ours], config, to_ours=False).contiguous()
        for ours, theirs in names.items()
    }


def _rope_theta(hf: dict) -> float:
    """rope_theta from a config.json of transformers 4 (top level) or 5 (rope_parameters)."""
    params = hf.get("rope_parameters") or {}
    scaling = hf.get("rope_scaling") or {}
    kind = params.get("rope_type") or scaling.get("rope_type") or scaling.get("type") or "default"
    if kind != "default":
        raise ValueError(
            f"config.json: rope type {kind!r} is not supported; only plain RoPE "
            "(rope_type 'default')"
        )
    return float(params.get("rope_theta", hf.get("rope_theta", 10000.0)))


def config_from_hf(hf: dict) -> Qwen3LMConfig:
    """A `Qwen3LMConfig` from the fields of a Qwen3 config.json; what this model cannot
    reproduce (biases, sliding windows, another activation) raises a ValueError."""
    if hf.get("model_type") != "qwen3":
        raise ValueError(f"config.json: model_type must be 'qwen3', got {hf.get('model_type')!r}")
    if hf.get("hidden_act", "silu") != "silu":
        raise ValueError(f"config.json: hidden_act must be 'silu', got {hf['hidden_act']!r}")
    if hf.get("attention_bias"):
        raise ValueError("config.json: attention_bias is true; this loader has no biases")
    if hf.get("use_sliding_window"):
        raise ValueError(
            "config.json: use_sliding_window is true; only full attention is supported"
        )
    heads = hf["num_attention_heads"]
    return Qwen3LMConfig(
        vocab_size=hf["vocab_size"],
        d_model=hf["hidden_size"],
        n_layers=hf["num_hidden_layers"],
        n_heads=heads,
        n_kv_heads=hf.get("num_key_value_heads") or heads,
        d_k=hf.get("head_dim") or hf["hidden_size"] // heads,
        d_hidden=hf["intermediate_size"],
        max_len=hf["max_position_embeddings"],
        rope_base=_rope_theta(hf),
        eps=float(hf.get("rms_norm_eps", 1e-6)),
        tie_weights=bool(hf.get("tie_word_embeddings", False)),
    )


def config_to_hf(config: Qwen3LMConfig) -> dict:
    """The config.json fields of a Qwen3ForCausalLM with the same architecture."""
    return {
        "architectures": ["Qwen3ForCausalLM"],
        "model_type": "qwen3",
        "vocab_size": config.vocab_size,
        "hidden_size": config.d_model,
        "num_hidden_layers": config.n_layers,
        "num_attention_heads": config.n_heads,
        "num_key_value_heads": config.n_kv_heads,
        "head_dim": config.d_k,
        "intermediate_size": config.d_hidden,
        "max_position_embeddings": config.max_len,
        "rope_parameters": {"rope_type": "default", "rope_theta": config.rope_base},
        "rms_norm_eps": config.eps,
        "tie_word_embeddings": config.tie_weights,
        "hidden_act": "silu",
        "attention_bias": False,
        "use_sliding_window": False,
        "dtype": "float32",
    }


def _safetensors():
    try:
        import safetensors.torch
    except ImportError as err:  # the optional extra is missing
        raise ImportError(
            "reading Hugging Face checkpoints needs safetensors: pip install -e '.[hf]'"
        ) from err
    return safetensors.torch


def _weight_files(folder: Path) -> list[Path]:
    index = folder / "model.safetensors.index.json"
    if index.is_file():
        shards = sorted(set(json.loads(index.read_text())["weight_map"].values()))
        return [folder / name for name in shards]
    single = folder / "model.safetensors"
    if not single.is_file():
        raise FileNotFoundError(
            f"path: no model.safetensors or model.safetensors.index.json in {folder}"
        )
    return [single]


def load_hf_checkpoint(
    path: str | Path,
    dtype: torch.dtype = torch.float32,
) -> tuple[Qwen3LMConfig, dict[str, torch.Tensor]]:
    """Read a Qwen3 checkpoint folder in the Hugging Face format (config.json and
    safetensors, one file or shards) -> (config, state_dict with our names, in `dtype`)."""
    folder = Path(path)
    config_file = folder / "config.json"
    if not config_file.is_file():
        raise FileNotFoundError(f"path: no config.json in {folder}")
    config = config_from_hf(json.loads(config_file.read_text()))
    load_file = _safetensors().load_file
    hf_state = {}
    for file in _weight_files(folder):
        hf_state.update(load_file(str(file)))
    return config, state_dict_from_hf(hf_state, config, dtype)


def load_hf_model(path: str | Path, dtype: torch.dtype = torch.float32) -> Qwen3LM:
    """`Qwen3LM` with a Hugging Face checkpoint's weights, in eval mode.

    The model is built on the meta device and takes the loaded tensors as they are, so a
    0.6-billion-parameter checkpoint is neither initialised at random first nor held twice.
    """
    config, state = load_hf_checkpoint(path, dtype)
    with torch.device("meta"):
        model = Qwen3LM(config)
    model.load_state_dict(state, assign=True)
    cos, sin = rope_tables(config.max_len, config.d_k, config.rope_base)  # (max_len, d_k/2)
    model.rope_cos, model.rope_sin = cos, sin  # the buffers were built on the meta device
    if config.tie_weights:
        model.head.weight = model.embed.weight
    return model.to(dtype).eval()


def save_hf_checkpoint(model: nn.Module, config: Qwen3LMConfig, path: str | Path) -> Path:
    """Write `model` (a `Qwen3LM` or a module with its names) as config.json and
    model.safetensors that transformers' Qwen3ForCausalLM.from_pretrained reads."""
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().float() for k, v in model.state_dict().items()}
    _safetensors().save_file(
        state_dict_to_hf(state, config),
        str(folder / "model.safetensors"),
        metadata={"format": "pt"},
    )
    text = json.dumps(config_to_hf(config), indent=2, sort_keys=True)
    (folder / "config.json").write_text(text + "\n")
    return folder


def config_kwargs(config: Qwen3LMConfig) -> dict:
    """The config as keyword arguments, e.g. for notebook 10's Qwen3Decoder(**...)."""
    return asdict(config)


_M = TypeVar("_M", bound=nn.Module)


def randomise(module: _M, seed: int, embed_scale: float = 0.3) -> _M:
    """Random weights from one seeded generator at scales where every part of a block matters
    (a missing or misplaced norm, QK-norm or RoPE then moves the output): every 1-D weight
    (the RMSNorms) ``1 + N(0, 0.3^2)``, an embedding ``N(0, embed_scale^2)``, any other matrix
    unit gain ``N(0, 1 / fan_in)``. In place; returns the module. Used by
    `scripts/make_tiny_qwen3.py` and notebook 10's checks."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in module.named_parameters():
            noise = torch.randn(p.shape, generator=g)
            if p.dim() == 1:
                p.copy_(1.0 + 0.3 * noise)
            elif "embed" in name:
                p.copy_(embed_scale * noise)
            else:
                p.copy_(noise / math.sqrt(p.shape[-1]))
    return module


# ---------------------------------------------------------------------------------------
# Where checkpoints are
# ---------------------------------------------------------------------------------------
def tiny_checkpoint() -> Path:
    """``assets/qwen3_tiny``: a 2-layer random Qwen3 saved by transformers
    (`scripts/make_tiny_qwen3.py`), with its own logits on fixed ids."""
    here = Path.cwd().resolve()
    for root in (Path(__file__).resolve().parents[2], here, *here.parents):
        folder = root / "assets" / "qwen3_tiny"
        if (folder / "config.json").is_file():
            return folder
    raise FileNotFoundError(
        "no assets/qwen3_tiny next to the package or above "
        f"{here}; make it with `python scripts/make_tiny_qwen3.py`"
    )


def find_cached_qwen3(
    repo_id: str = QWEN3_0_6B,
    cache_dir: str | Path | None = None,
) -> Path | None:
    """The snapshot folder of `repo_id` in the local Hugging Face cache (`cache_dir`, default
    the usual one) when its config, weights and tokenizer are all there, else None. Never
    touches the network."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # the optional extra is missing: nothing can be cached
        return None
    found = [
        try_to_load_from_cache(repo_id, name, cache_dir=cache_dir)
        for name in ("config.json", "model.safetensors", "tokenizer.json")
    ]
    paths = [f for f in found if isinstance(f, str)]
    if len(paths) < len(found):
        return None
    return Path(paths[0]).parent
