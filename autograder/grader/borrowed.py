"""Borrowed answers: a graded function or class that delegates to the package's own version
of its exercise, or to the PyTorch built-in that the exercise asks the student to write.

The `attnbook` package holds production code that answers several exercises under another
name (`attnbook.lm.model.sinusoid_table` is notebook 02's `sinusoidal_positions`, the decoder in
`attnbook.lm.model` and `attnbook.lm.qwen3` holds the attention, MLP, block and decoder of 05, 06
and 10, the trainer and sampler hold most of 07 and 08). A wrapper around one of them passes
the tests, so the grader reads each tested answer's source before its test runs
(`grader.execute.run_notebook`) and gives a test whose subject borrows the course's setting
(`SandboxedExecute.borrowed_credit`, a fraction of the test's points, 0 by default), with a
status and feedback that name the call.

What counts is read from the submission's code cells, never from the student's kernel: the
subject's last binding (a def, a class, an assignment or an import), the student's own
functions and classes it reaches, and in them every name, attribute chain, `getattr(obj,
"name")` and identifier string. A name is resolved through the imports of the cells (the
last binding wins, a function's own imports first), so `from attnbook.lm.model import
sinusoid_table as table` is found under any alias, while the student's own function of the
same name, or a parameter or local variable, is not the package's. Package paths are
resolved to objects (a re-export is the same object); PyTorch's built-ins are matched by
name wherever they are reached from (`F.layer_norm`, `torch.layer_norm`, `"layer_norm"`).

`RULES` is per exercise, because what one exercise forbids another hands out: notebook 06's
`PreNormBlock` is meant to use `causal_self_attention` and `nn.LayerNorm`, its `Decoder` the
package's `sinusoid_table` and `rope_tables`, notebook 10's `Qwen3Block` `nn.RMSNorm` and
`rotate_pairs`. The catalogue's correct alternatives (`autograder/mistakes/`) are never
flagged: PyTorch's fused attention computing Y in notebooks 01, 04 and in `Qwen3Block`, the
package's KV cache in notebook 08's `generate`. Notebook 10's `decode_step` shares its name with
`attnbook.lm.generation.decode_step`, which answers another question and is not listed. Every
answer may use its notebook's setup helpers (`require_*`), torch, numpy and `nn.Linear`.

Any binding of a graded name counts, not only the last def, class, assignment or import:
`globals()["attention"] = helper`, `vars()[...]`, `setattr(module, "attention", ...)`,
`module.__dict__[...]`, `globals().update(attention=...)` and the bindings inside an
`exec`/`eval` of a constant string are read as well (`dynamic_bindings`), wherever they
are in the cells. And the rule follows what the kernel will run: before a test, the kernel
is asked where each subject's value comes from (`grader.kernel`, op `origin`: its module and
qualified name, and for the student's own code the cell and line). Code from a package,
PyTorch or any module is matched against the subject's rule by its path (so
`globals()["attention"] = F.scaled_dot_product_attention` is found whatever built the
name); code from another place in the student's cells is read as the subject's answer
(`follow`); code of the notebook's namespace that is not in any cell (made by `exec` of a
computed string) is a finding of its own, since nobody can read it. The kernel is the
student's process, so what it says only ever adds findings: the static reading always runs.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import re
import sys
from dataclasses import dataclass, field

from attnbook.checks._source import docstring_ids

SOURCE_LIMIT = 2_000_000  # characters of student code read (as grader.testprocess.names_used)

# -- what each exercise may not delegate to -------------------------------------------------
FUSED_ATTENTION = (
    "torch.nn.functional.scaled_dot_product_attention",
    "torch.nn.functional.multi_head_attention_forward",
    "torch.nn.MultiheadAttention",
    "torch.nn.Transformer",
    "torch.nn.TransformerEncoderLayer",
    "torch.nn.TransformerDecoderLayer",
)
LAYER_NORMS = (
    "torch.nn.functional.layer_norm",
    "torch.nn.LayerNorm",
    "torch.layer_norm",
    "torch.native_layer_norm",
    "torch.nn.functional.group_norm",
    "torch.nn.GroupNorm",
    "torch.nn.functional.rms_norm",
    "torch.nn.RMSNorm",
    "torch.rms_norm",
    "torch._fused_rms_norm",
)
PACKAGE_ATTENTION = (
    "attnbook.ops.torch_attend",
    "attnbook.demos.nb05.fused_attention",
    "attnbook.lm.model.CausalSelfAttention",
    "attnbook.demos.nb06.causal_self_attention",
    "attnbook.lm.model.TransformerBlock",
    "attnbook.lm.model.TransformerLM",
)
PACKAGE_MODULES = (
    "attnbook.ops.torch_attend",
    "attnbook.lm.model.CausalSelfAttention",
    "attnbook.demos.nb06.causal_self_attention",
    "attnbook.lm.model.TransformerBlock",
    "attnbook.lm.model.TransformerLM",
)
TORCH_DECODER = (
    "torch.nn.TransformerEncoderLayer",
    "torch.nn.TransformerDecoderLayer",
    "torch.nn.TransformerEncoder",
    "torch.nn.TransformerDecoder",
    "torch.nn.Transformer",
)
QWEN3 = (
    "attnbook.lm.qwen3.Qwen3LM",
    "attnbook.lm.qwen3.ModernBlock",
    "attnbook.lm.qwen3.GatedMLP",
    "attnbook.lm.qwen3.block_attention",
    "attnbook.lm.qwen3.load_hf_model",
    "attnbook.lm.qwen3.load_hf_checkpoint",
)
SEQ2SEQ = (
    "attnbook.lm.seq2seq.AttentionLayer",
    "attnbook.lm.seq2seq.EncoderLayer",
    "attnbook.lm.seq2seq.DecoderLayer",
    "attnbook.lm.seq2seq.Seq2SeqTransformer",
)
LOSS = ("attnbook.lm.data.masked_cross_entropy",)
SAMPLER = ("attnbook.lm.generation.filtered_distribution", "attnbook.lm.generation.draw_tokens")

#: notebook -> graded function or class -> what its answer may not use, besides EVERY_ANSWER;
#: every graded name of every notebook is listed (tests/test_ta_borrowed.py checks it)
RULES: dict[str, dict[str, tuple[str, ...]]] = {
    "01_attention_scores": {
        "project_qkv": (),
        "score_matrix": (),
        "softmax_rows": ("attnbook.ops.torch_softmax",),
        # F.scaled_dot_product_attention for Y is a catalogued correct alternative here
        "attention": ("attnbook.ops.torch_attend",),
    },
    "02_positions": {
        "sinusoidal_positions": (
            "attnbook.lm.model.sinusoid_table",
            "attnbook.lm.model.TransformerLM",
        ),
        "embed": (),
        "shift_matrix": (),
    },
    "03_rope": {
        "rotation_2d": ("attnbook.lm.model.rotate_pairs",),
        "rope_frequencies": ("attnbook.lm.model.rope_tables", "attnbook.lm.model.TransformerLM"),
        "apply_rope": (
            "attnbook.lm.model.rope_tables",
            "attnbook.lm.model.rotate_pairs",
            "attnbook.lm.model.CausalSelfAttention",
            "attnbook.lm.model.TransformerLM",
        ),
    },
    "04_masks": {
        "causal_mask": ("attnbook.lm.model.TransformerLM",),
        "masked_attention": ("attnbook.ops.torch_attend",),  # as in 01: SDPA for Y is allowed
        "padding_mask": ("attnbook.lm.model.TransformerLM",),
        "attention_mask": ("attnbook.lm.model.TransformerLM",),
    },
    "05_multihead": {
        "split_heads": PACKAGE_ATTENTION,
        "merge_heads": PACKAGE_ATTENTION,
        "scaled_dot_product_attention": (*PACKAGE_ATTENTION, *FUSED_ATTENTION),
        "MultiHeadAttention": (*PACKAGE_ATTENTION, *FUSED_ATTENTION),
    },
    "06_transformer_block": {
        "layer_norm": LAYER_NORMS,
        "MLP": (
            "attnbook.lm.model.FeedForward",
            "attnbook.lm.model.TransformerBlock",
            "attnbook.lm.model.TransformerLM",
            "attnbook.lm.qwen3.GatedMLP",
        ),
        "PreNormBlock": (
            "attnbook.lm.model.TransformerBlock",
            "attnbook.lm.model.FeedForward",
            "attnbook.lm.model.TransformerLM",
            *TORCH_DECODER,
        ),
        "Decoder": (
            "attnbook.lm.model.TransformerLM",
            "attnbook.lm.model.TransformerBlock",
            "attnbook.lm.model.FeedForward",
            "attnbook.lm.model.load_checkpoint",
            "attnbook.lm.train.load_trained",
            "attnbook.experiments.ablation.build_model",
            *TORCH_DECODER,
        ),
        "count_parameters": (
            "attnbook.lm.model.TransformerLM",
            "attnbook.lm.model.TransformerBlock",
            "attnbook.lm.model.FeedForward",
            "attnbook.lm.model.CausalSelfAttention",
            "attnbook.demos.nb06.causal_self_attention",
        ),
    },
    "07_training": {
        "make_batch": ("attnbook.lm.data.pad_batch", "attnbook.lm.data.batch_iterator"),
        "lm_loss": LOSS,
        "train_step": ("attnbook.lm.train.fit_batch", *LOSS),
        "evaluate": ("attnbook.lm.data.validation_loss", *LOSS),
        "ablate_head": (),  # no package function ablates a head; head_survey calls the answer
    },
    "08_generation": {
        "sequence_log_prob": (),
        "next_token_probs": SAMPLER,
        "sample_next": SAMPLER,
        # the package's KV cache (decode_step, KVCache) is a catalogued correct alternative
        "generate": (
            "attnbook.lm.generation.generate_tokens",
            "attnbook.demos.nb10.greedy_tokens",
            *SAMPLER,
        ),
        "perplexity": ("attnbook.lm.data.validation_loss", *LOSS),
    },
    "09_beyond": {
        "linear_recurrence": (),
        "linear_recurrence_parallel": (),  # its check forbids the student's own loop
    },
    "10_modern_decoder": {
        "rms_norm": (*LAYER_NORMS, *QWEN3),
        "SwiGLU": (
            "attnbook.lm.qwen3.GatedMLP",
            "attnbook.lm.qwen3.ModernBlock",
            "attnbook.lm.qwen3.Qwen3LM",
            "attnbook.lm.model.FeedForward",
        ),
        "grouped_query_attention": (*QWEN3, *PACKAGE_ATTENTION, *FUSED_ATTENTION),
        "kv_cache_bytes": ("attnbook.demos.nb10.cache_bytes",),
        # the fused kernel with an explicit mask is a catalogued correct alternative here
        "Qwen3Block": (*QWEN3, *PACKAGE_MODULES),
        "Qwen3Decoder": (
            *QWEN3,
            "attnbook.lm.model.TransformerLM",
            "attnbook.lm.model.TransformerBlock",
            *TORCH_DECODER,
        ),
        # attnbook.lm.generation.decode_step shares the name but answers notebook 08's cache
        # on a TransformerLM (tests/test_package.py, HOMONYMS): not a twin of this one
        "decode_step": (),
    },
    # notebook 11: the package's encoder-decoder (attnbook.lm.seq2seq) answers these; the layers
    # it hands out (attention_layer, feed_forward) are given, and the fused kernel with the
    # encoder's mask is a catalogued correct alternative for cross_attention
    "11_encoder_decoder": {
        "cross_attention": (
            *SEQ2SEQ,
            *PACKAGE_ATTENTION,
            "torch.nn.MultiheadAttention",
            *TORCH_DECODER,
        ),
        "EncoderBlock": (*SEQ2SEQ, *PACKAGE_MODULES, *TORCH_DECODER),
        "DecoderBlock": (*SEQ2SEQ, *PACKAGE_MODULES, *TORCH_DECODER),
        "EncoderDecoder": (*SEQ2SEQ, *PACKAGE_MODULES, *TORCH_DECODER),
        "beam_search": ("attnbook.lm.seq2seq.beam_decode", "attnbook.lm.seq2seq.greedy_decode"),
    },
}
#: what no graded answer may use, in any notebook: the check library (its private helpers
#: compute the expected values and the catalogued mistakes) and the grader's loader of the
#: reference answers; any private (`_name`) part of the package counts too
EVERY_ANSWER = ("attnbook.checks", "attnbook.grading")

PRIVATE = "attnbook._private"  # the target of a private name of the package
WHAT = {
    "attnbook.checks": "the check library, which computes the expected answers",
    "attnbook.grading": "the grader's loader of the reference answers",
    PRIVATE: "a private part of the package",
}


def describe(target: str) -> str:
    """What a forbidden target is, for the message."""
    if target in WHAT:
        return WHAT[target]
    if target.startswith("torch."):
        return "PyTorch's built-in version of what this exercise asks you to write"
    return "the package's own version of this exercise"


@dataclass(frozen=True)
class Borrowed:
    """One graded subject that uses a forbidden call."""

    subject: str  # the graded function or class, e.g. "sinusoidal_positions"
    call: str  # what it uses, as resolved, e.g. "attnbook.lm.model.sinusoid_table"
    target: str  # the rule it matched, e.g. "attnbook.lm.model.sinusoid_table"
    via: str = ""  # the student's own helper where the call is, if not the subject itself

    def message(self) -> str:
        if self.target == PROCESS:  # the notebook's, charged to each subject
            return (
                f"{self.call}, {describe(self.target)}; take it out to have {self.subject} graded"
            )
        where = f" (through your {self.via})" if self.via else ""
        return f"{self.subject} uses {self.call}{where}, {describe(self.target)}; write it yourself"


# -- resolving what a name in a submission stands for ----------------------------------------
_MISSING = object()


def _import_attnbook(path: str):
    """The attnbook module `path` (a dotted prefix), or None if it is not one."""
    with contextlib.suppress(Exception):
        if importlib.util.find_spec(path) is not None:
            return importlib.import_module(path)
    return None


def resolve(dotted: str):
    """The object a dotted path of `attnbook` or `torch` names, or _MISSING. Only the
    trusted package and torch are imported; attributes are read with getattr on modules
    and classes only."""
    parts = dotted.split(".")
    if parts[0] not in ("attnbook", "torch") or any(p.startswith("_") for p in parts):
        return _MISSING  # nothing private is imported or read (no __main__, no _internals)
    obj: object = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], start=2):
        nxt = getattr(obj, part, _MISSING) if isinstance(obj, type) or _is_module(obj) else _MISSING
        if nxt is _MISSING and parts[0] == "attnbook" and _is_module(obj):
            nxt = _import_attnbook(".".join(parts[:i])) or _MISSING
        if nxt is _MISSING:
            return _MISSING
        obj = nxt
    return obj


def _is_module(obj) -> bool:
    return type(obj).__name__ == "module"


def _prefix_objects(dotted: str) -> list[tuple[str, object]]:
    """(prefix, object) for every prefix of `dotted` that resolves."""
    parts, found = dotted.split("."), []
    for i in range(1, len(parts) + 1):
        prefix = ".".join(parts[:i])
        obj = resolve(prefix)
        if obj is _MISSING:
            break
        found.append((prefix, obj))
    return found


# what a forbidden torch class offers that an answer may use: nn.Transformer's causal mask
ALLOWED_HELPERS = ("generate_square_subsequent_mask",)


class _Rule:
    """The forbidden targets of one subject: package objects by identity (and by name where
    a reference cannot be resolved), torch built-ins by name."""

    def __init__(self, targets: tuple[str, ...]):
        self.objects: list[tuple[object, str]] = []
        self.modules: list[str] = []
        self.torch_names: dict[str, str] = {}
        self.package_names: dict[str, str] = {}
        for target in (*targets, *EVERY_ANSWER):
            name = target.rsplit(".", 1)[-1]
            if target.startswith("torch."):
                self.torch_names[name] = target
                continue
            obj = resolve(target)
            if _is_module(obj):
                self.modules.append(target)
            elif obj is not _MISSING:
                self.objects.append((obj, target))
                self.package_names[name] = target

    def match_path(self, dotted: str) -> str | None:
        """The target a resolved dotted path reaches, if any."""
        root = dotted.split(".", 1)[0]
        names = dotted.split(".")
        if names[-1] in ALLOWED_HELPERS:  # a helper of a forbidden class, not the class
            return None
        if root == "torch" or root not in ("attnbook",):
            hit = next((self.torch_names[n] for n in names if n in self.torch_names), None)
            if hit or root != "attnbook":
                return hit
        for prefix, obj in _prefix_objects(dotted):
            for target in self.modules:
                if prefix == target or prefix.startswith(target + "."):
                    return target
            module = getattr(obj, "__module__", None) or getattr(obj, "__name__", "")
            for target in self.modules:
                if isinstance(module, str) and (
                    module == target or module.startswith(target + ".")
                ):
                    return target
            for forbidden, target in self.objects:
                if obj is forbidden:
                    return target
        if any(n.startswith("_") and not n.startswith("__") for n in names[1:]):
            return PRIVATE
        return None

    def match_name(self, name: str) -> str | None:
        """The target an unresolved attribute or an identifier string names, if any."""
        return self.torch_names.get(name) or self.package_names.get(name)


# -- reading the submission -----------------------------------------------------------------
def _import_bindings(node: ast.Import | ast.ImportFrom) -> dict[str, str]:
    """name -> dotted path that an import statement binds."""
    bound = {}
    for alias in node.names:
        if isinstance(node, ast.Import):
            if alias.asname:
                bound[alias.asname] = alias.name
            else:
                head = alias.name.split(".", 1)[0]
                bound[head] = head
        elif alias.name != "*" and not node.level:
            bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


def _module_statements(body: list[ast.stmt]):
    """Statements run at the top level of a cell, inside if/try/with/for blocks too."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If | ast.Try | ast.With | ast.For | ast.While):
            for name in ("body", "orelse", "finalbody"):
                yield from _module_statements(getattr(stmt, name, []) or [])
            for handler in getattr(stmt, "handlers", []) or []:
                yield from _module_statements(handler.body)


