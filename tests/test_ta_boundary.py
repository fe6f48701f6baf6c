"""The grader's trust boundary, piece by piece: what crosses, what comes back, what is capped.

- `wire.restore_all` builds what a student's function left behind as a copy of the grader's
  own object, and refuses any structure the kernel invents;
- the check library calls learners' code on private copies and names an input changed in
  place;
- each test runs in a fresh process with a deadline: a slow check costs its test, the kernel
  lives on, and nothing one test changes is seen by the next;
- outputs are capped per type, per cell and per notebook;
- forbidden calls are read from the learner's source, the same way in a notebook and in the
  grader.
"""

from __future__ import annotations

import ast
import os
import shutil
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from conftest import ROOT, fresh_sandbox_probe
from grader import execute, wire
from grader.course import idle_core
from grader.execute import (
    OutputBudget,
    StudentKernel,
    Template,
    close_spare,
    names_used,
    run_test,
    start_kernels_ahead,
    take_kernel,
)
from grader.sandbox import (
    ZYGOTE_ENV,
    ForkedKernel,
    KernelZygote,
    Limits,
    close_zygotes,
    forks_kernels,
    kernel_command,
    sandbox_available,
)

from attnbook.checks._core import CheckFailure, CheckRun, observe
from attnbook.checks._lm import ObservedLM
from attnbook.checks._source import borrowed, definitions, names_called, names_reached
from attnbook.lm.model import LMConfig

SANDBOX_OK, _ = sandbox_available()


def _model(seed: int = 0) -> ObservedLM:
    torch.manual_seed(seed)
    return ObservedLM(LMConfig(vocab_size=7, d_model=8, n_heads=2, n_layers=1, max_len=8))


def _kernel_side(args: list):
    """What the kernel rebuilds from the grader's encoding of `args`."""
    sent, _ = wire.encode_call(args, {})
    return wire.Decoder(objects=True).decode(sent)


# -- what comes back -----------------------------------------------------------------------
def test_a_model_and_its_optimizer_come_back_as_copies_with_the_new_state():
    model = _model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.1)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    theirs, their_opt = _kernel_side([model, optimizer])
    loss = theirs(torch.tensor([[1, 2, 3]])).sum()
    loss.backward()
    their_opt.step()
    encoder = wire.Encoder()
    after = [encoder.encode(theirs), encoder.encode(their_opt)]
    mine, my_opt = wire.restore_all(after, [model, optimizer])
    assert mine is not model and my_opt is not optimizer
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert all(torch.equal(v, theirs.state_dict()[k]) for k, v in mine.state_dict().items())
    assert my_opt.param_groups[0]["params"][0] is next(mine.parameters())
    assert len(my_opt.state) == len(their_opt.state)
    assert mine.embed.weight.grad is not None  # left by the step, kept as state
    assert [e["graph"] for e in mine.forward_log] == [True]


def _after_model(model, **change) -> dict:
    spec = wire.Encoder().encode(model)
    spec["__model__"].update(change)
    return spec


@pytest.mark.parametrize(
    "change, why",
    [
        ({"class": "attnbook.lm.model.TransformerLM"}, "another class"),
        ({"state": {}}, "other state keys"),
        ({"grads": {"nope": wire.encode(torch.zeros(1))}}, "unknown parameters"),
    ],
)
def test_a_model_with_invented_structure_is_refused(change, why):
    model = _model()
    with pytest.raises(wire.WireError, match=why):
        wire.restore_all([_after_model(model, **change)], [model])


@pytest.mark.parametrize("value", [torch.zeros(3, 3), torch.zeros(7, 8, dtype=torch.float64)])
def test_a_parameter_of_another_shape_or_dtype_is_refused(value):
    model = _model()
    spec = _after_model(model)
    spec["__model__"]["state"]["embed.weight"] = wire.encode(value)
    with pytest.raises(wire.WireError, match="another shape or dtype"):
        wire.restore_all([spec], [model])


def test_objects_cannot_turn_into_data_or_back():
    model = _model()
    with pytest.raises(wire.WireError, match="another kind of value"):
        wire.restore_all([wire.encode(np.zeros(3))], [model])
    with pytest.raises(wire.WireError, match="another kind of value"):
        wire.restore_all([_after_model(model)], [np.zeros(3)])


def test_a_generator_keeps_its_state_size():
    generator = torch.Generator().manual_seed(3)
    bad = {"__generator__": "AAAA"}
    with pytest.raises(wire.WireError, match="generator"):
        wire.restore_all([bad], [generator])
    good = wire.Encoder().encode(torch.Generator().manual_seed(4))
    restored = wire.restore_all([good], [generator])[0]
    assert torch.equal(restored.get_state(), torch.Generator().manual_seed(4).get_state())


def test_the_grader_refuses_objects_where_data_is_expected():
    with pytest.raises(wire.WireError):
        wire.decode(wire.Encoder().encode(_model()))


# -- copies in, copies out -----------------------------------------------------------------
def test_learners_code_gets_copies_and_a_change_in_place_is_named():
    X = np.arange(6.0).reshape(2, 3)

    def zero_it(X):
        X[...] = 0.0
        return X.sum()

    seen = observe(zero_it, (X,), {})
    assert seen.changed == ["X"] and X.sum() == 15.0
    run = CheckRun(zero_it, in_place_hint="a new array please")
    with pytest.raises(CheckFailure, match=r"(?s)changed its input X in place.*a new array"):
        run.call("zero_it(X)", X)


def test_an_optimizer_copied_with_its_model_still_drives_it():
    model = _model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)

    def step(model, optimizer):
        model(torch.tensor([[1, 2]])).sum().backward()
        optimizer.step()

    seen = observe(step, (model, optimizer), {})
    after = seen.args_after[0]
    assert not torch.equal(after.embed.weight, model.embed.weight)
    assert model.embed.weight.grad is None and after.embed.weight.grad is not None


# -- names read from source ----------------------------------------------------------------
SOURCE = '''
import torch.nn.functional as F


def helper(h):
    """Not F.layer_norm: a docstring never counts."""
    return F.layer_norm(h, h.shape[-1:])


def layer_norm(h, gamma, beta, eps=1e-5):
    """Unlike layer_norm in PyTorch, ..."""
    if h.ndim > 3:
        return layer_norm(h.flatten(0, 1), gamma, beta, eps)
    return gamma * helper(h) + beta


def clean(h):
    """Mentions F.layer_norm only here."""
    return getattr(h, "mean")()


def sneaky(h):
    return getattr(F, "layer_norm")(h, h.shape[-1:])
'''


def test_names_come_from_source_through_helpers_and_strings_not_docstrings():
    defs = definitions(ast.parse(SOURCE))
    assert "layer_norm" in names_reached("layer_norm", defs)  # via helper, F.layer_norm
    assert "layer_norm" not in names_reached("clean", defs)
    assert "layer_norm" in names_reached("sneaky", defs)
    assert names_used([SOURCE], "layer_norm") == names_reached("layer_norm", defs)
    assert names_used(["x = 1"], "layer_norm") is None


def test_the_notebook_and_the_grader_read_the_same_names():
    namespace: dict = {}
    import linecache

    linecache.cache["<cell>"] = (len(SOURCE), None, SOURCE.splitlines(True), "<cell>")
    exec(compile(SOURCE, "<cell>", "exec"), namespace)
    for name in ("layer_norm", "clean", "sneaky"):
        assert names_called(namespace[name]) == names_used([SOURCE], name), name


OWN_HELPER = """
import torch.nn.functional as F


def scaled_dot_product_attention(q, k, v):
    return (q @ k.transpose(-1, -2)).softmax(-1) @ v


def gqa(q, k, v):
    def rms_norm(x):
        return x
    return scaled_dot_product_attention(rms_norm(q), k, v)
"""
TAKEN_BACK = "from torch.nn.functional import scaled_dot_product_attention"


