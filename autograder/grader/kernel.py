"""The student's kernel: runs inside the sandbox, executes the student's cells, answers calls.

It speaks `grader.wire` frames on two private pipe descriptors; file descriptors 0, 1 and 2
point at /dev/null, so a print that bypasses `sys.stdout` goes nowhere. Requests:

- `{"op": "run", "source": ...}`: run a cell with IPython (magics work); reply with its
  outputs (stdout and stderr truncated to a limit, rich displays as text, errors).
- `{"op": "describe", "name": ...}`: is the name a function, plain data or missing?
- `{"op": "call", "name": ..., "args": [...], "kwargs": {...}}`: call a function of the
  student's namespace on plain data; reply with the result and the arguments afterwards
  (so the grader sees in-place changes).

- `{"op": "test", ...}`: only for tests whose arguments cannot cross as data (classes,
  modules, optimisers; decided from the instructor's solution, never from the submission):
  restore the check library, numpy and torch to their state before any student code ran,
  rebuild the test's names from the instructor's setup, lend the reference answers (sent
  over the pipe, never on disk in the sandbox) for the test's duration, run the test with
  `exec` (no IPython input transformers), and reply with the per-run nonce.

Nothing here is trusted by the grader for tests it runs itself: they run in the grader's
process, and everything this process sends is decoded as inert data.
"""

from __future__ import annotations

import builtins
import gc
import importlib.util
import os
import sys
import threading
import traceback

from grader import wire

TEXT_LIMIT = int(os.environ.get("ATTNBOOK_OUTPUT_LIMIT", "20000"))
RICH_KEYS = ("text/plain", "text/markdown", "text/html", "image/png")


class BoundedText:
    """A text stream that keeps the first `limit` characters and counts the rest."""

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


WATCHED = ("numpy", "torch", "attnbook", "math", "builtins")


def _watched(name: str) -> bool:
    return name.split(".")[0] in WATCHED


class Snapshot:
    """Functions, classes and submodules of numpy, torch and attnbook before student code.

    `restore` puts back every one of them that was replaced (a patched `np.allclose`, a
    no-op `CheckRun.fail`); names added since (lazily imported submodules, caches) and
    plain data (counters) are left alone, so restoring never breaks the libraries.
    """

    CLASSES = ("attnbook", "torch.Tensor", "torch.nn.modules.module.Module")

    def __init__(self):
        self.modules, self.classes = {}, []
        for name, module in list(sys.modules.items()):
            if module is None or not _watched(name):
                continue
            saved = {k: v for k, v in vars(module).items() if _restorable(v)}
            self.modules[name] = (module, saved)
            for value in saved.values():
                qualified = f"{getattr(value, '__module__', '')}.{getattr(value, '__name__', '')}"
                if isinstance(value, type) and qualified.startswith(self.CLASSES):
                    self.classes.append((value, {k: v for k, v in vars(value).items()
                                                 if _restorable(v) or isinstance(
                                                     v, staticmethod | classmethod | property)}))

    def restore(self) -> list[str]:
        changed = []
        for name, (module, saved) in self.modules.items():
            if sys.modules.get(name) is not module:
                changed.append(name)
                sys.modules[name] = module
            current = vars(module)
            for key, value in saved.items():
                if current.get(key, _MISSING) is not value:
                    changed.append(f"{name}.{key}")
                    current[key] = value
        for cls, saved in self.classes:
            current = vars(cls)
            for key, value in saved.items():
                if current.get(key, _MISSING) is not value:
                    changed.append(f"{cls.__name__}.{key}")
                    _quiet(setattr, cls, key, value)
        return changed


def _restorable(value) -> bool:
    return callable(value) or type(value).__name__ == "module"


_MISSING = object()


def _quiet(func, *args):
    try:
        func(*args)
    except (AttributeError, TypeError):
        pass


def _no_new_audit_hooks(event, args):
    if event == "sys.addaudithook":
        raise RuntimeError("audit hooks are not allowed while grading")


