"""The course's helpers stand in for a student's failed ones: one slip, charged once.

A graded function often calls one graded before it: notebook 01's `attention` calls
`score_matrix` and `softmax_rows`. When the helper's own test failed, the grader runs the
later test with the course's version of the helper in its place. The slip then costs the
helper's points, once, and the later function is graded on its own code. A helper that its
cell left unbound (the cell did not compile, or deleted the name) failed its test as a stub
does (`grader.testprocess.unbound_subjects`), and stands in the same way.

The reference never enters the student's kernel. For the length of one call of the student's
code, the kernel's name for the helper holds a *stand-in* (`KernelSide`): a function that
sends its arguments to the test's trusted process and returns what the reference computed
there (`Server`), as values, the way every value crosses (`grader.wire`). Where the kernel's
inputs need a gradient, the stand-in's output is a node of the kernel's autograd graph whose
backward asks the trusted process for the reference's vector-Jacobian product. A
`torch.Generator` argument comes back in the state that the reference's draws left it in.
An argument that cannot cross (an object of the student's own class, a model) runs the
student's own helper instead, as before.

A test that fails with stand-ins is run once more without them (`grader.execute.run_test`),
and passes if the answer is right with the student's own helpers: an `attention` written for
its own transposing `softmax_rows` kept its points before stand-ins, and keeps them now.

A class (notebook 06's `MLP` in `PreNormBlock`) stands in the same way. Its object lives in
the kernel with the reference's submodules, parameters, buffers and plain attributes, so a
check reads, loads and trains its weights as it would the student's own. Its `forward` sends
the current parameters and buffers with the inputs, and the trusted process runs the
reference's module on them (`torch.func.functional_call`), with a vector-Jacobian product
for the inputs and parameters that need one.

What a hostile kernel can get from this, and why it gains nothing:
- values of a helper whose own test already failed (its points are lost), on inputs the
  kernel chooses, while a later test of another function is in flight. Never the code.
- never during a test whose source names the helper, and never for the function that the
  call grades (`for_test`, `KernelSide.installed`). A stand-in kept past its call raises (an
  object of a stand-in class, outside the grader's calls), and the trusted process answers
  a callback only for the request in flight and for the names it offered.
- a bounded number of calls and kept graphs, and a memory budget per callback
  (`memory_budget`: a small call such as `causal_mask(10**5)` would otherwise ask the
  trusted process for gigabytes); the reference's work runs in the test's process, under
  its control group and its deadline, like the rest of the check.

This module runs on both sides, like `grader.wire`: `KernelSide` in the sandbox (standard
library, numpy and `grader.wire`; torch only when a tensor needs a gradient), `Server` and
`for_test` in the trusted test process.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import gc
import inspect
import json
import os
import types
from collections.abc import Iterator
from typing import Any

from grader import wire

CALL_LIMIT = 100_000  # callbacks one test may make
GRAPH_LIMIT = 256  # reference graphs kept for a backward, per request
NAMES_LIMIT = 20  # helpers one call may stand in for
CALLBACKS = ("callback", "construct", "forward", "vjp")  # the kinds of callback frame
MEMORY_BUDGET = 1 << 30  # bytes of address space one callback may add in the trusted process
KEPT_BUDGET = 2 << 30  # bytes the kept graphs and objects may add to the trusted process
KEY_LIMIT = 100_000  # characters of a stand-in class's arguments, as sent
MODULE_LIMIT = 256  # objects of stand-in classes one test may make
ERRORS = (
    "ValueError",
    "TypeError",
    "IndexError",
    "KeyError",
    "RuntimeError",
    "AssertionError",
    "MemoryError",
)  # raised in the kernel as themselves; any other as RuntimeError


def grad_inputs(args, kwargs) -> list[list]:
    """Where the call's top-level floating-point tensors that need a gradient are:
    ["a", index] or ["k", name], in the order both sides use."""
    found: list[list] = []
    for kind, items in (("a", enumerate(args)), ("k", kwargs.items())):
        for key, value in items:
            if type(value).__module__.startswith("torch") and _needs_grad(value):
                found.append([kind, key])
    return found


def _needs_grad(value) -> bool:
    import torch

    return isinstance(value, torch.Tensor) and value.requires_grad and value.is_floating_point()


def _at(args, kwargs, path):
    kind, key = path
    return args[key] if kind == "a" else kwargs[key]


def float_outputs(result) -> list[int]:
    """Which entries of a result (a tensor, or a tuple or list of values) are floating-point
    tensors, the outputs a backward goes through: the same rule on both sides."""
    outs = list(result) if isinstance(result, tuple | list) else [result]
    return [
        i
        for i, out in enumerate(outs)
        if type(out).__module__.startswith("torch")
        and hasattr(out, "is_floating_point")
        and out.is_floating_point()
    ]


def valid_names(names) -> list[str]:
    """The helper names a request offers, as plain identifiers (at most NAMES_LIMIT)."""
    if not isinstance(names, list):
        return []
    return [n for n in names[:NAMES_LIMIT] if isinstance(n, str) and n.isidentifier()]


# -- the kernel's side ----------------------------------------------------------------------
class StandInStopped(RuntimeError):
    """The grader is no longer waiting for the call this stand-in belonged to."""


class KernelSide:
    """Stand-ins in the student's kernel, talking on the kernel's own descriptors."""

    def __init__(self, requests: int, replies: int):
        self.requests, self.replies = requests, replies
        self.request_id: object = None  # the request in flight while stand-ins are installed
        self.nonce: object = None  # its number that replies repeat (grader.remote.request)
        self.active: object = None  # the installation in force: its stand-ins answer, no other
        self.seq = 0
        self.pending: list[dict] = []  # requests that arrived while a callback waited

    @contextlib.contextmanager
    def installed(
        self,
        namespace: dict,
        names: list[str],
        request_id,
        target: str | None,
        classes: frozenset[str] = frozenset(),
    ) -> Iterator[None]:
        """`names` in `namespace` hold stand-ins for the length of one call, unless the call's
        own target is one of them (a function is never graded on the reference's values).
        Those in `classes` are classes: an object made from one keeps its parameters here
        and runs its forward in the trusted process."""
        if not names or target in names:
            yield
            return
        missing, token = object(), object()
        saved = {name: namespace.get(name, missing) for name in names}
        for name in names:
            mine = saved[name]
            mine = None if mine is missing else mine
            namespace[name] = self._stand_in(name, mine, token, name in classes)
        self.request_id, self.active = request_id, token
        try:
            yield
        finally:
            self.request_id = self.active = None
            for name, value in saved.items():
                if value is missing:
                    namespace.pop(name, None)
                else:
                    namespace[name] = value

    def _stand_in(self, name: str, mine, token, is_class: bool):
        def stand_in(*args, **kwargs):
            if token is not self.active:
                raise StandInStopped(
                    f"the course's {name} stood in for yours during one call of the grader only"
                )
            if not is_class:
                return self.call(name, mine, args, kwargs)
            sent = _sendable(args, kwargs)
            if sent is None:
                if mine is None:
                    raise TypeError(f"{name} cannot take these arguments")
                return mine(*args, **kwargs)  # an object as an argument: your own class
            reply = self.exchange({"construct": name, "args": sent[0], "kwargs": sent[1]})
            return _module(self, name, sent, reply)

        stand_in.__name__ = stand_in.__qualname__ = name
        stand_in.__doc__ = f"The course's {name}, standing in for yours during a later test."
        return stand_in

    def forward(self, module, args: tuple, kwargs: dict):
        """`module`'s forward, a stand-in's object, computed by the trusted process on the
        parameters and buffers it holds here now."""
        name, init = module._attnbook_stand_in
        if self.request_id is None:
            raise StandInStopped(
                f"the course's {name} stood in for yours during the grader's calls only"
            )
        sent = _sendable(args, kwargs)
        if sent is None:
            raise TypeError(f"the course's {name} cannot take these arguments")
        params = dict(module.named_parameters())
        paths = grad_inputs(args, kwargs)
        trained = [n for n, p in params.items() if p.requires_grad and p.is_floating_point()]
        seq = self.seq + 1
        reply = self.exchange(
            {
                "forward": name,
                "init": list(init),
                "training": bool(module.training),
                "params": [[n, wire.encode(p)] for n, p in params.items()],
                "buffers": [[n, wire.encode(b)] for n, b in module.named_buffers()],
                "args": sent[0],
                "kwargs": sent[1],
                "grad": paths,
                "param_grad": trained,
            }
        )
        result = wire.Decoder().decode(reply.get("result"))
        inputs = [_at(args, kwargs, p) for p in paths] + [params[n] for n in trained]
        if inputs and _grad_enabled():
            return _attach(self, seq, inputs, result)
        return result

    def call(self, name: str, mine, args: tuple, kwargs: dict):
        if self.request_id is None:
            raise StandInStopped(
                f"the course's {name} stood in for yours during one call of the grader only"
            )
        sent = _sendable(args, kwargs)
        if sent is None:
            if mine is None:
                raise TypeError(f"{name} cannot take these arguments") from None
            return mine(*args, **kwargs)  # a model or an object: your own helper, as before
        paths = grad_inputs(args, kwargs)
        seq = self.seq + 1
        reply = self.exchange({"callback": name, "args": sent[0], "kwargs": sent[1], "grad": paths})
        result = wire.Decoder().decode(reply.get("result"))
        for path, state in _pairs(reply.get("generators")):
            target = _at(args, kwargs, path)
            target.set_state(
                wire.Decoder(objects=True).decode({"__generator__": state}).get_state()
            )
        inputs = [_at(args, kwargs, p) for p in paths]
        if inputs and _grad_enabled():
            return _attach(self, seq, inputs, result)
        return result

    def exchange(self, message: dict) -> dict:
        """Send a callback and wait for the trusted process's answer to it."""
        self.seq += 1
        frame = {**message, "id": self.request_id, "nonce": self.nonce, "seq": self.seq}
        wire.write_frame(self.replies, frame)
        while True:
            frame = wire.read_frame(self.requests)
            if "callback_reply" not in frame:  # the grader moved on: a request, for later
                self.pending.append(frame)
                self.request_id = None
                raise StandInStopped("the grader stopped waiting for this call")
            if frame.get("callback_reply") == self.seq:
                break
        if not frame.get("ok"):
            kind = str(frame.get("type", ""))
            error = getattr(builtins, kind) if kind in ERRORS else RuntimeError
            raise error(str(frame.get("error", "the course's helper failed"))[:2000])
        return frame


def _sendable(args: tuple, kwargs: dict) -> tuple | None:
    """The arguments encoded for the trusted process; None when they hold something only the
    kernel can hold (an object of the student's class, a model, an optimizer)."""
    try:
        sent = wire.encode_call(list(args), dict(kwargs))
    except wire.Unsendable:
        return None
    return None if _holds_objects(list(sent)) else sent


def _module(side: KernelSide, name: str, init: tuple, tree: dict):
    """An object of the stand-in class `name`: the reference's submodules, parameters,
    buffers and plain attributes (`Server._construct`), its forward a callback."""
    import torch

    class StandInModule(torch.nn.Module):
        _attnbook_stand_in: tuple[str, tuple] = ("", ())  # its class and arguments, as sent

        def forward(self, *args, **kwargs):
            return side.forward(self, args, kwargs)

    StandInModule.__name__ = StandInModule.__qualname__ = name
    root = StandInModule()
    root._attnbook_stand_in = (name, init)
    decode = wire.Decoder().decode
    for path, class_path, attributes, empty in _list_of(tree.get("modules"), 4):
        module = root if path == "" else _container(str(class_path))
        if path:
            parent, _, leaf = str(path).rpartition(".")
            _resolve(root, parent).add_module(leaf, module)
        for key, value in dict(decode(attributes)).items():
            setattr(module, str(key), value)
        for leaf in empty if isinstance(empty, list) else []:
            module.register_parameter(str(leaf), None)
    for path, value, trained in _list_of(tree.get("params"), 3):
        owner, leaf = _owner(root, str(path))
        owner.register_parameter(leaf, torch.nn.Parameter(decode(value), bool(trained)))
    for path, value, persistent in _list_of(tree.get("buffers"), 3):
        owner, leaf = _owner(root, str(path))
        owner.register_buffer(leaf, decode(value), persistent=bool(persistent))
    return root


def _list_of(value, width: int) -> list:
    if not isinstance(value, list):
        return []
    return [v for v in value if isinstance(v, list) and len(v) == width]


def _resolve(root, path: str):
    for part in path.split(".") if path else []:
        root = getattr(root, part)
    return root


def _owner(root, path: str):
    parent, _, leaf = path.rpartition(".")
    return _resolve(root, parent), leaf


def _container(class_path: str):
    """A submodule of a stand-in: an empty object of its torch.nn class (so that its type
    reads as the reference's, nn.Linear for nn.Linear), else a plain nn.Module."""
    import importlib

    import torch

    module_name, _, qualname = class_path.rpartition(".")
    if module_name.startswith("torch.nn.modules."):
        cls = getattr(importlib.import_module(module_name), qualname, None)
        if isinstance(cls, type) and issubclass(cls, torch.nn.Module):
            made = cls.__new__(cls)
            torch.nn.Module.__init__(made)
            return made
    return torch.nn.Module()


def _holds_objects(encoded, depth: int = 0) -> bool:
    """Whether encoded arguments hold a model, an optimizer or a handle: objects that only
    cross into the kernel, never back, so the student's own helper takes them."""
    if depth > wire.MAX_DEPTH:
        return True
    if isinstance(encoded, list):
        return any(_holds_objects(v, depth + 1) for v in encoded)
    if isinstance(encoded, dict):
        if any(tag in encoded for tag in ("__model__", "__optim__", "__handle__")):
            return True
        return any(_holds_objects(v, depth + 1) for v in encoded.values())
    return False


def _pairs(value) -> list:
    return (
        [p for p in value if isinstance(p, list) and len(p) == 2] if isinstance(value, list) else []
    )


def _grad_enabled() -> bool:
    import torch

    return torch.is_grad_enabled()


_FUNCTION: list = []  # the autograd Function class, made once torch is needed


def _attach(kernel: KernelSide, seq: int, inputs: list, result):
    """`result` with its floating-point tensors made outputs of an autograd node over
    `inputs`, whose backward asks the trusted process (`Server._vjp`)."""
    outs = list(result) if isinstance(result, tuple | list) else [result]
    picked = float_outputs(result)
    if not picked:
        return result
    if not _FUNCTION:
        _FUNCTION.append(_make_function())
    made = _FUNCTION[0].apply((kernel, seq, [outs[i] for i in picked]), *inputs)
    for i, tensor in zip(picked, made if isinstance(made, tuple) else (made,)):
        outs[i] = tensor
    if isinstance(result, tuple | list):
        return type(result)(outs)
    return outs[0]


def _make_function():
    import torch

    class StandInNode(torch.autograd.Function):
        @staticmethod
        def forward(ctx, info, *inputs):
            ctx.info = info
            ctx.shapes = [(x.shape, x.dtype) for x in inputs]
            outs = [out.detach().clone() for out in info[2]]
            return tuple(outs) if len(outs) > 1 else outs[0]

        @staticmethod
        def backward(ctx, *grads):
            kernel, seq, _outs = ctx.info
            reply = kernel.exchange({"vjp": seq, "grads": [wire.encode(g) for g in grads]})
            got = wire.Decoder().decode(reply.get("grads"))
            if not isinstance(got, list) or len(got) != len(ctx.shapes):
                raise RuntimeError("the course's helper sent gradients that do not fit")
            out = []
            for grad, (shape, dtype) in zip(got, ctx.shapes):
                if grad is not None and (not isinstance(grad, torch.Tensor) or grad.shape != shape):
                    raise RuntimeError("the course's helper sent gradients that do not fit")
                out.append(None if grad is None else grad.to(dtype))
            return (None, *out)

    return StandInNode


# -- the trusted side -----------------------------------------------------------------------
class _Values(wire.Decoder):
    """What a stand-in's arguments may hold: plain values, and generators by state."""

    def decode(self, value, depth: int = 0):
        if isinstance(value, dict) and "__generator__" in value and len(value) == 1:
            return wire.Decoder(objects=True).decode(value, depth)
        return super().decode(value, depth)


class NotOffered(LookupError):
    """A callback for a name this test does not offer."""


MEMORY_TEXT = (
    "the course's helper needed more than its memory budget for these arguments: call it on "
    "smaller inputs"
)


def address_space() -> int | None:
    """This process's address space in bytes (what RLIMIT_AS counts); None where unknown."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@contextlib.contextmanager
def memory_budget() -> Iterator[None]:
    """At most MEMORY_BUDGET bytes more address space while the block runs, so
    that a small call cannot make the trusted process allocate gigabytes (`causal_mask(10**5)`
    is 10 GB): an allocation past it raises MemoryError. Where the platform has no such limit
    the block runs as it is, under the test process's control group and deadline."""
    used = address_space()
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError):
        used = None
    if used is None:
        yield
        return
    limit = used + MEMORY_BUDGET
    for ceiling in (soft, hard):
        if ceiling != resource.RLIM_INFINITY:
            limit = min(limit, ceiling)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