def test_a_helper_of_the_learners_own_is_read_not_banned_by_its_name():
    """A learner's own function named like PyTorch's is read (its body counts); the name
    counts again once anything else may bind it, in any cell."""
    namespace: dict = {}
    import linecache

    linecache.cache["<own>"] = (len(OWN_HELPER), None, OWN_HELPER.splitlines(True), "<own>")
    exec(compile(OWN_HELPER, "<own>", "exec"), namespace)
    banned = {"scaled_dot_product_attention", "rms_norm"}
    for names in (names_used([OWN_HELPER], "gqa"), names_called(namespace["gqa"])):
        assert names is not None and "softmax" in names  # the helper's body is read
        assert "scaled_dot_product_attention" in names  # a helper of its own is still named
        assert not borrowed(names, banned), names
    for later in (
        TAKEN_BACK,
        'globals()["scaled_dot_product_attention"] = F.softmax',
        "scaled_dot_product_attention = F.scaled_dot_product_attention",
        'exec("from torch.nn.functional import scaled_dot_" + "product_attention")',
        'globals().update({"scaled_dot_" + "product_attention": F.softmax})',
        "import sys\nsys.modules[__name__].scaled_dot_product_attention = F.softmax",
        "def patch():\n    global scaled_dot_product_attention\n",
    ):
        assert borrowed(names_used([OWN_HELPER, later], "gqa"), banned), later
    exec(TAKEN_BACK, namespace)  # in the notebook, the binding the kernel holds decides
    assert borrowed(names_called(namespace["gqa"]), banned)
    fused = OWN_HELPER.replace(
        "(q @ k.transpose(-1, -2)).softmax(-1) @ v", "F.scaled_dot_product_attention(q, k, v)"
    )
    assert borrowed(names_used([fused], "gqa"), banned)


# -- outputs -------------------------------------------------------------------------------
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5Er"
    "kJggg=="
)


def test_outputs_are_capped_per_type_cell_and_notebook():
    budget = OutputBudget(
        text_chars=100, displays=3, png_chars=200, cell_chars=2000, notebook_chars=3000
    )
    raw = [
        {"output_type": "stream", "name": "stdout", "text": "x" * 500},
        *(
            {
                "output_type": "display_data",
                "data": {"text/plain": "y", "image/png": PNG, "text/html": "<script>"},
            }
            for _ in range(5)
        ),
        {"output_type": "display_data", "data": {"image/png": "not a png at all"}},
        {"output_type": "execute_result", "data": {"text/html": "<b>"}},
    ]
    cell = budget.clean(raw)
    assert "truncated" in cell[0].text and len(cell[0].text) < 200
    shown = [o for o in cell if o.output_type == "display_data"]
    assert len(shown) == 3 and all(set(o.data) == {"text/plain", "image/png"} for o in shown)
    assert "not kept" in cell[-1].text
    for _ in range(5):
        budget.clean([{"output_type": "stream", "name": "stdout", "text": "z" * 90}] * 10)
    assert budget.used <= 3000


def test_a_tests_outputs_go_through_the_same_budget():
    """Issue #27 item 5: a test's stdout and error are cut as a cell's are and count against
    the notebook; the error and the partial-credit result, which decide its grade, are
    always kept."""
    budget = OutputBudget(text_chars=100, cell_chars=2000, notebook_chars=3000)
    raw = [
        {"output_type": "stream", "name": "stdout", "text": "s" * 5000},
        {"output_type": "error", "ename": "E" * 10_000, "evalue": "v" * 10_000, "traceback": []},
        {"output_type": "execute_result", "data": {"text/plain": "1.5" + " " * 10_000}},
    ]
    out = budget.clean_test(raw)
    assert [o.output_type for o in out] == ["stream", "error", "execute_result"]
    assert len(out[0].text) < 200 and len(out[1].ename) <= 200 and len(out[1].evalue) <= 100
    assert out[2].data["text/plain"].strip() == "1.5"
    budget.used = budget.notebook_chars  # the notebook's room is spent: streams go, grades stay
    out = budget.clean_test(raw)
    assert [o.output_type for o in out] == ["error", "execute_result", "stream"]
    assert "not kept" in out[-1].text


def test_exception_names_are_cut_in_the_kernel_and_on_rebuild():
    """Issue #27 item 5: an exception class with an 8 MB name crosses as a few hundred
    characters, each way."""
    from grader.kernel import NAME_LIMIT, _exception
    from grader.remote import rebuild_exception

    huge = type("E" * 8_000_000, (ValueError,), {})
    huge.__module__ = "m" * 1_000_000
    sent = _exception(huge("boom"))
    assert len(sent["type"]) <= NAME_LIMIT and len(sent["module"]) <= NAME_LIMIT
    assert all(len(name) <= NAME_LIMIT for name in sent["mro"])
    assert len(sent["traceback"]) <= 20_000
    rebuilt = rebuild_exception({"type": "E" * 8_000_000, "mro": ["F" * 8_000_000] * 10**6})
    assert isinstance(rebuilt, RuntimeError) and len(str(rebuilt)) < 1000
    assert isinstance(rebuild_exception(sent), ValueError)  # the builtin in its MRO


class _Reach(torch.nn.Module):
    """Two layers; `cut` says how forward leaves part of them out of training."""

    def __init__(self, cut: str = "", width: int = 3):
        super().__init__()
        self.first, self.second = torch.nn.Linear(width, width), torch.nn.Linear(width, width)
        self.second.requires_grad_(cut != "frozen")
        self.cut = cut

    def forward(self, x):
        if self.cut in ("no_grad", "complex"):
            with torch.no_grad():
                out = self.second(self.first(x))
            return out.to(torch.complex64) if self.cut == "complex" else out
        h = self.first(x)
        h = h.detach() if self.cut == "detach" else h
        if self.cut == "in_place":  # a saved tensor changed: backward raises
            h = torch.sigmoid(h)
            h.mul_(2)
        out = self.second(h)
        if self.cut == "ids":
            return out.argmax(-1)
        return (out, h) if self.cut == "tuple" else out


ALL = ["first.weight", "first.bias", "second.weight", "second.bias"]


@pytest.mark.parametrize(
    ("cut", "unreached"),
    [
        ("", []),
        ("tuple", []),
        ("detach", ALL[:2]),
        ("frozen", ALL[2:]),
        ("no_grad", ALL),
        ("complex", ALL),  # a complex output is judged as a float one
        ("ids", []),  # not a float output: nothing to judge
    ],
)
def test_the_kernel_and_the_check_library_name_the_same_parameters_that_never_train(cut, unreached):
    """The `unreached` module action: the kernel's copy of the reach test and the check
    library's (the kernel cannot import attnbook) name the same parameters: frozen ones, and
    those the output's graph does not reach."""
    from grader.kernel import _unreached

    from attnbook.checks._modules import unreached as library_unreached

    module, x = _Reach(cut), torch.randn(2, 3)
    assert sorted(_unreached(module, module(x))) == sorted(unreached)
    assert library_unreached(module, module(x)) == _unreached(module, module(x))


def test_a_backward_that_fails_is_the_modules_failure_in_both_copies():
    """A saved tensor changed in place: the module cannot train, and neither copy of the
    reach test lets it pass (a kernel that says so is not taken at its word either)."""
    from grader.kernel import _unreached

    from attnbook.checks._modules import unreached as library_unreached

    module, x = _Reach("in_place"), torch.randn(2, 3)
    for reach in (_unreached, library_unreached):
        with pytest.raises(RuntimeError, match="inplace operation"):
            reach(module, module(x))


class _Attention(torch.nn.Module):
    """A small attention with a LayerNorm: softmax and normalisation, as the graded modules
    have; `out` is "complex" for a complex output."""

    def __init__(self, out: str = ""):
        super().__init__()
        self.q, self.k, self.v = (torch.nn.Linear(4, 4) for _ in range(3))
        self.norm, self.out = torch.nn.LayerNorm(4), out

    def forward(self, x):
        h = self.norm(x)
        w = torch.softmax(self.q(h) @ self.k(h).transpose(-1, -2) / 2, dim=-1)
        y = w @ self.v(h)
        return y.to(torch.complex64) if self.out == "complex" else y


def _held(module, x, grads, seed):
    from grader.remote import gradients_hold

    params = dict(module.named_parameters())

    def put(values):
        with torch.no_grad():
            for name, value in values.items():
                params[name].copy_(value)

    before = {n: p.detach().clone() for n, p in params.items()}
    held = gradients_hold(
        lambda: module(x), lambda *names: [params[n].detach().clone() for n in names], put,
        grads, seed,
    )  # fmt: skip
    assert all(torch.equal(before[n], p) for n, p in params.items())  # put back
    return held


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("out", ["", "complex"])
def test_the_gradients_a_kernel_sends_are_held_against_the_forward(seed, out):
    """Hostile review, round 7: the reach verdict came from the student's process, so a
    kernel patched to name no parameter passed a detached module. Now, where it names
    none, the gradients it sends must fit the forward's values under the grader's own
    finite differences: true ones do; any parameter left at zero, or made up, does not."""
    from grader.kernel import _reach

    torch.manual_seed(seed)
    module, x = _Attention(out), torch.randn(2, 5, 4)
    names, grads = _reach(module, module(x), seed)
    assert (
        names == []
        and grads is not None
        and sorted(grads) == sorted(n for n, _ in module.named_parameters())
    )
    assert _held(module, x, grads, seed)
    for lost in (["q.weight", "q.bias", "k.weight", "k.bias"], ["norm.weight"]):
        assert not _held(module, x, {**grads, **{n: 0 * grads[n] for n in lost}}, seed)
    assert not _held(module, x, {n: torch.randn_like(g) for n, g in grads.items()}, seed)
    assert not _held(module, x, {n: 2 * g for n, g in grads.items()}, seed)
    assert not _held(module, x, grads, seed + 1)  # another v: another derivative