def module_bindings(sources: list[str]) -> dict[str, tuple[str, object]]:
    """name -> ("import", dotted) | ("def", node) | ("assign", value) | ("other", None),
    the last binding of each top-level name over the cells, in order."""
    bound: dict[str, tuple[str, object]] = {}
    for source in sources:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for stmt in _module_statements(tree.body):
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                bound[stmt.name] = ("def", stmt)
            elif isinstance(stmt, ast.Import | ast.ImportFrom):
                for name, dotted in _import_bindings(stmt).items():
                    bound[name] = ("import", dotted)
            elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                value = stmt.value
                for target in targets:
                    for inner in ast.walk(target):
                        if isinstance(inner, ast.Name):
                            simple = isinstance(target, ast.Name) and value is not None
                            bound[inner.id] = ("assign", value) if simple else ("other", value)
            elif isinstance(stmt, ast.For | ast.With):
                targets = (
                    [stmt.target]
                    if isinstance(stmt, ast.For)
                    else [i.optional_vars for i in stmt.items if i.optional_vars is not None]
                )
                for target in targets:
                    for inner in ast.walk(target):
                        if isinstance(inner, ast.Name):
                            bound[inner.id] = ("other", None)
    return bound


def _folded(node: ast.AST, depth: int = 0) -> str | None:
    """The string an expression of string constants builds, where it builds one: `+`, an
    f-string of constants, `sep.join([...])` and a constant slice, nested (a name hidden in
    pieces still names its target); None for anything else."""
    if depth > 20:
        return None
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _folded(node.left, depth + 1), _folded(node.right, depth + 1)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.JoinedStr):
        parts = [
            _folded(v.value, depth + 1)
            if isinstance(v, ast.FormattedValue) and v.conversion == -1 and v.format_spec is None
            else _folded(v, depth + 1)
            for v in node.values
        ]
        return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "join"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.List | ast.Tuple)
    ):
        sep = _folded(node.func.value, depth + 1)
        items = [_folded(e, depth + 1) for e in node.args[0].elts]
        if sep is None or any(i is None for i in items):
            return None
        return sep.join(i or "" for i in items)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        text = _folded(node.value, depth + 1)
        bounds = [_integer(b) for b in (node.slice.lower, node.slice.upper, node.slice.step)]
        if text is None or "x" in bounds:
            return None
        return text[slice(*bounds)] if bounds[2] != 0 else None
    return None


