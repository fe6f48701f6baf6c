"""A module under test, seen the same way in a notebook and in the grader.

The checks of notebooks 05, 06, 10 and 11 test the learner's `nn.Module` classes. In a
notebook the module is a local object; in the grader it lives in the learner's sandboxed
kernel and only values may cross (`grader.remote.RemoteModule`). Both offer this interface,
so one check serves both: structure and parameters by name, tensors read and written by
value, the mode, and the forward call.
"""

from __future__ import annotations

import torch
from torch import nn

MODULE = "torch.nn.modules.module.Module"


def f64(*shape, seed: int, scale: float = 1.0, shift: float = 0.0) -> torch.Tensor:
    """A float64 tensor of `shape` drawn from N(shift, scale^2) with its own seed."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64) * scale + shift


def _mro(cls: type) -> list[str]:
    return [f"{c.__module__}.{c.__qualname__}" for c in cls.__mro__]


def type_path(cls: type) -> str:
    """`nn.Linear` -> "torch.nn.modules.linear.Linear", as module views report types."""
    return f"{cls.__module__}.{cls.__qualname__}"


class LocalModule:
    """A local `nn.Module` behind the module-view interface (every tensor a copy)."""

    __module_view__ = True

    def __init__(self, module: nn.Module):
        self.module = module
        self.mro = _mro(type(module))
        self.__name__ = type(module).__name__

    def __repr__(self):
        return repr(self.module)

    def __call__(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def info(self) -> dict:
        tokens: dict[int, int] = {}

        def token(value) -> int:
            return tokens.setdefault(id(value), len(tokens) + 1)

        module = self.module
        persistent = set(module.state_dict())
        return {
            "modules": {
                path: (_mro(type(m)), bool(m.training), token(m))
                for path, m in module.named_modules(remove_duplicate=False)
            },
            "params": [
                (n, tuple(p.shape), str(p.dtype), token(p), bool(p.requires_grad))
                for n, p in module.named_parameters(remove_duplicate=False)
            ],
            "buffers": [
                (n, tuple(b.shape), str(b.dtype), n in persistent)
                for n, b in module.named_buffers(remove_duplicate=False)
            ],
        }

    def unreached(self, args: tuple, kwargs: dict) -> list[str]:
        return unreached(self.module, self.module(*args, **kwargs))

    def tensors(self, *paths: str) -> list:
        out: list[torch.Tensor | None] = []
        for path in paths:
            value: object = self.module
            try:
                for part in path.split("."):
                    value = getattr(value, part)
            except AttributeError:
                value = None
            out.append(value.detach().clone() if isinstance(value, torch.Tensor) else None)
        return out

    def set_tensors(self, values: dict) -> None:
        with torch.no_grad():
            for path, value in values.items():
                target = self.module
                for part in path.split("."):
                    target = getattr(target, part)
                if not isinstance(target, torch.Tensor):
                    raise AttributeError(f"{path} is not a parameter or buffer")
                target.copy_(torch.as_tensor(value, dtype=target.dtype))

    def state_dict(self) -> dict:
        return {k: v.detach().clone() for k, v in self.module.state_dict().items()}

    def load_state_dict(self, state: dict, strict: bool = True):
        result = self.module.load_state_dict(state, strict=strict)
        return list(result.missing_keys), list(result.unexpected_keys)

    def train(self, mode: bool = True):
        self.module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def to(self, dtype: torch.dtype):
        self.module.to(dtype)
        return self


def unreached(module: nn.Module, result) -> list[str]:
    """`module`'s parameters (up to 20 names) that never train: frozen ones, and those that the
    graph of `result` (a float or complex tensor, or the first of a tuple) does not reach (a
    gradient of None)."""
    out = result[0] if isinstance(result, tuple | list) and result else result
    if not (isinstance(out, torch.Tensor) and (out.is_floating_point() or out.is_complex())):
        return []
    frozen = [n for n, p in module.named_parameters() if not p.requires_grad]  # never train
    named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
    if not (named and out.requires_grad):
        return (frozen + [n for n, _ in named])[:20]
    real = torch.view_as_real(out) if out.is_complex() else out  # a failing backward raises
    grads = torch.autograd.grad(real.float().sum(), [p for _, p in named], allow_unused=True)
    return (frozen + [n for (n, _), g in zip(named, grads) if g is None])[:20]


def module_view(value):
    """The module-view of `value` (a local nn.Module or the grader's remote one), or None
    when it is not an nn.Module."""
    if hasattr(value, "__wire_handle__"):
        return value if MODULE in getattr(value, "mro", []) else None
    if isinstance(value, LocalModule):
        return value
    if isinstance(value, nn.Module):
        return LocalModule(value)
    return None


def type_name(view, path: str = "") -> str:
    """The class name of the submodule at `path` ("" for the module), or "" if absent."""
    entry = view.info()["modules"].get(path)
    return entry[0][0].rsplit(".", 1)[-1] if entry else ""


def is_instance(view, path: str, cls: type, info: dict | None = None) -> bool:
    """Whether the submodule at `path` is an instance of `cls` (subclasses count)."""
    entry = (info or view.info())["modules"].get(path)
    return entry is not None and type_path(cls) in entry[0]


def parameter_shapes(view, info: dict | None = None) -> dict[str, tuple]:
    return {name: shape for name, shape, *_ in (info or view.info())["params"]}