class _KernelChannel:
    """The grader's channel to a kernel in this process (`grader.kernel.serve`), whose reply
    to the reach request `forge` may replace, as a kernel the student patched would."""

    def __init__(self, forge=None):
        from grader.kernel import Kernel

        self.kernel, self.forge = Kernel(), forge

    def request(self, message: dict, deadline=None) -> dict:
        from grader.kernel import serve

        reply = serve(self.kernel, message)
        if self.forge and message.get("action") == "unreached":
            return self.forge(message, reply)
        return reply


def _remote(channel: _KernelChannel, module: torch.nn.Module):
    """`module` in the kernel, seen from the grader, its weights set by the grader by name."""
    from grader.remote import RemoteModule

    handle = channel.kernel.handle_of(module)
    remote = RemoteModule(channel, handle["__handle__"], handle["mro"])
    remote.set_tensors({n: p.detach().clone() for n, p in module.named_parameters()})
    return remote


def _only_second(module: torch.nn.Module, x: torch.Tensor):
    """A forger for `module` (detached): the true gradients of the parameters its graph
    reaches (a graph kept whole gives them), the others left out."""
    from grader.kernel import _reach

    whole = _Reach()
    whole.load_state_dict(module.state_dict())

    def forge(message: dict, reply: dict) -> dict:
        _, grads = _reach(whole, whole(x), int(message["seed"]))
        kept = {n: g for n, g in (grads or {}).items() if n.startswith("second")}
        return {"ok": True, "unreached": [], "grads": wire.encode(kept)}

    return forge


@pytest.mark.parametrize(
    "forge",
    [
        lambda message, reply: {"ok": True, "unreached": [], "grads": wire.encode({})},
        lambda message, reply: {"ok": True, "unreached": [], "grads": {"__tensor__": "x"}},
        lambda message, reply: {"ok": True, "unreached": [], "grads": None},
        lambda message, reply: {"ok": True, "unreached": "none"},
        lambda message, reply: {"ok": True, "unreached": [], "grads": wire.encode(
            {n: torch.zeros(3, 3) if n.endswith("weight") else torch.zeros(3)
             for n in ("first.weight", "first.bias", "second.weight", "second.bias")})},
    ],
    ids=["no gradients", "unreadable", "none", "not a list", "zeros"],
)  # fmt: skip
def test_a_kernel_that_forges_the_reach_reply_loses_the_case(forge):
    """Hostile review, round 7: where the kernel names no parameter, the grader holds the
    gradients it sent against the forward: every weight the grader set must have one, and
    each must fit the values. A detached module whose kernel replies anything else fails."""
    torch.manual_seed(0)
    x = torch.randn(2, 3)
    honest = _remote(_KernelChannel(), _Reach())
    assert honest.unreached((x,), {}) == []
    detached = _remote(_KernelChannel(), _Reach("detach"))
    assert detached.unreached((x,), {}) == ["first.weight", "first.bias"]  # its own words
    for module in (_Reach("detach"), _Reach()):
        with pytest.raises(RuntimeError, match="do not fit"):
            _remote(_KernelChannel(forge), module).unreached((x,), {})


def test_a_kernel_that_sends_only_the_reached_gradients_loses_the_case():
    x, module = torch.randn(2, 3), _Reach("detach")
    with pytest.raises(RuntimeError, match="do not fit"):
        _remote(_KernelChannel(_only_second(module, x)), module).unreached((x,), {})


def test_the_kernel_names_at_most_twenty_unreached_parameters_each_cut_short():
    from grader.kernel import NAME_LIMIT, Kernel, _unreached

    module = torch.nn.Sequential(*(torch.nn.Linear(1, 1) for _ in range(30)))
    module.add_module("x" * 8_000, torch.nn.Linear(1, 1))
    with torch.no_grad():
        out = module[0](torch.ones(1, 1))
    names = _unreached(module, out)
    assert len(names) == 20 and names[:2] == ["0.weight", "0.bias"]
    long = torch.nn.Module()
    long.add_module("y" * 8_000, torch.nn.Linear(1, 1))
    (name,) = _unreached(long, torch.ones(1))[:1]
    assert len(name) <= NAME_LIMIT and name.startswith("yyy")
    long.register_buffer("z" * 8_000, torch.ones(1))  # and info() cuts them as well
    info = Kernel._info(SimpleNamespace(_token=id), long)
    assert [len(p[0]) for p in info["params"]] == [NAME_LIMIT] * 2
    assert [len(b[0]) for b in info["buffers"]] == [NAME_LIMIT]


# -- each test in a fresh process, with a deadline -----------------------------------------
pytest_kernel = pytest.mark.skipif(not SANDBOX_OK, reason="no sandbox")


@pytest.fixture
def kernel():
    started = StudentKernel(None, Limits(cell_timeout_s=30), SANDBOX_OK)
    yield started
    started.close()


@pytest.mark.slow
@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandbox", "own user"])
def test_a_module_the_notebook_writes_is_not_imported(sandboxed):
    """A review's: a cell writes a module (into the working folder, or a folder it puts on
    sys.path: the temporary folder, /dev/shm) and imports it, so that code in no cell runs;
    the kernel refuses it, naming the file, and imports the course's packages as before. The
    student's own files, there before the first cell, import (`test_a_students_own_files_...`)."""
    if sandboxed and not SANDBOX_OK:
        pytest.skip("no sandbox")
    kernel = StudentKernel(None, Limits(cell_timeout_s=30), sandboxed)
    cells = [
        "import os, sys, tempfile\nopen('written.py', 'w').write('X = 1')\n"
        "os.makedirs(os.path.join(tempfile.gettempdir(), 'w_pkg'), exist_ok=True)\n"
        "open(os.path.join(tempfile.gettempdir(), 'w_pkg', '__init__.py'), 'w').write('X = 2')\n"
        "sys.path.insert(0, tempfile.gettempdir())",
        "import written",
        "import w_pkg",
        "import numpy, torch, attnbook.lm.model, matplotlib.pyplot\nprint('imported')",
        "import shutil\nshutil.rmtree(os.path.join(tempfile.gettempdir(), 'w_pkg'))",
        # a shared folder outside the temporary one (the Gradescope fallback can write it)
        f"shm = '/dev/shm/attnbook-test-{os.getpid()}'\n"
        "try:\n    os.makedirs(shm)\n    open(shm + '/shm_mod.py', 'w').write('X = 3')\n"
        "    sys.path.append(shm)\n    import shm_mod\n    print('imported shm_mod')\n"
        "except OSError as err:\n    print('cannot write', type(err).__name__)\n"
        "finally:\n    shutil.rmtree(shm, ignore_errors=True)",
    ]
    try:
        seen = []
        for source in cells:
            reply = kernel.request({"op": "run", "source": source}, time.monotonic() + 30)
            seen.append([o.get("evalue") or o.get("text") for o in reply.get("outputs", [])])
    finally:
        kernel.close()
    for name, outputs in (("written", seen[1]), ("w_pkg", seen[2])):
        assert outputs and "is not imported while grading" in outputs[0], seen
        assert outputs[0].startswith(f"{name}: the notebook's own file"), seen
    assert seen[3] == ["imported\n"], seen
    assert "imported shm_mod\n" not in seen[5], seen
    assert seen[5][0].startswith(("cannot write", "shm_mod: the notebook's own file")), seen


WRITE_OWN_MEMORY = r"""
import os, subprocess, sys
b = bytes(b"A" * 32)
try:
    with open('/proc/self/mem', 'r+b', buffering=0) as f:
        f.seek(id(b) + 32)  # the bytes' data, after the object's header
        f.write(b"BBBB")
    print("wrote", b[:8])
except OSError as e:
    print("refused", type(e).__name__)
child = ["import os", "try:", "    open(f'/proc/{os.getppid()}/mem', 'rb')",
         "    print('child opened')", "except OSError as e:",
         "    print('child refused', type(e).__name__)"]
print(subprocess.run([sys.executable, "-c", "\n".join(child)], capture_output=True,
                     text=True).stdout)
"""


