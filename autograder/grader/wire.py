"""What crosses between the grader and a student's sandboxed kernel: plain data, never pickle.

Frames are an 8-byte big-endian length and a JSON document. Values are JSON with tagged
objects for arrays (`{"__nd__": ...}`: dtype, shape, base64 bytes), torch tensors
(`{"__torch__": ...}`), tuples and non-string-keyed dicts. Only numeric and boolean dtypes
are accepted, depth and size are bounded, so whatever a hostile kernel sends decodes to inert
data or to a `WireError`.

Three kinds of object cross by value, never by reference:

- the course's own models (`TRUSTED_MODELS`: class, config, state, mode), optimizers over
  their parameters and `torch.Generator`s, which the grader hands to a student's function.
  The kernel rebuilds them (`Decoder(objects=True)`); what comes back after the call is read
  by `restore`, which copies the grader's own object and loads only the new *state* into the
  copy, after checking every key, shape and dtype. The grader never builds an object whose
  structure the kernel chose, and never writes into an object it owns;
- an object the student's code creates (an instance of their `nn.Module` class) stays in the
  kernel; the grader gets a *handle* (`{"__handle__": n, "mro": [...]}`), and every later
  operation on it (`grader.remote.RemoteModule`) is another request that moves values.

This module runs on both sides: inside the sandbox it imports nothing but the standard
library and numpy (torch only when a tensor appears).
"""

from __future__ import annotations

import base64
import contextlib
import copy
import dataclasses
import json
import os
import re
import select
import struct
import time
from typing import Any

MAX_FRAME = 64 * 1024 * 1024
MAX_DEPTH = 24
MAX_LOG = 1000  # entries of a model's forward log that are kept
_DTYPE_KINDS = "biufc"
# The models the grader may hand to a student's function, by class path: only the course's
# own classes, rebuilt from their config in the kernel.
TRUSTED_MODELS = (
    "attnbook.lm.model.TransformerLM",
    "attnbook.checks._lm.ObservedLM",
    "attnbook.checks._lm.HookCountingLM",
    "attnbook.checks._lm.TrippingLM",
    "attnbook.lm.qwen3.Qwen3LM",
    "attnbook.lm.seq2seq.Seq2SeqTransformer",
)
TRUSTED_OPTIMIZERS = ("SGD", "Adam", "AdamW")
GENERATOR = "torch._C.Generator"  # the class path of torch.Generator


class WireError(Exception):
    """A frame or value that does not follow the protocol."""


class Unsendable(TypeError):
    """A value that has no plain-data form (a function, a module, an arbitrary object)."""


def _class_path(value) -> str:
    cls = type(value)
    return f"{cls.__module__}.{cls.__qualname__}"


