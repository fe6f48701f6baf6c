"""What crosses between the grader and a student's sandboxed kernel: plain data, never pickle.

Frames are an 8-byte big-endian length and a JSON document. Values are JSON with tagged
objects for arrays (`{"__nd__": ...}`: dtype, shape, base64 bytes), torch tensors
(`{"__torch__": ...}`), tuples and non-string-keyed dicts. Only numeric, boolean and string
dtypes are accepted, depth and size are bounded, so whatever a hostile kernel sends decodes
to inert data or to a `WireError`. This module runs on both sides: inside the sandbox it
imports nothing but the standard library and numpy (torch only when a tensor appears).
"""

from __future__ import annotations

import base64
import json
import os
import select
import struct
import time

MAX_FRAME = 64 * 1024 * 1024
MAX_DEPTH = 24
_DTYPE_KINDS = "biufc"


class WireError(Exception):
    """A frame or value that does not follow the protocol."""


class Unsendable(TypeError):
    """A value that has no plain-data form (a function, a module, an arbitrary object)."""


# -- values -------------------------------------------------------------------------------
def encode(value, depth: int = 0):
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
        return {"__tuple__": [encode(v, depth + 1) for v in value]}
    if isinstance(value, list):
        return [encode(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {"__dict__": [[encode(k, depth + 1), encode(v, depth + 1)]
                             for k, v in value.items()]}
    module = type(value).__module__ or ""
    if module.startswith("torch") and hasattr(value, "detach"):
        arr = value.detach().to("cpu").numpy()
        return {"__torch__": _array_fields(arr),
                "requires_grad": bool(getattr(value, "requires_grad", False))}
    if module == "numpy":
        import numpy as np

        if isinstance(value, np.ndarray | np.generic):
            arr = np.asarray(value)
            if arr.dtype.kind not in _DTYPE_KINDS:
                raise Unsendable(f"numpy array of dtype {arr.dtype}")
            return {"__nd__": _array_fields(arr)}
    raise Unsendable(f"an object of type {type(value).__name__}")


def _array_fields(arr) -> dict:
    import numpy as np

    arr = np.ascontiguousarray(arr)
    if arr.dtype.kind not in _DTYPE_KINDS:
        raise Unsendable(f"array of dtype {arr.dtype}")
    return {"dtype": arr.dtype.str, "shape": list(arr.shape),
            "data": base64.b64encode(arr.tobytes()).decode("ascii")}


def decode(value, depth: int = 0):
    if depth > MAX_DEPTH:
        raise WireError("value nested too deeply")
    if value is None or isinstance(value, bool | str | int | float):
        return value
    if isinstance(value, list):
        return [decode(v, depth + 1) for v in value]
    if not isinstance(value, dict) or len(value) > 2:
        raise WireError(f"unexpected value {type(value).__name__}")
    if "__tuple__" in value:
        return tuple(decode(v, depth + 1) for v in _list(value["__tuple__"]))
    if "__dict__" in value:
        return {_hashable(decode(k, depth + 1)): decode(v, depth + 1)
                for k, v in (_pair(p) for p in _list(value["__dict__"]))}
    if "__complex__" in value:
        re, im = _list(value["__complex__"])
        return complex(float(re), float(im))
    if "__bigint__" in value:
        return int(str(value["__bigint__"])[:5000])
    if "__nd__" in value:
        return _array(value["__nd__"])
    if "__torch__" in value:
        import torch

        tensor = torch.from_numpy(_array(value["__torch__"]))
        if value.get("requires_grad") is True and tensor.dtype.is_floating_point:
            tensor.requires_grad_(True)
        return tensor
    raise WireError(f"unknown tag {sorted(value)}")


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
    if any(n < 0 for n in shape):
        raise WireError("negative dimension")
    raw = base64.b64decode(str(fields.get("data")), validate=True)
    count = 1
    for n in shape:
        count *= n
    if count * dtype.itemsize != len(raw):
        raise WireError("array data does not match its shape")
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


# -- frames -------------------------------------------------------------------------------
def write_frame(fd: int, message: dict) -> None:
    body = json.dumps(message, allow_nan=True).encode("utf-8")
    if len(body) > MAX_FRAME:
        raise Unsendable(f"message of {len(body)} bytes exceeds {MAX_FRAME}")
    data = struct.pack(">Q", len(body)) + body
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def read_frame(fd: int, deadline: float | None = None) -> dict:
    """Read one frame; WireError on end of stream, oversize or junk; TimeoutError at deadline."""
    (length,) = struct.unpack(">Q", _read_exact(fd, 8, deadline))
    if length > MAX_FRAME:
        raise WireError(f"frame of {length} bytes exceeds the {MAX_FRAME}-byte limit")
    try:
        message = json.loads(_read_exact(fd, length, deadline))
    except ValueError as err:
        raise WireError(f"frame is not JSON: {err}") from err
    if not isinstance(message, dict):
        raise WireError("frame is not an object")
    return message


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
