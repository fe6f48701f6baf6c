"""The course's helpers stand in for a student's failed ones (grader.standins): one slip is
charged once, and a hostile kernel gets nothing from the stand-ins that it could not compute.

Every chain of notebooks 01-11 is graded through the grader's path in
tests/test_feedback.py (`test_a_slip_in_a_graded_helper_is_charged_once`); here are the rules
around it."""

from __future__ import annotations

import textwrap

import nbformat
import pytest
import torch
from conftest import grade_in_kernel
from grader import standins, wire
from grader.catalogue import (
    apply_variant,
    edit,
    load_catalogue,
    mistake,
    replace_line,
    solution_notebook,
)
from grader.testprocess import stood_in_note

from attnbook.lm.model import LMConfig, TransformerLM

NB01 = "01_attention_scores"


def _mistake(notebook: str, name: str):
    return next(v for v in load_catalogue(notebook).MISTAKES if v.name == name)


def _with_cell(nb, source: str):
    """`nb` with one more answer cell at its end: the student's last definitions."""
    nb = nbformat.from_dict(nb)
    meta = {"nbgrader": {"solution": True, "grade": False, "grade_id": "extra", "locked": False,
                         "schema_version": 3}}  # fmt: skip
    nb.cells.append(nbformat.v4.new_code_cell(textwrap.dedent(source), metadata=meta))
    return nb


@pytest.mark.parametrize(
    ("notebook", "helper_slip", "subject", "subject_slip", "hint"),
    [
        (NB01, "no 1/sqrt(d_k)", "attention", "weights transposed", "weights transposed"),
        ("06_transformer_block", "post-norm where pre-norm is asked", "Decoder",
         "the final LayerNorm forgotten (created, not applied)", "final LayerNorm"),
    ],
)  # fmt: skip
def test_a_wrong_subject_on_a_stood_in_helper_fails_with_its_own_hint(
    notebook, helper_slip, subject, subject_slip, hint
):
    """Helper and subject both wrong: the subject, run with the course's helper (a function;
    a class whose objects run their forward in the trusted process), loses its points for its
    own slip, and its hint no longer sends the student to the helper."""
    helper = _mistake(notebook, helper_slip)
    nb = apply_variant(solution_notebook(notebook), helper)
    nb = apply_variant(nb, _mistake(notebook, subject_slip))
    graded = grade_in_kernel(nb, notebook, [f"test_{helper.cell}", f"test_{subject}"])
    verdict, text = graded[f"test_{subject}"]
    assert graded[f"test_{helper.cell}"][0] == verdict == "failed", graded
    assert hint in text and f"fix {helper.cell} first" not in text, text
    assert f"Graded with the course's {helper.cell} in place of yours" in text, text


def test_an_answer_right_with_the_students_own_helper_keeps_its_points():
    """attention written for its own (transposing) softmax_rows is wrong with the course's
    softmax_rows and right with its own: it is graded once more with the student's helpers,
    as before stand-ins, and passes. A slip is never charged more than before."""
    nb = solution_notebook(NB01)
    for slip in (  # the weights transposed (its check fails), then transposed back
        mistake(
            "softmax_rows",
            "transposed",
            edit("where=total > 0)", "where=total > 0).T"),
            hint="transposed",
        ),
        mistake(
            "attention",
            "undoes it",
            edit("(score_matrix(Q, K))", "(score_matrix(Q, K)).T"),
            hint="none: it is right with its own softmax_rows",
        ),
    ):
        nb = apply_variant(nb, slip)
    graded = grade_in_kernel(nb, NB01, ["test_softmax_rows", "test_attention"])
    assert graded["test_softmax_rows"][0] == "failed", graded
    verdict, text = graded["test_attention"]
    assert verdict == "passed" and "in place of yours" not in text, text


KEEPS_THE_STAND_IN = """
    KEPT = []

    def score_matrix(Q, K):
        if KEPT:  # the course's version, kept from attention's graded call
            return KEPT[0](Q, K)
        return Q @ K.T  # no 1/sqrt(d_k)

    def attention(Q, K, V, _right=attention):
        KEPT.append(score_matrix)
        return _right(Q, K, V)
"""