# -- values -------------------------------------------------------------------------------
class Encoder:
    """Values to JSON. `handle_of(obj)` (kernel side) turns an object without a plain form
    into a handle; without it such an object is `Unsendable`."""

    def __init__(self, handle_of=None):
        self.handle_of = handle_of
        self.params: dict[int, list] = {}  # id(parameter) -> [model key, parameter name]
        self.models = 0

    def encode(self, value, depth: int = 0):
        if depth > MAX_DEPTH:
            raise Unsendable("value nested too deeply")
        if value is None or isinstance(value, bool | str):
            return value
        if isinstance(value, int):
            return value if abs(value) < 2**63 else {"__bigint__": str(value)}
        if isinstance(value, float):
            return value
        if isinstance(value, complex):
            return {"__complex__": [value.real, value.imag]}
        if isinstance(value, tuple):
            return {"__tuple__": [self.encode(v, depth + 1) for v in value]}
        if isinstance(value, list):
            return [self.encode(v, depth + 1) for v in value]
        if isinstance(value, dict):
            return {
                "__dict__": [
                    [self.encode(k, depth + 1), self.encode(v, depth + 1)] for k, v in value.items()
                ]
            }
        handle = getattr(value, "__wire_handle__", None)
        if isinstance(handle, int) and not isinstance(handle, bool):
            return {"__handle__": handle}
        if type(value).__name__ in ("list_iterator", "tuple_iterator"):
            # what is left of it, without using up the caller's iterator
            return {"__iter__": [self.encode(v, depth + 1) for v in copy.copy(value)]}
        module = type(value).__module__ or ""
        if module.startswith("torch"):
            encoded = self._torch(value)
            if encoded is not None:
                return encoded
        if _class_path(value) in TRUSTED_MODELS:
            return self._model(value)
        if module == "numpy":
            import numpy as np

            if isinstance(value, np.ndarray | np.generic):
                arr = np.asarray(value)
                if arr.dtype.kind not in _DTYPE_KINDS:
                    raise Unsendable(f"numpy array of dtype {arr.dtype}")
                return {"__nd__": _array_fields(arr)}
        if self.handle_of is not None:
            return self.handle_of(value)
        raise Unsendable(f"an object of type {type(value).__name__}")

    def _torch(self, value):
        import torch

        if isinstance(value, torch.Tensor):
            tensor = value.detach().to("cpu")
            dtype = str(tensor.dtype)
            if tensor.dtype == torch.bfloat16:
                tensor = tensor.float()
            return {
                "__torch__": _array_fields(tensor.numpy()),
                "dtype": dtype,
                "requires_grad": bool(value.requires_grad),
            }
        if isinstance(value, torch.Generator):
            return {
                "__generator__": base64.b64encode(value.get_state().numpy().tobytes()).decode(
                    "ascii"
                )
            }
        if isinstance(value, torch.optim.Optimizer):
            return self._optimizer(value)
        return None

    def _model(self, model) -> dict:
        key = self.models
        self.models += 1
        for name, p in model.named_parameters(remove_duplicate=False):
            self.params.setdefault(id(p), [key, name])
        state = {k: self.encode(v) for k, v in model.state_dict(keep_vars=False).items()}
        # gradients left by an earlier step are state too (a step that forgets zero_grad)
        grads = {
            name: self.encode(p.grad) for name, p in model.named_parameters() if p.grad is not None
        }
        return {
            "__model__": {
                "key": key,
                "class": _class_path(model),
                "config": self.encode(dataclasses.asdict(model.config)),
                "state": state,
                "grads": grads,
                "training": bool(model.training),
                "log": self.encode(list(getattr(model, "forward_log", []))[-MAX_LOG:]),
            }
        }

    def _optimizer(self, optimizer) -> dict:
        name = type(optimizer).__name__
        if name not in TRUSTED_OPTIMIZERS:
            raise Unsendable(f"an optimizer of type {name}")
        groups, refs = [], []
        for group in optimizer.param_groups:
            hyper = {k: v for k, v in group.items() if k != "params"}
            ids = []
            for p in group["params"]:
                if id(p) not in self.params:
                    raise Unsendable(
                        "an optimizer whose parameters belong to no model passed in the same call"
                    )
                ids.append(self.params[id(p)])
                refs.append(p)
            groups.append({"hyper": self.encode(hyper), "params": ids})
        state = {}
        for index, p in enumerate(refs):
            if p in optimizer.state:
                state[str(index)] = self.encode(dict(optimizer.state[p]))
        return {"__optim__": {"class": name, "groups": groups, "state": state}}


def encode(value):
    """Plain data (no handles): what the grader sends and stores."""
    return Encoder().encode(value)


def encode_call(args: list, kwargs: dict) -> tuple[list, dict]:
    """The arguments of one call, models before the optimizers that refer to them; the
    keyword arguments as a tagged dict."""
    encoder = Encoder()
    models = [i for i, a in enumerate(args) if _class_path(a) in TRUSTED_MODELS]
    encoded: dict = {}
    for i in models + [i for i in range(len(args)) if i not in models]:
        encoded[i] = encoder.encode(args[i])
    return [encoded[i] for i in range(len(args))], {
        "__dict__": [[k, encoder.encode(v)] for k, v in kwargs.items()]
    }