def _integer(node: ast.AST | None):
    """A slice bound written as a whole number (-1 included), None when absent, else "x"."""
    if node is None:
        return None
    negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    value = getattr(node.operand if isinstance(node, ast.UnaryOp) else node, "value", "x")
    if not isinstance(value, int) or isinstance(value, bool):
        return "x"
    return -value if negative else value


def _const_str(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _is_namespace(node: ast.AST) -> bool:
    """`globals()`, `vars()`, `vars(x)`, `locals()` or `x.__dict__`: a namespace whose items
    are names."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in ("globals", "vars", "locals")
    return isinstance(node, ast.Attribute) and node.attr == "__dict__"


def _is_modules(node: ast.AST) -> bool:
    """`sys.modules` (or any `x.modules`): a store into it makes a name importable."""
    return isinstance(node, ast.Attribute) and node.attr == "modules"


def _call_name(func: ast.AST) -> str:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def _call_bindings(node: ast.Call, depth: int) -> list[tuple[str | None, str, object]]:
    """(name, kind, value) for each binding a call makes with the name written out."""
    name, args = _call_name(node.func), node.args
    on_namespace = isinstance(node.func, ast.Attribute) and _is_namespace(node.func.value)
    if name == "setattr" and len(args) >= 3:
        return [(_const_str(args[1]), "assign", args[2])]
    if name in ("__setitem__", "setdefault") and on_namespace and len(args) >= 2:
        return [(_const_str(args[0]), "assign", args[1])]
    if name == "update" and on_namespace:
        found: list[tuple[str | None, str, object]] = [
            (k.arg, "assign", k.value) for k in node.keywords
        ]
        for arg in args:
            if isinstance(arg, ast.Dict):
                found += [(_const_str(k), "assign", v) for k, v in zip(arg.keys, arg.values)]
        return found
    code = _const_str(args[0]) if args else None
    if name in ("exec", "eval", "compile") and code is not None and depth < 3:
        found = [
            (bound, kind, value)
            for bound, (kind, value) in module_bindings([code]).items()
            if kind in ("def", "assign", "import")
        ]
        for bound, more in dynamic_bindings([code], depth + 1).items():
            found += [(bound, kind, value) for kind, value in more]
        return found
    return []


def dynamic_bindings(sources: list[str], depth: int = 0) -> dict[str, list[tuple[str, object]]]:
    """name -> every binding of it made at run time with the name written out, anywhere in
    the cells (inside functions too): `globals()["name"] = v` (and `vars()`, `locals()`,
    `x.__dict__`, `sys.modules`), `setattr(x, "name", v)` and `x.name = v` (the name of an
    attribute), `globals().update(name=v)` or `({"name": v})`,
    `.setdefault("name", v)`, `.__setitem__("name", v)`, and every binding inside an
    `exec`, `eval` or `compile` of a constant string. Each binding is ("assign", value) or,
    from an exec'd string, what `module_bindings` gives."""
    found: dict[str, list[tuple[str, object]]] = {}
    for source in sources:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in ast.walk(tree):
            made: list[tuple[str | None, str, object]] = []
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                made = [
                    (_const_str(inner.slice), "assign", node.value)
                    for target in targets
                    for inner in ast.walk(target)
                    if isinstance(inner, ast.Subscript)
                    and (_is_namespace(inner.value) or _is_modules(inner.value))
                ]
                made += [  # x.name = value: read wherever an attribute `name` is
                    (inner.attr, "assign", node.value)
                    for target in targets
                    for inner in ast.walk(target)
                    if isinstance(inner, ast.Attribute) and isinstance(inner.ctx, ast.Store)
                ]
            elif isinstance(node, ast.Call):
                made = _call_bindings(node, depth)
            for key, kind, value in made:
                if key is not None and value is not None:
                    found.setdefault(key, []).append((kind, value))
    return found


def _local_names(node: ast.AST) -> tuple[set[str], dict[str, str]]:
    """Names a function or class binds inside itself (parameters, assignments, loop and
    comprehension variables, inner defs) and the dotted paths its own imports bind."""
    local, imports = set(), {}
    for inner in ast.walk(node):
        if inner is node:
            continue
        if isinstance(inner, ast.arg):
            local.add(inner.arg)
        elif isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store | ast.Del):
            local.add(inner.id)
        elif isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            local.add(inner.name)
        elif isinstance(inner, ast.Import | ast.ImportFrom):
            imports.update(_import_bindings(inner))
        elif isinstance(inner, ast.ExceptHandler) and inner.name:
            local.add(inner.name)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        for arg in ast.walk(node.args):
            if isinstance(arg, ast.arg):
                local.add(arg.arg)
    return local - set(imports), imports


def _getattr_chain(call: ast.Call) -> tuple[ast.AST, str] | None:
    """(object, name) of `getattr(object, "name")` or `getattr(object, "name", default)`."""
    if (
        isinstance(call.func, ast.Name)
        and call.func.id == "getattr"
        and len(call.args) >= 2
        and isinstance(call.args[1], ast.Constant)
        and isinstance(call.args[1].value, str)
    ):
        return call.args[0], call.args[1].value
    return None