def test_a_stand_in_kept_past_its_call_gives_nothing():
    """A hostile attention keeps the stand-in it was given; score_matrix's test, run again
    afterwards, fails: the stand-in works only during the call it was made for."""
    nb = _with_cell(solution_notebook(NB01), KEEPS_THE_STAND_IN)
    again = ("again", _test_source(nb, "test_score_matrix"))
    graded = grade_in_kernel(nb, NB01, ["test_score_matrix", "test_attention", again])
    assert graded["test_score_matrix"][0] == "failed", graded
    assert graded["test_attention"][0] == "passed", graded
    verdict, text = graded["again"]
    assert verdict == "failed" and "during one call of the grader only" in text, text


FORGES_A_CALLBACK = """
    import gc
    import sys

    def score_matrix(Q, K):
        # find the kernel's stand-in machinery and the request in flight, and ask the
        # trusted process for the course's score_matrix during score_matrix's own test
        side = next(o for o in gc.get_objects() if type(o).__name__ == "KernelSide")
        frame = sys._getframe()
        while frame is not None and not isinstance(frame.f_locals.get("request"), dict):
            frame = frame.f_back
        side.request_id = frame.f_locals["request"]["id"]
        return side.call("score_matrix", None, (Q, K), {})
"""


def test_a_forged_callback_never_reaches_the_function_under_test():
    """A submission that forges the stand-in's callback during score_matrix's own test gets
    no answer: the test names score_matrix, so the trusted process offers no score_matrix,
    even when another helper (project_qkv, failed above) is on offer."""
    nb = apply_variant(
        solution_notebook(NB01), _mistake(NB01, "results returned in the wrong order")
    )
    nb = _with_cell(nb, FORGES_A_CALLBACK)
    graded = grade_in_kernel(nb, NB01, ["test_project_qkv", "test_score_matrix"])
    assert graded["test_project_qkv"][0] == "failed", graded
    verdict, text = graded["test_score_matrix"]
    assert verdict == "failed" and "no stand-in for 'score_matrix'" in text, text


def _test_source(nb, grade_id: str) -> str:
    from grader.execute import Template

    return Template.from_notebook(nb, NB01).tests[grade_id]


# -- the trusted side's rules -------------------------------------------------------------------
def test_a_test_is_offered_only_failed_graded_functions_it_does_not_name():
    failed = {"score_matrix": ("check_score_matrix", "failed"),
              "softmax_rows": ("check_softmax_rows", "failed"),
              "answer_permutation": ("check_choice", "failed"),
              "_private": ("x", "failed")}  # fmt: skip
    server = standins.for_test(NB01, failed, "check_attention(attention)")
    assert server is not None and server.names() == ["score_matrix", "softmax_rows"]
    named = standins.for_test(NB01, failed, "check_score_matrix(score_matrix)")
    assert named is not None and named.names() == ["softmax_rows"]
    assert standins.for_test(NB01, {}, "check_attention(attention)") is None
    assert standins.for_test("", failed, "check_attention(attention)") is None
    assert standins.for_test(NB01, failed, "check_attention(") is None  # unreadable source


def _frame(name, *args, seq=1, grad=(), **kwargs):
    sent, sent_kw = wire.encode_call(list(args), kwargs)
    return {"callback": name, "args": sent, "kwargs": sent_kw, "grad": list(grad), "seq": seq}


def test_the_server_answers_offered_names_only_and_never_raises():
    server = standins.for_test(NB01, {"score_matrix": ("c", "failed")}, "check_attention(a)")
    assert server is not None
    q = torch.eye(2, dtype=torch.float64)
    assert server.answer(_frame("score_matrix", q, q))["ok"]
    assert server.served == {"score_matrix"}
    refused = server.answer(_frame("attention", q, q, q))
    assert not refused["ok"] and "no stand-in for 'attention'" in refused["error"]
    bad = server.answer({"callback": "score_matrix", "args": {"__model__": {}}, "kwargs": {}})
    assert not bad["ok"] and bad["type"] == "TypeError"
    wrong_grad = server.answer(_frame("score_matrix", q, q, grad=[["a", 0]]))  # no grad on q
    assert not wrong_grad["ok"] and "gradient input" in wrong_grad["error"]
    shapes = server.answer(_frame("score_matrix", torch.ones(2, 3), torch.ones(2, 4)))
    assert not shapes["ok"] and shapes["type"] == "ValueError"  # the reference's own message
    assert not server.answer({"vjp": 99, "grads": []})["ok"]  # no graph kept for it
    server.calls = standins.CALL_LIMIT
    assert "too many calls" in server.answer(_frame("score_matrix", q, q))["error"]