def _array_fields(arr) -> dict:
    import numpy as np

    arr = np.asarray(arr)
    if arr.dtype.kind not in _DTYPE_KINDS:
        raise Unsendable(f"array of dtype {arr.dtype}")
    # tobytes() is in C order whatever the layout; a 0-d array keeps its shape ()
    return {
        "dtype": arr.dtype.str,
        "shape": list(arr.shape),
        "data": base64.b64encode(arr.tobytes(order="C")).decode("ascii"),
    }


class Decoder:
    """JSON to values. `objects=True` (the kernel) rebuilds models, optimizers and
    generators and resolves handles with `lookup(n)`; the grader (`objects=False`) refuses
    them and turns handles into whatever `make_handle(n, mro)` returns."""

    def __init__(self, objects: bool = False, lookup=None, make_handle=None):
        self.objects, self.lookup, self.make_handle = objects, lookup, make_handle
        self.models: dict[int, Any] = {}  # torch modules (torch is imported lazily)
        self.pending: list = []  # optimizers wait until every model of the call is rebuilt

    def decode(self, value, depth: int = 0):
        if depth > MAX_DEPTH:
            raise WireError("value nested too deeply")
        if value is None or isinstance(value, bool | str | int | float):
            return value
        if isinstance(value, list):
            return [self.decode(v, depth + 1) for v in value]
        if not isinstance(value, dict) or len(value) > 3:
            raise WireError(f"unexpected value {type(value).__name__}")
        if "__tuple__" in value:
            return tuple(self.decode(v, depth + 1) for v in _list(value["__tuple__"]))
        if "__iter__" in value:
            return iter([self.decode(v, depth + 1) for v in _list(value["__iter__"])])
        if "__dict__" in value:
            return {
                _hashable(self.decode(k, depth + 1)): self.decode(v, depth + 1)
                for k, v in (_pair(p) for p in _list(value["__dict__"]))
            }
        if "__complex__" in value:
            re, im = _list(value["__complex__"])
            return complex(float(re), float(im))
        if "__bigint__" in value:
            return int(str(value["__bigint__"])[:5000])
        if "__nd__" in value:
            return _array(value["__nd__"])
        if "__torch__" in value:
            return _tensor(value)
        if "__handle__" in value:
            return self._handle(value)
        if not self.objects:
            raise WireError(f"unknown tag {sorted(value)}")
        if "__generator__" in value:
            return _generator(value["__generator__"])
        if "__model__" in value:
            return self._model(value["__model__"])
        if "__optim__" in value:
            return self._optimizer(value["__optim__"])
        raise WireError(f"unknown tag {sorted(value)}")

    def _handle(self, value):
        number = value.get("__handle__")
        if not isinstance(number, int) or isinstance(number, bool):
            raise WireError("bad handle")
        if self.objects:
            return self.lookup(number)
        if self.make_handle is None:
            raise WireError("a handle where plain data was expected")
        mro = [str(m)[:200] for m in _list(value.get("mro", []))[:40]]
        return self.make_handle(number, mro)

    def _model(self, spec: dict):
        import importlib

        path = str(spec.get("class"))
        if path not in TRUSTED_MODELS:
            raise WireError(f"refused model class {path}")
        module_name, _, name = path.rpartition(".")
        cls = getattr(importlib.import_module(module_name), name)
        config_cls = _config_class(cls)
        model = cls(config_cls(**self.decode(spec.get("config"))))
        model.load_state_dict({k: self.decode(v) for k, v in spec["state"].items()}, strict=False)
        params = dict(model.named_parameters())
        for name, grad in (spec.get("grads") or {}).items():
            params[name].grad = self.decode(grad)
        model.train(bool(spec.get("training")))
        if hasattr(model, "forward_log"):
            model.forward_log = type(model.forward_log)(self.decode(spec.get("log") or []))
        self.models[int(spec.get("key", -1))] = model
        return model

    def _optimizer(self, spec: dict):
        import torch

        name = str(spec.get("class"))
        if name not in TRUSTED_OPTIMIZERS:
            raise WireError(f"refused optimizer {name}")
        groups, params = [], []
        for group in _list(spec.get("groups")):
            found = []
            for key, pname in _list(group.get("params")):
                found.append(
                    dict(self.models[int(key)].named_parameters(remove_duplicate=False))[str(pname)]
                )
            params += found
            groups.append({"params": found, **self.decode(group.get("hyper"))})
        optimizer = getattr(torch.optim, name)(groups)
        for index, value in (spec.get("state") or {}).items():
            optimizer.state[params[int(index)]] = self.decode(value)
        return optimizer


