"""The arrays a backend of arrays="torch" sees: CPU tensors (bf16 and FP8 as torch's own dtypes),
for backend files that run where numpy is not installed (a GPU machine's own PyTorch: issue 47,
docs/python.md). The same names as _numpy_arrays.py; no numpy is imported."""
from __future__ import annotations

import ctypes
import math

import torch

from ._backends import BackendFailure

_STORAGE = {"f64": torch.float64, "f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
UINT32 = getattr(torch, "uint32", torch.int32)  # torch < 2.3: read as int32, then widened below
UINT64 = getattr(torch, "uint64", torch.int64)  # the CLI's offsets are < 2^63


def storage_dtype(fmt: str, bits: bool = False) -> torch.dtype:
    """torch.float64, float32, float16, bfloat16; int16 bit patterns for f16/bf16 when `bits`
    (torch.uint16 lacks most operations)."""
    if fmt not in _STORAGE:
        raise ValueError(f"unknown format '{fmt}' (f64, f32, f16, bf16)")
    return torch.int16 if bits and fmt in ("f16", "bf16") else _STORAGE[fmt]


def input_dtype(b, fmt: str) -> torch.dtype:
    """The storage dtype, or for e4m3/e5m2 (FP8 gradients, given as FP8 only to a backend with
    fp8_inputs) torch.float8_e4m3fn / float8_e5m2 (uint8 bit patterns with bits=True)."""
    if fmt not in ("e4m3", "e5m2"):
        return storage_dtype(fmt, b.bits)
    if b.bits:
        return torch.uint8
    name = "float8_e4m3fn" if fmt == "e4m3" else "float8_e5m2"
    if not hasattr(torch, name):
        raise BackendFailure(f"{b.name}: FP8 inputs need torch.{name} (PyTorch >= 2.1), or bits=True")
    return getattr(torch, name)


def view(memory, offset: int, dtype, shape) -> torch.Tensor:
    """The tensor of `shape` at `offset` in `memory` (the worker's shared region), not a copy."""
    count = math.prod(shape)
    if count == 0:  # torch.frombuffer refuses an empty view
        return torch.empty(shape, dtype=dtype)
    return torch.frombuffer(memory, dtype=dtype, count=count, offset=offset).reshape(shape)


def as_int64(a: torch.Tensor) -> torch.Tensor:
    if a.dtype == torch.int32:  # uint32 read as int32 (torch < 2.3): the bit pattern, unsigned
        return a.to(torch.int64) & 0xFFFFFFFF
    return a.to(torch.int64)


def result_array(b, result, expected_shape, dtype) -> torch.Tensor:
    """The backend's result as a contiguous CPU tensor of the storage dtype and the expected shape,
    or BackendFailure. A result on a GPU is copied back."""
    what = f"{b.name} returned"
    if not isinstance(result, torch.Tensor):
        raise BackendFailure(f"{what} {type(result).__name__}, not a torch.Tensor (the backend declared arrays='torch')")
    if result.dtype != dtype:
        raise BackendFailure(f"{what} dtype {result.dtype}, expected {dtype} (the storage format {b.storage}; "
                             "round to it explicitly)")
    if tuple(result.shape) != tuple(expected_shape):
        raise BackendFailure(f"{what} shape {tuple(result.shape)}, expected {tuple(expected_shape)}")
    return result.detach().to("cpu").contiguous()


def store(destination: torch.Tensor, computed: torch.Tensor) -> None:
    if computed.data_ptr() != destination.data_ptr():
        destination.copy_(computed)


def from_bytes(data: bytes, dtype, shape) -> torch.Tensor:
    """A writable copy of `data` as a tensor (the extension's in-process calls)."""
    if not data:
        return torch.empty(shape, dtype=dtype)
    return torch.frombuffer(bytearray(data), dtype=dtype).reshape(shape)


def to_bytes(t: torch.Tensor) -> bytes:
    t = t.contiguous()
    return ctypes.string_at(t.data_ptr(), t.numel() * t.element_size()) if t.numel() else b""