class _Reader:
    """Follows one subject through the student's own code, collecting what it reaches."""

    def __init__(self, bindings: dict, rule: _Rule, extra: dict | None = None):
        self.bindings, self.rule = bindings, rule
        self.extra: dict[str, list[tuple[str, object]]] = extra or {}  # dynamic_bindings
        self.found: list[tuple[str, str, str]] = []  # (call, target, own helper)

    def _resolve_name(self, name: str, local: set[str], imports: dict[str, str]):
        """('path', dotted) | ('own', name) | None."""
        if name in imports:
            return "path", imports[name]
        if name in local:
            return None
        kind, value = self.bindings.get(name, ("other", None))
        if kind == "import":
            return "path", value
        if kind in ("def", "assign"):
            return "own", name
        return None

    def _chain(self, node: ast.AST, local, imports, todo) -> tuple[str | None, list[str]]:
        """(dotted base, attributes) of an attribute chain; the base is None when it is not
        an import (a local variable, a call's result, the student's own object)."""
        attrs: list[str] = []
        while True:
            if isinstance(node, ast.Attribute):
                attrs.append(node.attr)
                node = node.value
            elif isinstance(node, ast.Call) and (link := _getattr_chain(node)):
                node, name = link
                attrs.append(name)
            else:
                break
        attrs.reverse()
        if isinstance(node, ast.Name):
            resolved = self._resolve_name(node.id, local, imports)
            if resolved and resolved[0] == "path":
                return resolved[1], attrs
            if resolved and resolved[0] == "own":
                todo.append(resolved[1])
        return None, attrs

    def _stored(self, names, todo: list[str]) -> None:
        """Follow each of `names` (attributes of a chain) that a store binds at run time
        (`x.name = v`, `setattr(x, "name", v)`): the value stored is what a read reaches."""
        todo.extend(name for name in names if name in self.extra)

    def _imported(self, dotted: str, via: str, todo: list[str]) -> None:
        """An import path whose root a store binds at run time (`sys.modules["m"] = x`,
        then `from m import f`): the path read from what was stored (x.f), and that value
        followed."""
        root, *rest = dotted.split(".")
        for kind, value in self.extra.get(root, []):
            if kind == "assign" and isinstance(value, ast.AST):
                base, attrs = self._chain(value, set(), {}, todo)
                if base is not None:
                    path = ".".join([base, *attrs, *rest])
                    self._note(path, self.rule.match_path(path), via)
        self._stored([root], todo)

    def _computed_name(self, call: ast.Call, local: set[str], imports: dict[str, str]) -> bool:
        """`importlib.import_module(name)` or `__import__(name)`, and `getattr(module, name)`
        of the package, with a `name` that is not written out: what it reaches is known only
        at run time (getattr of a local object, `self` included, or of a library, such as
        `getattr(torch, "sin" or "cos")`, is the student's own business: a name built from
        pieces is read by `_folded`)."""
        args, func = call.args, call.func
        if isinstance(func, ast.Name) and func.id == "getattr":
            if len(args) < 2 or _const_str(args[1]) is not None:
                return False
            base = self._chain(args[0], local, imports, [])[0]
            return base is not None and base.split(".")[0] == "attnbook"
        if not args or _const_str(args[0]) is not None:
            return False
        base, attrs = self._chain(func, local, imports, [])
        called = ".".join([base, *attrs]) if base else getattr(func, "id", "")
        return called in (*IMPORTERS, "__import__")

    def _note(self, call: str, target: str | None, via: str) -> None:
        if target and all(call != c for c, _, _ in self.found):
            self.found.append((call, target, via))

    def read(self, subject: str, followed: tuple = ()) -> list[Borrowed]:
        """What `subject` reaches: every binding of it (the last static one and each
        dynamic one), and `followed`, the student's code the kernel says it runs."""
        todo, seen = [subject], set()
        for node in followed:
            own = getattr(node, "name", subject)
            self._read_node(node, own, "" if own == subject else own, todo)
        while todo:
            name = todo.pop(0)
            if name in seen:
                continue
            seen.add(name)
            via = "" if name == subject else name
            bound = [self.bindings.get(name, ("other", None)), *self.extra.get(name, [])]
            for kind, value in bound:
                if kind == "import":
                    self._note(str(value), self.rule.match_path(str(value)), via)
                    self._imported(str(value), via, todo)
                elif kind in ("def", "assign") and isinstance(value, ast.AST):
                    self._read_node(value, name, via, todo)
        return [Borrowed(subject, call, target, via) for call, target, via in self.found]

    def _read_node(self, node: ast.AST, own: str, via: str, todo: list[str]) -> None:
        local, imports = _local_names(node)
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            local.discard(node.name)
        for dotted in imports.values():
            self._note(dotted, self.rule.match_path(dotted), via)
            self._imported(dotted, via, todo)
        skip = docstring_ids(node)
        inner_of_chain = set()
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call) and self._computed_name(inner, local, imports):
                self._note(ast.unparse(inner)[:200], COMPUTED, via)
            built = None if isinstance(inner, ast.Constant) else _folded(inner)
            if built is not None:  # "layer_" + "norm", ".".join([...]), f"{'a'}b": read whole
                target = self.rule.match_name(built) or (
                    self.rule.match_path(built)
                    if built.startswith(("attnbook.", "torch."))
                    else None
                )
                self._note(f"the name {built!r}, built from pieces", target, via)
            if isinstance(inner, ast.Attribute | ast.Call) and id(inner) not in inner_of_chain:
                if isinstance(inner, ast.Call) and not _getattr_chain(inner):
                    continue
                base, attrs = self._chain(inner, local, imports, todo)
                chain_nodes: ast.expr = inner
                while isinstance(chain_nodes, ast.Attribute | ast.Call):
                    inner_of_chain.add(id(chain_nodes))
                    if isinstance(chain_nodes, ast.Attribute):
                        chain_nodes = chain_nodes.value
                    elif _getattr_chain(chain_nodes):
                        skip.add(id(chain_nodes.args[1]))
                        chain_nodes = chain_nodes.args[0]
                    else:
                        break
                self._stored(attrs, todo)
                if base is not None:
                    dotted = ".".join([base, *attrs])
                    self._note(dotted, self.rule.match_path(dotted), via)
                    self._imported(dotted, via, todo)
                else:
                    for attr in attrs:
                        self._note(f"{attr} (as an attribute)", self.rule.match_name(attr), via)
            elif isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load):
                if inner.id == own:
                    continue
                resolved = self._resolve_name(inner.id, local, imports)
                if resolved and resolved[0] == "path":
                    self._note(resolved[1], self.rule.match_path(resolved[1]), via)
                    self._imported(resolved[1], via, todo)
                elif resolved and resolved[0] == "own":
                    todo.append(resolved[1])
            elif (
                isinstance(inner, ast.Constant)
                and isinstance(inner.value, str)
                and id(inner) not in skip
                and inner.value.isidentifier()
            ):
                self._note(f"the name {inner.value!r}", self.rule.match_name(inner.value), via)


def subjects_of(notebook: str, test_source: str) -> list[str]:
    """The graded names of `notebook` that a test's source passes to its checks."""
    rules = RULES.get(notebook, {})
    try:
        tree = ast.parse(test_source)
    except (SyntaxError, ValueError):
        return []
    names = [
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    ]
    return list(dict.fromkeys(n for n in names if n in rules))


def all_bindings(sources: list[str]) -> tuple[dict, dict]:
    """`module_bindings` (a name bound only at run time is bound there by its last dynamic
    binding) and `dynamic_bindings`."""
    bindings, extra = module_bindings(sources), dynamic_bindings(sources)
    for name, more in extra.items():
        bindings.setdefault(name, more[-1])
    return bindings, extra


def find_borrowed(
    notebook: str,
    subject: str,
    sources: list[str],
    origin: dict | None = None,
    files: dict[str, str] | None = None,
) -> list[Borrowed]:
    """The forbidden calls that `subject`'s answer in `sources` (the submission's code
    cells run before its test) reaches; [] when it has none or cannot be read. `origin`:
    the kernel's answer to op `origin` for the subject (see `follow`). `files`: the
    student's own modules (`own_code`); each one the cells name is read whole, as if the
    subject reached all of it."""
    targets = RULES.get(notebook, {}).get(subject)
    if targets is None or sum(len(s) for s in sources) > SOURCE_LIMIT:
        return []
    return _find_borrowed(subject, sources, origin, _rule(targets)) + [
        Borrowed(subject, f"{call} (in your own file {name})", target)
        for name, tree in _named_files(sources, files or {}).items()
        for call, target, _via in _file_reader(tree, _rule(targets)).found
    ]


def _file_reader(tree: ast.Module, rule: _Rule) -> _Reader:
    reader = _Reader({}, rule)
    reader._read_node(tree, "", "", [])
    return reader


