"""PyTorch's torch.distributed.all_reduce with the gloo backend (CPU) as accucheck backends: a
world of P processes (gloo_worker.py), started at the first workload and kept. Element j's n terms
are dealt to the P ranks in contiguous shares (rank r: terms [r n / P, (r + 1) n / P)), each rank
sums its share in order in the dtype, then all_reduce(SUM) sums the partial gradients, as
data-parallel training does after gradient accumulation.

Bound tree(ranks:P,F): each share's chain, then any tree over the shares (gloo's ring, halving
and doubling or bcube: the order is not part of the API; docs/bounds.md, "All-reduce over
ranks"). Formats f64, f32, f16 and bf16 (PyTorch 1.13's gloo refused bfloat16: "Invalid scalar
type"; 2.15 takes it).

    accucheck check --python python/frameworks/torch_distributed_backends.py --minutes 0.5
"""
import atexit
import os
import select
import subprocess
import sys
import tempfile
from importlib.metadata import version

import ml_dtypes
import numpy as np

import accucheck
from derivation import derived_for

DERIVED = derived_for("torch", "2.15.0", version("torch"))  # torch itself runs in the ranks only

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gloo_worker.py")
CODES = {"f64": 0, "f32": 1, "f16": 2, "bf16": 3}
DTYPES = {"f64": np.float64, "f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}
TIMEOUT_SECONDS = 120


def python_executable():
    """The interpreter to start the ranks with: this one's (inside the CLI, sys.executable is the
    CLI itself; sys.prefix is still the interpreter's environment)."""
    for candidate in (sys.executable, os.path.join(sys.prefix, "bin", "python3")):
        if candidate and os.path.basename(candidate).startswith("python") and os.access(candidate, os.X_OK):
            return candidate
    return os.path.join(sys.prefix, "bin", "python3")


class World:
    """P gloo processes; rank 0 answers. Any failure stops the world (the next workload starts one)."""

    def __init__(self, ranks):
        self.ranks = ranks
        self.processes = []
        self.directory = None

    def start(self):
        self.directory = tempfile.mkdtemp(prefix="accucheck-gloo-")
        init_file = os.path.join(self.directory, "init")
        self.log = open(os.path.join(self.directory, "log"), "w+b")
        self.processes = [subprocess.Popen([python_executable(), WORKER, str(r), str(self.ranks), init_file],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log)
                          for r in range(self.ranks)]

    def stop(self):
        for p in self.processes:
            try:
                p.stdin.close()
            except OSError:
                pass
        for p in self.processes:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.processes = []

    def failure(self, what):
        self.log.seek(0)
        output = self.log.read().decode(errors="replace")[-600:]
        for p in self.processes:
            p.kill()
        self.stop()
        return RuntimeError(f"gloo world of {self.ranks}: {what}" + (f"; its output: {output}" if output else ""))

    def reduce(self, terms, fmt):
        """terms: (n, D) float64, the element's terms in order; returns D float64."""
        if not self.processes or any(p.poll() is not None for p in self.processes):
            self.stop()
            self.start()
        n, elements = terms.shape
        try:
            for r, p in enumerate(self.processes):
                share = terms[n * r // self.ranks:n * (r + 1) // self.ranks]
                p.stdin.write(np.array([elements, share.shape[0], CODES[fmt]], dtype=np.int64).tobytes())
                p.stdin.write(np.ascontiguousarray(share, dtype=np.float64).tobytes())
                p.stdin.flush()
        except OSError as e:
            raise self.failure(f"a rank is gone ({e})")
        out, wanted = b"", 8 * elements
        stdout = self.processes[0].stdout
        while len(out) < wanted:
            ready, _, _ = select.select([stdout], [], [], TIMEOUT_SECONDS)
            if not ready:
                raise self.failure("no answer in time")
            chunk = os.read(stdout.fileno(), wanted - len(out))
            if not chunk:
                raise self.failure("rank 0 ended")
            out += chunk
        return np.frombuffer(out, dtype=np.float64)


WORLDS = {}


@atexit.register
def _stop_worlds():
    for world in WORLDS.values():
        world.stop()


def _gloo(ranks, fmt):
    @accucheck.backend(name=f"torch.gloo_np{ranks}_{fmt}", storage=fmt, bound=f"tree(ranks:{ranks},{fmt})",
                       summary=f"torch.distributed.all_reduce(SUM), gloo, {ranks} processes, after each rank's own "
                               f"sum of its share{DERIVED}")
    def run(addends, buffer):
        world = WORLDS.setdefault(ranks, World(ranks))
        terms = np.concatenate([buffer[None, :], addends], axis=0).astype(np.float64)
        return world.reduce(terms, fmt).astype(DTYPES[fmt])


for _fmt in ("f64", "f32", "f16"):
    _gloo(2, _fmt)
for _ranks in (4, 8):
    _gloo(_ranks, "f32")
_gloo(4, "f16")
_gloo(2, "bf16")
_gloo(4, "bf16")
