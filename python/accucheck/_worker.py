"""The Python worker: runs a backend file for the accucheck CLI in the user's own interpreter.

`accucheck check --python FILE.py` starts this module with the interpreter ACCUCHECK_PYTHON names
(else `python3` on PATH): any CPython >= 3.9 with numpy (or torch alone, for backends of
arrays="torch"), nothing compiled for it. The CLI
(core/plugins/python_worker.cpp) gives it a socket and a shared-memory file (a memfd) as file
descriptors, and the worker speaks protocol 1 (docs/python.md, "The worker protocol"):

* every message is a 4-byte little-endian length, then that many bytes of UTF-8 JSON;
* the worker's first message says hello: {"protocol": 1, "python", "numpy", "libraries", "executable",
  "backends": [...], "fp_environment", "fp_change"}, or {"protocol": 1, "error": "..."} when the
  file did not load;
* then, until the socket closes, one request at a time: {"op": "call", "seq", "backend", "kind",
  "size", offsets and shapes} -> {"seq", "ok": true} | {"seq", "failure": "..."} |
  {"seq", "fp_change": "..."}. The arrays lie in the shared memory at the offsets given: the
  result buffer (C, the table) is read back by the CLI after the answer.

What the backend does wrong is its own failure: a raise, a wrong shape or dtype is a "failure"
answer; a crash, an exit or a hang ends this process, which the CLI sees and reports. Output goes
to stdout/stderr, which the CLI captures; the protocol has its own socket. Calls run in the
floating-point environment that loading the file left (a fast-math extension's flush-to-zero is
what its users get), and one that a call changes is that call's failure.
"""
from __future__ import annotations

import json
import mmap
import os
import signal
import socket
import struct
import sys

PROTOCOL = 1
_MAX_MESSAGE = 16 << 20


# ---- the floating-point environment, seen from Python ---------------------------------------

def _fp_environment() -> dict:
    """What the process's floating-point arithmetic does now (flush-to-zero, denormals-are-zero,
    the rounding mode), measured by arithmetic on values read at run time (no constant folding)."""
    values = [float.fromhex(h) for h in ("0x1p-1074", "0x1p-1022", "0x1p-1", "0x1p-54", "0x1.8p-53")]
    tiny, min_normal, half, quarter_ulp, three_quarter_ulp = values
    one, zero = half + half, half - half
    environment = {
        "denormals_are_zero": tiny + zero == zero,      # a subnormal input read as 0
        "flush_to_zero": min_normal * half == zero,     # a subnormal result written as 0
    }
    if one + quarter_ulp > one:
        rounding = "upward"
    elif -one - quarter_ulp < -one:
        rounding = "downward"
    elif one + three_quarter_ulp == one:
        rounding = "toward zero"
    else:
        rounding = "to nearest"
    environment["rounding"] = rounding
    return environment


def _describe_change(before: dict, after: dict) -> str:
    changes = []
    for key, words in (("flush_to_zero", "flush-to-zero"), ("denormals_are_zero", "denormals-are-zero")):
        if before[key] != after[key]:
            changes.append(f"{words} switched {'on' if after[key] else 'off'}")
    if before["rounding"] != after["rounding"]:
        changes.append(f"rounding {before['rounding']} -> {after['rounding']}")
    return ", ".join(changes)


# ---- messages ---------------------------------------------------------------------------------

class _Channel:
    def __init__(self, fd: int):
        self._socket = socket.socket(fileno=fd)

    def send(self, message: dict) -> None:
        data = json.dumps(message).encode()
        self._socket.sendall(struct.pack("<I", len(data)) + data)

    def _exactly(self, n: int) -> bytes | None:
        chunks, left = [], n
        while left:
            chunk = self._socket.recv(left)
            if not chunk:
                return None
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def receive(self) -> dict | None:
        header = self._exactly(4)
        if header is None:
            return None
        (length,) = struct.unpack("<I", header)
        if length > _MAX_MESSAGE:
            return None
        body = self._exactly(length)
        return None if body is None else json.loads(body)