WIRE_IN_CHILDREN = r"""
import os, stat, subprocess, sys
def pipes():
    return [fd for fd in range(3, 1024) if _fifo(fd)]
def _fifo(fd):
    try:
        return stat.S_ISFIFO(os.fstat(fd).st_mode)
    except OSError:
        return False
before = pipes()
pid = os.fork()
if pid == 0:
    with open('forked.txt', 'w') as f:
        f.write(repr(pipes()))
    os._exit(0)
os.waitpid(pid, 0)
code = "import os; print(sorted(int(x) for x in os.listdir('/proc/self/fd')))"
spawned = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         close_fds=False).stdout.strip()
print(len(before) >= 2, open('forked.txt').read(), spawned)
"""


@pytest.mark.slow
@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandbox", "own user"])
def test_no_other_process_gets_the_grader_pipes(sandboxed):
    """Round 10: a process forked from the kernel (or a program a cell starts with
    close_fds=False) held the grader's pipes, so it could read the grader's requests and
    answer them in the kernel's name while the kernel was stopped. A forked child has them
    closed; a started program never inherits them."""
    if sandboxed and not SANDBOX_OK:
        pytest.skip("no sandbox")
    kernel = StudentKernel(None, Limits(cell_timeout_s=30), sandboxed)
    try:
        printed = _printed(kernel, WIRE_IN_CHILDREN)
    finally:
        kernel.close()
    assert printed == "True [] [0, 1, 2, 3]\n", printed


FORGE_A_REPLY = r"""
import os, stat
from grader import wire
frame = {"id": ID, "ok": True, "outputs": [{"output_type": "stream", "name": "stdout",
                                            "text": "forged"}]}
for fd in range(3, 64):
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            wire.write_frame(fd, frame)
    except OSError:
        pass
print("real")
"""


@pytest.mark.slow
def test_a_reply_the_students_code_writes_is_not_the_kernels():
    """Round 10: code of the student's, run in the kernel's process (a cell, or a function
    the grader calls), could write a frame with the request's id to the reply pipe, and the
    grader took it for the kernel's answer. Each request now carries a number only the
    kernel's loop sees, and a reply that does not repeat it is not the answer."""
    kernel = StudentKernel(None, Limits(cell_timeout_s=30), False)
    try:
        printed = _printed(kernel, FORGE_A_REPLY.replace("ID", str(kernel.next_id + 1)))
        assert printed == "real\n", printed
        assert _printed(kernel, "print('after')") == "after\n"  # the forged frame skipped
    finally:
        kernel.close()


@pytest.mark.slow
def test_no_object_of_the_namespace_holds_the_shell():
    """Round 10: IPython's `exit` and `quit` hold the shell (`quit._ip`), from which the
    grader's kernel was a bound method away; the grading kernel's namespace has neither."""
    kernel = StudentKernel(None, Limits(cell_timeout_s=30), False)
    try:
        printed = _printed(kernel, "print('exit' in globals(), 'quit' in globals())")
    finally:
        kernel.close()
    assert printed == "False False\n", printed


@pytest.mark.slow
@pytest.mark.skipif(not SANDBOX_OK, reason="bubblewrap")
def test_a_cell_cannot_write_the_kernels_memory_through_proc():
    """Round 10: a cell wrote any byte of its own process (the kernel's code included)
    through /proc/self/mem with a plain `open`, a name no reach rule reads; a child process
    could open its parent's. The kernel's memory files are the superuser's now."""
    kernel = StudentKernel(None, Limits(cell_timeout_s=30), True)
    try:
        printed = _printed(kernel, WRITE_OWN_MEMORY)
    finally:
        kernel.close()
    assert printed.startswith("refused PermissionError\nchild refused PermissionError"), printed


@pytest.mark.slow
@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandbox", "own user"])
def test_a_students_own_modules_run_only_from_their_source(tmp_path, sandboxed):
    """A review's: the student's own files are read by the grader as text (`own_modules`),
    so the kernel imports them only from that text. A bytecode file beside `helper.py`
    (`__pycache__`, marked as not to be checked against the source) is not run; a module that
    is only bytecode (`sneaky.pyc`) or a native library is refused, naming the file."""
    import importlib.machinery
    import importlib.util
    import py_compile

    if sandboxed and not SANDBOX_OK:
        pytest.skip("no sandbox")
    own = tmp_path / "own"
    own.mkdir()
    (own / "helper.py").write_text("X = 42\n")
    evil = tmp_path / "evil.py"
    evil.write_text("X = 666\n")
    unchecked = py_compile.PycInvalidationMode.UNCHECKED_HASH
    py_compile.compile(str(evil), importlib.util.cache_from_source(str(own / "helper.py")),
                       invalidation_mode=unchecked)  # fmt: skip
    py_compile.compile(str(evil), str(own / "sneaky.pyc"), invalidation_mode=unchecked)
    (own / f"native{importlib.machinery.EXTENSION_SUFFIXES[0]}").write_bytes(b"\x7fELF")
    (own / "latin.py").write_bytes("# coding: latin-1\nX = 'caf\xe9'\n".encode("latin-1"))
    (own / "escaped.py").write_text("X = 1  # \\x0aX = 666\n")  # a backslash, not a newline
    kernel = StudentKernel(own, Limits(cell_timeout_s=30), sandboxed)
    try:
        assert _printed(kernel, "import helper\nprint(helper.X)") == "42\n"
        # round 10: read as UTF-8 with bytes.decode, never through what a cell can change
        escape = ("import tokenize\ntokenize.detect_encoding = lambda readline: "
                  "('unicode_escape', [])\nimport escaped\nprint(escaped.X)")  # fmt: skip
        assert _printed(kernel, escape) == "1\n"
        printed = _printed(kernel, "try:\n    import latin\nexcept ImportError as e:\n    print(e)")
        assert printed.startswith("latin: ") and "is not UTF-8 text" in printed, printed
        for name, file in (("sneaky", "sneaky.pyc"), ("native", "native.")):
            printed = _printed(kernel, f"try:\n    import {name}\nexcept ImportError as e:\n"
                                       "    print(e)")  # fmt: skip
            assert printed.startswith(f"{name}: ") and "is not Python source" in printed, printed
            assert file in printed, printed
    finally:
        kernel.close()


@pytest.mark.slow
@pytest_kernel
def test_a_matplotlib_magic_lets_the_rest_of_its_cell_run(kernel):
    """`%matplotlib inline` raised NotImplementedError in the grading kernel (a review's), so
    the rest of its cell never ran and a later answer that used its names failed."""
    source = "%matplotlib inline\nimport matplotlib.pyplot as plt\nSCALE = 2.0"
    reply = kernel.request({"op": "run", "source": source}, time.monotonic() + 30)
    assert not [o for o in reply.get("outputs", []) if o.get("ename")], reply
    reply = kernel.request({"op": "run", "source": "print(SCALE)"}, time.monotonic() + 30)
    assert [o.get("text") for o in reply["outputs"]] == ["2.0\n"], reply


@pytest.mark.slow
@pytest_kernel
def test_a_slow_check_costs_its_test_and_the_kernel_lives_on(kernel):
    template = Template(
        setup=["import attnbook.checks.nb01 as checks"],
        tests={
            "slow": "while True:\n    pass",
            "after": "assert x == 41 + 1, x",
        },
    )
    kernel.request({"op": "run", "source": "x = 42"}, time.monotonic() + 30)
    outputs, verdict = run_test(
        template.tests["slow"], "slow", template, kernel, time.monotonic() + 2, []
    )
    assert verdict == "failed" and outputs[-1].ename == "GraderTimeout"
    outputs, verdict = run_test(
        template.tests["after"], "after", template, kernel, time.monotonic() + 30, []
    )
    assert verdict == "passed", outputs


@pytest.mark.slow
@pytest_kernel
def test_nothing_one_test_changes_reaches_the_next(kernel):
    template = Template(
        setup=["import attnbook.checks.nb01 as checks", "import numpy as np"],
        tests={
            "spoil": "checks.WORKED_QK[...] = 0.0\nnp.allclose = None",
            "check": "assert checks.WORKED_QK.any() and np.allclose(1, 1)",
        },
    )
    for grade_id in ("spoil", "check"):
        outputs, verdict = run_test(
            template.tests[grade_id], grade_id, template, kernel, time.monotonic() + 30, []
        )
        assert verdict == "passed", (grade_id, outputs)


# -- the kernel started ahead for the next notebook ---------------------------------------
def _printed(kernel: StudentKernel, source: str) -> str:
    reply = kernel.request({"op": "run", "source": source}, time.monotonic() + 30)
    assert reply.get("ok"), reply
    return "".join(o.get("text", "") for o in reply["outputs"])