def _config_class(cls):
    import typing

    hints = typing.get_type_hints(cls.__init__)
    config = hints.get("config")
    if config is None:
        raise WireError(f"{cls.__name__} takes no config")
    return config


def decode(value):
    """Plain data only: what the grader accepts from a kernel."""
    return Decoder().decode(value)


def _list(value) -> list:
    if not isinstance(value, list):
        raise WireError("expected a list")
    return value


def _pair(value):
    if not isinstance(value, list) or len(value) != 2:
        raise WireError("expected a key-value pair")
    return value


def _hashable(key):
    try:
        hash(key)
    except TypeError as err:
        raise WireError("unhashable dictionary key") from err
    return key


def _array(fields):
    import numpy as np

    if not isinstance(fields, dict):
        raise WireError("bad array")
    dtype = np.dtype(str(fields.get("dtype")))
    if dtype.kind not in _DTYPE_KINDS or dtype.hasobject:
        raise WireError(f"refused dtype {dtype}")
    shape = tuple(int(n) for n in _list(fields.get("shape")))
    if any(n < 0 for n in shape) or len(shape) > 32:
        raise WireError("bad shape")
    raw = base64.b64decode(str(fields.get("data")), validate=True)
    count = 1
    for n in shape:
        count *= n
    if count * dtype.itemsize != len(raw):
        raise WireError("array data does not match its shape")
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


def _tensor(value: dict):
    import torch

    tensor = torch.from_numpy(_array(value["__torch__"]))
    if value.get("dtype") == "torch.bfloat16":
        tensor = tensor.to(torch.bfloat16)
    if value.get("requires_grad") is True and tensor.dtype.is_floating_point:
        tensor.requires_grad_(True)
    return tensor


def _generator(data):
    import numpy as np
    import torch

    state = np.frombuffer(base64.b64decode(str(data), validate=True), dtype=np.uint8)
    generator = torch.Generator()
    if state.size != generator.get_state().numel():
        raise WireError("bad generator state")
    generator.set_state(torch.from_numpy(state.copy()))
    return generator


# -- what comes back after a call ---------------------------------------------------------
def restore(after, original):
    """The value an argument has after the student's call, built on the grader's side.

    Plain data decodes as it is. A model, optimizer or generator becomes a *copy* of the
    grader's `original`, with the state the kernel reports loaded into it after every key,
    shape and dtype is checked: the kernel chooses numbers, never structure.
    """
    return restore_all([after], [original])[0]


def restore_all(afters: list, originals: list) -> list:
    """`restore` for the arguments of one call, copied together so that an optimizer keeps
    pointing at the copied model's parameters."""
    objects = [i for i, a in enumerate(afters) if not _plain_tag(a)]
    for index, original in enumerate(originals):
        if (index in objects) != _is_object(original):
            raise WireError(f"argument {index + 1} came back as another kind of value")
    copies = dict(zip(objects, copy.deepcopy([originals[i] for i in objects])))
    out = []
    for index, (after, original) in enumerate(zip(afters, originals)):
        mine = copies.get(index)
        if isinstance(after, dict) and "__model__" in after:
            out.append(_load_model(after["__model__"], original, mine))
        elif isinstance(after, dict) and "__optim__" in after:
            out.append(_load_optimizer(after["__optim__"], mine))
        elif isinstance(after, dict) and "__generator__" in after:
            if _class_path(original) != GENERATOR:
                raise WireError("a generator where none was sent")
            out.append(_generator(after["__generator__"]))
        else:
            out.append(decode(after))
    return out


