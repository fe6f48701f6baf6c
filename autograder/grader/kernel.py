"""The student's kernel: runs inside the sandbox, executes the student's cells, answers calls.

Started as its own program in a sandbox (`main`), or forked from the kernel zygote
(`grader.zygote`), which runs `serve_forever` in a process made for one notebook.

It speaks `grader.wire` frames on two private pipe descriptors; file descriptors 0, 1 and 2
point at /dev/null, so a print that bypasses `sys.stdout` goes nowhere. Every request carries
an `id` that its reply repeats, so a grader that gave up on a request can tell a late reply
from the answer to its next one. Requests:

- `run`: run a cell with IPython (magics work); reply with its outputs (streams and rich
  displays as text or PNG, each kept within a size limit, and errors).
- `describe`: is the name a function or class, plain data or missing?
- `origin`: where the code a name holds comes from (`grader.borrowed.follow`): for a
  function, class, callable object, wrapper (`__wrapped__`), partial or bound method, its
  module and qualified name, and for each code object the cell (the index of the `run`
  that compiled it) and line, or the module whose file holds it.
- `call`: call a function or class of the student's namespace, or a handle's forward, on
  values; reply with the result and every argument as it is afterwards (so the grader can
  tell an in-place change, and read a model's or optimizer's new state). An object the
  result holds that has no plain form (an instance of the student's class) stays here and
  goes back as a handle. With `backward`, the result's gradient is computed and each
  argument's `.grad` goes back too. With `stand_ins`, those names hold the course's
  helpers for the length of the call (`grader.standins`): each of their calls is a callback
  frame to the grader, answered on the request descriptor.
- `module`: read or change a handle's structure, parameters, buffers and mode; or
  (`unreached`) call its forward as `call` does and name the parameters that never train
  (frozen, or out of the output's graph), or give their gradients for the grader to check.
- `adopt`: copy the student's own files (`/opt/submission`, read-only) into the working
  folder; sent once, before the first cell, to a kernel that was started ahead of its
  notebook (`grader.execute.take_kernel`).
- `ping`: nothing; used to resynchronise after a request the grader gave up on.

Nothing here is trusted: the grader decodes every reply as inert data, and no test, no
reference answer and no check runs in this process.
"""

from __future__ import annotations

import os
import sys
import traceback
from importlib.machinery import SourceFileLoader
from io import FileIO
from pathlib import Path

from grader import keyrings, standins, wire

TEXT_LIMIT = int(os.environ.get("ATTNBOOK_OUTPUT_LIMIT", "20000"))
NAME_LIMIT = 300  # characters of a type's, module's or qualified name sent to the grader
DISPLAY_LIMIT = 20  # rich outputs kept per cell
PNG_LIMIT = 1_500_000  # base64 characters of one image


class BoundedText:
    """A text stream that keeps the first `limit` characters and counts the rest."""

    parts: list[str]

    def __init__(self, name: str, limit: int):
        self.name, self.limit, self.parts, self.kept, self.dropped = name, limit, [], 0, 0
        self.encoding = "utf-8"

    def write(self, text):
        text = str(text)
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False

    def writable(self):
        return True

    def value(self) -> str:
        text = "".join(self.parts)
        if self.dropped:
            text += f"\n[output truncated: {self.dropped} more characters not kept]\n"
        return text


PRELOAD = (
    "IPython.core.interactiveshell",
    "numpy",
    "torch",
    "matplotlib",
    "matplotlib.pyplot",
    "attnbook.notebook",
    "attnbook.checks",
)


def _no_op(line: str = "") -> None:
    return None