@pytest.mark.slow
@pytest_kernel
def test_a_kernel_started_ahead_is_fresh_has_its_own_id_and_only_its_students_files(
    tmp_path, monkeypatch
):
    monkeypatch.setenv(ZYGOTE_ENV, "0")  # kernels are started ahead where none is forked
    alice, bob = tmp_path / "alice", tmp_path / "bob" / "sub"
    alice.mkdir()
    bob.mkdir(parents=True)
    (alice / "data.txt").write_text("alice's data")
    (bob / "data.txt").write_text("bob's data")
    limits = Limits(cell_timeout_s=30)
    start_kernels_ahead(True)
    try:
        first = take_kernel(alice, limits, SANDBOX_OK)
        spare = execute._ahead.spare
        assert isinstance(spare, StudentKernel) and spare.proc.pid != first.proc.pid
        seen = _printed(
            first,
            "import os\nsecret = 1\nopen('/tmp/left', 'w').write('x')\n"
            "print(open('data.txt').read(), os.getuid())",
        )
        assert seen.startswith("alice's data")
        first_uid = seen.split()[-1]
        first.close()
        start_kernels_ahead(False)  # the last notebook: the kernel kept is still taken
        second = take_kernel(tmp_path / "bob", limits, SANDBOX_OK)
        assert second is spare and execute._ahead.spare is None
        seen = _printed(
            second,
            "import os\nprint(open('sub/data.txt').read(), "
            "os.path.exists('data.txt'), os.path.exists('/tmp/left'), "
            "'secret' in globals(), os.getuid())",
        )
        second.close()
        assert seen.split()[:-1] == ["bob's", "data", "False", "False", "False"]
        if os.geteuid() == 0:  # throwaway ids: the two kernels never share one
            assert seen.split()[-1] != first_uid
    finally:
        start_kernels_ahead(False)
        close_spare()


def test_kernels_are_started_ahead_only_where_a_core_is_free():
    cores = os.cpu_count() or 1
    assert not idle_core(cores) and not idle_core(cores + 1)
    assert idle_core(cores - 1) == (cores > 1)


# -- kernels forked from the zygote ----------------------------------------------------------
pytest_zygote = pytest.mark.skipif(
    not (SANDBOX_OK and forks_kernels(True)), reason="the zygote needs root and bubblewrap"
)

PROBE = """import os, json
def _status():
    with open('/proc/self/status') as f:
        return dict(l.split(':', 1) for l in f if ':' in l)
_s = _status()
print(json.dumps({
    'uid': os.getuid(), 'pid': os.getpid(),
    'procs': sorted(p for p in os.listdir('/proc') if p.isdigit()),
    'caps': [_s[k].strip() for k in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb')],
    'nnp': _s['NoNewPrivs'].strip(), 'groups': _s['Groups'].strip(),
    'files': sorted(os.listdir('.')), 'tmp': sorted(os.listdir('/tmp')),
    'shm': sorted(os.listdir('/dev/shm')), 'opt': sorted(os.listdir('/opt')),
    'submissions': sorted(os.listdir('/opt/submissions'))
    if os.path.isdir('/opt/submissions') else [],
    'net': sorted(os.listdir('/sys/class/net')) if os.path.isdir('/sys/class/net') else [],
    'left': [os.path.exists(p) for p in ('/tmp/left', '/dev/shm/left')],
    'secret': 'secret' in globals(),
}))
"""


def _probe(kernel: StudentKernel) -> dict:
    import json

    return json.loads(_printed(kernel, PROBE))


@pytest.mark.slow
@pytest_zygote
def test_each_forked_kernel_is_fresh_unprivileged_and_sees_only_its_students_files(tmp_path):
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    (alice / "sub").mkdir(parents=True)
    bob.mkdir()
    (alice / "sub" / "data.txt").write_text("alice's data")
    (bob / "data.txt").write_text("bob's data")
    limits = Limits(cell_timeout_s=30)
    try:
        first = take_kernel(alice, limits, SANDBOX_OK)
        assert isinstance(first.proc, ForkedKernel) and execute._ahead.spare is None
        assert _printed(first, "print(open('sub/data.txt').read())") == "alice's data\n"
        _printed(
            first,
            "secret = 1\nopen('/tmp/left', 'w').write('x')\n"
            "try:\n    open('/dev/shm/left', 'w').write('x')\nexcept OSError:\n    pass\n"
            "import subprocess\nsleeper = subprocess.Popen(['sleep', '600'])",
        )
        seen_first = _probe(first)
        # a second kernel of the same zygote, while the first still runs
        second = take_kernel(bob, limits, SANDBOX_OK)
        seen = _probe(second)
        first.close()
        after = _probe(second)
        second.close()
    finally:
        close_zygotes()
    for probe in (seen_first, seen):
        assert probe["caps"] == ["0000000000000000"] * 5, probe["caps"]
        assert probe["nnp"] == "1" and probe["groups"] == "", probe
        assert probe["uid"] >= 100_000, probe["uid"]
        # its own PID namespace: the init (1) and the kernel (2), nothing of the zygote's
        assert probe["pid"] == 2 and set(probe["procs"]) >= {"1", "2"}, probe["procs"]
        assert probe["opt"] == ["attnbook-grader", "submissions"] and probe["submissions"] == []
        assert set(probe["net"]) <= {"lo"}, probe["net"]
    assert seen_first["files"] == [".ipython", "sub"]
    assert len(seen_first["procs"]) == 3  # init, kernel and the student's sleeper
    assert seen["procs"] == ["1", "2"], seen["procs"]
    assert seen["files"] == [".ipython", "data.txt"]
    assert seen["tmp"] == ["work"] and seen["shm"] == []
    assert seen["left"] == [False, False] and not seen["secret"]
    assert seen["uid"] != seen_first["uid"]
    assert after["procs"] == ["1", "2"]


@pytest.mark.slow
@pytest_zygote
def test_closing_a_forked_kernel_ends_everything_it_started_and_only_that(tmp_path):
    limits = Limits(cell_timeout_s=30)
    try:
        kernel = StudentKernel(None, limits, SANDBOX_OK)
        zygote = kernel.zygote
        assert isinstance(zygote, KernelZygote) and isinstance(kernel.proc, ForkedKernel)
        _printed(kernel, "import subprocess\np = subprocess.Popen(['sleep', '600'])")
        other = StudentKernel(None, limits, SANDBOX_OK)
        assert other.zygote is zygote
        kernel.close()
        assert kernel.proc.poll() is not None
        assert zygote.poll(kernel.proc.pid) is not None  # waited for: its namespace is empty
        assert zygote.kill(kernel.proc.pid) is not None  # a second kill signals nothing
        assert _printed(other, "print(6 * 7)") == "42\n"  # the other kernel lives on
        # a kernel that ends by itself is lost, and the next one starts
        with pytest.raises(execute.KernelLost, match="died"):
            other.request({"op": "run", "source": "import os\nos._exit(3)"}, time.monotonic() + 30)
        other.close()
        after = StudentKernel(None, limits, SANDBOX_OK)
        assert after.zygote is zygote and _printed(after, "print(6 * 7)") == "42\n"
        after.close()
    finally:
        close_zygotes()
    assert zygote.proc.poll() is not None  # closed with its sandbox


def test_a_zygote_forks_only_into_its_own_folder(tmp_path):
    zygote = KernelZygote.__new__(KernelZygote)
    zygote.folder = tmp_path / "own"
    with pytest.raises(ValueError, match="expected a folder in"):
        zygote.fork(tmp_path / "elsewhere", (200_000, 200_000), Limits(), (0, 1))


def test_a_kernel_the_zygote_cannot_fork_is_lost_with_the_reason(monkeypatch):
    def refuse(limits):
        raise RuntimeError("the kernel zygote did not start: no bubblewrap here")

    monkeypatch.setattr(execute, "forks_kernels", lambda use_sandbox: True)
    monkeypatch.setattr(execute, "throwaway_ids", lambda slot=0: (200_000, 200_000))
    monkeypatch.setattr(KernelZygote, "get", classmethod(lambda cls, limits: refuse(limits)))
    kernel = StudentKernel(None, Limits(), True)
    try:
        assert kernel.dead.startswith("the kernel did not start: the kernel zygote did not")
        assert kernel.proc.poll() is not None
        with pytest.raises(execute.KernelLost, match="no bubblewrap here"):
            kernel.request({"op": "ping"}, time.monotonic() + 5)
    finally:
        kernel.close()