class Server:
    """The reference helpers one test offers, answering the kernel's callbacks."""

    def __init__(self, functions: dict, served: set[str] | None = None):
        self.functions = dict(functions)
        self.served = served if served is not None else set()  # names that answered a call
        self.calls = 0
        self.graphs: dict[int, tuple[list, list]] = {}
        self.modules: dict[str, Any] = {}  # a class's arguments (as sent) -> its object
        self.baseline = address_space()  # what the kept graphs and objects are measured from

    def names(self) -> list[str]:
        return sorted(self.functions)

    def classes(self) -> list[str]:
        return sorted(n for n, f in self.functions.items() if isinstance(f, type))

    def end_request(self) -> None:
        self.graphs.clear()

    def answer(self, frame: dict) -> dict:
        """The reply to one callback frame (`callback` or `vjp`), never an exception."""
        self.calls += 1
        if self.calls > CALL_LIMIT:
            return {"ok": False, "type": "RuntimeError", "error": "too many calls of a stand-in"}
        try:
            with memory_budget(), self._trimmed():
                if "vjp" in frame:
                    return self._vjp(frame)
                if "construct" in frame:
                    return self._construct(frame)
                if "forward" in frame:
                    return self._forward(frame)
                return self._call(frame)
        except (wire.WireError, wire.Unsendable) as err:
            return {"ok": False, "type": "TypeError", "error": f"the grader cannot pass {err}"}
        except NotOffered as err:
            return {"ok": False, "type": "RuntimeError", "error": str(err)}
        except MemoryError:
            return {"ok": False, "type": "MemoryError", "error": MEMORY_TEXT}
        except Exception as err:  # the reference's own complaint about the inputs
            return {"ok": False, "type": type(err).__name__, "error": str(err)[:2000]}

    def _call(self, frame: dict) -> dict:
        import torch

        name, function = self._offered(frame, "callback", types.FunctionType)
        args, kwargs = _arguments(_Values(), frame.get("args"), frame.get("kwargs"))
        paths = _grad_paths(frame.get("grad"), args, kwargs)
        inputs = [_at(args, kwargs, p) for p in paths]
        with torch.enable_grad() if inputs else torch.no_grad():
            result = function(*args, **kwargs)
        self.served.add(name)
        generators = [
            [path, wire.encode(_at(args, kwargs, path))["__generator__"]]
            for path in _generator_paths(args, kwargs)
        ]
        self._keep_graph(frame, inputs, result)
        return {"ok": True, "result": wire.encode(_detached(result)), "generators": generators}

    @contextlib.contextmanager
    def _trimmed(self) -> Iterator[None]:
        """After a callback: when what the stand-ins keep (graphs for a backward, objects of
        stand-in classes) has grown past KEPT_BUDGET, drop it all; an object is made again
        when needed, a backward of a dropped graph is refused."""
        try:
            yield
        finally:
            now = address_space()
            if self.baseline is not None and now is not None:
                if now - self.baseline > KEPT_BUDGET:
                    self.graphs.clear()
                    self.modules.clear()
                    gc.collect()

    def _offered(self, frame: dict, key: str, kind: type):
        name = frame.get(key)
        offered = self.functions.get(name) if isinstance(name, str) else None
        if not isinstance(name, str) or not isinstance(offered, kind):
            raise NotOffered(f"no stand-in for {name!r}")
        return name, offered

    def _reference_module(self, name: str, cls: type, init) -> Any:
        """The reference's object of `cls` for the arguments `init` (as sent), made once per
        test (at most MODULE_LIMIT of them)."""
        if not isinstance(init, list) or len(init) != 2:
            raise wire.WireError(f"{name}'s arguments in another shape")
        key = json.dumps([name, init], sort_keys=True)
        if len(key) > KEY_LIMIT:
            raise wire.WireError(f"{name}'s arguments are too big: a stand-in class takes sizes")
        if key not in self.modules:
            if len(self.modules) >= MODULE_LIMIT:
                raise RuntimeError("too many objects of stand-in classes")
            args, kwargs = _arguments(_Values(), *init)
            self.modules[key] = cls(*args, **kwargs)
        return self.modules[key]

    def _construct(self, frame: dict) -> dict:
        """A new object of a stand-in class: what the kernel needs to hold it (`_module`)."""
        name, cls = self._offered(frame, "construct", type)
        module = self._reference_module(name, cls, [frame.get("args"), frame.get("kwargs")])
        self.served.add(name)
        persistent = set(module.state_dict())
        return {
            "ok": True,
            "modules": [
                [path, f"{type(m).__module__}.{type(m).__qualname__}", wire.encode(_plain(m)),
                 [k for k, v in m._parameters.items() if v is None]]
                for path, m in module.named_modules()
            ],
            "params": [[n, wire.encode(p.detach()), p.requires_grad]
                       for n, p in module.named_parameters()],
            "buffers": [[n, wire.encode(b), n in persistent] for n, b in module.named_buffers()],
        }  # fmt: skip

    def _forward(self, frame: dict) -> dict:
        """A stand-in object's forward: the reference's module run on the kernel's
        parameters and buffers (`torch.func.functional_call`, so nothing is written into it)."""
        import torch

        name, cls = self._offered(frame, "forward", type)
        module = self._reference_module(name, cls, frame.get("init"))
        decoder = _Values()
        args, kwargs = _arguments(decoder, frame.get("args"), frame.get("kwargs"))
        own = dict(module.named_parameters()) | dict(module.named_buffers())
        tensors = {}
        for key in ("params", "buffers"):
            for pair in _list_of(frame.get(key), 2):
                tensor = decoder.decode(pair[1])
                if pair[0] not in own or not isinstance(tensor, torch.Tensor):
                    raise wire.WireError(f"{name} has no tensor {str(pair[0])[:100]!r}")
                if tensor.shape != own[pair[0]].shape:
                    raise wire.WireError(f"{name}.{pair[0]} came with another shape")
                tensors[pair[0]] = tensor
        if set(tensors) != set(own):
            raise wire.WireError(f"{name}'s tensors came back other than it has")
        trained = frame.get("param_grad")
        if not isinstance(trained, list) or any(t not in dict(module.named_parameters())
                                                for t in trained):  # fmt: skip
            raise wire.WireError("a list of trained parameters in another shape")
        for key in trained:
            tensors[key].requires_grad_(True)
        paths = _grad_paths(frame.get("grad"), args, kwargs)
        inputs = [_at(args, kwargs, p) for p in paths] + [tensors[k] for k in trained]
        module.train(bool(frame.get("training")))
        with torch.enable_grad() if inputs else torch.no_grad():
            result = torch.func.functional_call(module, tensors, tuple(args), kwargs)
        self.served.add(name)
        self._keep_graph(frame, inputs, result)
        return {"ok": True, "result": wire.encode(_detached(result))}

    def _keep_graph(self, frame: dict, inputs: list, result) -> None:
        if inputs and float_outputs(result):
            if len(self.graphs) >= GRAPH_LIMIT:
                self.graphs.pop(next(iter(self.graphs)))
            outs = list(result) if isinstance(result, tuple | list) else [result]
            self.graphs[int(frame.get("seq", 0))] = (
                inputs,
                [outs[i] for i in float_outputs(result)],
            )

    def _vjp(self, frame: dict) -> dict:
        import torch

        seq = frame.get("vjp")
        graph = self.graphs.get(seq) if isinstance(seq, int) else None
        if graph is None:
            return {"ok": False, "type": "RuntimeError", "error": "no graph for this backward"}
        inputs, outs = graph
        grads = wire.Decoder().decode(frame.get("grads"))
        if not isinstance(grads, list) or len(grads) != len(outs):
            raise wire.WireError("gradients for another number of outputs")
        pairs = [
            (out, grad.to(out.dtype))
            for out, grad in zip(outs, grads)
            if grad is not None and out.requires_grad
        ]
        if any(not isinstance(g, torch.Tensor) or g.shape != o.shape for o, g in pairs):
            raise wire.WireError("a gradient of another shape than its output")
        found = (
            torch.autograd.grad(
                [o for o, _ in pairs],
                inputs,
                [g for _, g in pairs],
                allow_unused=True,
                retain_graph=True,
            )
            if pairs
            else [None] * len(inputs)
        )
        return {"ok": True, "grads": wire.encode([_detached(g) for g in found])}


