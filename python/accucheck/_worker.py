"""The Python worker: runs a backend file for the accucheck CLI in the user's own interpreter.

`accucheck check --python FILE.py` starts this module with the interpreter ACCUCHECK_PYTHON names
(else `python3` on PATH): any CPython >= 3.9 with numpy, nothing compiled for it. The CLI
(core/plugins/python_worker.cpp) gives it a socket and a shared-memory file (a memfd) as file
descriptors, and the worker speaks protocol 1 (docs/python.md, "The worker protocol"):

* every message is a 4-byte little-endian length, then that many bytes of UTF-8 JSON;
* the worker's first message says hello: {"protocol": 1, "python", "numpy", "executable",
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
    that grew is replaced, never closed: a backend may still hold a view of the old one."""

    def __init__(self, fd: int, memory_limit: int):
        self._fd, self._memory_limit = fd, memory_limit
        self.map: mmap.mmap | None = None
        self.size = 0

    def ensure(self, size: int) -> None:
        if size <= self.size:
            return
        _unlimit_address_space()
        self.map = mmap.mmap(self._fd, size)
        self.size = size
        _limit_address_space(self._memory_limit)


def _address_space_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


def _limit_address_space(extra: int) -> None:
    """The address space may grow by `extra` bytes from here (RLIMIT_AS, soft), as the plugin
    worker's: a backend that allocates without bound fails with MemoryError, not the machine."""
    if extra <= 0:
        return
    try:
        import resource
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        ceiling = _address_space_bytes() + extra
        if hard != resource.RLIM_INFINITY:
            ceiling = min(ceiling, hard)
        resource.setrlimit(resource.RLIMIT_AS, (ceiling, hard))
    except (ImportError, ValueError, OSError):
        pass


def _unlimit_address_space() -> None:
    try:
        import resource
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
    except (ImportError, ValueError, OSError):
        pass


# ---- calls ------------------------------------------------------------------------------------

def _call(backends, request: dict, region: _Region):
    import numpy as np
    from . import _backends

    b = backends[request["backend"]]
    region.ensure(request["size"])
    memory = region.map
    storage = _backends.storage_dtype(b.storage, b.bits)

    def array(offset_key, dtype, shape):
        count = 1
        for n in shape:
            count *= n
        return np.frombuffer(memory, dtype=dtype, count=count, offset=request[offset_key]).reshape(shape)

    inputs = _backends.input_dtype(b, request["input_format"]) if b.fp8_inputs else storage
    kind = request["kind"]
    if kind == "dense":
        steps, elements = request["steps"], request["elements"]
        result = array("buffer_offset", storage, (elements,))
        computed = _backends.run_dense(b, array("inputs_offset", inputs, (steps, elements)), result)
    elif kind == "sparse":
        rows, dim, pairs = request["rows"], request["dim"], request["pairs"]
        result = array("buffer_offset", storage, (rows, dim))
        offsets = array("inputs_offset", np.uint64, (request["steps"] + 1,)).astype(np.int64)
        pair_rows = array("index_offset", np.uint32, (pairs,)).astype(np.int64)
        computed = _backends.run_sparse(b, result, offsets, pair_rows, array("values_offset", inputs, (pairs, dim)))
    elif kind == "product":
        rows, cols, batch, steps = request["rows"], request["cols"], request["batch"], request["steps"]
        b_inputs = _backends.input_dtype(b, request["b_input_format"]) if b.fp8_inputs else storage
        result = array("buffer_offset", storage, (rows, cols))
        computed = _backends.run_product(b, array("inputs_offset", inputs, (steps, rows, batch)),
                                         array("b_offset", b_inputs, (steps, batch, cols)), result)
    else:
        raise _backends.BackendFailure(f"{b.name}: the CLI asked for a '{kind}' call, which protocol {PROTOCOL} lacks")
    if computed is not result:
        result[...] = computed


def _versions() -> dict:
    versions = {"python": sys.version.split()[0], "executable": sys.executable}
    try:
        import numpy
        versions["numpy"] = numpy.__version__
    except ImportError:
        versions["numpy"] = None
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
    after = _fp_environment()
    sys.stdout.flush()
    sys.stderr.flush()
    hello.update(
        backends=[{"name": b.name, "storage": b.storage, "accumulation": b.accumulation, "bound": b.bound,
                   "determinism": b.determinism, "kind": b.kind, "fp8_inputs": b.fp8_inputs} for b in backends],
        fp_environment=after, fp_change=_describe_change(before, after))
    channel.send(hello)
    region = _Region(int(memfd), int(memory_limit))
    _limit_address_space(int(memory_limit))
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