class Kernel:
    def __init__(self):
        from IPython.core.interactiveshell import InteractiveShell

        self.shell = InteractiveShell.instance(colors="NoColor", history_length=0)
        self.shell.history_manager.enabled = False
        self.error = None
        self.displays: list[dict] = []
        self.shell._showtraceback = self._record_error
        self.shell.display_pub.publish = self._record_display
        self.exec, self.compile = builtins.exec, builtins.compile
        for name in ("numpy", "torch", "matplotlib", "attnbook.checks", "attnbook.grading",
                     "attnbook.notebook"):
            try:
                __import__(name)
            except Exception:  # a package the course does not use
                pass
        self.snapshot = Snapshot()
        self.threads = {t.ident for t in threading.enumerate()}
        sys.addaudithook(_no_new_audit_hooks)

    def test(self, source: str, setup: list[str], references: dict, nonce: str) -> dict:
        """Run an instructor's test here, in a restored environment; see the module doc."""
        tampered = self.snapshot.restore()
        sys.settrace(None)
        sys.setprofile(None)
        threading.settrace(None)
        extra = [t for t in threading.enumerate()
                 if t.ident not in self.threads and type(t).__name__ != "TMonitor"]
        if extra:
            return {"ok": False, "nonce": nonce, "outputs": [self._fail(
                "GraderRefused", "your code left threads running; the test was not run")]}
        import attnbook.grading as grading

        loaded = {}
        for name, text in references.items():
            spec = importlib.util.spec_from_loader(f"attnbook_reference_nb{name}", loader=None)
            module = importlib.util.module_from_spec(spec)
            self.exec(self.compile(text, f"<reference {name}>", "exec"), module.__dict__)
            loaded[name] = module
        original = grading.load_reference
        grading.load_reference = lambda notebook: loaded[notebook]
        names: dict = {"__name__": "__main__"}
        out = BoundedText("stdout", TEXT_LIMIT)
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = out
        error = None
        try:
            for text in setup:
                self.exec(self.compile(text, "<instructor setup>", "exec"), names)
            for key, value in self.shell.user_ns.items():
                if key not in names and not key.startswith("_"):
                    names[key] = value
            self.exec(self.compile(source, "<test>", "exec"), names)
        except BaseException as err:  # the test's failure is its verdict
            error = self._fail(type(err).__name__, str(err))
        finally:
            sys.stdout, sys.stderr = saved
            grading.load_reference = original
            names.clear()
            loaded.clear()
            gc.collect()
        outputs = [{"output_type": "stream", "name": "stdout", "text": out.value()}] \
            if out.value() else []
        if error is not None:
            outputs.append(error)
        return {"ok": error is None, "nonce": nonce, "outputs": outputs,
                "restored": tampered[:20]}

    @staticmethod
    def _fail(ename: str, evalue: str) -> dict:
        return {"output_type": "error", "ename": ename, "evalue": evalue[:TEXT_LIMIT],
                "traceback": [f"{ename}: {evalue[:TEXT_LIMIT]}"]}

    def _record_error(self, etype, evalue, stb):
        self.error = {"output_type": "error", "ename": str(getattr(etype, "__name__", etype)),
                      "evalue": str(evalue)[:TEXT_LIMIT], "traceback": [s[:TEXT_LIMIT]
                                                                        for s in stb[-40:]]}

    def _record_display(self, data, metadata=None, *args, **kwargs):
        if len(self.displays) < 50 and isinstance(data, dict):
            kept = {k: str(v)[:TEXT_LIMIT * 10] for k, v in data.items() if k in RICH_KEYS}
            if kept:
                self.displays.append({"output_type": "display_data", "data": kept,
                                      "metadata": {}})

    def run(self, source: str) -> dict:
        out, err = BoundedText("stdout", TEXT_LIMIT), BoundedText("stderr", TEXT_LIMIT)
        self.error, self.displays = None, []
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = out, err
        try:
            result = self.shell.run_cell(source, store_history=False)
        finally:
            sys.stdout, sys.stderr = saved
        outputs = [{"output_type": "stream", "name": s.name, "text": s.value()}
                   for s in (out, err) if s.value()]
        outputs += self.displays
        failed = not result.success
        if failed and self.error is None:
            error = result.error_in_exec or result.error_before_exec
            self._record_error(type(error), error, [f"{type(error).__name__}: {error}"])
        if self.error is not None:
            outputs.append(self.error)
        return {"ok": not failed, "outputs": outputs}

    def describe(self, name: str) -> dict:
        ns = self.shell.user_ns
        if name not in ns:
            return {"kind": "missing"}
        value = ns[name]
        if callable(value):
            return {"kind": "callable", "name": str(getattr(value, "__name__", name))[:200]}
        try:
            return {"kind": "data", "value": wire.encode(value)}
        except wire.Unsendable as why:
            return {"kind": "opaque", "type": type(value).__name__[:200], "why": str(why)}

    def call(self, name: str, args, kwargs) -> dict:
        func = self.shell.user_ns.get(name)
        if not callable(func):
            return {"ok": False, "exc": _exception(NameError(f"name {name!r} is not defined"))}
        args, kwargs = wire.decode(args), wire.decode(kwargs)
        out = BoundedText("stdout", TEXT_LIMIT)
        saved = sys.stdout
        sys.stdout = out
        try:
            result = func(*args, **kwargs)
        except BaseException as err:  # the student's exception is the answer to send back
            return {"ok": False, "exc": _exception(err)}
        finally:
            sys.stdout = saved
        try:
            return {"ok": True, "result": wire.encode(result),
                    "args_after": [_after(a) for a in args],
                    "kwargs_after": {k: _after(v) for k, v in kwargs.items()}}
        except wire.Unsendable as why:
            return {"ok": False, "exc": {"type": "TypeError", "module": "builtins",
                                         "mro": ["TypeError"],
                                         "message": f"{name} returned {why}, which the grader "
                                                    "cannot compare; return arrays, tensors, "
                                                    "numbers or tuples of them"}}