UNPRIVILEGED = """grep -E '^(CapInh|CapPrm|CapEff|CapAmb|NoNewPrivs):' /proc/self/status
if mount -t tmpfs none /opt/submission 2>/dev/null; then echo remounted; fi
"""


def _binds_others_reach(argv: list[str]) -> list[str]:
    """`argv` without the `--ro-bind SOURCE TARGET` whose source a user of no group may not
    reach (a Python under /root)."""
    kept, i = [], 0
    while i < len(argv):
        if argv[i] == "--ro-bind":
            path = Path(argv[i + 1])
            if not all(os.stat(p).st_mode & 0o001 for p in (path, *path.parents)):
                i += 3
                continue
        kept.append(argv[i])
        i += 1
    return kept


def _status_in(command: list[str]) -> dict[str, str]:
    """/proc/self/status's capability lines (and whether a mount worked) of a shell run by
    `command`: as nobody when this is root, the binds nobody may reach left out."""
    import subprocess

    command = [*command, "/bin/sh", "-c", UNPRIVILEGED]
    if os.geteuid() == 0:
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                   *_binds_others_reach(command)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    if "CapEff" not in done.stdout:
        pytest.skip(f"bubblewrap does not start without root here: {done.stderr.strip()[:200]}")
    status = {
        k: v.strip() for k, v in (ln.split(":", 1) for ln in done.stdout.split("\n") if ":" in ln)
    }
    return {**status, "remounted": str("remounted" in done.stdout)}


@pytest.mark.skipif(not SANDBOX_OK, reason="no sandbox")
def test_a_kernel_sandboxed_without_root_holds_no_capabilities():
    """Without root, bubblewrap raises the CAP_SYS_ADMIN its launcher's mount needs into the
    ambient set, which an exec keeps (the control, without the drop, shows it): the kernel's
    command drops it before Python starts, so the learner's code could not remount the
    read-only package, environment or grader writable. The kernel's own argv, the launcher
    left out (its mount(8) refuses a user id other than 0) and the kernel replaced by a shell
    that reads its status."""
    import tempfile

    own = Path(tempfile.mkdtemp(prefix="attnbook-caps-"))  # where nobody may read it
    own.chmod(0o755)
    try:
        argv = kernel_command(own, (0, 1), True, None, Limits(tmp_mb=1, tmp_files=64))
        launcher = argv.index("launcher") - 3  # /bin/sh -c LAUNCHER launcher mb files owner
        kernel = argv.index("grader.kernel") - 5  # python -s -B -P -m grader.kernel 0 1 ...
        assert argv[launcher : launcher + 2] == ["/bin/sh", "-c"], argv[launcher:]
        sandbox, drop = argv[:launcher], argv[launcher + 7 : kernel]
        assert drop and drop[0].endswith("setpriv"), drop
        control, kept = _status_in(sandbox), _status_in([*sandbox, *drop])
    finally:
        own.rmdir()
    assert control["CapEff"] != "0000000000000000", control  # bubblewrap's grant, undropped
    for name in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
        assert kept[name] == "0000000000000000", kept
    assert kept["NoNewPrivs"] == "1" and kept["remounted"] == "False", kept


@pytest.mark.skipif(not SANDBOX_OK, reason="no sandbox")
def test_a_grader_installed_as_a_wheel_keeps_the_answer_key_out_of_the_kernel(monkeypatch):
    """`pip install ./autograder` puts the reference answers, the catalogue and the sample
    class inside grader/, in the environment's site-packages: every kernel gets grader/ (at
    /opt/attnbook-grader) and the environment (where it lies). Each is an empty folder at
    both places. The environment here is a stand-in: a folder with grader/ inside it."""
    import shutil
    import subprocess
    import sys
    import tempfile

    from grader import sandbox

    venv = Path(tempfile.mkdtemp(prefix="attnbook-wheel-", dir="/var/tmp"))
    installed = venv / "lib" / "site-packages" / "grader"
    own = Path(tempfile.mkdtemp(prefix="attnbook-own-", dir="/var/tmp"))
    try:
        shutil.copytree(sandbox.GRADER_DIR, installed, ignore=shutil.ignore_patterns("__py*"))
        for name in sandbox.PRIVATE_DATA:
            (installed / name).mkdir()
            (installed / name / "nb01_attention_scores.py").write_text("ANSWERS = {}\n")
        monkeypatch.setattr(sandbox, "GRADER_DIR", installed)
        monkeypatch.setattr(sys, "prefix", str(venv))  # the environment every kernel gets
        argv = sandbox.kernel_command(own, (0, 1), True, None, sandbox.Limits())
        folders = " ".join(
            f"{at}/{name}"
            for at in ("/opt/attnbook-grader/grader", installed)
            for name in sandbox.PRIVATE_DATA
        )
        inside = argv[: argv.index("--") + 1] + [
            "/bin/sh", "-c", f"ls -A {folders}; ls /opt/attnbook-grader/grader {installed}",
        ]  # fmt: skip
        seen = subprocess.run(inside, capture_output=True, text=True, timeout=60)
        hidden = sandbox.hide_answer_key()
        at = next(i for i in range(len(inside)) if inside[i : i + len(hidden)] == hidden)
        control = inside[:at] + inside[at + len(hidden) :]  # the mounts without the hiding
        shown = subprocess.run(control, capture_output=True, text=True, timeout=60)
    finally:
        shutil.rmtree(venv, ignore_errors=True)
        shutil.rmtree(own, ignore_errors=True)
    assert seen.stdout.count("sandbox.py") == 2, seen.stdout + seen.stderr  # grader/ is there
    assert "nb01_attention_scores.py" not in seen.stdout, seen.stdout  # its answer key is not
    assert shown.stdout.count("nb01_attention_scores.py") == 6, shown.stdout  # the control


def test_a_checkout_under_tmp_is_refused_with_the_reason(monkeypatch):
    """The kernel's own /tmp would hide a checkout there: every kernel would die unexplained."""
    from grader import sandbox

    assert sandbox.under_tmp() == ""  # this checkout
    monkeypatch.setattr(sandbox, "_package_root", lambda: "/tmp/tmp.x1/attnbook")
    with fresh_sandbox_probe(monkeypatch):
        ok, why = sandbox.sandbox_available()
    if sandbox.bwrap_path() is not None:
        assert not ok and "hides /tmp/tmp.x1/attnbook" in why and "outside /tmp" in why, why


@pytest.mark.skipif(not SANDBOX_OK, reason="bubblewrap")
def test_the_sandbox_probe_installs_the_kernels_filter_and_names_its_failure(monkeypatch):
    """Every kernel installs the seccomp filter first, so the probe does too: a machine that
    refuses it is told before grading, not by every student's failed grading."""
    import subprocess

    from grader import sandbox

    seen = []

    def refused(command, **kwargs):
        seen.append(command)
        said = b"RuntimeError: deny_keyrings: the seccomp filter was not installed: EINVAL"
        return subprocess.CompletedProcess(command, 1, b"", said)

    monkeypatch.setattr(sandbox.subprocess, "run", refused)
    with fresh_sandbox_probe(monkeypatch):
        ok, why = sandbox.sandbox_available()
    assert seen and "deny_keyrings()" in seen[-1][-1], seen
    assert not ok and why.startswith("the kernel's seccomp filter cannot be installed"), why


KEY_CALLS = r"""
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
ADD_KEY, REQUEST_KEY, KEYCTL = {"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}[
    os.uname().machine
]
def call(name, *args):
    args = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    result = libc.syscall(ctypes.c_long(globals()[name]), *args)
    print(name, args[0].value if name == "KEYCTL" else "", "->",
          "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()])
    return result
ring = call("KEYCTL", 0, -4, 1)  # KEYCTL_GET_KEYRING_ID of the user keyring, made if missing
call("ADD_KEY", b"user", b"attnbook-note", b"left for the next", 17, ring)
call("REQUEST_KEY", b"user", b"attnbook-note", None, 0)
call("KEYCTL", 5, ring, 0x01000000)  # KEYCTL_SETPERM possessor view only: nobody may clear it
persistent = call("KEYCTL", 22, -1, -3)  # KEYCTL_GET_PERSISTENT
locked = call("KEYCTL", 5, persistent, 0x01000000)
"""
KEY_CALLS_SEEN = [
    "KEYCTL 0 -> EPERM",
    "ADD_KEY  -> EPERM",
    "REQUEST_KEY  -> EPERM",
    "KEYCTL 5 -> EPERM",
    "KEYCTL 22 -> EPERM",
    "KEYCTL 5 -> EPERM",
]
# what an older grader let a kernel leave: a key in the user keyring, locked (view and
# setattr only, so that the test can open it again by its id); as the user id it is given
LOCK_USER_KEYRING = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
ADD_KEY, KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}[os.uname().machine]
def call(*args):
    result = libc.syscall(*(ctypes.c_long(a) if isinstance(a, int) else a for a in args))
    if result < 0:
        sys.exit(f"{args[:2]}: {os.strerror(ctypes.get_errno())}")
    return result