def test_the_server_gives_the_references_vector_jacobian_product():
    notebook = "07_training"
    server = standins.for_test(notebook, {"lm_loss": ("c", "failed")}, "check_train_step(t)")
    assert server is not None
    logits = torch.randn(2, 3, 5, dtype=torch.float64, requires_grad=True)
    targets, mask = torch.randint(0, 5, (2, 3)), torch.tensor([[1.0, 1, 0], [1, 1, 1]])
    reply = server.answer(_frame("lm_loss", logits, targets, mask, seq=4, grad=[["a", 0]]))
    assert reply["ok"]
    loss = server.functions["lm_loss"](logits, targets, mask)
    (expected,) = torch.autograd.grad(loss, logits)
    got = server.answer({"vjp": 4, "grads": wire.encode([torch.tensor(1.0, dtype=loss.dtype)])})
    assert got["ok"]
    torch.testing.assert_close(wire.decode(got["grads"])[0], expected)
    server.end_request()
    assert not server.answer({"vjp": 4, "grads": wire.encode([torch.tensor(1.0)])})["ok"]


def test_a_model_argument_runs_the_students_own_helper():
    """A model crosses into the kernel only: a helper called with one runs the student's
    own version, as without a stand-in, and nothing is sent."""
    side = standins.KernelSide(-1, -1)
    side.request_id = 1
    model = TransformerLM(LMConfig(vocab_size=5, d_model=8, n_heads=2, n_layers=1, max_len=4))
    assert side.call("perplexity", lambda m, b: ("mine", b), (model, 3), {}) == ("mine", 3)
    side.request_id = None
    with pytest.raises(standins.StandInStopped):
        side.call("perplexity", lambda m, b: "mine", (model, 3), {})


def _linked(server: standins.Server) -> standins.KernelSide:
    """A kernel side whose callbacks go straight to `server`, in this process, with one
    installation in force."""
    side = standins.KernelSide(-1, -1)

    def exchange(message: dict) -> dict:
        side.seq += 1
        reply = server.answer({**message, "seq": side.seq})
        if not reply.get("ok"):
            raise RuntimeError(reply.get("error"))
        return reply

    side.exchange = exchange  # type: ignore[method-assign]
    side.request_id, side.active = 1, object()
    return side


def test_a_stand_in_class_holds_its_weights_here_and_runs_the_references_forward():
    """An object of the stand-in MLP has the reference's parameter names, nn.Linear layers
    and values; its output and every gradient (input and parameters) are the reference's on
    the same weights; kept past the grader's call, its forward raises."""
    notebook = "06_transformer_block"
    server = standins.for_test(notebook, {"MLP": ("c", "failed")}, "check_prenorm_block(P)")
    assert server is not None and server.classes() == ["MLP"]
    side = _linked(server)
    mlp = side._stand_in("MLP", None, side.active, True)(4, 8).double()
    assert [n for n, _ in mlp.named_parameters()] == [
        "fc_in.weight", "fc_in.bias", "fc_out.weight", "fc_out.bias"]  # fmt: skip
    assert isinstance(mlp.fc_in, torch.nn.Linear) and mlp.d_model == 4
    ones = torch.ones(1, 4, dtype=torch.float64)  # a layer of it works on its own too
    torch.testing.assert_close(mlp.fc_in(ones), ones @ mlp.fc_in.weight.T + mlp.fc_in.bias)
    reference = server.functions["MLP"](4, 8).double()
    reference.load_state_dict(mlp.state_dict())
    x = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True)
    x_ref = x.detach().clone().requires_grad_(True)
    (mlp(x) ** 2).sum().backward()
    (reference(x_ref) ** 2).sum().backward()
    torch.testing.assert_close(x.grad, x_ref.grad)
    for (name, p), q in zip(mlp.named_parameters(), reference.parameters()):
        torch.testing.assert_close(p.grad, q.grad, msg=name)
    torch.testing.assert_close(mlp(x), reference(x))
    side.request_id = side.active = None
    with pytest.raises(standins.StandInStopped):
        mlp(x)