def _after(value):
    try:
        return wire.encode(value) if hasattr(value, "shape") else None
    except wire.Unsendable:
        return None


def _exception(err: BaseException) -> dict:
    return {"type": type(err).__name__, "module": type(err).__module__,
            "mro": [c.__name__ for c in type(err).__mro__][:12],
            "message": str(err)[:TEXT_LIMIT],
            "traceback": "".join(traceback.format_exception(err))[-TEXT_LIMIT:]}


def main() -> None:
    requests, replies = int(sys.argv[1]), int(sys.argv[2])
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    kernel = Kernel()
    wire.write_frame(replies, {"ready": True, "pid": os.getpid()})
    while True:
        try:
            request = wire.read_frame(requests)
        except wire.WireError:
            os._exit(0)
        op = request.get("op")
        try:
            if op == "run":
                reply = kernel.run(str(request["source"]))
            elif op == "test":
                reply = kernel.test(str(request["source"]), list(request.get("setup", [])),
                                    dict(request.get("references", {})),
                                    str(request.get("nonce", "")))
            elif op == "describe":
                reply = kernel.describe(str(request["name"]))
            elif op == "call":
                reply = kernel.call(str(request["name"]), request.get("args", []),
                                    request.get("kwargs", {"__dict__": []}))
            else:
                reply = {"ok": False, "exc": _exception(ValueError(f"unknown op {op!r}"))}
        except BaseException as err:  # never let one bad request stop the kernel
            reply = {"ok": False, "exc": _exception(err)}
        try:
            wire.write_frame(replies, reply)
        except wire.Unsendable as why:
            wire.write_frame(replies, {"ok": False, "exc": _exception(ValueError(str(why)))})


if __name__ == "__main__":
    main()