class WrittenModules:
    """A finder first on `sys.meta_path` that refuses a module whose file the notebook could
    have written: one outside the folders on `sys.path` and of the packages imported when the
    kernel started (the course's code, the standard library, site-packages, the working
    folder with the student's own files), or in the temporary folder or HOME. A cell could
    write one (in /tmp, /dev/shm, ...) and import it, and its code would be in no cell the
    grader reads. The working folder's files from before the first cell are the student's
    own (`freeze`): they import; one a cell writes or changes there is refused."""

    def __init__(self) -> None:
        here = [os.environ.get("TMPDIR") or "/tmp", os.environ.get("HOME") or ""]
        roots = {os.path.realpath(r) for r in here if r}
        packages = [p for m in list(sys.modules.values()) for p in _package_folders(m)]
        folders = {os.path.realpath(e or ".") for e in [*sys.path, *packages] if isinstance(e, str)}
        self.allowed = [p for p in folders if p not in roots]  # (an editable install's too)
        self.own = os.path.realpath(os.getcwd())  # the student's own files (HOME too)
        self.allowed.append(self.own)
        self.frozen: dict[str, tuple[int, int, int]] | None = None

    def freeze(self) -> None:
        """Record the working folder's files as the student's own, before the first cell:
        a module there that a cell writes or changes later is refused like any other."""
        if self.frozen is None:
            self.frozen = {}
            for folder, _dirs, files in os.walk(self.own):
                for name in files[:10_000]:
                    path = os.path.join(folder, name)
                    self.frozen[path] = _stamp(path)

    def find_spec(self, name, path=None, target=None):
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)
        places = [spec.origin or "", *(spec.submodule_search_locations or ())] if spec else []
        written = [p for p in places if os.path.isabs(p) and self._written(os.path.realpath(p))]
        if written:
            raise ImportError(
                f"{name}: the notebook's own file {written[0]} is not imported while grading "
                "(the grader reads only the cells): write its code in a cell"
            )
        origin = os.path.realpath(spec.origin) if spec and spec.origin else ""
        if spec is None or not Path(origin).is_relative_to(self.own):
            return None  # the usual finders go on
        if not origin.endswith(".py"):  # compiled code (.pyc, .so) the grader cannot read
            raise ImportError(f"{name}: {origin} is not Python source: the grader reads only that")
        spec.loader = _SourceOnly(name, origin)  # never a __pycache__ file beside it
        return spec

    def _written(self, place: str) -> bool:
        """Outside the allowed folders, or one of the working folder's files that a cell
        wrote or changed after `freeze`."""
        if not any(Path(place).is_relative_to(a) for a in self.allowed):
            return True
        own = Path(place).is_relative_to(self.own) and os.path.isfile(place)
        return own and self.frozen is not None and self.frozen.get(place) != _stamp(place)


def utf8_source(data: bytes) -> str | None:
    """A module file's text as the grader reads it and the kernel compiles it: UTF-8, a
    byte order mark dropped; None for anything else. Only `bytes.decode`, which no cell
    can change (not the codec registry or `tokenize`, which a cell could), and the text is
    compiled as it is (a coding line then means nothing)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


_READ_FILE, _COMPILE = FileIO, compile  # as they are before any cell runs


class _SourceOnly(SourceFileLoader):
    """The student's own module, compiled from its text as the grader reads it
    (`grader.borrowed.own_code`): a bytecode file beside it, even one marked as not to be
    checked against its source, is never run."""

    def get_code(self, fullname):
        with _READ_FILE(self.path) as handle:
            text = utf8_source(handle.readall())
        if text is None:
            raise ImportError(
                f"{fullname}: {self.path} is not UTF-8 text: the grader reads only that"
            )
        return _COMPILE(text, self.path, "exec", dont_inherit=True)


def _stamp(path: str) -> tuple[int, int, int]:
    """A file's identity and version: inode, size and time of its last change."""
    try:
        info = os.stat(path)
    except OSError:
        return (0, 0, 0)
    return (info.st_ino, info.st_size, info.st_ctime_ns)


def _package_folders(module) -> list[str]:
    """A module's `__path__` (a package's folders), [] for a module or an odd one."""
    try:
        return [p for p in getattr(module, "__path__", ()) if isinstance(p, str)]
    except Exception:  # noqa: BLE001 - torch's namespaces and lazy modules are no packages
        return []