# ---- shared memory ----------------------------------------------------------------------------

class _Region:
    """The memfd the CLI fills for each call, mapped at least as large as the call needs. A mapping
    that grew is replaced, never closed: a backend may still hold a view of the old one. (A shared
    mapping: the memory limit below does not count it.)"""

    def __init__(self, fd: int):
        self._fd = fd
        self.map: mmap.mmap | None = None
        self.size = 0

    def ensure(self, size: int) -> None:
        if size <= self.size:
            return
        self.map = mmap.mmap(self._fd, size)
        self.size = size


def _data_bytes() -> int:
    """The process's private writable memory (VmData in /proc/self/status): what RLIMIT_DATA counts."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _limit_memory(extra: int) -> None:
    """The worker's private writable memory may grow by `extra` bytes from here (RLIMIT_DATA, soft;
    Linux counts every private writable mapping in it since 4.7): a backend that allocates without
    bound fails with MemoryError, not the machine. Not RLIMIT_AS, as the plugin worker's: address
    space reserved and never written (CUDA's start reserves tens of GiB, glibc 64 MiB per thread's
    arena) is no memory used, and counting it would fail CUDA's lazy start inside a call."""
    if extra <= 0:
        return
    try:
        import resource
        _, hard = resource.getrlimit(resource.RLIMIT_DATA)
        ceiling = _data_bytes() + extra
        if hard != resource.RLIM_INFINITY:
            ceiling = min(ceiling, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (ceiling, hard))
    except (ImportError, ValueError, OSError):
        pass


# ---- calls ------------------------------------------------------------------------------------

def _call(backends, request: dict, region: _Region):
    from . import _backends

    b = backends[request["backend"]]
    region.ensure(request["size"])
    arrays = _backends.arrays_of(b)  # NumPy arrays, or torch tensors (arrays="torch")

    def view(offset_key, dtype, shape):
        return arrays.view(region.map, request[offset_key], dtype, shape)

    storage = arrays.storage_dtype(b.storage, b.bits)
    inputs = arrays.input_dtype(b, request["input_format"]) if b.fp8_inputs else storage
    kind = request["kind"]
    if kind == "dense":
        steps, elements = request["steps"], request["elements"]
        result = view("buffer_offset", storage, (elements,))
        computed = _backends.run_dense(b, view("inputs_offset", inputs, (steps, elements)), result)
    elif kind == "sparse":
        rows, dim, pairs = request["rows"], request["dim"], request["pairs"]
        result = view("buffer_offset", storage, (rows, dim))
        offsets = arrays.as_int64(view("inputs_offset", arrays.UINT64, (request["steps"] + 1,)))
        pair_rows = arrays.as_int64(view("index_offset", arrays.UINT32, (pairs,)))
        computed = _backends.run_sparse(b, result, offsets, pair_rows, view("values_offset", inputs, (pairs, dim)))
    elif kind == "product":
        rows, cols, batch, steps = request["rows"], request["cols"], request["batch"], request["steps"]
        b_inputs = arrays.input_dtype(b, request["b_input_format"]) if b.fp8_inputs else storage
        result = view("buffer_offset", storage, (rows, cols))
        computed = _backends.run_product(b, view("inputs_offset", inputs, (steps, rows, batch)),
                                         view("b_offset", b_inputs, (steps, batch, cols)), result)
    else:
        raise _backends.BackendFailure(f"{b.name}: the CLI asked for a '{kind}' call, which protocol {PROTOCOL} lacks")
    arrays.store(result, computed)


def _missing_array_module(backends) -> str:
    """Why a loaded file's backends cannot be called here ("" when they can): a backend of
    arrays="numpy" in an interpreter without numpy, or of arrays="torch" without torch."""
    for b in backends:
        try:
            __import__(b.arrays)
        except ImportError as e:
            other = "torch" if b.arrays == "numpy" else "numpy"
            return (f"backend '{b.name}' takes {b.arrays} arrays (arrays='{b.arrays}') and this interpreter has no "
                    f"{b.arrays} ({e}): install it, or declare arrays='{other}'")
    return ""