def _arguments(decoder: wire.Decoder, args, kwargs) -> tuple[list, dict]:
    args, kwargs = decoder.decode(args), decoder.decode(kwargs)
    if not isinstance(args, list) or not isinstance(kwargs, dict):
        raise wire.WireError("a call's arguments in another shape")
    return args, {str(k): v for k, v in kwargs.items()}


def _plain(module) -> dict:
    """A module's plain attributes (sizes, flags, eps, None included): what its own forward
    may read, as nn.RMSNorm's reads `eps`, which may be None."""
    kept = {}
    for key, value in vars(module).items():
        if key.startswith("_") or key == "training":
            continue
        if (
            value is None
            or isinstance(value, bool | int | float | str)
            or (isinstance(value, tuple) and all(isinstance(v, int) for v in value))
        ):
            kept[key] = value
    return kept


def _grad_paths(paths, args: list, kwargs: dict) -> list[list]:
    """The kernel's list of inputs that need a gradient, each checked to be one."""
    if not isinstance(paths, list) or len(paths) > 64:
        raise wire.WireError("a list of gradient inputs in another shape")
    checked = []
    for path in paths:
        ok = isinstance(path, list) and len(path) == 2
        kind, key = path if ok else ("", None)
        if kind == "a" and isinstance(key, int) and 0 <= key < len(args):
            value = args[key]
        elif kind == "k" and isinstance(key, str) and key in kwargs:
            value = kwargs[key]
        else:
            raise wire.WireError("a gradient input that is not an argument")
        if not _needs_grad(value):
            raise wire.WireError("a gradient input that is not a floating-point tensor")
        checked.append([kind, key])
    return checked