os.setgroups([])
os.setresgid(*[int(sys.argv[3])] * 3)
os.setresuid(*[int(sys.argv[2])] * 3)
if sys.argv[1] == "lock":
    ring = call(KEYCTL, 0, -4, 1)  # KEYCTL_GET_KEYRING_ID
    call(ADD_KEY, b"user", b"older", b"left", 4, ring)
    call(KEYCTL, 5, ring, 0x21200000)  # KEYCTL_SETPERM: view and setattr, nothing more
    print(ring)
else:
    ring = int(sys.argv[1])
    call(KEYCTL, 5, ring, 0x3F3F0000)
    call(KEYCTL, 7, ring)  # KEYCTL_CLEAR
"""


def _user_keyring(ids: tuple[int, int], action: str) -> str:
    """Run LOCK_USER_KEYRING as `ids`: "lock" prints the locked keyring's id, which opens it."""
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-c", LOCK_USER_KEYRING, action, *map(str, ids)],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.strip()


@pytest.mark.slow
@pytest.mark.skipif(
    not SANDBOX_OK or os.geteuid() != 0 or os.uname().machine not in ("x86_64", "aarch64"),
    reason="throwaway users (root, bubblewrap, the key calls' numbers known)",
)
@pytest.mark.parametrize("zygote", ["1", "0"], ids=["forked", "each-in-a-sandbox"])
def test_a_student_who_locks_her_keyrings_costs_no_classmate_a_grading(
    tmp_path, monkeypatch, zygote
):
    """Linux keeps a user's keyrings per user id and the throwaway ids come round again. A
    first student tries to add a key to her user keyring, lock it and the persistent one
    (KEYCTL_SETPERM: possessor view only, so that no later kernel of her id could empty it);
    each of her key calls fails with EPERM (the seccomp filter), and the three classmates graded
    after her by the same worker, on the same two ids, get full marks: on both ids an older
    grader had already left a locked keyring, and no kernel needs to clear it. Her own tests
    are charged for the reach into the process (ctypes, `grader.borrowed.process_reaches`).
    Whether the kernels are forked by the zygote or each started in a sandbox of its own."""
    import secrets

    import nbformat
    from grader.course import Course, grade_class
    from grader.sample import load_builder
    from grader.sandbox import UID_BASE_ENV, WORKER_ENV, ZYGOTE_ENV, throwaway_ids

    monkeypatch.setenv(ZYGOTE_ENV, zygote)
    # ids of this test's own, far from any run's block: a lock left on them harms nobody
    monkeypatch.setenv(UID_BASE_ENV, str(1_400_000 + 1000 * secrets.randbelow(500_000)))
    monkeypatch.setenv(WORKER_ENV, "0")
    build = load_builder()
    solved = build.solved(ROOT)
    notebooks = {s: solved for s in ("b", "c", "d")}
    notebooks["a"] = build.add_cell_after(solved, "project_qkv", KEY_CALLS)
    inbox = build.write_folder(
        tmp_path / "download",
        {
            s: {"01_attention_scores.ipynb": nbformat.writes(nb).encode()}
            for s, nb in notebooks.items()
        },
    )
    course = Course(root=ROOT, work=tmp_path / "work", quiet=True)
    locked = {ids: _user_keyring(ids, "lock") for ids in (throwaway_ids(0), throwaway_ids(1))}
    try:
        outcomes = grade_class(course, inbox, ["01_attention_scores"], workers=1)
    finally:
        for ids, ring in locked.items():
            _user_keyring(ids, ring)
    graded = {o["student"]: o for o in outcomes}
    assert sorted(graded) == ["a", "b", "c", "d"], outcomes
    for student, outcome in graded.items():
        assert outcome["ok"], (student, outcome.get("error"))
        row = outcome["row"]
        if student == "a":
            assert "ctypes" in row["status"] and row["score"] < row["max_score"], row
            continue
        assert row["status"] == "ok" and row["score"] == row["max_score"] > 0, (student, row)
    path = course.work / "autograded" / "a" / "01_attention_scores" / "01_attention_scores.ipynb"
    cells = nbformat.read(path, as_version=4).cells
    printed = "".join(o.get("text", "") for c in cells if "KEYCTL" in c.source for o in c.outputs)
    assert printed.splitlines() == KEY_CALLS_SEEN, printed


FILTERED = r"""
import ctypes, mmap, os, sys
from grader import keyrings
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
arch = keyrings.native_arch()
def errno_of(number, *args):
    result = libc.syscall(ctypes.c_long(number), *(ctypes.c_long(a) for a in args))
    return "ok" if result >= 0 else os.strerror(ctypes.get_errno())
def i386_keyctl():  # keyctl(KEYCTL_GET_KEYRING_ID, -4, 0) made with int 0x80: i386's 288
    code = bytes.fromhex("53b820010000bb00000000b9fcffffff31d2cd805bc3")
    page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    result = ctypes.CFUNCTYPE(ctypes.c_int32)(address)()
    return "ok" if result >= 0 else os.strerror(-result)
def seen():
    add_key, request_key, keyctl = arch.key_calls
    found = {
        "keyctl": errno_of(keyctl, 0, -4, 1),
        "add_key": errno_of(add_key, 0, 0, 0, 0, -4),
        "request_key": errno_of(request_key, 0, 0, 0, 0),
        "getppid": errno_of({"x86_64": 110, "aarch64": 173}[os.uname().machine]),
    }
    if arch.x32:
        found["x32 getppid"] = errno_of(0x40000000 | 110)
        found["i386 keyctl"] = i386_keyctl()
    return found
os.setgroups([])
os.setresgid(60999, 60999, 60999)
os.setresuid(60999, 60999, 60999)  # no capabilities left
before = seen()
if sys.argv[1] == "no_new_privs":
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
try:
    keyrings.deny_keyrings()
except RuntimeError as err:
    sys.exit(str(err))
print(before)
print(seen())
"""


@pytest.mark.skipif(
    os.geteuid() != 0 or os.uname().machine not in ("x86_64", "aarch64"),
    reason="another user id to drop to (root); the key calls' numbers known",
)
def test_the_filter_refuses_key_calls_and_other_abis_and_nothing_else():
    """Under `deny_keyrings`' filter add_key, request_key and keyctl fail with EPERM, and so
    does any call made through another ABI (an x86_64 process can call i386's keyctl with
    int 0x80, and x32's numbers), while other calls work; as an unprivileged user without
    no_new_privs the filter cannot be installed, and the error says why."""
    import ast
    import subprocess
    import sys

    path = f"{ROOT / 'autograder'}:{ROOT}"

    def run(how: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-c", FILTERED, how],
            env={**os.environ, "PYTHONPATH": path},
            capture_output=True,
            text=True,
            timeout=120,
        )

    done = run("no_new_privs")
    assert done.returncode == 0, done.stderr
    before, after = (ast.literal_eval(line) for line in done.stdout.splitlines())
    assert before["keyctl"] == before["getppid"] == "ok", before
    refused = os.strerror(1)  # EPERM
    assert after.pop("getppid") == "ok", after
    assert set(after.values()) == {refused}, after
    if "i386 keyctl" in before:  # where the machine runs i386 code: it did before the filter
        assert before["i386 keyctl"] in ("ok", os.strerror(38)), before
    plain = run("as-is")
    assert plain.returncode == 1, plain
    assert "deny_keyrings: the seccomp filter was not installed" in plain.stderr, plain.stderr
    assert "expected no_new_privs or CAP_SYS_ADMIN" in plain.stderr, plain.stderr