def test_a_stand_in_objects_forward_takes_its_own_tensors_only():
    server = standins.for_test(
        "06_transformer_block", {"MLP": ("c", "failed")}, "check_prenorm_block(P)"
    )
    assert server is not None
    init = list(wire.encode_call([4, 8], {}))
    weights = [
        [n, wire.encode(p.detach())] for n, p in server.functions["MLP"](4, 8).named_parameters()
    ]
    frame = {"forward": "MLP", "init": init, "training": False, "params": weights, "buffers": [],
             "args": wire.encode_call([torch.zeros(1, 4)], {})[0], "kwargs": {"__dict__": []},
             "grad": [], "param_grad": []}  # fmt: skip
    assert server.answer(frame)["ok"]
    for broken in (
        {"params": weights[:-1]},  # one tensor missing
        {"params": [*weights, ["extra", weights[0][1]]]},  # one it does not have
        {"params": [[weights[0][0], weights[1][1]], *weights[1:]]},  # another shape
        {"param_grad": ["nothing"]},
        {"forward": "PreNormBlock"},  # not offered
        {"construct": "score_matrix"},
    ):
        assert not server.answer({**frame, **broken})["ok"], broken


def test_a_small_call_cannot_make_the_trusted_process_allocate_gigabytes():
    """causal_mask(40_000) is 1.6 GB of booleans: past the callback's memory budget, the
    kernel gets a MemoryError, and the trusted process goes on answering."""
    server = standins.for_test("04_masks", {"causal_mask": ("c", "failed")}, "check_x(x)")
    assert server is not None
    big = server.answer(_frame("causal_mask", 40_000))
    assert not big["ok"] and big["type"] == "MemoryError", big
    small = server.answer(_frame("causal_mask", 3))
    assert small["ok"] and wire.decode(small["result"]).tolist()[1] == [True, True, False]


def test_what_the_stand_ins_keep_is_dropped_past_its_budget(monkeypatch):
    """Past KEPT_BUDGET (here always: a baseline of 0 bytes and a budget of -1), the trusted
    process drops its graphs and objects after each callback: an object's forward makes it
    again, a backward of a dropped graph is refused."""
    monkeypatch.setattr(standins, "KEPT_BUDGET", -1)
    server = standins.for_test(
        "06_transformer_block", {"MLP": ("c", "failed")}, "check_prenorm_block(P)"
    )
    assert server is not None and server.baseline is not None
    server.baseline = 0  # the address space has grown past it, whatever was freed since
    side = _linked(server)
    mlp = side._stand_in("MLP", None, side.active, True)(4, 8)
    assert server.modules == {}
    x = torch.randn(1, 4, requires_grad=True)
    out = mlp(x)  # made again
    assert server.graphs == {} and out.shape == (1, 4)
    with pytest.raises(RuntimeError, match="no graph"):
        out.sum().backward()


def test_the_page_names_every_helper_that_stood_in():
    one, two = stood_in_note(["lm_loss"]), stood_in_note(["score_matrix", "softmax_rows"])
    assert one.startswith("Graded with the course's lm_loss in place of yours, whose check")
    assert "score_matrix and softmax_rows in place of yours, whose checks failed" in two


def test_two_failed_helpers_both_stand_in():
    """score_matrix and softmax_rows both wrong: each slip fails its own test, and the
    reference attention still passes, with both helpers named on its page."""
    nb = solution_notebook(NB01)
    for slip in ("no 1/sqrt(d_k)", "softmax over the wrong axis"):
        nb = apply_variant(nb, _mistake(NB01, slip))
    graded = grade_in_kernel(nb, NB01, ["test_score_matrix", "test_softmax_rows", "test_attention"])
    assert [v for v, _ in graded.values()] == ["failed", "failed", "passed"], graded
    assert "score_matrix and softmax_rows in place of yours" in graded["test_attention"][1]


FLOOD = """
import gc
from grader import wire
side = next(o for o in gc.get_objects() if type(o).__name__ == "KernelSide")
for seq in range(20_000):  # forged callbacks for the request in flight, never reading an answer
    wire.write_frame(side.replies, {{"callback": "x", "id": {id}, "seq": seq,
                                    "args": [], "kwargs": {{"__dict__": []}}}})
print("flooded")
"""