def _is_object(value) -> bool:
    """A model, optimizer or generator: sent by state, restored by `restore_all`."""
    path = _class_path(value)
    return (
        path in TRUSTED_MODELS
        or path == GENERATOR
        or (path.startswith("torch.optim.") and type(value).__name__ in TRUSTED_OPTIMIZERS)
    )


def _plain_tag(encoded) -> bool:
    return not (
        isinstance(encoded, dict)
        and any(tag in encoded for tag in ("__model__", "__optim__", "__generator__"))
    )


def _load_model(spec, original, mine):
    if not isinstance(spec, dict) or spec.get("class") != _class_path(original):
        raise WireError("the model came back as another class")
    expected = mine.state_dict()
    state = spec.get("state")
    if not isinstance(state, dict) or set(state) != set(expected):
        raise WireError("the model came back with other state keys")
    values = {}
    for key, encoded in state.items():
        value = _tensor(encoded) if isinstance(encoded, dict) and "__torch__" in encoded else None
        want = expected[key]
        if value is None or value.shape != want.shape or value.dtype != want.dtype:
            raise WireError(f"the model's {key} came back with another shape or dtype")
        values[key] = value.detach()
    mine.load_state_dict(values)
    params = dict(mine.named_parameters())
    grads = spec.get("grads") or {}
    if not isinstance(grads, dict) or not set(grads) <= set(params):
        raise WireError("the model came back with gradients of unknown parameters")
    for name, p in params.items():
        grad = _tensor(grads[name]) if name in grads else None
        if grad is not None and (grad.shape != p.shape or grad.dtype != p.dtype):
            raise WireError(f"the gradient of {name} came back with another shape or dtype")
        p.grad = grad
    mine.train(bool(spec.get("training")))
    if hasattr(mine, "forward_log"):
        log = decode(spec.get("log") or [])
        mine.forward_log = type(mine.forward_log)(
            entry for entry in log[-MAX_LOG:] if isinstance(entry, dict)
        )
    return mine


def _load_optimizer(spec, mine):
    if not isinstance(spec, dict) or spec.get("class") != type(mine).__name__:
        raise WireError("the optimizer came back as another class")
    params = [p for group in mine.param_groups for p in group["params"]]
    state = spec.get("state") or {}
    if not isinstance(state, dict):
        raise WireError("bad optimizer state")
    mine.state.clear()
    for index, encoded in state.items():
        if not str(index).isdigit() or int(index) >= len(params):
            raise WireError("optimizer state for an unknown parameter")
        p = params[int(index)]
        entry = decode(encoded)
        if not isinstance(entry, dict):
            raise WireError("bad optimizer state")
        for key, value in entry.items():
            if hasattr(value, "shape") and value.numel() > 1 and value.shape != p.shape:
                raise WireError(f"optimizer state {key} has the wrong shape")
        mine.state[p] = entry
    groups = spec.get("groups") or []
    for group, sent in zip(mine.param_groups, groups):
        hyper = decode(sent.get("hyper")) if isinstance(sent, dict) else {}
        for key, value in (hyper if isinstance(hyper, dict) else {}).items():
            if key in group and key != "params" and isinstance(value, int | float | bool):
                group[key] = value
    return mine