def _named_files(sources: list[str], files: dict[str, str]) -> dict[str, ast.Module]:
    """The student's own modules that the cells, or such a module, name in an import or a
    string (`import_module("helper")`; a name built at run time is a finding of its own):
    the ones an answer can run. A file goes by each of its path's names (`lib/helper.py`:
    `lib`, `helper`), since a cell may put any folder on the path."""
    names = set().union(*(_import_names(_parsed(s) or _EMPTY) for s in sources))
    named: dict[str, ast.Module] = {}
    grew = True
    while grew:
        grew = False
        for name, text in files.items():
            if name not in named and names & _module_names(name):
                named[name] = _file_tree(text) or _EMPTY
                names |= _import_names(named[name])
                grew = True
    return named


def _import_names(tree: ast.AST) -> set[str]:
    """Every module name an import of `tree` names, and each of its strings that could be
    one (`"helper"`, `"pkg.sub"`)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(p for a in node.names for p in a.name.split("."))
        elif isinstance(node, ast.ImportFrom):
            names.update((node.module or "").split("."))
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if re.fullmatch(r"[\w.]+", node.value):  # a module's name, not prose
                names.update(node.value.split("."))
    return names


def _module_names(name: str) -> set[str]:
    """The names a module file imports under: each folder of its path, and its own name
    without `.py`."""
    return {part.removesuffix(".py") for part in name.split("/")}


def _file_tree(text: str) -> ast.Module | None:
    """A module file's syntax tree (plain Python, as the kernel compiles it); None where
    the grader cannot read it."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return _EMPTY  # a plain syntax error: it imports nothing
    except Exception:  # noqa: BLE001 - deep nesting, memory: the kernel may read it
        return None


def _find_borrowed(
    subject: str, sources: list[str], origin: dict | None, rule: _Rule
) -> list[Borrowed]:
    followed = follow(origin, sources) if origin is not None else Followed()
    try:
        bindings, extra = all_bindings(sources)
        found = _Reader(bindings, rule, extra).read(subject, tuple(followed.nodes))
    except RecursionError:
        found = []
    for path in followed.paths:
        target = rule.match_path(path) or rule.match_name(path.rsplit(".", 1)[-1])
        call = f"{path} (what {subject} is when the tests run)"
        if target and all(b.call != call for b in found):
            found.append(Borrowed(subject, call, target))
    for what in followed.unreadable:
        found.append(Borrowed(subject, what, UNREADABLE))
    return found


# -- following what the kernel runs ----------------------------------------------------------
UNREADABLE = "attnbook._unreadable"  # code the kernel runs that no cell holds
WHAT[UNREADABLE] = (
    "code made at run time that is in none of your cells, which the grader cannot read "
    "(an exec or compile of a computed string?)"
)
COMPUTED = "attnbook._computed_name"  # a module or a module's attribute named at run time
WHAT[COMPUTED] = (
    "an import or a module's attribute named by a string built at run time, which the "
    "grader cannot read (name what you use in the code itself)"
)
IMPORTERS = ("importlib.import_module", "importlib.__import__", "builtins.__import__")
#: files IPython compiles a cell's body under for a cell magic (`%%time`): a function defined
#: in such a cell is looked up by its name in the cells
MAGIC_FILES = ("<timed exec>", "<timed eval>")


@dataclass
class Followed:
    """What the kernel says a graded name is when the tests run: the student's own code
    (syntax nodes of the cells), code outside the cells (module.qualname paths), and code
    of the notebook that is in no cell."""

    nodes: list = field(default_factory=list)
    paths: list = field(default_factory=list)
    unreadable: list = field(default_factory=list)


def _cell_nodes(sources: list[str], cell: int, line: int, name: str, is_class: bool) -> list:
    """The def, class or lambda of cell `cell` whose code starts at `line` (a class: the
    class holding that line)."""
    if not 0 <= cell < len(sources):
        return []
    try:
        tree = ast.parse(sources[cell])
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    hits: list[ast.AST] = []
    for node in ast.walk(tree):
        if is_class and isinstance(node, ast.ClassDef):
            if node.lineno <= line <= (node.end_lineno or node.lineno) and node.name == name:
                hits.append(node)
        elif not is_class and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if line in (first, node.lineno):
                hits.append(node)
        elif not is_class and isinstance(node, ast.Lambda) and node.lineno == line:
            hits.append(node)
    if not hits:  # a line IPython counted otherwise: the cell's one def of that name
        named: list[ast.AST] = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and n.name == name
        ]
        hits = named if len(named) == 1 else []
    return hits[-1:] if is_class else hits


def _named_defs(sources: list[str], name: str) -> list:
    hits: list[ast.AST] = []
    for source in sources:
        with contextlib.suppress(SyntaxError, ValueError, RecursionError, MemoryError):
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    if node.name == name:
                        hits.append(node)
    return hits


def _list(value) -> list:
    return value if isinstance(value, list) else []


def _text(value, limit: int = 300) -> str:
    return str(value)[:limit]


def follow(origin: dict, sources: list[str]) -> Followed:
    """Read the kernel's answer to op `origin` (untrusted: every field is checked and cut)
    into what the rules follow. A reply that is not an answer (the op failed in the
    student's process) is a finding: the grader was kept from seeing what runs."""
    out = Followed()
    if not isinstance(origin, dict) or origin.get("ok") is False:
        out.unreadable.append("a value the kernel could not describe to the grader")
        return out
    for entry in _list(origin.get("chain"))[:8]:
        if not isinstance(entry, dict):
            continue
        kind = _text(entry.get("kind"))
        module, qualname = _text(entry.get("module")), _text(entry.get("qualname"))
        for path in _list(entry.get("mro"))[:20] if kind in ("class", "object") else []:
            if isinstance(path, str) and not path.startswith("__main__."):
                out.paths.append(_text(path))
        if module != "__main__" or kind == "builtin":
            out.paths.append(f"{module}.{qualname}")
        for code in _list(entry.get("code"))[:50]:
            if not isinstance(code, dict):
                continue
            cell, line = code.get("cell"), code.get("line")
            cell = cell if isinstance(cell, int) and not isinstance(cell, bool) else None
            name = _text(code.get("name"))
            if isinstance(cell, int) and isinstance(line, int):
                target = qualname.rsplit(".", 1)[-1] if kind == "class" else name
                nodes = _cell_nodes(sources, cell, line, target, kind == "class")
                if nodes:
                    out.nodes.extend(nodes)
                    continue
                out.unreadable.append(f"the code of {name} (cell {cell}, line {line})")
            elif not _text(code.get("file")).startswith("<"):  # a module's file
                out.paths.append(f"{_text(code.get('module'))}.{_text(code.get('qualname'))}")
            elif _text(code.get("file")) in MAGIC_FILES and _named_defs(sources, name):
                out.nodes.extend(_named_defs(sources, name))
            else:
                out.unreadable.append(f"{name}, made at run time ({_text(code.get('file'), 80)})")
    return out


_RULE_CACHE: dict[tuple[str, ...], _Rule] = {}


def _rule(targets: tuple[str, ...]) -> _Rule:
    if targets not in _RULE_CACHE:
        _RULE_CACHE[targets] = _Rule(targets)
    return _RULE_CACHE[targets]


def warm() -> None:
    """Resolve every rule once (the fork server does, so tests start with them ready)."""
    for rules in RULES.values():
        for targets in rules.values():
            _rule(targets)


def borrowed_in_test(
    notebook: str,
    test_source: str,
    sources: list[str],
    origins: dict | None = None,
    files: dict[str, str] | None = None,
) -> list[Borrowed]:
    """Every borrowed call of every subject a test checks, and every reach of the cells into
    the running process (`process_reaches`), charged to each subject: the kernel that answers
    for them cannot be trusted then; `origins`: subject -> the kernel's answer to op `origin`
    (see `follow`); `files`: the student's own modules (`own_code`)."""
    subjects = subjects_of(notebook, test_source)
    reaches = process_reaches(sources, files) if subjects else []
    return [
        *(
            b
            for subject in subjects
            for b in find_borrowed(
                notebook,
                subject,
                sources,
                (origins or {}).get(subject) if origins else None,
                files,
            )
        ),
        *(Borrowed(subject, reach, PROCESS) for subject in subjects for reach in reaches),
    ]


# -- reaching into the running process --------------------------------------------------------
# The kernel that runs a submission is the grader's own code (`grader.kernel`) in the student's
# process: a cell anywhere in the notebook could rebind what it calls for a test (its
# `_target`, say) and have the package's answer run under the student's name. No answer of
# this course needs the process's modules, frames, memory or code made at run time, so a
# notebook that reaches for them is not graded as written: every test it has is charged.
PROCESS = "attnbook._process"
WHAT[PROCESS] = (
    "a reach into the running process (the grader's kernel, modules, frames or memory), which "
    "no answer of this course needs: the grader cannot trust what the notebook's calls return"
)
INNER_MODULES = ("grader", "ctypes", "_ctypes", "runpy", "zipimport", "pkgutil", "imp", "code",
                 "codeop", "trace", "doctest", "marshal", "_pickle", "shelve", "dill",
                 "cloudpickle", "site", "fcntl", "_posixsubprocess")  # fmt: skip