def _start_cuda() -> str:
    """A file that imported torch on a machine with a GPU: CUDA starts now, before the memory limit
    applies and outside any call's time-out (its lazy start reserves a large address space and
    takes seconds). Returns what the hello says of torch: its version, CUDA's and the device."""
    torch = sys.modules.get("torch")
    if torch is None or not hasattr(torch, "cuda"):
        return ""
    text = f"torch {torch.__version__}"
    try:
        if torch.cuda.is_available():
            torch.empty(1, device="cuda")  # creates the context
            text += f" (CUDA {torch.version.cuda}, {torch.cuda.get_device_name()})"
    except Exception as e:  # noqa: BLE001 (a broken driver: the backends' calls will say so)
        text += f" (CUDA did not start: {type(e).__name__}: {e})"
    return text


def _versions() -> dict:
    versions = {"python": sys.version.split()[0], "executable": sys.executable}
    try:
        import numpy
        versions["numpy"] = numpy.__version__
    except ImportError:
        versions["numpy"] = None
    versions["libraries"] = f"numpy {versions['numpy']}" if versions["numpy"] else "no numpy"
    return versions


def main(argv: list[str]) -> int:
    """argv: protocol, socket fd, memfd, memory limit in bytes (0: none), the backend file."""
    protocol, socket_fd, memfd, memory_limit, path = argv
    channel = _Channel(int(socket_fd))
    hello = {"protocol": PROTOCOL, **_versions()}
    if int(protocol) != PROTOCOL:
        channel.send({**hello, "error": f"the CLI speaks worker protocol {protocol}, this package {PROTOCOL}: "
                                        "the CLI and the package come from different accucheck builds"})
        return 0
    # Ctrl-C reaches the whole process group: the CLI stops after its case and ends this worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        import faulthandler
        faulthandler.enable()  # a crash prints the Python stack, which the CLI shows in the failure
    except (ImportError, RuntimeError):
        pass
    before = _fp_environment()
    try:
        from . import _backends
        backends = _backends._load_file(path)
    except BaseException as e:  # noqa: BLE001 (its SystemExit, its ImportError: the file's failure)
        sys.stdout.flush()
        sys.stderr.flush()
        text = str(e) if type(e).__name__ == "BackendFailure" else f"{type(e).__name__}: {e}"
        if isinstance(e, SystemExit):
            text = f"exited (SystemExit {e.code!r}) while it ran"
        channel.send({**hello, "error": text})
        return 0
    missing = _missing_array_module(backends)
    if missing:
        channel.send({**hello, "error": missing})
        return 0
    torch_text = _start_cuda()
    if torch_text:
        hello["libraries"] += ", " + torch_text
    after = _fp_environment()
    sys.stdout.flush()
    sys.stderr.flush()
    hello.update(
        backends=[{"name": b.name, "storage": b.storage, "accumulation": b.accumulation, "bound": b.bound,
                   "determinism": b.determinism, "kind": b.kind, "fp8_inputs": b.fp8_inputs} for b in backends],
        fp_environment=after, fp_change=_describe_change(before, after))
    channel.send(hello)
    region = _Region(int(memfd))
    _limit_memory(int(memory_limit))
    while True:
        request = channel.receive()
        if request is None or request.get("op") != "call":
            return 0
        answer = {"seq": request["seq"]}
        try:
            _call(backends, request, region)
            answer["ok"] = True
        except _backends.BackendFailure as e:
            answer["failure"] = str(e)
        except MemoryError:
            answer["failure"] = (f"{backends[request['backend']].name} ran out of memory (MemoryError; a worker may grow "
                                 f"by {int(memory_limit) / 2**30:.3g} GiB: ACCUCHECK_PLUGIN_MEMORY sets the limit)")
        sys.stdout.flush()
        sys.stderr.flush()
        now = _fp_environment()
        if now != after:
            answer = {"seq": request["seq"], "fp_change": _describe_change(after, now)}
        channel.send(answer)