def _generator_paths(args: list, kwargs: dict) -> list[list]:
    import torch

    return [
        [kind, key]
        for kind, items in (("a", enumerate(args)), ("k", kwargs.items()))
        for key, value in items
        if isinstance(value, torch.Generator)
    ]


def _detached(value):
    if isinstance(value, tuple | list):
        return type(value)(_detached(v) for v in value)
    return value.detach() if hasattr(value, "detach") and hasattr(value, "requires_grad") else value


def _module_class(value) -> bool:
    import torch

    return isinstance(value, type) and issubclass(value, torch.nn.Module)


def is_callback(frame: dict) -> bool:
    """Whether a frame from the kernel is a stand-in's callback, not a reply."""
    return any(key in frame for key in CALLBACKS)


def for_test(notebook: str, failed, source: str, served: set[str] | None = None) -> Server | None:
    """The stand-ins a test offers: the course's version of every graded function whose own
    test failed earlier (`failed`), unless the test's source names it; None when none."""
    try:
        named = {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)}
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    wanted = [h for h in failed if isinstance(h, str) and h not in named and h.isidentifier()]
    if not wanted or not notebook:
        return None
    from attnbook.grading import load_reference

    try:
        reference = load_reference(notebook)
    except (FileNotFoundError, ImportError):
        return None
    functions = {}
    for name in wanted:
        value = getattr(reference, name, None)
        if (
            not name.startswith("_")
            and (inspect.isfunction(value) or _module_class(value))
            and getattr(value, "__module__", None) == reference.__name__
        ):
            functions[name] = value
    return Server(functions, served) if functions else None
