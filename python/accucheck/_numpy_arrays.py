"""The arrays a backend of arrays="numpy" (the default) sees: NumPy arrays, bf16 and FP8 through
ml-dtypes. One of the two array modules (_torch_arrays.py is the other) that _backends and the
worker call through the same names: storage_dtype, input_dtype, UINT32, UINT64, view, as_int64,
result_array, store, from_bytes, to_bytes."""
from __future__ import annotations

import math

import numpy as np

from ._backends import BackendFailure

try:  # PyPI ml-dtypes: NumPy's bfloat16
    import ml_dtypes

    _BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # bf16 backends then see uint16 bit patterns only
    ml_dtypes = None
    _BF16 = None

UINT32, UINT64 = np.dtype(np.uint32), np.dtype(np.uint64)


def storage_dtype(fmt: str, bits: bool = False) -> np.dtype:
    """The NumPy dtype a backend of storage `fmt` sees: float64, float32, float16, ml_dtypes.bfloat16
    (uint16 bit patterns for f16/bf16 when `bits`, or for bf16 when ml-dtypes is missing)."""
    if fmt == "f64":
        return np.dtype(np.float64)
    if fmt == "f32":
        return np.dtype(np.float32)
    if fmt == "f16":
        return np.dtype(np.uint16) if bits else np.dtype(np.float16)
    if fmt == "bf16":
        if bits or _BF16 is None:
            return np.dtype(np.uint16)
        return _BF16
    raise ValueError(f"unknown format '{fmt}' (f64, f32, f16, bf16)")


def input_dtype(b, fmt: str) -> np.dtype:
    """The dtype of inputs in `fmt`: the storage dtype, or for e4m3/e5m2 (FP8 gradients, given as FP8
    only to a backend with fp8_inputs) ml_dtypes' float8 types (uint8 bit patterns with bits=True)."""
    if fmt not in ("e4m3", "e5m2"):
        return storage_dtype(fmt, b.bits)
    if b.bits:
        return np.dtype(np.uint8)
    if ml_dtypes is None:
        raise BackendFailure(f"{b.name}: FP8 inputs need ml_dtypes in this interpreter (pip install ml-dtypes), or bits=True")
    return np.dtype(ml_dtypes.float8_e4m3fn if fmt == "e4m3" else ml_dtypes.float8_e5m2)


def view(memory, offset: int, dtype, shape) -> np.ndarray:
    """The array of `shape` at `offset` in `memory` (the worker's shared region), not a copy."""
    count = math.prod(shape)
    return np.frombuffer(memory, dtype=dtype, count=count, offset=offset).reshape(shape)


def as_int64(a: np.ndarray) -> np.ndarray:
    return a.astype(np.int64)


def result_array(b, result, expected_shape, dtype) -> np.ndarray:
    """The backend's result as an array of the storage dtype and the expected shape, or BackendFailure."""
    what = f"{b.name} returned"
    if hasattr(result, "detach") and hasattr(result, "numpy"):  # a torch tensor
        raise BackendFailure(f"{what} a {type(result).__module__}.{type(result).__name__}; return a NumPy array "
                             "(tensor.numpy(); bf16: tensor.view(torch.int16).numpy().view(ml_dtypes.bfloat16)), "
                             "or declare arrays='torch'")
    try:
        array = np.asarray(result)
    except Exception as e:
        raise BackendFailure(f"{what} {type(result).__name__}, not an array: {e}") from None
    if array.dtype != dtype:
        raise BackendFailure(f"{what} dtype {array.dtype}, expected {dtype} (the storage format {b.storage}; "
                             "round to it explicitly)")
    if array.shape != tuple(expected_shape):
        raise BackendFailure(f"{what} shape {array.shape}, expected {tuple(expected_shape)}")
    return np.ascontiguousarray(array)


def store(destination: np.ndarray, computed: np.ndarray) -> None:
    if computed is not destination:
        destination[...] = computed


def from_bytes(data: bytes, dtype, shape) -> np.ndarray:
    """A writable copy of `data` as an array (the extension's in-process calls)."""
    return np.frombuffer(data, dtype=dtype).reshape(shape).copy()


def to_bytes(a: np.ndarray) -> bytes:
    return a.tobytes()