def preload() -> None:
    """Import what every notebook's first cell imports, so that a kernel started ahead (or
    forked from `grader.zygote`) has done it."""
    for name in PRELOAD:
        try:
            __import__(name)
        except Exception:  # a package the course does not use
            pass


class Kernel:
    def __init__(self):
        from IPython.core.interactiveshell import InteractiveShell

        self.shell = InteractiveShell.instance(colors="NoColor", history_length=0)
        if self.shell.history_manager is None:  # instance() always makes one
            raise RuntimeError("Kernel: expected IPython's shell to have a history manager")
        self.shell.history_manager.enabled = False
        for name in ("exit", "quit"):  # IPython's exit objects hold the shell (`quit._ip`)
            self.shell.user_ns.pop(name, None)
            self.shell.user_ns_hidden.pop(name, None)
        self.modules: WrittenModules | None = None  # the import guard, once it serves
        # `%matplotlib inline` asks this plain shell for a GUI it has not got, and the rest of
        # the cell would not run: here plots stay with the Agg backend, and the magic is a no-op
        self.shell.register_magic_function(_no_op, "line", "matplotlib")  # type: ignore[arg-type]
        self.error = None
        self.displays: list[dict] = []
        self.dropped = 0
        # IPython's hooks for tracebacks and displays are replaced on this one shell
        self.shell._showtraceback = self._record_error  # type: ignore[method-assign]
        self.shell.display_pub.publish = self._record_display  # type: ignore[method-assign]
        self.handles: dict[int, object] = {}
        self.tokens: dict[int, int] = {}  # id(object) -> a small number, for aliasing
        # file name IPython compiled a cell under -> (its run, lines IPython dropped above it)
        self.cells: dict[str, tuple[int, int]] = {}
        self.runs = 0
        # the course's helpers standing in for failed ones during one call (grader.standins)
        self.stand_ins: standins.KernelSide | None = None
        preload()

    # -- cells ------------------------------------------------------------------------
    def _record_error(self, etype, evalue, stb):
        self.error = {
            "output_type": "error",
            "ename": _name(getattr(etype, "__name__", etype)),
            "evalue": str(evalue)[:TEXT_LIMIT],
            "traceback": [s[:TEXT_LIMIT] for s in stb[-40:]],
        }

    def _record_display(self, data, metadata=None, *args, **kwargs):
        if not isinstance(data, dict):
            return
        if len(self.displays) >= DISPLAY_LIMIT:
            self.dropped += 1
            return
        kept = {}
        if "text/plain" in data:
            kept["text/plain"] = str(data["text/plain"])[:TEXT_LIMIT]
        png = data.get("image/png")
        if isinstance(png, str | bytes) and len(png) <= PNG_LIMIT:
            kept["image/png"] = png if isinstance(png, str) else png.decode("ascii", "replace")
        elif png is not None:
            self.dropped += 1
        if kept:
            self.displays.append({"output_type": "display_data", "data": kept, "metadata": {}})

    def run(self, source: str) -> dict:
        out, err = BoundedText("stdout", TEXT_LIMIT), BoundedText("stderr", TEXT_LIMIT)
        self.error, self.displays, self.dropped = None, [], 0
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = out, err
        try:
            result = self.shell.run_cell(source, store_history=False)
        finally:
            sys.stdout, sys.stderr = saved
            self._note_cell(source)
        outputs = [
            {"output_type": "stream", "name": s.name, "text": s.value()}
            for s in (out, err)
            if s.value()
        ]
        outputs += self.displays
        if self.dropped:
            outputs.append(
                {
                    "output_type": "stream",
                    "name": "stdout",
                    "text": (
                        f"[{self.dropped} rich output(s) not kept: at most {DISPLAY_LIMIT} "
                        f"per cell, images up to {PNG_LIMIT // 1000} kB]\n"
                    ),
                }
            )
        failed = not result.success
        if failed and self.error is None:
            error = result.error_in_exec or result.error_before_exec
            self._record_error(type(error), error, [f"{type(error).__name__}: {error}"])
        if self.error is not None:
            outputs.append(self.error)
        return {"ok": not failed, "outputs": outputs}

    def _note_cell(self, source: str) -> None:
        """Remember the file name IPython compiled this run's cell under: a hash of its
        text, so a cell whose text ran before keeps the first run's index. Code compiled
        in the run under any other name (a nested `run_cell`) is in no cell."""
        try:
            transformed = self.shell.transform_cell(source)
            name = self.shell.compile.get_code_name(source, transformed, self.shell.execution_count)
        except Exception:  # a cell IPython cannot transform compiled nothing
            name = None
        if isinstance(name, str) and name not in self.cells:
            # IPython drops a cell's leading blank lines: lines are counted in the cell
            self.cells[name] = (self.runs, _first_line(source) - _first_line(transformed))
        self.runs += 1

    def origin(self, name: str) -> dict:
        ns = self.shell.user_ns
        if name not in ns:
            return {"kind": "missing"}
        return {"kind": "code", "chain": _origin_chain(ns[name], self.cells)}

    # -- names and calls --------------------------------------------------------------
    def describe(self, name: str) -> dict:
        ns = self.shell.user_ns
        if name not in ns:
            return {"kind": "missing"}
        value = ns[name]
        if callable(value):
            return {
                "kind": "callable",
                "name": str(getattr(value, "__name__", name))[:200],
                "params": _parameter_names(value),
                "is_class": isinstance(value, type),
            }
        try:
            return {"kind": "data", "value": wire.encode(value)}
        except wire.Unsendable as why:
            return {"kind": "opaque", "type": type(value).__name__[:200], "why": str(why)}

    def handle_of(self, value) -> dict:
        number = len(self.handles) + 1
        self.handles[number] = value
        mro = [_name(f"{c.__module__}.{c.__qualname__}") for c in type(value).__mro__][:40]
        return {"__handle__": number, "mro": mro}

    def lookup(self, number: int):
        if number not in self.handles:
            raise wire.WireError(f"no object number {number}")
        return self.handles[number]

    def call(
        self,
        target: dict,
        args,
        kwargs,
        backward: bool = False,
        stand_ins=(),
        request_id=None,
        classes=(),
        reach: int | None = None,
    ) -> dict:
        """`reach` (a seed): reply with the parameters that never train and the gradients of
        the output (`_reach`), in place of the result and the arguments."""
        func = self._target(target)
        names = standins.valid_names(stand_ins)
        if names and self.stand_ins is not None:
            with self.stand_ins.installed(
                self.shell.user_ns,
                names,
                request_id,
                target.get("name"),
                frozenset(standins.valid_names(classes)),
            ):
                return self._call(func, args, kwargs, backward, reach)
        return self._call(func, args, kwargs, backward, reach)

    def _call(self, func, args, kwargs, backward: bool, reach: int | None = None) -> dict:
        decoder = wire.Decoder(objects=True, lookup=self.lookup)
        args = decoder.decode(args)
        kwargs = decoder.decode(kwargs)
        out = BoundedText("stdout", TEXT_LIMIT)
        saved = sys.stdout
        sys.stdout = out
        try:
            result = func(*args, **kwargs)
            if reach is not None:
                unreached, given = _reach(func, result, reach)
                encoded = None if given is None else wire.encode(given)
                return {"ok": True, "unreached": unreached, "grads": encoded}
            grads = _backward(result, args) if backward else None
        except BaseException as err:  # the student's exception is the answer to send back
            failed = {"ok": False, "exc": _exception(err)}
            if isinstance(err, Exception):  # and the arguments as it left them, if they go
                try:
                    encoder = wire.Encoder(handle_of=self.handle_of)
                    failed["args_after"] = [encoder.encode(a) for a in args]
                except Exception:  # noqa: BLE001 (they stay behind; the exception goes)
                    pass
            return failed
        finally:
            sys.stdout = saved
        encoder = wire.Encoder(handle_of=self.handle_of)
        reply = {
            "ok": True,
            "result": encoder.encode(result),
            "args_after": [encoder.encode(a) for a in args],
            "kwargs_after": {k: encoder.encode(v) for k, v in kwargs.items()},
        }
        if grads is not None:
            reply["grads"] = [encoder.encode(g) for g in grads]
        return reply

    def _target(self, target: dict):
        if "handle" in target:
            return self.lookup(int(target["handle"]))
        name = str(target.get("name"))
        func = self.shell.user_ns.get(name)
        if not callable(func):
            raise NameError(f"name {name!r} is not defined")
        return func

    # -- modules ----------------------------------------------------------------------
    def _token(self, value) -> int:
        return self.tokens.setdefault(id(value), len(self.tokens) + 1)

    def module(self, number: int, action: str, request: dict) -> dict:
        import torch

        module = self.lookup(number)
        if not isinstance(module, torch.nn.Module):
            raise TypeError(f"object {number} is a {type(module).__name__}, not an nn.Module")
        if action == "info":
            return self._info(module)
        if action == "unreached":  # a forward call, as `call` makes it, then a backward
            return self.call(
                {"handle": number},
                request.get("args", []),
                request.get("kwargs", {"__dict__": []}),
                stand_ins=request.get("stand_ins") or [],
                request_id=request.get("id"),
                classes=request.get("stand_in_classes") or [],
                reach=int(request.get("seed") or 0) % 2**31,
            )
        if action == "get":
            return {
                "values": [
                    wire.encode(_tensor_or_none(module, str(p))) for p in request.get("names", [])
                ]
            }
        if action == "set":
            values = wire.decode(request.get("values"))
            with torch.no_grad():
                for path, value in values.items():
                    target = _resolve(module, str(path))
                    if not isinstance(target, torch.Tensor):
                        raise AttributeError(f"{path} is not a parameter or buffer")
                    target.copy_(torch.as_tensor(value, dtype=target.dtype))
            return {}
        if action == "load":
            state = wire.decode(request.get("state"))
            result = module.load_state_dict(state, strict=bool(request.get("strict")))
            return {
                "missing": list(result.missing_keys),
                "unexpected": list(result.unexpected_keys),
            }
        if action == "state":
            return {"state": wire.encode(dict(module.state_dict()))}
        if action == "to":
            dtype = str(request.get("dtype"))
            if dtype not in ("float32", "float64"):
                raise ValueError(f"unknown dtype {dtype!r}")
            module.to(getattr(torch, dtype))
            return {}
        if action == "train":
            module.train(bool(request.get("mode", True)))
            return {"training": module.training}
        raise ValueError(f"unknown module action {action!r}")

    def _info(self, module) -> dict:
        modules = [
            [
                path,
                [_name(f"{c.__module__}.{c.__qualname__}") for c in type(m).__mro__][:20],
                bool(m.training),
                self._token(m),
            ]
            for path, m in module.named_modules(remove_duplicate=False)
        ]
        params = [
            [_name(name), list(p.shape), str(p.dtype), self._token(p), bool(p.requires_grad)]
            for name, p in module.named_parameters(remove_duplicate=False)
        ]
        persistent = set(module.state_dict())
        buffers = [
            [_name(name), list(b.shape), str(b.dtype), name in persistent]
            for name, b in module.named_buffers(remove_duplicate=False)
        ]
        return {"modules": modules[:2000], "params": params[:5000], "buffers": buffers[:2000]}