# (site: it runs the lines of a .pth file among the student's own files; fcntl and
# _posixsubprocess could hand the grader's pipes to another process, `grader.kernel.keep_wire`)
# gc.collect() is an answer's business; gc's lists of every object are not
INNER_NAMES = ("sys.modules", "sys._getframe", "sys._current_frames", "sys.settrace",
               "sys.setprofile", "inspect.currentframe", "inspect.stack", "inspect.trace",
               "inspect.getouterframes", "builtins.__import__", "builtins.exec", "builtins.eval",
               "builtins.compile", "gc.get_objects", "gc.get_referrers", "gc.get_referents",
               "sys.setrecursionlimit", "importlib.machinery", "IPython.core.magic",
               "importlib.util.spec_from_file_location", "importlib.util.spec_from_loader",
               "importlib.util.module_from_spec", "importlib._bootstrap",
               "importlib._bootstrap_external", "sys.meta_path", "sys.path_hooks",
               "sys.path_importer_cache", "sys.addaudithook", "sys.excepthook",
               "sys.displayhook", "sys.breakpointhook", "threading.settrace",
               "threading.setprofile", "pickle.load", "pickle.loads", "pickle.Unpickler",
               "pickle._load", "pickle._loads", "pickle._Unpickler", "codecs.register",
               "os.dup2", "os.set_inheritable", "os.posix_spawn", "os.posix_spawnp",
               "socket.SCM_RIGHTS", "multiprocessing.reduction", "numpy.ctypeslib",
               "numpy.lib.stride_tricks.as_strided",
               "joblib.load", "pandas.read_pickle", "pdb.run", "pdb.runeval", "pdb.runctx",
               "cProfile.run", "cProfile.runctx", "cProfile.Profile", "profile.run",
               "profile.runctx", "profile.Profile", "torch.ops.load_library",
               "torch.utils.cpp_extension", "IPython.core.interactiveshell",
               "IPython.InteractiveShell", "IPython.terminal")  # fmt: skip
# a module reached as another's attribute (`os.sys`, `torch.sys`) is that module
MODULE_ATTRIBUTES = ("sys", "gc", "inspect", "builtins", "importlib")
# timeit's statements: code when they are strings (a lambda or a function is fine)
TIMERS = ("timeit.timeit", "timeit.repeat", "timeit.Timer")
SEARCHED = ("sys", "gc", "inspect", "builtins")  # an attribute of these named at run time
INNER_ATTRIBUTES = ("f_back", "f_globals", "f_locals", "f_builtins", "tb_frame", "gi_frame",
                    "cr_frame", "ag_frame", "cell_contents", "__subclasses__", "__globals__",
                    "__closure__", "__code__", "__builtins__", "__self__",
                    "input_transformers_cleanup", "input_transformers_post", "ast_transformers",
                    "input_transformer_manager", "register_magic_function",
                    "register_magics", "_ip", "__reduce__", "__reduce_ex__",
                    "__array_interface__", "__array_struct__", "send_fds", "recv_fds",
                    "sendmsg", "recvmsg", "set_inheritable")  # fmt: skip
# (an object's shell or owner, raw memory through numpy's array protocol, files passed to
# another process: `grader.kernel.keep_wire`)
# the same named in a string (`globals()["__builtins__"]`, `attrgetter("sys.modules")`)
INNER_STRINGS = frozenset((*INNER_ATTRIBUTES, *INNER_NAMES, "get_ipython"))
# what IPython's own syntax (`%time`, `!ls`, `?`) makes of the shell: any other use is a reach
SHELL_CALLS = ("run_line_magic", "run_cell_magic", "system", "getoutput", "show_usage")
# magics that run or load code the cells do not show (a file, the history); `%config` unless
# it sets a value (`%config InlineBackend.figure_format = "retina"`). An extension a cell
# wrote cannot be imported (the kernel's `WrittenModules`), nor a file %%writefile wrote.
CODE_MAGICS = ("run", "load", "loadpy", "macro", "rerun", "recall", "alias_magic", "config",
               "debug", "edit")  # fmt: skip
# magics whose line holds options before the code (IPython's option letters; ":" takes a
# value), and which option's value is code too (timeit's -s setup)
CODE_OPTIONS = {"timeit": ("n:r:tcp:qos:", "s"), "prun": ("D:l:rs:T:q", ""), "time": ("", "")}
# what runs code from a string, and which of its arguments hold the code: the builtins by
# their own names (`torch.compile(model)`, `re.compile(p)` and `model.eval()` are not them),
# and the IPython shell's methods
BUILTIN_RUNNERS = ("exec", "eval", "compile")
RUNNERS = {"exec": (0,), "eval": (0,), "compile": (0,), "run_cell": (0,)}  # magics: `_magic_reach`


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """The dotted path an expression names through the cells' imports, or None."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, aliases)
        return None if base is None else f"{base}.{node.attr}"
    if isinstance(node, ast.Call) and _call_name(node.func) in ("__import__", "import_module"):
        return _folded(node.args[0]) if node.args else None
    return None


def _pythons_own(dotted: str | None) -> bool:
    """Whether a dotted path is in a module of Python's own library, which the grader's
    kernel runs on (its import guard: `os.path`, `pathlib`, `tokenize`): a cell that
    changes one is a reach; the course's packages' settings (`torch.backends`) are not."""
    return dotted is not None and dotted.split(".", 1)[0] in sys.stdlib_module_names


def _inner(dotted: str | None) -> bool:
    if dotted is None:
        return False
    parts = dotted.split(".")
    tails = [
        dotted,
        *(".".join(parts[i:]) for i, p in enumerate(parts) if i and p in MODULE_ATTRIBUTES),
    ]
    return any(
        tail.split(".", 1)[0] in INNER_MODULES
        or any(tail == n or tail.startswith(n + ".") for n in INNER_NAMES)
        for tail in tails
    )


def _reach(node: ast.AST, aliases: dict[str, str], depth: int, defs=frozenset()) -> list[str]:
    """What one syntax node reaches of the running process ([] for nothing); `defs`: the
    functions the cells define."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        module = node.module if isinstance(node, ast.ImportFrom) and not node.level else None
        named = [module] if _inner(module) else list(_import_bindings(node).values())
        return [f"imports {d}" for d in dict.fromkeys(named) if _inner(d)]
    if isinstance(node, ast.Attribute):
        if node.attr in INNER_ATTRIBUTES:
            return [f"reads .{node.attr}"]
        if not isinstance(node.ctx, ast.Load) and _pythons_own(_dotted(node.value, aliases)):
            return [f"changes {_dotted(node, aliases)}"]
        base = _dotted(node.value, aliases)
        if node.attr == "__dict__" and (base in SEARCHED or _pythons_own(base)):
            return [f"reads {base}.__dict__"]
        return [f"uses {d}" for d in [_dotted(node, aliases)] if _inner(d)]
    if isinstance(node, ast.Name) and node.id == "__builtins__":
        return ["uses __builtins__"]
    if isinstance(node, ast.Name) and node.id in INNER_ATTRIBUTES:
        return [f"names {node.id}"]
    if isinstance(node, ast.Constant) and node.value in INNER_STRINGS:
        return [f"names {node.value} in a string"]
    return _call_reach(node, aliases, depth, defs) if isinstance(node, ast.Call) else []


def _call_reach(node: ast.Call, aliases: dict[str, str], depth: int, defs) -> list[str]:
    """What a call reaches of the running process (`_reach`)."""
    name, args = _call_name(node.func), node.args
    if name in ("exec", "eval") and not isinstance(node.func, ast.Name) and args:
        code = _folded(args[0])  # `model.eval()` takes no code; `x.exec(code)` runs it
        if code is None:
            return [f"runs code built at run time (.{name})"]
        return _reaches_in(code, aliases, depth + 1) if depth < 3 else []
    if name in BUILTIN_RUNNERS and not isinstance(node.func, ast.Name):
        name = ""  # a method or another module's function of that name
    if name in ("__import__", "import_module") and args:
        module = _folded(args[0])
        if module is None:
            return ["imports a module named at run time"]
        return [f"imports {module}"] if _inner(module) else []
    if (
        name == "vars"
        and args
        and (_dotted(args[0], aliases) in SEARCHED or _pythons_own(_dotted(args[0], aliases)))
    ):
        return [f"reads vars({_dotted(args[0], aliases)})"]
    if name in ("getattr", "setattr", "delattr", "hasattr") and len(args) >= 2:
        attr, base = _folded(args[1]), _dotted(args[0], aliases)
        if name in ("setattr", "delattr") and _pythons_own(base):
            return [f"{name}({base}, ...)"]
        if attr in INNER_ATTRIBUTES or (attr is not None and _inner(f"{base}.{attr}")):
            return [f"{name}(..., {attr!r})"]
        computed = attr is None and (_inner(base) or base in SEARCHED)
        return [f"{name} of {base} named at run time"] if computed else []
    return _code_reach(node, name, aliases, depth, defs)