# -- frames -------------------------------------------------------------------------------
def write_frame(fd: int, message: dict, deadline: float | None = None) -> None:
    """Write one frame; with a `deadline`, TimeoutError when the reader has not taken it all
    by then. A kernel that stops reading its requests (asleep, its pipe full) must not block
    the grader past its time limit: the write waits for room, never in `os.write`."""
    body = json.dumps(message, allow_nan=True).encode("utf-8", errors="surrogatepass")
    if len(body) > MAX_FRAME:
        raise Unsendable(f"message of {len(body)} bytes exceeds {MAX_FRAME}")
    view = memoryview(struct.pack(">Q", len(body)) + body)
    if deadline is None:
        while view:
            view = view[os.write(fd, view) :]
        return
    blocking = os.get_blocking(fd)
    os.set_blocking(fd, False)
    try:
        while view:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([], [fd], [], left)[1]:
                raise TimeoutError("the kernel did not read its request before the time limit")
            with contextlib.suppress(BlockingIOError):
                view = view[os.write(fd, view) :]
    finally:
        os.set_blocking(fd, blocking)


def read_frame(fd: int, deadline: float | None = None) -> dict:
    """Read one frame; WireError on end of stream, oversize or junk; TimeoutError at deadline."""
    (length,) = struct.unpack(">Q", _read_exact(fd, 8, deadline))
    if length > MAX_FRAME:
        raise WireError(f"frame of {length} bytes exceeds the {MAX_FRAME}-byte limit")
    message = parse_frame(_read_exact(fd, length, deadline))
    if not isinstance(message, dict):
        raise WireError("frame is not an object")
    return message


# A string, or an unclosed one that runs to the end: once an opening quote is found the match
# cannot fail, and nothing is given back (possessive), so a text is read once whatever it holds.
# The plain form took quadratic time on a quote followed by a million escaped quotes and no
# closing one: a two-megabyte upload or kernel reply stopped a class's grading for hours.
_JSON_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+(?:"|\\?\Z)', re.DOTALL)
# What a frame may hold, counted before it is parsed: json.loads makes a Python object of
# every value, about 25 times the bytes for `[],` (a 64 MiB frame would be 1.6 GB in the
# grader's own process). Arrays travel as base64 strings, so honest frames hold few.
FRAME_CONTAINERS = 500_000  # objects and arrays
FRAME_VALUES = 5_000_000  # values in them


def json_shape(data: bytes) -> tuple[int, int]:
    """(objects and arrays, values in them) of a JSON text, counted without parsing it: the
    strings are cut out (in C, one copy of what is outside them) and the brackets and
    commas left are counted. Malformed JSON gives some count; the parser then refuses it."""
    outside = _JSON_STRING.sub(b"", data)
    containers = outside.count(b"{") + outside.count(b"[")
    return containers, outside.count(b",") + containers


def parse_frame(body: bytes):
    """A frame's JSON, or WireError when it is not JSON: junk, nesting too deep for the
    parser (a kernel that sends 100,000 open brackets makes json recurse past Python's
    limit, a RecursionError that would otherwise escape every layer of the grader), or more
    objects and values than a frame may hold (`FRAME_CONTAINERS`, `FRAME_VALUES`)."""
    containers, values = json_shape(body)
    if containers > FRAME_CONTAINERS or values > FRAME_VALUES:
        raise WireError(
            f"frame holds {containers:,} objects and arrays and {values:,} values, over the "
            f"limits of {FRAME_CONTAINERS:,} and {FRAME_VALUES:,} (not parsed)"
        )
    try:
        return json.loads(body.decode("utf-8", errors="replace"))
    except RecursionError:
        raise WireError("frame nests deeper than the grader parses (RecursionError)") from None
    except (ValueError, MemoryError) as err:
        raise WireError(f"frame is not JSON: {type(err).__name__}: {str(err)[:200]}") from None


def read_at_most(fd: int, limit: int, deadline: float | None = None) -> bytes | None:
    """Everything read from `fd` until its end (its writer closed it), or None once more than
    `limit` bytes came or, with a `deadline`, when the deadline passes first."""
    chunks, total = list[bytes](), 0
    while True:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > limit:
            return None
        chunks.append(chunk)


def _read_exact(fd: int, n: int, deadline: float | None) -> bytes:
    chunks, got = [], 0
    while got < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError("no answer before the time limit")
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            raise WireError("the kernel closed its channel (it exited or was killed)")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)
