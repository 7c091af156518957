"""Python backends: the @accucheck.backend decorator, the table of registered backends, and the
one conversion between accucheck's raw values and the arrays a backend function sees (NumPy
arrays, or torch tensors for arrays="torch": _numpy_arrays.py and _torch_arrays.py).

Pure Python (no extension needed, no numpy imported here): the CLI's Python worker
(accucheck._worker, in whatever interpreter the user runs) calls run_dense/run_sparse/run_product
on arrays in shared memory, and the extension (accucheck._accucheck) calls the same functions
in-process through _call_dense/_call_sparse/_call_product, so both paths hand a backend the same
arrays and judge its result by the same rules.
"""
from __future__ import annotations

import importlib
import inspect
import os
import re
import signal
import threading
import traceback
from dataclasses import dataclass, field
from typing import Callable, Optional

# The plugin ABI's codes (accucheck/plugin.h).
FORMAT_CODES = {"f64": 0, "f32": 1, "f16": 2, "bf16": 3}
# Every spelling of a determinism class -> its canonical name: the short ones, and the names that
# `accucheck list` prints and DESIGN.md speaks (with '-' or '_').
DETERMINISM_NAMES = {}
for _canonical, _spellings in (("deterministic", ("deterministic", "bitwise-deterministic")),
                               ("order_independent", ("order-independent",)),
                               ("nondeterministic", ("nondeterministic", "run-to-run-nondeterministic"))):
    for _spelling in _spellings + (_canonical,):
        DETERMINISM_NAMES[_spelling] = DETERMINISM_NAMES[_spelling.replace("-", "_")] = _canonical
DETERMINISM_CODES = {"deterministic": 0, "order_independent": 1, "nondeterministic": 2}
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
# What a backend's function is given and returns: the module that makes and checks those arrays.
ARRAY_MODULES = {"numpy": "._numpy_arrays", "torch": "._torch_arrays"}


@dataclass
class PythonBackend:
    name: str
    storage: str
    accumulation: str
    bound: str
    determinism: str
    kind: str  # "dense", "sparse" or "product"
    fn: Callable
    summary: str
    origin: str  # the file that defined it ("" when unknown)
    bits: bool = False
    fp8_inputs: bool = False  # FP8 gradients as FP8 arrays (else as values of the storage dtype)
    arrays: str = "numpy"  # a key of ARRAY_MODULES
    index: int = field(default=-1)

    def metadata(self):
        return (self.name, self.storage, self.accumulation, self.bound, self.determinism, self.kind, self.bits,
                self.fp8_inputs, self.arrays)


def arrays_of(b: PythonBackend):
    """The array module of `b` (imported on first use: an interpreter without numpy can run
    backends of arrays="torch")."""
    return importlib.import_module(ARRAY_MODULES[b.arrays], __package__)


_registered: list[PythonBackend] = []
_by_name: dict[str, PythonBackend] = {}
# Set by the package (accucheck/__init__.py) to the extension's check of a new backend; None in
# the CLI's loader, whose own validation (core's plugin loader) names the file and the field.
validate: Optional[Callable[[PythonBackend], None]] = None


def registered() -> list[PythonBackend]:
    """Every backend registered with @accucheck.backend in this process, in registration order."""
    return list(_registered)


def _origin_of(fn) -> str:
    try:
        path = inspect.getsourcefile(fn) or inspect.getfile(fn)
    except TypeError:
        return ""
    return os.path.abspath(path) if path and os.path.exists(path) else ""


_KIND_BY_ARITY = {2: "dense", 3: "product", 4: "sparse"}