def _code_reach(node: ast.Call, name: str, aliases: dict[str, str], depth: int, defs) -> list[str]:
    """What a call that runs code reaches: a magic, an unpickler, timeit, exec and the like."""
    args = node.args
    if name in ("run_line_magic", "run_cell_magic") and args:
        return _magic_reach(name, args, aliases, depth)
    if any(
        (k.arg == "weights_only" and _falsy(k.value))
        or (k.arg == "allow_pickle" and not _falsy(k.value))
        for k in node.keywords
    ):
        return ["loads a pickle, which may run code (weights_only=False, allow_pickle=True)"]
    if any(k.arg == "pass_fds" for k in node.keywords):
        return ["hands open files to another program (pass_fds)"]
    if _dotted(node.func, aliases) in TIMERS:
        stmts = [*args[:2], *(k.value for k in node.keywords if k.arg in ("stmt", "setup"))]
        own = [a for a in stmts if isinstance(a, ast.Lambda | ast.Constant)
               or (isinstance(a, ast.Name) and a.id in defs)]  # fmt: skip
        if len(own) < len(stmts):
            return ["times a statement that is not a lambda or a string (timeit)"]
        texts = [c for a in stmts if (c := _folded(a)) and depth < 3]
        return [r for c in texts for r in _reaches_in(c, aliases, depth + 1)]
    if name in RUNNERS:
        codes = [_folded(args[i]) for i in RUNNERS[name] if i < len(args)]
        if any(c is None for c in codes):
            return [f"runs code built at run time ({name})"]
        return [r for c in codes if c and depth < 3 for r in _reaches_in(c, aliases, depth + 1)]
    return []


def _magic_reach(name: str, args: list, aliases: dict[str, str], depth: int) -> list[str]:
    """What a magic reaches: one that runs code the cells do not show; the code of one that
    runs its line or cell (`%timeit -n1 stmt`, `%%time`), which must be readable, options
    aside; the line or cell of any other where it reads as Python."""
    magic, line = _folded(args[0]), _folded(args[1]) if len(args) > 1 else ""
    body = _folded(args[2]) if name == "run_cell_magic" and len(args) > 2 else ""
    if magic is None or line is None or body is None:
        return ["runs a magic built at run time"]
    if magic in CODE_MAGICS and not (magic == "config" and _a_setting(line)):
        return [f"runs code the cells do not show (%{magic})"]
    strict = magic in CODE_OPTIONS or magic == "capture"
    codes = [line] if name == "run_line_magic" else [body]
    if magic in CODE_OPTIONS:
        statement, setups = _magic_code(magic, line)  # (a cell magic's line: setup code)
        codes = [*setups, statement] + ([body] if name == "run_cell_magic" else [])
    found = []
    for code in codes:
        if _parsed(code) is None:
            if strict:
                return [f"runs code the grader cannot read (%{magic})"]
        elif depth < 3:
            found += _reaches_in(code, aliases, depth + 1)
    return found


def _a_setting(line: str) -> bool:
    """Whether a `%config` line only shows or sets a value (`Class.trait = <a literal>`): the
    magic runs `cfg.<line>`, so any other line is code."""
    try:
        body = ast.parse("cfg." + line.strip()).body if line.strip() else []
    except (SyntaxError, ValueError):
        return False
    if not body:
        return True
    if len(body) > 1:
        return False
    if isinstance(body[0], ast.Expr):
        return isinstance(body[0].value, ast.Attribute)
    if not (isinstance(body[0], ast.Assign) and len(body[0].targets) == 1):
        return False
    try:
        ast.literal_eval(body[0].value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return isinstance(body[0].targets[0], ast.Attribute)


def _magic_code(magic: str, line: str) -> tuple[str, list[str]]:
    """A code magic's line as IPython reads it: its statement after the options, and the
    options' values that are code (timeit's -s setup)."""
    letters, code_option = CODE_OPTIONS[magic]
    takes = {c for i, c in enumerate(letters) if letters[i + 1 : i + 2] == ":"}
    rest, setups = line.lstrip(), []
    while rest.startswith("-") and (flags := re.match(r"-(\w+)\s*", rest)):
        rest = rest[flags.end() :]
        for i, letter in enumerate(flags[1]):
            if letter not in takes:
                continue
            value = flags[1][i + 1 :]
            if not value:
                quoted = re.match(r"(?:\"([^\"]*)\"|'([^']*)'|(\S+))\s*", rest)
                value = next((g for g in quoted.groups() if g is not None), "") if quoted else ""
                rest = rest[quoted.end() :] if quoted else rest
            if letter == code_option:
                setups.append(value)
            break
    return rest, setups


def _parse(source: str) -> tuple[ast.Module | None, bool]:
    """A cell's syntax tree, its IPython syntax (`%%time`, `!ls`) first made Python as the
    kernel makes it; None for a cell that is not Python, and whether that is a plain syntax
    error (one the kernel's compiler raises too), not nesting past the grader's parser (a
    kernel with a raised recursion limit reads that)."""
    plain = True
    for text in (source, None):
        try:
            if text is None:
                from IPython.core.inputtransformer2 import TransformerManager

                text = TransformerManager().transform_cell(source)
            return ast.parse(text), False
        except (SyntaxError, ValueError):
            continue
        except Exception:  # noqa: BLE001 - deep nesting, memory: not a plain syntax error
            plain = False
    return None, plain


def _parsed(source: str) -> ast.Module | None:
    return _parse(source)[0]


def not_python(source: str) -> bool:
    """Whether a cell is a plain syntax error, even made Python as IPython makes it (see
    `_parse`): the kernel could not compile it either, so it ran nothing."""
    return _parse(source)[1]


def _falsy(node: ast.AST) -> bool:
    return not (isinstance(node, ast.Constant) and node.value)


def _tree_reaches(
    tree: ast.AST, aliases: dict[str, str], depth: int, shadowed, defined: set | None = None
) -> list[str]:
    """What a cell's tree reaches of the running process; a builtin runner that is passed
    around instead of called (`run = eval`) too, unless the cells bind its name themselves."""
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    loose = [
        f"passes {n.id} around"
        for n in ast.walk(tree)
        if isinstance(n, ast.Name) and n.id in BUILTIN_RUNNERS
        and isinstance(n.ctx, ast.Load) and id(n) not in called and n.id not in shadowed
    ]  # fmt: skip
    defs = defined if defined is not None else set()  # (code built in a string: none)
    asked = {  # `"google.colab" in sys.modules` answers yes or no, and nothing else
        id(c)
        for n in ast.walk(tree)
        if isinstance(n, ast.Compare) and isinstance(n.left, ast.Constant)
        and all(isinstance(op, ast.In | ast.NotIn) for op in n.ops)
        for c in n.comparators if isinstance(c, ast.Attribute)
    }  # fmt: skip
    return (
        loose
        + _namespace_reaches(tree, shadowed)
        + [r for n in ast.walk(tree) if id(n) not in asked for r in _reach(n, aliases, depth, defs)]
    )


NAMESPACE_READS = ("get", "keys", "items", "values", "copy", "__contains__")
NAMESPACE_STORES = ("update", "setdefault", "__setitem__", "pop")
NAMESPACE_COPIES = ("print", "len", "sorted", "list", "dict", "set", "repr", "str", "type")


def _namespace_reaches(tree: ast.AST, shadowed) -> list[str]:
    """`globals()`, `locals()` or `vars()` used beyond a name written out: a store under a
    key built at run time (a signal handler or thread could rebind a graded name after the
    grader asked what it is), the namespace kept in a name or handed to a function. Reading
    it, a constant key, `"x" in globals()` and a copy (`dict(globals())`) are fine."""
    parents = {id(c): n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
    found = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("globals", "locals", "vars") and not node.args
            and node.func.id not in shadowed
        ):  # fmt: skip
            continue
        parent = parents.get(id(node))
        grand = parents.get(id(parent)) if parent is not None else None
        if isinstance(parent, ast.Subscript) and _const_str(parent.slice) is not None:
            continue
        if isinstance(parent, ast.Compare) and node in parent.comparators:
            continue
        if (
            isinstance(parent, ast.Call) and node in parent.args
            and isinstance(parent.func, ast.Name) and parent.func.id in NAMESPACE_COPIES
        ):  # fmt: skip
            continue
        if isinstance(parent, ast.Attribute) and isinstance(grand, ast.Call):
            if parent.attr in NAMESPACE_READS:
                continue
            if parent.attr in NAMESPACE_STORES and _constant_keys(grand):
                continue
        found.append(f"uses {node.func.id}() beyond a name written out")
    return found


def _constant_keys(call: ast.Call) -> bool:
    """Whether a namespace's `update`/`setdefault`/`__setitem__`/`pop` call names every key
    it stores in the code itself."""
    if any(k.arg is None for k in call.keywords):  # **mapping
        return False
    first = call.args[0] if call.args else None
    if isinstance(first, ast.Dict):
        return all(k is not None and _const_str(k) is not None for k in first.keys)
    return first is None or _const_str(first) is not None


def _shell_reaches(trees: list[ast.Module], aliases: dict[str, str]) -> list[tuple[int, str]]:
    """(cell, reach) for each use of the IPython shell beyond what IPython's syntax makes of
    it (`SHELL_CALLS`), across the cells: `get_ipython()` (or an alias of it) called, or kept
    in a name, for anything else; `get_ipython().__class__.__name__` is fine."""
    getters = {"get_ipython"} | {k for k, v in aliases.items() if v.endswith(".get_ipython")}
    walked = [(cell, n) for cell, tree in enumerate(trees, 1) for n in ast.walk(tree)]
    called = {id(n.func) for _, n in walked if isinstance(n, ast.Call)}
    shells = {
        id(n) for _, n in walked if isinstance(n, ast.Call) and (_call_name(n.func) in getters)
    }
    kept = [n for _, n in walked if isinstance(n, ast.Assign) and id(n.value) in shells]
    holders = {t.id for n in kept for t in n.targets if isinstance(t, ast.Name)}
    fine = {id(n.value) for n in kept if all(isinstance(t, ast.Name) for t in n.targets)}
    for _, n in walked:
        if isinstance(n, ast.Attribute) and n.attr in SHELL_CALLS:
            fine.add(id(n.value))
        elif isinstance(n, ast.Attribute) and n.attr == "__name__":
            if isinstance(n.value, ast.Attribute) and n.value.attr == "__class__":
                fine.add(id(n.value.value))
    return [
        (cell, "uses the IPython shell")
        for cell, n in walked
        if id(n) not in fine
        and (
            id(n) in shells
            or (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in holders)
            or (isinstance(n, ast.Name) and n.id in getters and id(n) not in called
                and isinstance(n.ctx, ast.Load))
        )
    ]  # fmt: skip


def _bound_names(trees: list[ast.Module]) -> set[str]:
    """The names the cells bind to values of their own: defined, arguments, or assigned
    from an expression that names no runner (`eval = evaluate(m, b)`; not `eval = eval`)."""
    found = set()
    runners = (*BUILTIN_RUNNERS, "get_ipython")
    for tree in trees:
        for n in ast.walk(tree):
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                found.add(n.name)
            elif isinstance(n, ast.arg):
                found.add(n.arg)
            elif isinstance(n, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.NamedExpr):
                value = n.value or ast.Constant(None)
                if not any(isinstance(v, ast.Name) and v.id in runners for v in ast.walk(value)):
                    targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                    found |= {
                        t.id
                        for a in targets
                        for t in ast.walk(a)
                        if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)
                    }  # (not `globals` in `globals()[k] = v`)
    return found