def _verdict(steps: list[tuple[int, int, int, int]], nr: int, arch: int) -> int:
    """What the classic BPF program `steps` answers for one call (loads, jumps and returns
    only, as `keyrings.program` writes them)."""
    at, accumulator = 0, 0
    while True:
        code, jt, jf, k = steps[at]
        if code == 0x20:  # BPF_LD | BPF_W | BPF_ABS
            accumulator = {0: nr & 0xFFFFFFFF, 4: arch}[k]
        elif code == 0x06:  # BPF_RET | BPF_K
            return k
        elif code in (0x15, 0x35):  # BPF_JMP | BPF_JEQ or BPF_JGE, BPF_K
            taken = accumulator == k if code == 0x15 else accumulator >= k
            at += jt if taken else jf
        else:
            raise AssertionError(f"unexpected instruction {steps[at]}")
        at += 1


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_the_filter_program_of_each_known_machine(machine):
    """Each known machine's program, read instruction by instruction: its three key calls and
    every call of another ABI are refused with EPERM (on x86_64, x32's numbers too), every
    other call of the native ABI is allowed; so aarch64's is checked where it cannot run."""
    from grader import keyrings

    arch = keyrings.ARCHES[machine]
    steps = keyrings.program(arch)
    refuse, allow = 0x00050000 | 1, 0x7FFF0000
    for nr in range(600):
        expected = refuse if nr in arch.key_calls else allow
        assert _verdict(steps, nr, arch.audit) == expected, (machine, nr)
        assert _verdict(steps, nr, 0x40000003) == refuse  # AUDIT_ARCH_I386
        assert _verdict(steps, nr, 0x40000028) == refuse  # AUDIT_ARCH_ARM
    x32 = _verdict(steps, 0x40000000 | 39, arch.audit)
    assert x32 == (refuse if machine == "x86_64" else allow), hex(x32)


# a student's own files that would be the kernel if Python looked in the working folder first
# (`python -m` does): they call keyctl before any filter, then hand over to the real kernel
HIJACK = r"""
import ctypes, os, runpy, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
KEYCTL = {"x86_64": 250, "aarch64": 219}[os.uname().machine]
got = libc.syscall(*(ctypes.c_long(a) for a in (KEYCTL, 0, -4, 1)))
with open("ran-first.txt", "w") as f:
    f.write(f"keyctl {'ok' if got >= 0 else ctypes.get_errno()}")
sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]
for name in [m for m in sys.modules if m.split(".")[0] == "grader"]:
    del sys.modules[name]
runpy.run_module("grader.kernel", run_name="__main__", alter_sys=True)
"""
KEYCTL_FROM_A_CELL = r"""
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
KEYCTL = {"x86_64": 250, "aarch64": 219}[os.uname().machine]
got = libc.syscall(*(ctypes.c_long(a) for a in (KEYCTL, 0, -4, 1)))
print("keyctl", "ok" if got >= 0 else errno.errorcode[ctypes.get_errno()])
print("before the kernel:", open("ran-first.txt").read() if os.path.exists("ran-first.txt") else "")
"""


@pytest.mark.slow
@pytest.mark.skipif(
    not SANDBOX_OK or os.geteuid() != 0 or os.uname().machine not in ("x86_64", "aarch64"),
    reason="throwaway users (root, bubblewrap, the key calls' numbers known)",
)
@pytest.mark.parametrize("zygote", ["1", "0"], ids=["forked", "each-in-a-sandbox"])
def test_a_students_own_files_run_nothing_before_the_filter(tmp_path, monkeypatch, zygote):
    """A student's own files hold `grader/kernel.py` (and a module `helper`): the kernel
    started on its own runs Python with -P, so nothing in its working folder is imported
    before the filter is in place; after it, the working folder is on the path (forked or not),
    so the student's own module imports. keyctl from a cell fails with EPERM."""
    monkeypatch.setenv(ZYGOTE_ENV, zygote)
    own = tmp_path / "own"
    (own / "grader").mkdir(parents=True)
    (own / "grader" / "__init__.py").write_text("")
    (own / "grader" / "kernel.py").write_text(HIJACK)
    (own / "helper.py").write_text("X = 42\n")
    kernel = StudentKernel(own, Limits(cell_timeout_s=30), True)
    try:
        printed = _printed(kernel, KEYCTL_FROM_A_CELL)
        assert printed == "keyctl EPERM\nbefore the kernel: \n", printed
        assert _printed(kernel, "import helper\nprint(helper.X)") == "42\n"
    finally:
        kernel.close()


SESSION_KEYRING = r"""
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
KEYCTL = {"x86_64": 250, "aarch64": 219}[os.uname().machine]
got = libc.syscall(*(ctypes.c_long(a) for a in (KEYCTL, 0, -3, 0)))  # the session keyring
print(os.getuid(), "ok" if got >= 0 else errno.errorcode[ctypes.get_errno()])
"""


@pytest.mark.slow
@pytest.mark.skipif(
    not SANDBOX_OK or os.uname().machine not in ("x86_64", "aarch64"),
    reason="bubblewrap; the key calls' numbers known",
)
def test_a_kernel_sandboxed_as_the_graders_own_user_refuses_key_calls(monkeypatch):
    """Without root the kernel runs as the grader's own user in a user namespace, holding the
    session keyring of the TA's login (its keys could be read, or left for the next kernel):
    it refuses the key calls too. As root, the throwaway ids are withheld to take that path."""
    monkeypatch.setattr(execute, "throwaway_ids", lambda slot=0: None)
    kernel = StudentKernel(None, Limits(cell_timeout_s=30), True)
    try:
        printed = _printed(kernel, SESSION_KEYRING)
    finally:
        kernel.close()
    assert printed == f"{os.geteuid()} EPERM\n", printed


@pytest.mark.skipif(os.geteuid() != 0, reason="throwaway ids are root's")
def test_two_workers_of_a_run_never_share_a_throwaway_id(monkeypatch):
    """Workers are numbered in their pool: two whose process ids are equal modulo the run's
    slots (1234 and 1734 of 500) still get ids of their own, so their kernels share no
    process count or keyring."""
    from multiprocessing import get_context

    from grader import course as course_module
    from grader import sandbox

    monkeypatch.setenv(sandbox.WORKER_ENV, "")  # restored after: _init_worker sets it
    monkeypatch.setattr(course_module, "_WORKER", None)
    monkeypatch.setattr(course_module.lifetime, "die_with_parent", lambda parent: None)  # pytest's
    settings = course_module.settings_of(course_module.Course())
    numbers = get_context("spawn").SimpleQueue()
    for number in (0, 1):
        numbers.put(number)
    seen = set()
    for pid in (1234, 1734):
        monkeypatch.setattr(os, "getpid", lambda pid=pid: pid)
        course_module._init_worker(settings, False, numbers, os.getppid())
        seen |= {sandbox.throwaway_ids(0), sandbox.throwaway_ids(1)}
    assert len(seen) == 4, seen


def test_every_run_draws_a_block_of_ids_of_its_own_however_it_is_started():
    """`attnbook-grader` calls grader.cli:main directly, not `python -m grader`: each run
    must still draw its own block of throwaway ids, or two runs side by side share them
    (worker 0 of each with the same ids). Three runs: blocks drawn from 1000, not all one."""
    import subprocess
    import sys

    from grader.sandbox import UID_BASE_ENV

    code = (
        "import contextlib, os\nfrom grader import cli\n"
        "with contextlib.suppress(SystemExit):\n    cli.main(['--help'])\n"
        f"print(os.environ[{UID_BASE_ENV!r}])"
    )
    env = {k: v for k, v in os.environ.items() if k != UID_BASE_ENV}
    bases = {
        subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
        ).stdout.split()[-1]
        for _ in range(3)
    }
    assert len(bases) > 1 and all(int(b) >= 300_000 for b in bases), bases


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="root's")
def test_every_sandboxed_or_throwaway_kernel_refuses_key_calls_first(monkeypatch):
    """The zygote's forks install the filter in `grader.zygote`; a kernel started on its own in
    bubblewrap (as a throwaway user with the zygote off, or as the grader's own user without
    root) or by the setpriv fallback is told to by its command, which runs Python with -P
    (nothing from the working folder before the filter), and one started as the grader's own
    user without a sandbox is not: its keyrings are the learner's own, and the filter would
    need no_new_privs."""
    from grader import sandbox
    from grader.keyrings import DENY_KEYRINGS

    def denies(argv: list[str]) -> bool:
        python = argv.index("grader.kernel") - 1  # -m
        assert (argv[-1] == DENY_KEYRINGS) == ("-P" in argv[python - 3 : python]), argv
        return argv[-1] == DENY_KEYRINGS

    own = Path("/nonexistent")
    if sandbox.bwrap_path() is not None:
        assert denies(sandbox.kernel_command(own, (3, 4), True, (60001, 60001)))
        assert denies(sandbox.kernel_command(own, (3, 4), True, None))  # the grader's own user
    assert not denies(sandbox.kernel_command(own, (3, 4), False))
    monkeypatch.setenv(sandbox.FALLBACK_ENV, "setpriv")
    assert denies(sandbox.kernel_command(own, (3, 4), False))