def _parameter_names(func) -> list[str]:
    import inspect

    try:
        return [p.name for p in inspect.signature(func).parameters.values()][:20]
    except (TypeError, ValueError):
        return []


def _resolve(module, path: str):
    value = module
    for part in path.split("."):
        value = getattr(value, part)
    return value


def _tensor_or_none(module, path: str):
    import torch

    try:
        value = _resolve(module, path)
    except AttributeError:
        return None
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    return None


def _backward(result, args) -> list:
    import torch

    if isinstance(result, torch.Tensor) and result.requires_grad and result.numel() == 1:
        result.backward()
    return [a.grad if isinstance(a, torch.Tensor) else None for a in args]


def _unreached(module, result) -> list[str]:
    """The names (first 20) of `module`'s parameters that never train: frozen ones, and those
    that the graph of `result` (a float or complex tensor, or the first of a tuple) does not
    reach (a gradient of None, not zeros). As `attnbook.checks._modules.unreached`."""
    return _reach(module, result, 0)[0]


def _reach(module, result, seed: int) -> tuple[list[str], dict | None]:
    """`_unreached`'s names, and where there are none, the gradients of (v * out).sum() for
    each trainable parameter, v drawn from `seed` (float64, out's shape; a complex out's real
    view): the grader holds them against its own finite differences of the forward
    (`grader.remote.gradients_hold`), so names made up here do not pass. None: no gradient
    to give (not a float output, or names to give instead)."""
    import torch

    out = result[0] if isinstance(result, tuple | list) and result else result
    if not (isinstance(out, torch.Tensor) and (out.is_floating_point() or out.is_complex())):
        return [], None
    frozen = [_name(n) for n, p in module.named_parameters() if not p.requires_grad]
    named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
    if not (named and out.requires_grad):
        return (frozen + [_name(n) for n, _ in named])[:20], None
    real = torch.view_as_real(out) if out.is_complex() else out
    v = torch.randn(real.shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    # a backward that fails (a saved tensor changed in place) raises: the module cannot train
    grads = torch.autograd.grad((real.double() * v).sum(), [p for _, p in named], allow_unused=True)
    lost = frozen + [_name(n) for (n, _), g in zip(named, grads) if g is None]
    if lost:
        return lost[:20], None
    of = {id(p): g.detach() for (_, p), g in zip(named, grads)}  # under each of its names
    return [], {n: of[id(p)] for n, p in module.named_parameters(remove_duplicate=False)}


def _name(value) -> str:
    """A name read from an object the student made, as a bounded string."""
    try:
        return str(value)[:NAME_LIMIT]
    except Exception:
        return "?"


def _module_of_file(filename: str) -> str:
    for module_name, module in list(sys.modules.items()):
        if getattr(module, "__file__", None) == filename:
            return module_name
    return ""


def _first_line(text: str) -> int:
    """The index of the first line of `text` that is not blank."""
    return next((i for i, line in enumerate(text.splitlines()) if line.strip()), 0)


def _where(code, cells: dict[str, tuple[int, int]]) -> dict:
    filename = code.co_filename
    cell, offset = cells.get(filename, (None, 0))
    return {
        "cell": cell,
        "line": int(code.co_firstlineno) + offset,
        "name": _name(code.co_name),
        "file": _name(filename),
        "module": "__main__" if cell is not None else _name(_module_of_file(filename)),
        "qualname": _name(getattr(code, "co_qualname", code.co_name)),
    }


_DATACLASS_METHODS = frozenset(
    ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__", "__lt__")
    + ("__le__", "__gt__", "__ge__", "__match_args__", "__getstate__", "__setstate__")
)
_NAMEDTUPLE_METHODS = frozenset(("__new__", "__repr__", "_make", "_replace", "_asdict"))


def _generated_methods(cls) -> frozenset:
    """The methods `dataclasses` or `namedtuple` wrote for `cls` (compiled from strings, so
    in no cell): not the student's code, not followed."""
    if "__dataclass_fields__" in vars(cls):
        return _DATACLASS_METHODS
    if issubclass(cls, tuple) and "_fields" in vars(cls):
        return _NAMEDTUPLE_METHODS
    return frozenset()


def _origin_chain(value, cells: dict[str, tuple[int, int]]) -> list[dict]:
    """What `value` runs when called: itself, what it wraps (`__wrapped__`), a partial's
    function, a bound method's function, a callable object's `__call__`."""
    import functools
    import types

    chain: list[dict] = []
    todo, seen = [value], set()
    while todo and len(chain) < 8:
        obj = todo.pop(0)
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        cls = obj if isinstance(obj, type) else type(obj)
        entry: dict = {
            "module": _name(getattr(obj, "__module__", None) or cls.__module__),
            "qualname": _name(getattr(obj, "__qualname__", None) or cls.__qualname__),
        }
        code = getattr(obj, "__code__", None)
        if isinstance(obj, type) or not isinstance(
            obj, types.FunctionType | types.BuiltinFunctionType | types.MethodType
        ):
            entry["kind"] = "class" if isinstance(obj, type) else "object"
            if not isinstance(obj, type):
                entry["module"], entry["qualname"] = _name(cls.__module__), _name(cls.__qualname__)
            entry["mro"] = [_name(f"{c.__module__}.{c.__qualname__}") for c in cls.__mro__][:20]
            codes = []
            generated = _generated_methods(cls)
            for key, member in list(vars(cls).items())[:200]:
                func = getattr(member, "__func__", member)
                if isinstance(func, types.FunctionType) and key not in generated:
                    codes.append(_where(func.__code__, cells))
            entry["code"] = codes[:50]
        elif isinstance(code, types.CodeType):
            entry["kind"] = "function"
            entry["code"] = [_where(code, cells)]
        else:
            entry["kind"] = "builtin"
        chain.append(entry)
        if isinstance(obj, functools.partial):
            todo.append(obj.func)
        for attribute in ("__wrapped__", "__func__"):
            inner = getattr(obj, attribute, None)
            if inner is not None and callable(inner):
                todo.append(inner)
    return chain


def _exception(err: BaseException) -> dict:
    return {
        "type": _name(type(err).__name__),
        "module": _name(type(err).__module__),
        "mro": [_name(c.__name__) for c in type(err).__mro__][:12],
        "message": str(err)[:TEXT_LIMIT],
        "traceback": "".join(traceback.format_exception(err))[-TEXT_LIMIT:],
    }


def serve(kernel: Kernel, request: dict) -> dict:
    op = request.get("op")
    if op == "run":
        if kernel.modules is not None:  # the student's own files: those there before a cell
            kernel.modules.freeze()
        return kernel.run(str(request["source"]))
    if op == "describe":
        return kernel.describe(str(request["name"]))
    if op == "origin":
        return kernel.origin(str(request["name"]))
    if op == "call":
        return kernel.call(
            dict(request.get("target") or {}),
            request.get("args", []),
            request.get("kwargs", {"__dict__": []}),
            bool(request.get("backward")),
            request.get("stand_ins") or [],
            request.get("id"),
            request.get("stand_in_classes") or [],
        )
    if op == "module":
        return kernel.module(int(request["handle"]), str(request["action"]), request)
    if op == "adopt":
        return adopt(SUBMISSION)
    if op == "ping":
        return {}
    raise ValueError(f"unknown op {op!r}")


SUBMISSION = "/opt/submission"  # where the sandbox shows the student's own files


def adopt(source: str) -> dict:
    """Copy the files under `source` into the working folder (as the launcher does for a
    kernel started with its files); how many were copied."""
    import shutil

    if not os.path.isdir(source):
        return {"files": 0}
    count = 0
    for folder, _dirs, files in os.walk(source):
        target = os.path.join(".", os.path.relpath(folder, source))
        os.makedirs(target, exist_ok=True)
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                continue
            try:
                shutil.copyfile(path, os.path.join(target, name))
                count += 1
            except OSError:  # the sandbox's /tmp is full: the launcher's copy ignores it too
                pass
    return {"files": count}


def seal_memory() -> None:
    """Make this process's memory files (`/proc/self/mem`) the superuser's, as for a
    program that changed its ids: a cell could otherwise write any byte of the process's
    memory, the kernel's own code included, with a plain `open`. (Undoing it takes `prctl`,
    which only ctypes reaches: a reach, `grader.borrowed`.) Only Linux has the files."""
    if sys.platform != "linux":
        return
    import ctypes

    if ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE, 0
        raise OSError(ctypes.get_errno(), "seal_memory: prctl(PR_SET_DUMPABLE, 0) failed")


def keep_wire(*fds: int) -> None:
    """The grader's pipes stay this process's alone: no program a cell starts inherits
    them, and a process forked from it (`os.fork`, a pool's worker, a `preexec_fn`) has
    them closed before any code of the student's runs there, so no other process can read
    the grader's requests or answer them in the kernel's name (the kernel stopped, say).
    (Copying one so that it is inherited, `os.dup2` or `pass_fds`, is a reach.)"""
    for fd in fds:
        os.set_inheritable(fd, False)

    def close_in_child(closing=os.close, fds=fds) -> None:
        for fd in fds:
            try:
                closing(fd)
            except OSError:
                pass

    os.register_at_fork(after_in_child=close_in_child)


def serve_forever(requests: int, replies: int, reseed: bool = False) -> None:
    """Answer requests on descriptor `requests` until it closes. `reseed`: draw new seeds
    for Python's and numpy's global generators (a process forked from the zygote would
    otherwise share them with every other kernel it forked)."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    if reseed:
        import random

        import numpy

        random.seed()
        numpy.random.seed()
    kernel = Kernel()  # (the course's packages imported: their folders are the course's)
    kernel.modules = WrittenModules()
    sys.meta_path.insert(0, kernel.modules)  # before any cell runs
    seal_memory()
    keep_wire(requests, replies)
    kernel.stand_ins = standins.KernelSide(requests, replies)
    wire.write_frame(replies, {"ready": True, "pid": os.getpid()})
    while True:
        try:
            pending = kernel.stand_ins.pending
            request = pending.pop(0) if pending else wire.read_frame(requests)
        except wire.WireError:
            os._exit(0)
        kernel.stand_ins.nonce = request.get("nonce")  # its callbacks repeat it too
        try:
            reply = serve(kernel, request)
        except BaseException as err:  # never let one bad request stop the kernel
            reply = {"ok": False, "exc": _exception(err)}
        reply["id"], reply["nonce"] = request.get("id"), request.get("nonce")
        try:
            wire.write_frame(replies, reply)
        except (wire.Unsendable, ValueError) as why:
            wire.write_frame(
                replies,
                {
                    "ok": False,
                    "id": request.get("id"),
                    "nonce": request.get("nonce"),
                    "exc": _exception(ValueError(str(why))),
                },
            )


def main() -> None:
    """`python -m grader.kernel REQUESTS REPLIES [deny-keyrings]`: the last, in a sandbox or as
    a throwaway user (`sandbox.kernel_command`), installs the seccomp filter that refuses the
    key system calls (`grader.keyrings`) before any request; a filter it cannot install ends
    the kernel before it serves. Such a kernel is started with -P, so that nothing in its
    working folder (the student's files) is imported before the filter. Without it (the
    learner's own user, no sandbox) keyrings are the learner's own and no filter is
    installed: it would need no_new_privs, which a learner's own session has no reason to
    take on."""
    if sys.argv[3:] == [keyrings.DENY_KEYRINGS]:
        keyrings.deny_keyrings()
    if sys.flags.safe_path:  # -P: the working folder goes on the path only now, as -m puts it
        sys.path.insert(0, os.getcwd())
    serve_forever(int(sys.argv[1]), int(sys.argv[2]))


if __name__ == "__main__":
    main()