def _reaches_in(source: str, aliases: dict[str, str], depth: int = 0) -> list[str]:
    tree = _parsed(source)
    if tree is None:
        return []
    shell = [reach for _, reach in _shell_reaches([tree], aliases)]
    return shell + _tree_reaches(tree, aliases, depth, _bound_names([tree]))


_EMPTY = ast.Module(body=[], type_ignores=[])


def process_reaches(sources: list[str], files: dict[str, str] | None = None) -> list[str]:
    """Where the cells reach into the running process instead of computing an answer (see
    INNER_MODULES, INNER_NAMES, INNER_ATTRIBUTES): the grader's or ctypes' modules,
    `sys.modules`, frames, functions' insides, the IPython shell beyond its syntax, code an
    `exec`, a magic or an unpickler runs that the cells do not show (a constant string's code
    is read as a cell's), and a cell the grader cannot read. One line each, naming the cell.
    `files`: the student's own modules (`own_code`), which the kernel imports: each is read
    as a cell is, imported or not (how a cell imports one need not show)."""
    files = files or {}
    if sum(len(s) for s in [*sources, *files.values()]) > SOURCE_LIMIT:
        return ["more code than the grader reads"]
    try:
        return _process_reaches(sources, files)
    except RecursionError:
        return ["code nested too deeply for the grader to read"]


def _process_reaches(sources: list[str], files: dict[str, str]) -> list[str]:
    # each cell parsed once (a cell the kernel could not compile either ran nothing: the run
    # gives it as ""); a module file as the kernel compiles it, plain Python
    parsed = [_parsed(source) for source in sources] + [_file_tree(t) for t in files.values()]
    labels = [f"cell {n}" for n in range(1, len(sources) + 1)]
    labels += [f"your own file {name!a}" for name in files]
    unread = [
        f"{labels[n]} holds code the grader cannot read" for n, t in enumerate(parsed) if t is None
    ]
    trees: list[ast.Module] = [t or _EMPTY for t in parsed]
    trees[len(sources) :] = [_imported_part(t) for t in trees[len(sources) :]]
    bound: dict[str, list[str]] = {}  # an import in any cell or file, a function's too, names
    for tree in trees:  # a module everywhere; a name bound to several is read with each
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for name, dotted in _import_bindings(node).items():
                    modules = bound.setdefault(name, [])
                    if dotted not in modules:
                        modules.append(dotted)
    first = {name: modules[0] for name, modules in bound.items()}
    for tree in trees:  # a module kept in a name (`p = os.path`) is that module
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute | ast.Name):
                kept = _dotted(node.value, first)
                for target in node.targets if kept else []:
                    if isinstance(target, ast.Name) and kept not in bound.get(target.id, []):
                        bound.setdefault(target.id, []).append(str(kept))
    many = [
        f"binds {n} to more modules than the grader reads" for n, v in bound.items() if len(v) > 8
    ]
    shadowed = _bound_names(trees)
    walked = [n for t in trees for n in ast.walk(t)]
    stored = {n.id for n in walked if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    defs = {n.name for n in walked if isinstance(n, ast.FunctionDef)} - stored
    found = unread + many[:1]
    for turn in range(min(8, max((len(v) for v in bound.values()), default=1))):
        aliases = {name: modules[min(turn, len(modules) - 1)] for name, modules in bound.items()}
        found += [f"{labels[n - 1]} {reach}" for n, reach in _shell_reaches(trees, aliases)]
        found += [
            f"{labels[number - 1]} {reach}"
            for number, tree in enumerate(trees, 1)
            for reach in _tree_reaches(tree, aliases, 0, shadowed, defs)
        ]
    return list(dict.fromkeys(found))[:10]


def _imported_part(tree: ast.Module) -> ast.Module:
    """What importing a module file runs: its `if __name__ == "__main__":` block left out
    (a script's test code), unless the file binds `__name__` itself."""
    if any(isinstance(n, ast.Name) and n.id == "__name__" and not isinstance(n.ctx, ast.Load)
           for n in ast.walk(tree)):  # fmt: skip
        return tree
    kept = [s for s in tree.body if not _main_guard(s)]
    return tree if len(kept) == len(tree.body) else ast.Module(body=kept, type_ignores=[])


def _main_guard(stmt: ast.stmt) -> bool:
    test = stmt.test if isinstance(stmt, ast.If) and not stmt.orelse else None
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name) and test.left.id == "__name__"
        and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )  # fmt: skip


def own_code(files: dict[str, bytes]) -> dict[str, str]:
    """The student's own modules (name -> bytes, the `.py` files among their files), as the
    kernel reads them (`grader.kernel.utf8_source`): UTF-8 text, or left out where it is not
    (the kernel refuses to import them). At most SOURCE_LIMIT characters and one more are
    kept (more is charged as more code than the grader reads)."""
    from grader.kernel import utf8_source

    texts, total = {}, 0
    for name, data in files.items():
        text = utf8_source(data) if name.endswith(".py") else None
        if text is not None and total <= SOURCE_LIMIT:
            texts[name] = text[: SOURCE_LIMIT + 1 - total]
            total += len(texts[name])
    return texts