def test_forged_callbacks_while_a_cell_runs_do_not_block_the_grader():
    """A cell floods the grader with callback frames and reads no answer: the grader offers
    no stand-in while cells run, so it answers none, and the cell's own reply arrives."""
    import threading
    import time

    from grader.execute import StudentKernel
    from grader.sandbox import Limits, sandbox_available

    kernel = StudentKernel(None, Limits(cell_timeout_s=60), sandbox_available()[0])
    try:
        flood = FLOOD.format(id=kernel.next_id + 1)  # the id this request will carry
        replies: list = []
        waiting = threading.Thread(
            target=lambda: replies.append(
                kernel.request({"op": "run", "source": flood}, time.monotonic() + 60)
            )
        )
        waiting.start()
        waiting.join(90)
        assert replies, "the grader blocked: it answered forged callbacks nobody reads"
        reply = replies[0]
        streams = [o.get("text") for o in reply["outputs"] if o.get("name") == "stdout"]
        assert streams == ["flooded\n"], reply
        assert kernel.request({"op": "run", "source": "1 + 1"}, time.monotonic() + 30)
    finally:
        kernel.close()


@pytest.mark.parametrize(("kind", "raised"), [("MemoryError", MemoryError),
                                              ("ValueError", ValueError),
                                              ("SystemExit", RuntimeError)])  # fmt: skip
def test_the_kernel_raises_the_course_helpers_error_as_its_own_kind(kind, raised):
    """The trusted process's refusal reaches the student's code as the builtin it names
    (a MemoryError for a call past the memory budget); any other kind as RuntimeError."""
    import os

    requests, to_kernel = os.pipe()
    from_kernel, replies = os.pipe()
    side = standins.KernelSide(requests, replies)
    side.request_id = 7
    wire.write_frame(to_kernel, {"callback_reply": 1, "ok": False, "type": kind, "error": "no"})
    with pytest.raises(raised, match="no"):
        side.exchange({"callback": "causal_mask"})
    sent = wire.read_frame(from_kernel)
    assert sent["callback"] == "causal_mask" and sent["id"] == 7 and sent["seq"] == 1
    for fd in (requests, to_kernel, from_kernel, replies):
        os.close(fd)


def _softmax_cell(nb, source: str):
    """`nb` with the answer cell that defines softmax_rows replaced by `source`."""
    nb = nbformat.from_dict(nb)
    cell = next(c for c in nb.cells if c.source.startswith("def softmax_rows"))
    cell.source = source
    return nb


UNBOUND = {  # a softmax_rows cell that leaves the name unbound
    "syntax error": "def softmax_rows(S):\n    return S\ndef oops(:\n",
    "deleted": "del softmax_rows\n",
}


@pytest.mark.parametrize("form", sorted(UNBOUND))
def test_an_unbound_helper_stands_in_as_a_stub_does(form):
    """softmax_rows's cell defines nothing (it does not compile, or deletes the name): its
    test fails, and attention, graded with the course's softmax_rows, keeps its points, as
    it does beside the release stub. One slip, charged once."""
    nb = _softmax_cell(solution_notebook(NB01), UNBOUND[form])
    graded = grade_in_kernel(nb, NB01, ["test_softmax_rows", "test_attention"])
    assert graded["test_softmax_rows"][0] == "failed", graded
    verdict, text = graded["test_attention"]
    assert verdict == "passed", text
    assert "Graded with the course's softmax_rows in place of yours" in text, text


INLINE_SOFTMAX = replace_line(
    "A = softmax_rows(score_matrix(Q, K))",
    "S = score_matrix(Q, K)\nE = np.exp(S - S.max(axis=-1, keepdims=True))\n"
    "A = E / E.sum(axis=-1, keepdims=True)",
)


def test_an_unbound_helper_the_subject_never_calls_changes_nothing():
    """softmax_rows deleted, and attention computes its softmax itself: attention passes on
    its own code, and its page names no stand-in (none served it)."""
    nb = _softmax_cell(solution_notebook(NB01), UNBOUND["deleted"])
    nb = apply_variant(nb, mistake("attention", "its own softmax", INLINE_SOFTMAX, hint="none"))
    graded = grade_in_kernel(nb, NB01, ["test_softmax_rows", "test_attention"])
    assert graded["test_softmax_rows"][0] == "failed", graded
    verdict, text = graded["test_attention"]
    assert verdict == "passed" and "in place of yours" not in text, text