def _kind_of(fn) -> str:
    try:
        count = len([p for p in inspect.signature(fn).parameters.values()
                     if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
    except (TypeError, ValueError):
        count = 2
    if count in _KIND_BY_ARITY:
        return _KIND_BY_ARITY[count]
    raise ValueError(f"{getattr(fn, '__name__', fn)}: a backend function takes (addends, buffer) for dense workloads, "
                     "(a, b, c) for product (GEMM) workloads or (table, step_offsets, rows, values) for sparse ones; "
                     f"it takes {count} arguments (pass kind=...)")


def backend(name: Optional[str] = None, *, storage: str, bound: str, accumulation: Optional[str] = None,
            determinism: str = "deterministic", kind: Optional[str] = None, summary: str = "", bits: bool = False,
            fp8_inputs: bool = False, arrays: str = "numpy"):
    """Registers the decorated function as an accucheck backend.

    Dense (kind "dense", a function of two arguments): fn(addends, buffer), addends of shape (T, D)
    and buffer of shape (D,) holding the initial gradient, both in the storage dtype; it adds the
    addends into the buffer ('add' semantics) and either updates `buffer` in place (returning None)
    or returns the result, an array of shape (D,) and the storage dtype.
    Sparse (four arguments): fn(table, step_offsets, rows, values): table (rows, dim) holds the
    initial gradient, step t owns pairs step_offsets[t]..step_offsets[t+1]-1 (int64), rows[q]
    (int64) is pair q's row and values[q] its dim-vector; it returns (or updates) the table.
    Product (three arguments, GEMM with beta = 1): fn(a, b, c): a (steps, rows, batch), b (steps,
    batch, cols), c (rows, cols) holding the initial C; it adds every a[t] @ b[t] into c and returns
    (or updates) it: the products enter the running C as the backend's arithmetic has them.
    Storage dtypes: float64, float32, float16, ml_dtypes.bfloat16; bits=True gives f16 and bf16 as
    uint16 bit patterns instead (and takes them back). fp8_inputs=True gives FP8 gradients (dense
    addends, sparse values, product A and B of E4M3 or E5M2 workloads) as ml_dtypes.float8_e4m3fn /
    float8_e5m2 arrays (uint8 with bits=True) instead of values of the storage dtype.
    arrays="torch": every array above is a CPU torch.Tensor instead (torch.float64, float32,
    float16, bfloat16; int16 bit patterns with bits=True; torch.float8_e4m3fn / float8_e5m2; the
    sparse offsets and rows int64), and the result a tensor of the storage dtype on any device:
    no numpy needed, for a GPU machine's own PyTorch (docs/python.md).
    `bound` is a bound expression (docs/bounds.md), `determinism` a class as `accucheck list` prints
    it (bitwise-deterministic, order-independent, run-to-run-nondeterministic) or deterministic,
    order_independent, nondeterministic.
    """
    if storage not in FORMAT_CODES:
        raise ValueError(f"storage '{storage}' is not a format (f64, f32, f16, bf16)")
    accumulation = accumulation or storage
    if accumulation not in FORMAT_CODES:
        raise ValueError(f"accumulation '{accumulation}' is not a format (f64, f32, f16, bf16)")
    if determinism not in DETERMINISM_NAMES:
        raise ValueError(f"determinism '{determinism}' is not a class (bitwise-deterministic, order-independent, "
                         "run-to-run-nondeterministic, as `accucheck list` prints them; or deterministic, "
                         "order_independent, nondeterministic)")
    if not isinstance(bound, str) or not bound:
        raise ValueError("bound: a bound expression is required, e.g. 'recursive(f32)' (docs/bounds.md)")
    if arrays not in ARRAY_MODULES:
        raise ValueError(f"arrays '{arrays}' is not one of {', '.join(ARRAY_MODULES)}")

    def decorate(fn):
        backend_name = name or fn.__name__
        if not _NAME.match(backend_name):
            raise ValueError(f"backend name '{backend_name}' is invalid (1 to 128 letters, digits, '_', '-', '.', "
                             "not starting with '.' or '-')")
        backend_kind = kind or _kind_of(fn)
        if backend_kind not in ("dense", "sparse", "product"):
            raise ValueError(f"kind '{backend_kind}' is not dense, sparse or product")
        b = PythonBackend(backend_name, storage, accumulation, bound, DETERMINISM_NAMES[determinism], backend_kind, fn,
                          summary or (inspect.getdoc(fn) or "").split("\n")[0] or f"Python function {fn.__qualname__}",
                          _origin_of(fn), bits, bool(fp8_inputs), arrays)
        if validate is not None:  # the extension's checks: the bound parses, the name is no built-in's
            validate(b)
        old = _by_name.get(backend_name)
        if old is not None:
            # A module imported again (pytest, a notebook cell run twice) defines the same backend:
            # the new function replaces the old one; anything else is a second backend of one name.
            if old.metadata() != b.metadata():
                raise ValueError(f"backend '{backend_name}' is already registered with other settings "
                                 f"(from {old.origin or 'an unknown file'})")
            old.fn, old.summary = fn, b.summary
        else:
            b.index = len(_registered)
            _registered.append(b)
            _by_name[backend_name] = b
        fn.accucheck_name = backend_name
        return fn

    return decorate


class BackendFailure(Exception):
    """What a backend did wrong (raised, wrong shape or dtype, timed out): accucheck records it as
    that backend's failure (verdict backend_failed) with the case saved."""


# In-process calls (the extension) end after this many seconds of Python code (SIGALRM in the
# main thread); None: no limit. The plugin worker has its own time-out (ACCUCHECK_PLUGIN_TIMEOUT).
call_timeout: Optional[float] = None


class _Timeout(BaseException):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _where(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    frames = [f for f in frames if not f.filename.endswith("_backends.py")] or frames
    if not frames:
        return ""
    f = frames[-1]
    return f" (at {f.filename}:{f.lineno}, in {f.name})"


def _invoke(b: PythonBackend, *args):
    timed = call_timeout is not None and threading.current_thread() is threading.main_thread()
    if timed:
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, call_timeout)
    try:
        return b.fn(*args)
    except _Timeout:
        raise BackendFailure(f"{b.name}: timed out after {call_timeout:g} s (ACCUCHECK_PLUGIN_TIMEOUT sets the limit)") from None
    except (KeyboardInterrupt, MemoryError):  # a MemoryError: the worker names its memory limit
        raise
    except Exception as e:  # the backend's own error: its failure, not accucheck's
        raise BackendFailure(f"{b.name} raised {type(e).__name__}: {e}{_where(e)}") from None
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


# The backend's call on arrays it may change (copies, or shared memory refilled for every call);
# `result` is what it updates in place. Returns its result checked: the storage dtype and shape.
def run_dense(b: PythonBackend, addends, buffer):
    returned = _invoke(b, addends, buffer)
    return arrays_of(b).result_array(b, buffer if returned is None else returned, buffer.shape, buffer.dtype)


def run_sparse(b: PythonBackend, table, step_offsets, rows, values):
    returned = _invoke(b, table, step_offsets, rows, values)
    return arrays_of(b).result_array(b, table if returned is None else returned, table.shape, table.dtype)


def run_product(b: PythonBackend, a, b_matrix, c):
    returned = _invoke(b, a, b_matrix, c)
    return arrays_of(b).result_array(b, c if returned is None else returned, c.shape, c.dtype)


def _call_dense(index: int, steps: int, elements: int, addends: bytes, initial: bytes) -> bytes:
    b = _registered[index]
    arrays = arrays_of(b)
    dtype = arrays.storage_dtype(b.storage, b.bits)
    addend_array = arrays.from_bytes(addends, dtype, (steps, elements))
    return arrays.to_bytes(run_dense(b, addend_array, arrays.from_bytes(initial, dtype, (elements,))))


def _call_sparse(index: int, rows: int, dim: int, steps: int, step_offsets: bytes, row_index: bytes, values: bytes,
                 initial: bytes) -> bytes:
    b = _registered[index]
    arrays = arrays_of(b)
    dtype = arrays.storage_dtype(b.storage, b.bits)
    offsets = arrays.as_int64(arrays.from_bytes(step_offsets, arrays.UINT64, (steps + 1,)))
    pairs = len(row_index) // 4
    pair_rows = arrays.as_int64(arrays.from_bytes(row_index, arrays.UINT32, (pairs,)))
    table = arrays.from_bytes(initial, dtype, (rows, dim))
    return arrays.to_bytes(run_sparse(b, table, offsets, pair_rows, arrays.from_bytes(values, dtype, (pairs, dim))))


def _call_product(index: int, rows: int, cols: int, batch: int, steps: int, a: bytes, b_bytes: bytes,
                  initial: bytes) -> bytes:
    b = _registered[index]
    arrays = arrays_of(b)
    dtype = arrays.storage_dtype(b.storage, b.bits)
    a_array = arrays.from_bytes(a, dtype, (steps, rows, batch))
    b_array = arrays.from_bytes(b_bytes, dtype, (steps, batch, cols))
    c = arrays.from_bytes(initial, dtype, (rows, cols))
    return arrays.to_bytes(run_product(b, a_array, b_array, c))


def _load_file(path: str) -> list[PythonBackend]:
    """Runs a user's Python file (the CLI's --python FILE.py) and returns the backends it registered."""
    import importlib.util
    import sys

    before = len(_registered)
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in sys.path:
        sys.path.insert(0, directory)  # its own imports of modules beside it
    module_name = "accucheck_user_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # its error, said in one line: the loader's message has room for little more
        raise BackendFailure(f"{path} raised {type(e).__name__}: {e}{_where(e)}") from None
    return [b for b in _registered[before:]]
